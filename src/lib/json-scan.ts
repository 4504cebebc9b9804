// One linear pass over a JSON text, before it is parsed: refuses what would make the parser or
// anything after it work hard or fail later (deep nesting, NUL, unpaired surrogates).

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

function hex4(text: string, at: number): number {
  const value = Number.parseInt(text.slice(at, at + 4), 16);
  return Number.isNaN(value) ? -1 : value;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/**
 * What is wrong with a JSON text that the parser would accept but the service must not, or
 * undefined: nesting deeper than `maxDepth` (checked before any recursive walk can overflow the
 * stack), an escaped NUL (PostgreSQL cannot store it), or an unpaired UTF-16 surrogate, escaped or
 * raw (not valid Unicode; PostgreSQL refuses it). Malformed JSON is left to the parser.
 */
export function scanJsonText(text: string, maxDepth: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === QUOTE) inString = false;
      else if (c === BACKSLASH) {
        if (text.charCodeAt(i + 1) !== 0x75 /* u */) {
          i += 1;
          continue;
        }
        const code = hex4(text, i + 2);
        if (code === 0) return 'Text fields may not contain the NUL character (\\u0000)';
        if (isLow(code)) return UNPAIRED;
        if (isHigh(code)) {
          const next = text.charCodeAt(i + 6) === BACKSLASH && text.charCodeAt(i + 7) === 0x75 ? hex4(text, i + 8) : -1;
          if (!isLow(next)) return UNPAIRED;
          i += 6;
        }
        i += 5;
      } else if (isHigh(c)) {
        if (!isLow(text.charCodeAt(i + 1))) return UNPAIRED;
        i += 1;
      } else if (isLow(c)) return UNPAIRED;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return `JSON nesting is deeper than the limit of ${maxDepth} levels`;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return undefined;
}

const UNPAIRED = 'Text may not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff): it is not valid Unicode';
