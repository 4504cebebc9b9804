// The live configuration as one document (JSON over the API; a file may be YAML): the model overrides (price, availability, routes),
// the aliases and the teams' rules. Export gives what is set now; apply checks a whole document
// first (unknown keys and bad references are refused with their path, and nothing is written),
// then writes only what differs, in one transaction, each change with its audit row. Models and
// aliases the document does not name go back to the catalog; teams it does not name keep theirs.
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import type { Deps } from '../../app-types.ts';
import { withTransaction } from '../../db/pool.ts';
import { formatOfPath, parseDocument } from '../../lib/config-document.ts';
import { AppError, invalidField } from '../../lib/errors.ts';
import { catalogRoutesOf, checkRoutes, type RouteInput, writeModelRoutes } from './routes-service.ts';
import {
  type Catalogs,
  catalogLists,
  changeableModel,
  checkAgainst,
  checkTeamRules,
  isLiveKind,
  LIVE_KINDS,
  type LiveKind,
  writeTeamRules,
} from './service.ts';
import * as sql from './sql.ts';

/** The version of the document's shape. */
export const CONFIG_VERSION = 1;

export interface ModelEntry {
  price?: Record<string, unknown>;
  available?: boolean;
  routes?: sql.LiveRoute[];
}

export interface TeamEntry {
  price_multiplier: number;
  allowed_models: string[];
  denied_models: string[];
}

/** The live configuration as a document. */
export interface ConfigDocument {
  version: number;
  /** By kind, then model id. */
  models: Record<string, Record<string, ModelEntry>>;
  aliases: Record<string, { kind: string; model: string }>;
  /** A team's rules; a key a document leaves out keeps the team's value (export writes all three). */
  teams: Record<string, Partial<TeamEntry>>;
}

/** The configuration now, as export writes it: every team's rules whole. */
export type ExportedConfig = ConfigDocument & { teams: Record<string, TeamEntry> };

/** One difference between the configuration now and a document. */
export interface ConfigChange {
  target: string;
  before: unknown;
  after: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The live configuration now, as a document. */
export async function exportConfig(db: pg.Pool | pg.PoolClient): Promise<ExportedConfig> {
  // One after the other: `db` may be a transaction's client.
  const overrides = await sql.selectOverrides(db);
  const routes = await sql.selectRouteOverrides(db);
  const aliases = await sql.selectAliases(db);
  const teams = await sql.selectTeamRules(db);
  const doc: ExportedConfig = { version: CONFIG_VERSION, models: {}, aliases: {}, teams: {} };
  const entry = (kind: string, model: string): ModelEntry => {
    const byKind = doc.models[kind] ?? {};
    doc.models[kind] = byKind;
    const found = byKind[model] ?? {};
    byKind[model] = found;
    return found;
  };
  for (const o of [...overrides].sort((x, y) => `${x.kind}:${x.model}`.localeCompare(`${y.kind}:${y.model}`))) {
    const e = entry(o.kind, o.model);
    if (o.price !== null) e.price = o.price;
    if (o.available !== null) e.available = o.available;
  }
  for (const r of routes) entry(r.kind, r.model).routes = r.routes;
  for (const a of aliases) doc.aliases[a.alias] = { kind: a.kind, model: a.model };
  for (const t of [...teams].sort((x, y) => x.id.localeCompare(y.id))) {
    doc.teams[t.id] = {
      price_multiplier: Number(t.price_multiplier),
      allowed_models: t.allowed_models,
      denied_models: t.denied_models,
    };
  }
  return doc;
}

function onlyKeys(value: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (!isRecord(value)) throw invalidField(path, 'must be an object');
  const extra = Object.keys(value).find((k) => !keys.includes(k));
  if (extra !== undefined) throw invalidField(`${path}.${extra}`, `is not a known key (${keys.join(', ')})`);
  return value;
}

/** Runs a check whose 400s name fields from the root of a body, with those names under `prefix`. */
function under<T>(prefix: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request' && err.details?.[0]) {
      const [detail] = err.details;
      throw invalidField(`${prefix}.${detail.field}`, detail.message);
    }
    throw err;
  }
}

function checkRouteList(value: unknown, path: string): sql.LiveRoute[] {
  if (!Array.isArray(value)) throw invalidField(path, 'must be a list of routes');
  const routes = value.map((route, i) => {
    const at = `${path}[${i}]`;
    const r = onlyKeys(route, at, [
      'provider',
      'endpoint',
      'mapping',
      'image_endpoint',
      'image_mapping',
      'params',
      'tier',
      'weight',
      'enabled',
    ]);
    for (const key of ['provider', 'endpoint']) {
      if (typeof r[key] !== 'string' || r[key] === '') throw invalidField(`${at}.${key}`, 'must be a non-empty string');
    }
    if (r.mapping !== undefined && r.mapping !== null && (typeof r.mapping !== 'string' || r.mapping === '')) {
      throw invalidField(`${at}.mapping`, 'must be a non-empty string, or null for a route of requests with images');
    }
    for (const key of ['image_endpoint', 'image_mapping']) {
      if (r[key] !== undefined && (typeof r[key] !== 'string' || r[key] === '')) {
        throw invalidField(`${at}.${key}`, 'must be a non-empty string');
      }
    }
    for (const key of ['tier', 'weight']) {
      if (r[key] !== undefined && typeof r[key] !== 'number') throw invalidField(`${at}.${key}`, 'must be a number');
    }
    if (r.enabled !== undefined && typeof r.enabled !== 'boolean')
      throw invalidField(`${at}.enabled`, 'must be true or false');
    return r as unknown as RouteInput;
  });
  return under(path.replace(/\.?routes$/, ''), () => checkRoutes('routes', routes));
}

