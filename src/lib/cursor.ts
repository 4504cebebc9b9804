// The cursor of a list paged newest first: the (created_at, id) of the last entry given, opaque to
// clients (base64url of JSON), checked when it comes back.
import { invalidField } from './errors.ts';

export interface CursorKey {
  /** An ISO timestamp to the microsecond. */
  createdAt: string;
  id: string;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.createdAt, key.id])).toString('base64url');
}

// A timestamp as a cursor holds it, and a real one: JavaScript reads 2024-02-30 as March 1st,
// where PostgreSQL refuses it (a 500 if it reached the query).
function isExactTimestamp(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(text)) return false;
  const ms = Date.parse(text);
  return ms >= 0 && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19);
}

/** The key a cursor holds; a cursor that is not one of ours is a 400 naming `cursor`. */
export function decodeCursor(cursor: string): CursorKey {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    isExactTimestamp(value[0]) &&
    value[1].length > 0 &&
    value[1].length <= 64
  ) {
    return { createdAt: value[0], id: value[1] };
  }
  throw invalidField('cursor', 'is not a cursor this list gave');
}
