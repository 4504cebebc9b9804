// The vendors' published input schemas (test/fixtures/<vendor>/input-schemas.json; their sources
// are named there) as validators, and a registry with every vendor configured and no network: what
// the mapping tests check our inputs against.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadConfig } from '../src/config.ts';
import { createProviderRegistry } from '../src/providers/registry.ts';
import { parseModelReference } from '../src/providers/replicate/client.ts';

/** fal's endpoint schemas, converted from the endpoint types of fal's own client (fal-ai/fal-js). */
export interface FalFixture {
  source: { repository: string; commit: string; path: string };
  endpoints: Record<string, Record<string, unknown>>;
  $defs: Record<string, unknown>;
}

/** Replicate's model schemas (`latest_version.openapi_schema…Input`), each with where it came from. */
export interface ReplicateFixture {
  models: Record<string, Record<string, unknown>>;
  sources: Record<string, { repository: string; commit: string; path: string; kind: string }>;
}

const read = <T>(vendor: string): T =>
  JSON.parse(readFileSync(new URL(`./fixtures/${vendor}/input-schemas.json`, import.meta.url), 'utf8')) as T;

export const falFixture = read<FalFixture>('fal');
export const replicateFixture = read<ReplicateFixture>('replicate');

const falAjv = new Ajv({ strict: false, allErrors: true });
const falValidators = new Map<string, ValidateFunction>();
/** The schema fal publishes for an endpoint. */
export function falValidatorOf(endpoint: string): ValidateFunction {
  let validate = falValidators.get(endpoint);
  if (!validate) {
    const schema = falFixture.endpoints[endpoint];
    assert.ok(schema, `${endpoint} is not an endpoint fal publishes`);
    validate = falAjv.compile({ ...schema, $defs: falFixture.$defs });
    falValidators.set(endpoint, validate);
  }
  return validate;
}

// cog publishes `anyOf: []` in the items of a list of files, which no validator accepts.
function withoutEmptyAnyOf(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutEmptyAnyOf);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'anyOf' && Array.isArray(value) && value.length === 0))
      .map(([key, value]) => [key, withoutEmptyAnyOf(value)]),
  );
}

const replicateAjv = new Ajv({ strict: false, allErrors: true });
addFormats.default(replicateAjv);
replicateAjv.addFormat('password', true); // cog's Secret inputs
const replicateValidators = new Map<string, ValidateFunction>();
/** A Replicate model's published schema, closed to unknown fields: Replicate ignores them, a misspelt field would be lost. */
export function replicateValidatorOf(endpoint: string): ValidateFunction {
  const { owner, name } = parseModelReference(endpoint);
  const model = `${owner}/${name}`;
  let validate = replicateValidators.get(model);
  if (!validate) {
    const schema = replicateFixture.models[model];
    assert.ok(schema, `${model} has no schema in test/fixtures/replicate/input-schemas.json`);
    validate = replicateAjv.compile({ ...(withoutEmptyAnyOf(schema) as object), additionalProperties: false });
    replicateValidators.set(model, validate);
  }
  return validate;
}

/** The registry with fal and Replicate configured (or only fal), as the service builds it; no call leaves. */
export function offlineRegistry(vendors: { replicate: boolean } = { replicate: true }) {
  const env: Record<string, string> = {
    FAL_KEY: 'test-key',
    FAL_QUEUE_URL: 'http://127.0.0.1:9',
    FAL_JWKS_URL: 'http://127.0.0.1:9/jwks',
    ...(vendors.replicate ? { REPLICATE_API_TOKEN: 'r8_test', REPLICATE_BASE_URL: 'http://127.0.0.1:9' } : {}),
  };
  return createProviderRegistry(loadConfig(env).providers, () => Promise.reject(new Error('no network in this test')));
}

/** What a validator found wrong, in words. */
export function errorsText(validate: ValidateFunction): string {
  return falAjv.errorsText(validate.errors);
}