/** Checks a whole document (a 400 naming the first entry at fault); answers it with its defaults. */
export function checkDocument(catalogs: Catalogs, value: unknown, path = 'document'): ConfigDocument {
  const doc = onlyKeys(value, path, ['version', 'models', 'aliases', 'teams']);
  if (doc.version !== undefined && doc.version !== CONFIG_VERSION) {
    throw invalidField(`${path}.version`, `must be ${CONFIG_VERSION}`);
  }
  const out: ConfigDocument = { version: CONFIG_VERSION, models: {}, aliases: {}, teams: {} };
  const lists = catalogLists(catalogs.catalog, catalogs.media);
  for (const [kind, models] of Object.entries(
    onlyKeys(doc.models ?? {}, `${path}.models`, Object.keys(doc.models ?? {})),
  )) {
    for (const [model, raw] of Object.entries(onlyKeys(models, `${path}.models.${kind}`, Object.keys(models ?? {})))) {
      const at = `${path}.models.${kind}.${model}`;
      const e = onlyKeys(raw, at, ['price', 'available', 'routes']);
      const changeable = changeableModel(catalogs, kind, model);
      if (!changeable) {
        try {
          catalogRoutesOf(catalogs, kind, model);
        } catch {
          throw invalidField(at, `is not a ${kind} model of the catalog`);
        }
      }
      const entry: ModelEntry = {};
      if (e.price !== undefined && e.price !== null) {
        if (!changeable) throw invalidField(`${at}.price`, 'this model has no price of its own to change');
        checkAgainst(changeable.schema, e.price, `${at}.price`);
        entry.price = e.price as Record<string, unknown>;
      }
      if (e.available !== undefined && e.available !== null) {
        if (typeof e.available !== 'boolean') throw invalidField(`${at}.available`, 'must be true or false');
        if (!changeable?.switchable) {
          throw invalidField(`${at}.available`, 'this model cannot be switched off here');
        }
        entry.available = e.available;
      }
      if (e.routes !== undefined && e.routes !== null) entry.routes = checkRouteList(e.routes, `${at}.routes`);
      if (Object.keys(entry).length > 0) out.models[kind] = { ...out.models[kind], [model]: entry };
    }
  }
  for (const [alias, raw] of Object.entries(
    onlyKeys(doc.aliases ?? {}, `${path}.aliases`, Object.keys(doc.aliases ?? {})),
  )) {
    const at = `${path}.aliases.${alias}`;
    const a = onlyKeys(raw, at, ['kind', 'model']);
    const kind = String(a.kind);
    if (!isLiveKind(kind)) throw invalidField(`${at}.kind`, `must be one of ${LIVE_KINDS.join(', ')}`);
    if (!/^[a-zA-Z0-9][a-zA-Z0-9._/-]*[a-zA-Z0-9]$/.test(alias) || alias.length > 100)
      throw invalidField(at, 'is not a valid alias name');
    const list = lists[kind as LiveKind];
    if (!list.some((m) => m.id === a.model)) throw invalidField(`${at}.model`, `is not a ${kind} model of the catalog`);
    if (list.some((m) => m.id === alias)) throw invalidField(at, `is the id of a ${kind} model of the catalog`);
    out.aliases[alias] = { kind, model: String(a.model) };
  }
  for (const [team, raw] of Object.entries(onlyKeys(doc.teams ?? {}, `${path}.teams`, Object.keys(doc.teams ?? {})))) {
    const at = `${path}.teams.${team}`;
    const t = onlyKeys(raw, at, ['price_multiplier', 'allowed_models', 'denied_models']);
    // As PATCH /admin/v1/teams/{id}: a key left out keeps the team's value.
    const rules: Partial<TeamEntry> = {};
    if (t.price_multiplier !== undefined) {
      if (typeof t.price_multiplier !== 'number') throw invalidField(`${at}.price_multiplier`, 'must be a number');
      rules.price_multiplier = t.price_multiplier;
    }
    for (const key of ['allowed_models', 'denied_models'] as const) {
      const v = t[key];
      if (v === undefined) continue;
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
        throw invalidField(`${at}.${key}`, 'must be a list of kind:model');
      rules[key] = v as string[];
    }
    under(at, () => checkTeamRules(catalogs, rules));
    out.teams[team] = rules;
  }
  return out;
}

