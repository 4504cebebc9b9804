// Token counting and the price of tokens: real counts from gpt-tokenizer's o200k_base encoding
// (GPT-4o and later), as chat APIs count a prompt (per-message and reply overheads).
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/** Special-token text is counted as text, never refused. */
export const ENCODE_OPTIONS = { disallowedSpecial: new Set<string>() };

// Counting is on every request and quote, so it must stay linear in the text. gpt-tokenizer's own
// merge step grows with the square of one piece's length (80,000 underscores took 8 s) and costs
// microseconds a byte on text it has not seen, so pieces (what the encoding's split regex gives: a
// word, a number, a run) are merged here, on the same ranks, with a table keyed by bytes. A piece
// longer than PIECE_MAX_CHARS (ordinary text has none) is counted in slices of that length, and
// once MERGE_BUDGET_BYTES of distinct pieces have been merged, each further new piece counts as its
// UTF-8 length (no token is shorter than a byte). Ordinary text is counted exactly; what a bound
// over-counts is charged up front and settled from the tokens the vendor reports.
const PIECE_MAX_CHARS = 256;
const MERGE_BUDGET_BYTES = 64 * 1024;

/** o200k_base's ranks by the token's bytes (as a latin1 string), built on first use. */
let ranksByBytes: Map<string, number> | undefined;

function rankTable(): Map<string, number> {
  if (!ranksByBytes) {
    const table = new Map<string, number>();
    o200kRanks.forEach((token, rank) => {
      if (typeof token === 'string') {
        // An ASCII token is its own latin1 spelling.
        table.set(
          Buffer.byteLength(token) === token.length ? token : Buffer.from(token, 'utf8').toString('latin1'),
          rank,
        );
      } else if (Array.isArray(token)) table.set(String.fromCharCode(...token), rank);
    });
    ranksByBytes = table;
  }
  return ranksByBytes;
}

/** Tokens of one piece: tiktoken's byte-pair merge (the lowest-ranked adjacent pair first). */
function mergeCount(piece: string): number {
  const table = rankTable();
  const bytes = Buffer.from(piece, 'utf8').toString('latin1');
  if (bytes.length <= 1 || table.has(bytes)) return bytes.length === 0 ? 0 : 1;
  const starts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) starts.push(i);
  const rankAt = (i: number): number => {
    const end = starts[i + 2];
    return end === undefined
      ? Number.POSITIVE_INFINITY
      : (table.get(bytes.slice(starts[i], end)) ?? Number.POSITIVE_INFINITY);
  };
  const ranks = starts.map((_, i) => rankAt(i));
  while (starts.length > 2) {
    let lowest = Number.POSITIVE_INFINITY;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i++) {
      const rank = ranks[i] as number;
      if (rank < lowest) {
        lowest = rank;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = rankAt(at);
    if (at > 0) ranks[at - 1] = rankAt(at - 1);
  }
  return starts.length - 1;
}

/**
 * Token count of `text` in o200k_base (the encoding of GPT-4o and later OpenAI models): exact for
 * ordinary text, an upper bound for text built to be slow to count, in time linear in its length.
 */
export function countTokens(text: string): number {
  const seen = new Map<string, number>();
  let budget = MERGE_BUDGET_BYTES;
  const countPiece = (piece: string): number => {
    let count = seen.get(piece);
    if (count === undefined) {
      const bytes = Buffer.byteLength(piece);
      if (bytes <= budget) {
        budget -= bytes;
        count = mergeCount(piece);
      } else count = bytes;
      seen.set(piece, count);
    }
    return count;
  };
  let total = 0;
  for (const [piece] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
    if (piece.length <= PIECE_MAX_CHARS) {
      total += countPiece(piece);
      continue;
    }
    for (let start = 0; start < piece.length; ) {
      let end = Math.min(piece.length, start + PIECE_MAX_CHARS);
      // Never between the two halves of a surrogate pair.
      if (end < piece.length && /[\uD800-\uDBFF]/.test(piece.charAt(end - 1))) end -= 1;
      total += countPiece(piece.slice(start, end));
      start = end;
    }
  }
  return total;
}

/**
 * Chat-format overhead, as OpenAI counts it: every message is wrapped as
 * `<|im_start|>{role}<|im_sep|>{content}<|im_end|>` (3 tokens + 1 for the role), and the
 * reply is primed with `<|im_start|>assistant<|im_sep|>` (3 tokens). This matches
 * gpt-tokenizer's `encodeChat` for gpt-4o.
 */
export const TOKENS_PER_MESSAGE = 4;
export const TOKENS_PER_REPLY = 3;

/** prompt_tokens for a system prompt (optional) and a user message. */
export function countPromptTokens(prompt: string, systemPrompt?: string): number {
  let total = TOKENS_PER_REPLY + TOKENS_PER_MESSAGE + countTokens(prompt);
  if (systemPrompt) total += TOKENS_PER_MESSAGE + countTokens(systemPrompt);
  return total;
}

/** Credits for a token count at a per-1k price, rounded up, at least one credit a request. */
export function tokenCredits(
  promptTokens: number,
  completionTokens: number,
  price: { input_per_1k: number; output_per_1k: number },
): number {
  return Math.max(1, Math.ceil((promptTokens * price.input_per_1k + completionTokens * price.output_per_1k) / 1000));
}
