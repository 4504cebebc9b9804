// A reader of the strict subset of YAML the deployment files under deploy/ are written in, for
// the tests that check them (no YAML parser is a dependency of the project). The subset reads
// the same under YAML 1.1 (Kubernetes, Compose's older tools) and 1.2 (everything newer):
//
//   - block mappings (`key: value`, `key:` then a nested block) and block sequences (`- value`,
//     `- key: value` starting a mapping), indented with spaces;
//   - scalars: double-quoted (JSON escapes), single-quoted (`''` for a quote), flow collections
//     written as JSON (`["CMD", "pg_isready"]`, `{}`), and plain scalars: null, true, false,
//     decimal integers and numbers, or strings;
//   - comments (`#` at the start of a line or after a space) and documents separated by `---`.
//
// Anything outside it is refused with its line rather than read one way when another reader
// would read it another: anchors and aliases, tags, block scalars (`|`, `>`), multi-line plain
// scalars, tabs, duplicate keys, and plain scalars whose type differs between YAML 1.1 and 1.2
// (yes/no/on/off, 0755, 1e3, 0x1f, 12:30): quote those.

export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  number: number;
  indent: number;
  text: string;
}

export class YamlSubsetError extends Error {}

const fail = (line: Line | undefined, message: string): never => {
  throw new YamlSubsetError(line ? `line ${line.number}: ${message}` : message);
};

/** `text` up to a comment that is not inside quotes, trimmed at the end. */
function withoutComment(text: string): string {
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = undefined;
    } else if (quote === "'") {
      if (c === "'" && text[i + 1] === "'") i++;
      else if (c === "'") quote = undefined;
    } else if (c === '"' || c === "'") {
      // A quote opens a quoted scalar only where one can start (after ": ", "- " or at the start).
      const before = text.slice(0, i).trimEnd();
      if (before === '' || before.endsWith(':') || before.endsWith('-') || /[[{,]$/.test(before)) quote = c;
    } else if (c === '#' && (i === 0 || text[i - 1] === ' ')) {
      return text.slice(0, i).trimEnd();
    }
  }
  return text.trimEnd();
}

/** Where the `: ` (or the final `:`) that ends a mapping key is, outside quotes; -1 when none. */
function keyEnd(text: string): number {
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = undefined;
    } else if (quote === "'") {
      if (c === "'" && text[i + 1] === "'") i++;
      else if (c === "'") quote = undefined;
    } else if ((c === '"' || c === "'") && i === 0) {
      quote = c;
    } else if (c === '[' || c === '{') {
      if (i === 0) return -1;
    } else if (c === ':' && (i === text.length - 1 || text[i + 1] === ' ')) {
      return i;
    }
  }
  return -1;
}

const isSequenceItem = (text: string) => text === '-' || text.startsWith('- ');

function key(line: Line, text: string): string {
  if (text.startsWith('"') || text.startsWith("'")) {
    const value = scalar(line, text);
    if (typeof value !== 'string') fail(line, `the key ${text} is not a string`);
    return value as string;
  }
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$/.test(text)) fail(line, `the key "${text}" must be quoted`);
  return text;
}

const YAML11_ONLY = /^(y|n|yes|no|on|off)$/i;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;

