// Writes src/schema.d.ts, the SDK's types, from the service's OpenAPI document:
//   npm run sdk:types                 (from the service at http://localhost:8080)
//   npm run sdk:types -- <base URL>   (from another running service)
// A test regenerates them from a running service and fails on any difference, so the SDK
// cannot drift from the routes.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** Where the generated types live. */
export const SCHEMA_TYPES_FILE = fileURLToPath(new URL('../src/schema.d.ts', import.meta.url));

const HEADER = `// The types of the Generative Media Service API, generated from its /openapi.json by
// openapi-typescript (npm run sdk:types). Do not edit: regenerate.
`;

/** The SDK's types for an OpenAPI document (the text of src/schema.d.ts). */
export async function typesFromDocument(document: object): Promise<string> {
  // The document's servers name the host it was read from; the types do not depend on it.
  const { servers: _servers, ...rest } = document as { servers?: unknown };
  const ast = await openapiTS(rest as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return HEADER + astToString(ast);
}

/** Reads /openapi.json from a running service. */
export async function fetchDocument(baseUrl: string): Promise<object> {
  const res = await fetch(new URL('/openapi.json', baseUrl));
  if (!res.ok) throw new Error(`GET ${baseUrl}/openapi.json answered ${res.status}`);
  return (await res.json()) as object;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const baseUrl = process.argv[2] ?? 'http://localhost:8080';
  const types = await typesFromDocument(await fetchDocument(baseUrl));
  await writeFile(SCHEMA_TYPES_FILE, types);
  console.log(`wrote ${SCHEMA_TYPES_FILE} from ${baseUrl}/openapi.json (${types.length} characters)`);
}
