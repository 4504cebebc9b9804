// The live configuration's document as a file (`config export`/`config apply`, CONFIG_FILE): JSON,
// or YAML for files named `.yaml`/`.yml` (or given as such). YAML is read as plain data: the
// YAML 1.2 core schema (strings, numbers, booleans and null; any other tag refused; no merge keys), one
// document per file, keys unique, and aliases bounded (a file of nested aliases cannot blow up).

import { isScalar, parseDocument as parseYaml, stringify } from 'yaml';

export type DocumentFormat = 'json' | 'yaml';

/** The format a file's name says it is in: YAML for `.yaml`/`.yml`, JSON otherwise. */
export function formatOfPath(path: string): DocumentFormat {
  return /\.ya?ml$/i.test(path) ? 'yaml' : 'json';
}

/** A `--format` value, or undefined when none was given; anything else is refused. */
export function documentFormat(value: string | undefined): DocumentFormat | undefined {
  if (value === undefined) return undefined;
  if (value === 'json' || value === 'yaml') return value;
  throw new Error(`unknown format ${JSON.stringify(value)} (json or yaml)`);
}

/** Parses a document's text; throws an Error whose message says where the text is wrong. */
export function parseDocument(text: string, format: DocumentFormat): unknown {
  if (format === 'json') return JSON.parse(text);
  const doc = parseYaml(text, {
    schema: 'core',
    resolveKnownTags: false,
    merge: false,
    // Keys as JSON will hold them: `1` and `"1"` are one key.
    uniqueKeys: (a, b) => String(isScalar(a) ? a.value : a) === String(isScalar(b) ? b.value : b),
    prettyErrors: true,
  });
  // A tag the core schema does not read (`!!binary`, `!!timestamp`, a custom one) is refused
  // rather than read as its text.
  const [problem] = [...doc.errors, ...doc.warnings];
  if (problem) throw new Error(problem.message);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  // Plain data only: an alias inside its own anchor makes a circular value, which JSON cannot hold.
  let plain: unknown;
  try {
    plain = JSON.parse(JSON.stringify(value, (key, v: unknown) => finite(key, v)));
  } catch (err) {
    if (err instanceof NonFiniteNumber) throw err;
    throw new Error('an alias refers to a node that contains it (a circular document)');
  }
  return plain;
}

class NonFiniteNumber extends Error {}

/** A number JSON cannot hold (`.inf`, `.nan`, `1e999`) is refused, not written as null. */
function finite(key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new NonFiniteNumber(`${key}: ${value} is not a number a document may hold (.inf, .nan and 1e999 are not)`);
  }
  return value;
}

/** Writes a document (plain JSON data) in a format; YAML without folded lines. */
export function formatDocument(document: unknown, format: DocumentFormat): string {
  if (format === 'json') return `${JSON.stringify(document, null, 2)}\n`;
  return stringify(document, { lineWidth: 0 });
}
