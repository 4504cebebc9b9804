import { readFileSync } from 'node:fs';
import { type Static, type TSchema, Type } from 'typebox';
import Value from 'typebox/value';

/**
 * The non-empty list a catalog JSON file holds, each entry checked against `entry`; a malformed
 * file stops the start, naming the file (`name`) and the first place it is wrong.
 */
export function readJsonList<S extends TSchema>(file: URL, entry: S, name: string): Static<S>[] {
  const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const schema = Type.Array(entry, { minItems: 1 });
  if (!Value.Check(schema, data)) {
    const first = [...Value.Errors(schema, data)][0];
    throw new Error(`${name} is invalid at ${first?.instancePath}: ${first?.message}`);
  }
  return data;
}