/** JSON with the keys of every object sorted (jsonb keeps its own order of keys). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** What applying `next` over `now` changes, target by target. */
export function diffConfig(now: ExportedConfig, next: ConfigDocument): ConfigChange[] {
  const changes: ConfigChange[] = [];
  const keys = new Set<string>();
  for (const doc of [now, next]) {
    for (const [kind, models] of Object.entries(doc.models))
      for (const model of Object.keys(models)) keys.add(`${kind}:${model}`);
  }
  for (const key of [...keys].sort()) {
    const [kind = '', model = ''] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const before = now.models[kind]?.[model] ?? {};
    const after = next.models[kind]?.[model] ?? {};
    const settings = (e: ModelEntry) => ({ price: e.price ?? null, available: e.available ?? null });
    if (!same(settings(before), settings(after))) {
      changes.push({ target: `model ${key}`, before: settings(before), after: settings(after) });
    }
    if (!same(before.routes, after.routes)) {
      changes.push({ target: `routes ${key}`, before: before.routes ?? null, after: after.routes ?? null });
    }
  }
  for (const alias of [...new Set([...Object.keys(now.aliases), ...Object.keys(next.aliases)])].sort()) {
    if (!same(now.aliases[alias], next.aliases[alias])) {
      changes.push({
        target: `alias ${alias}`,
        before: now.aliases[alias] ?? null,
        after: next.aliases[alias] ?? null,
      });
    }
  }
  // Teams the document does not name keep their rules, and a named team the keys it leaves out.
  for (const team of Object.keys(next.teams).sort()) {
    const before: TeamEntry = now.teams[team] ?? { price_multiplier: 1, allowed_models: [], denied_models: [] };
    const after: TeamEntry = { ...before, ...next.teams[team] };
    if (!same(before, after)) changes.push({ target: `team ${team}`, before, after });
  }
  return changes;
}

/**
 * Applies a document: checked whole first, then what differs written in one transaction (each
 * change an audit row, one NOTIFY at commit). `dryRun`: only the differences are answered.
 */
export async function applyConfig(
  pool: pg.Pool,
  catalogs: Catalogs,
  actor: string,
  document: unknown,
  dryRun: boolean,
): Promise<{ applied: boolean; changes: ConfigChange[] }> {
  const next = checkDocument(catalogs, document);
  return withTransaction(pool, async (client) => {
    // One apply at a time, so two processes applying the same file at start do not interleave.
    await client.query(`select pg_advisory_xact_lock(hashtext('live_config_apply'))`);
    // Locked in the order batched accepts and settles lock team rows (src/db/batched-calls.ts), so
    // that the two cannot deadlock on them.
    for (const team of Object.keys(next.teams).sort()) {
      if (!(await sql.selectTeamRulesOf(client, team))) {
        throw invalidField(`document.teams.${team}`, 'is not a team of this service');
      }
    }
    const changes = diffConfig(await exportConfig(client), next);
    if (dryRun || changes.length === 0) return { applied: false, changes };
    for (const change of changes) {
      const [what, key] = [
        change.target.slice(0, change.target.indexOf(' ')),
        change.target.slice(change.target.indexOf(' ') + 1),
      ];
      if (what === 'model' || what === 'routes') {
        const kind = key.slice(0, key.indexOf(':'));
        const model = key.slice(key.indexOf(':') + 1);
        if (what === 'routes') {
          await writeModelRoutes(client, actor, kind, model, change.after as sql.LiveRoute[] | null);
          continue;
        }
        const after = change.after as { price: Record<string, unknown> | null; available: boolean | null };
        await sql.saveOverride(client, { kind, model, ...after });
        await sql.recordChange(client, { actor, action: 'model.update', target: key, before: change.before, after });
      } else if (what === 'alias') {
        const after = change.after as { kind: string; model: string } | null;
        if (after) await sql.upsertAlias(client, key, after.kind, after.model);
        else await sql.deleteAlias(client, key);
        await sql.recordChange(client, {
          actor,
          action: after ? 'alias.put' : 'alias.delete',
          target: `alias:${key}`,
          before: change.before,
          after,
        });
      } else {
        await writeTeamRules(client, actor, key, change.after as TeamEntry);
      }
    }
    return { applied: true, changes };
  });
}

/**
 * Applies the document in `path` at start (CONFIG_FILE; YAML when named `.yaml`/`.yml`, else
 * JSON); a file that cannot be read or is refused stops the start.
 */
export async function applyConfigFile(
  deps: Pick<Deps, 'pool' | 'catalog' | 'media'>,
  path: string,
  log: { info(obj: object, msg: string): void },
): Promise<void> {
  const format = formatOfPath(path);
  let document: unknown;
  try {
    document = parseDocument(readFileSync(path, 'utf8'), format);
  } catch (err) {
    throw new Error(
      `CONFIG_FILE ${path}: cannot be read as ${format === 'yaml' ? 'YAML' : 'JSON'} (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  try {
    const { changes } = await applyConfig(
      deps.pool,
      { catalog: deps.catalog, media: deps.media },
      'config-file',
      document,
      false,
    );
    if (changes.length > 0) log.info({ changes: changes.map((c) => c.target) }, 'CONFIG_FILE applied');
  } catch (err) {
    if (err instanceof AppError) throw new Error(`CONFIG_FILE ${path}: refused, nothing applied: ${err.message}`);
    throw err;
  }
}