function scalar(line: Line, text: string): YamlValue {
  if (text.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) fail(line, `unterminated or trailing text after ${text}`);
    try {
      return JSON.parse(text) as string;
    } catch {
      return fail(line, `a double-quoted string with an escape JSON does not know: ${text}`);
    }
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) fail(line, `unterminated or trailing text after ${text}`);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (text.startsWith('[') || text.startsWith('{')) {
    try {
      return JSON.parse(text) as YamlValue;
    } catch {
      return fail(line, `a flow collection must be written as JSON: ${text}`);
    }
  }
  if (/^[&*!|>%@`?]/.test(text))
    fail(line, `"${text[0]}" (anchors, aliases, tags, block scalars) is outside the subset`);
  if (text === '' || text === '~' || text === 'null') return null;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^(True|TRUE|False|FALSE|Null|NULL)$/.test(text) || YAML11_ONLY.test(text))
    fail(line, `"${text}" reads differently in YAML 1.1 and 1.2: quote it`);
  if (NUMBER.test(text)) return Number(text);
  if (/^[-+]?\.?\d[0-9a-fA-FxXoO._:+-]*$/.test(text))
    fail(line, `"${text}" may read as a number in some YAML reader: quote it`);
  if (/^[-+]?\.(inf|nan)$/i.test(text)) fail(line, `"${text}" is a number in YAML: quote it`);
  if (text.includes(': ') || text.includes(' #')) fail(line, `"${text}" must be quoted`);
  return text;
}

class Reader {
  #lines: Line[];
  #at = 0;

  constructor(lines: Line[]) {
    this.#lines = lines;
  }

  document(): YamlValue {
    const first = this.#lines[0];
    if (!first) return null;
    const value = this.#block(first.indent);
    const rest = this.#lines[this.#at];
    if (rest) fail(rest, 'unexpected indentation');
    return value;
  }

  #block(indent: number): YamlValue {
    const line = this.#lines[this.#at] as Line;
    return isSequenceItem(line.text) ? this.#sequence(indent) : this.#mapping(indent);
  }

  /** The value after `key:` (or `-`) with nothing on its line: the block below it, or null. */
  #nested(indent: number, allowSequenceAtSameIndent: boolean): YamlValue {
    const next = this.#lines[this.#at];
    if (next && next.indent > indent) return this.#block(next.indent);
    if (next && allowSequenceAtSameIndent && next.indent === indent && isSequenceItem(next.text))
      return this.#sequence(indent);
    return null;
  }

  #mapping(indent: number): { [key: string]: YamlValue } {
    const map: { [key: string]: YamlValue } = {};
    for (let line = this.#lines[this.#at]; line && line.indent >= indent; line = this.#lines[this.#at]) {
      if (line.indent > indent) fail(line, 'unexpected indentation');
      if (isSequenceItem(line.text)) fail(line, 'a sequence item where a mapping key was expected');
      const end = keyEnd(line.text);
      if (end < 0) fail(line, `expected "key: value", got "${line.text}"`);
      const name = key(line, line.text.slice(0, end));
      if (Object.hasOwn(map, name)) fail(line, `the key "${name}" appears twice`);
      const rest = line.text.slice(end + 1).trim();
      this.#at++;
      map[name] = rest === '' ? this.#nested(indent, true) : scalar(line, rest);
    }
    return map;
  }

  #sequence(indent: number): YamlValue[] {
    const list: YamlValue[] = [];
    for (let line = this.#lines[this.#at]; line && line.indent >= indent; line = this.#lines[this.#at]) {
      if (line.indent > indent) fail(line, 'unexpected indentation');
      if (!isSequenceItem(line.text)) break;
      const content = line.text.slice(1).trimStart();
      if (isSequenceItem(content)) fail(line, 'a sequence directly in a sequence item is outside the subset');
      if (content === '') {
        this.#at++;
        list.push(this.#nested(indent, false));
      } else if (keyEnd(content) >= 0) {
        // `- key: value`: a mapping whose keys line up with this first one.
        const inner = indent + (line.text.length - content.length);
        this.#lines[this.#at] = { number: line.number, indent: inner, text: content };
        list.push(this.#mapping(inner));
      } else {
        this.#at++;
        list.push(scalar(line, content));
      }
    }
    return list;
  }
}

/** Every document of `source`, in order. */
export function parseYamlDocuments(source: string): YamlValue[] {
  const documents: Line[][] = [[]];
  source.split('\n').forEach((raw, index) => {
    const number = index + 1;
    const text = raw.replace(/\r$/, '');
    if ((/^\s*/.exec(text)?.[0] ?? '').includes('\t'))
      fail({ number, indent: 0, text }, 'tabs are not allowed in indentation');
    if (text === '---' || text.startsWith('--- ')) {
      documents.push([]);
      return;
    }
    if (text === '...' || text.startsWith('%')) fail({ number, indent: 0, text }, `"${text}" is outside the subset`);
    const content = withoutComment(text);
    if (content.trim() === '') return;
    const indent = content.length - content.trimStart().length;
    (documents.at(-1) as Line[]).push({ number, indent, text: content.trim() });
  });
  return documents.filter((lines) => lines.length > 0).map((lines) => new Reader(lines).document());
}

/** The one document of `source`. */
export function parseYaml(source: string): YamlValue {
  const documents = parseYamlDocuments(source);
  if (documents.length !== 1) throw new YamlSubsetError(`expected one document, found ${documents.length}`);
  return documents[0] as YamlValue;
}
