// The paging of a team's lists (its history of generations, its ledger, its webhook deliveries):
// `limit` and an opaque `cursor` (cursor.ts), newest first by (created_at, id), answered as
// {data, next_cursor}; and the created_after/created_before window they share.
import { type TSchema, Type } from 'typebox';
import { type CursorKey, decodeCursor, encodeCursor } from './cursor.ts';
import { invalidField } from './errors.ts';
import { type IdPrefix, looksLikeId } from './ids.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** The `limit` of a list whose pages hold `defaultSize` entries unless asked otherwise. */
export function pageLimitField(defaultSize: number) {
  return Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: defaultSize,
      description: `Entries per page (1-${MAX_PAGE_SIZE})`,
    }),
  );
}

/** The query parameters of a page and its time window (spread into a route's querystring schema). */
export const PageQueryFields = {
  limit: pageLimitField(DEFAULT_PAGE_SIZE),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The `next_cursor` of the page before; absent for the first page',
    }),
  ),
  created_after: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only entries created strictly after this time (to the millisecond, as entries show it)',
      examples: ['2026-11-22T00:00:00.000Z'],
    }),
  ),
  created_before: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only entries created strictly before this time',
      examples: ['2026-11-23T00:00:00.000Z'],
    }),
  ),
};

export interface PageQuery {
  limit?: number;
  cursor?: string;
  created_after?: string;
  created_before?: string;
}

/** What a page reads, checked: the query's limit, time window and cursor. */
export interface PageWindow {
  limit: number;
  createdAfter?: string;
  createdBefore?: string;
  olderThan?: CursorKey;
}

// The range PostgreSQL and JavaScript both take (year 0 is not a date for PostgreSQL).
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A timestamp of the query, normalized to ISO UTC with milliseconds; a 400 naming the field otherwise. */
export function queryTimestamp(field: string, value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms < EARLIEST_MS || ms > LATEST_MS) {
    throw invalidField(field, 'must be a date-time between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z');
  }
  return new Date(ms).toISOString();
}

/**
 * The window of a page: the time filters (a 400 when created_after is not before created_before)
 * and the cursor, which must be one this list gave (its id has the list's prefix).
 */
export function pageWindow(query: PageQuery, prefix: IdPrefix, defaultSize = DEFAULT_PAGE_SIZE): PageWindow {
  const window: PageWindow = { limit: query.limit ?? defaultSize };
  if (query.created_after !== undefined) window.createdAfter = queryTimestamp('created_after', query.created_after);
  if (query.created_before !== undefined) {
    window.createdBefore = queryTimestamp('created_before', query.created_before);
  }
  if (window.createdAfter && window.createdBefore && window.createdAfter >= window.createdBefore) {
    throw invalidField('created_after', 'must be before created_before');
  }
  if (query.cursor !== undefined) {
    const key = decodeCursor(query.cursor);
    if (!looksLikeId(key.id, prefix)) throw invalidField('cursor', 'is not a cursor this list gave');
    window.olderThan = key;
  }
  return window;
}

/** A row of a page query: its id and the exact created_at (to the microsecond) of its place. */
export interface KeyedRow {
  id: string;
  cursor_at: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * A page from the rows of a query asked for `limit + 1` rows: the extra row only says that
 * there is a next page (no count), and the cursor is the key of the last row given.
 */
export function toPage<R extends KeyedRow, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    data: shown.map(map),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.cursor_at, id: last.id }) : null,
  };
}

/** The schema of a page of `item`. */
export function pageSchema(item: TSchema, id: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` for the next (older) page; null on the last page',
      }),
    },
    { $id: id, title: id },
  );
}
