// Text results live in their item's record, not in a file: the settle that completes a text item
// writes its text durably in the same transaction, so a file would be a second copy made on the hot
// path of every synchronous text request. The item's URL is our media route's (`/media/<key>`,
// whatever the storage), which serves the text from the record (see mediaRoutes' `kept`); purged
// with its generation's files as any result, when its retention ends.
import type { Queryable } from '../db/pool.ts';
import { selectKeptText } from './sql/history.ts';

/**
 * The field of a text item's result that holds the text its URL serves when that is not the
 * result's `text` (a chat answer's tool calls or refusal).
 */
const TEXT_RESULT_FIELD = 'file_text';

// resultKey(): `<generation id>/<item id>-<storage token>.<extension>`.
const TEXT_RESULT_KEY = /^(gen_[0-9a-z]{26})\/(item_[0-9a-z]{26})-([0-9a-f]{32})\.txt$/;

/** The bytes of the text result at `key` kept in its item's record, or undefined when there is none. */
export async function readKeptText(db: Queryable, key: string): Promise<Buffer | undefined> {
  const match = TEXT_RESULT_KEY.exec(key);
  if (!match) return undefined;
  const [, generationId = '', itemId = '', storageToken = ''] = match;
  const text = await selectKeptText(db, { generationId, itemId, storageToken }, TEXT_RESULT_FIELD);
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}

/**
 * What a text item's result records beside the metadata for the text kept in it: nothing when its
 * `text` is that text already (the usual answer), else the text under TEXT_RESULT_FIELD (a chat's
 * tool calls or refusal, which the file held in place of text).
 */
export function keptText(kept: string | undefined, metadata: Record<string, unknown>): Record<string, string> {
  return kept === undefined || metadata.text === kept ? {} : { [TEXT_RESULT_FIELD]: kept };
}
