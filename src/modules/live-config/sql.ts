import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';

/** The channel a change of the live configuration is announced on (in the transaction that makes it). */
export const LIVE_CONFIG_CHANNEL = 'live_config';

export interface OverrideRow {
  kind: string;
  model: string;
  price: Record<string, unknown> | null;
  available: boolean | null;
}

export interface AliasRow {
  alias: string;
  kind: string;
  model: string;
  created_at: Date;
}

export interface TeamRulesRow {
  id: string;
  price_multiplier: string;
  allowed_models: string[];
  denied_models: string[];
}

export async function selectOverrides(db: Queryable): Promise<OverrideRow[]> {
  return (await db.query<OverrideRow>('select kind, model, price, available from model_overrides')).rows;
}

export async function selectOverride(
  db: Queryable,
  kind: string,
  model: string,
  lock = false,
): Promise<OverrideRow | undefined> {
  const { rows } = await db.query<OverrideRow>(
    `select kind, model, price, available from model_overrides where kind = $1::text and model = $2::text
     ${lock ? 'for update' : ''}`,
    [kind, model],
  );
  return rows[0];
}

/** Writes a model's override; one with nothing left to override is removed. */
export async function saveOverride(db: Queryable, row: OverrideRow): Promise<void> {
  if (row.price === null && row.available === null) {
    await db.query('delete from model_overrides where kind = $1::text and model = $2::text', [row.kind, row.model]);
    return;
  }
  await db.query(
    `insert into model_overrides (kind, model, price, available) values ($1::text, $2::text, $3::jsonb, $4::boolean)
     on conflict (kind, model) do update set price = excluded.price, available = excluded.available, updated_at = now()`,
    [row.kind, row.model, row.price === null ? null : JSON.stringify(row.price), row.available],
  );
}

export async function selectAliases(db: Queryable): Promise<AliasRow[]> {
  return (await db.query<AliasRow>('select alias, kind, model, created_at from model_aliases order by alias')).rows;
}

export async function selectAlias(db: Queryable, alias: string, lock = false): Promise<AliasRow | undefined> {
  const { rows } = await db.query<AliasRow>(
    `select alias, kind, model, created_at from model_aliases where alias = $1::text ${lock ? 'for update' : ''}`,
    [alias],
  );
  return rows[0];
}

export async function upsertAlias(db: Queryable, alias: string, kind: string, model: string): Promise<AliasRow> {
  const { rows } = await db.query<AliasRow>(
    `insert into model_aliases (alias, kind, model) values ($1::text, $2::text, $3::text)
     on conflict (alias) do update set kind = excluded.kind, model = excluded.model
     returning alias, kind, model, created_at`,
    [alias, kind, model],
  );
  return rows[0] as AliasRow;
}

export async function deleteAlias(db: Queryable, alias: string): Promise<void> {
  await db.query('delete from model_aliases where alias = $1::text', [alias]);
}

/** The teams whose rules differ from the defaults. */
export async function selectTeamRules(db: Queryable): Promise<TeamRulesRow[]> {
  const { rows } = await db.query<TeamRulesRow>(
    `select id, price_multiplier::text, allowed_models, denied_models from teams
     where price_multiplier <> 1 or cardinality(allowed_models) > 0 or cardinality(denied_models) > 0`,
  );
  return rows;
}

export async function selectTeamRulesOf(db: Queryable, teamId: string): Promise<TeamRulesRow | undefined> {
  const { rows } = await db.query<TeamRulesRow>(
    'select id, price_multiplier::text, allowed_models, denied_models from teams where id = $1::text for update',
    [teamId],
  );
  return rows[0];
}

export async function updateTeamRules(
  db: Queryable,
  teamId: string,
  rules: { price_multiplier: number; allowed_models: string[]; denied_models: string[] },
): Promise<void> {
  await db.query(
    `update teams set price_multiplier = $2::numeric, allowed_models = $3::text[], denied_models = $4::text[]
     where id = $1::text`,
    [teamId, rules.price_multiplier, rules.allowed_models, rules.denied_models],
  );
}

/** Records a change (who, what, on what, before and after) and tells every process to reload. */
export async function recordChange(
  db: Queryable,
  change: { actor: string; action: string; target: string; before: unknown; after: unknown },
): Promise<void> {
  await db.query(
    `insert into admin_audit (id, actor, action, target, before, after)
     values ($1::text, $2::text, $3::text, $4::text, $5::jsonb, $6::jsonb)`,
    [
      newId('aud'),
      change.actor,
      change.action,
      change.target,
      change.before === null || change.before === undefined ? null : JSON.stringify(change.before),
      change.after === null || change.after === undefined ? null : JSON.stringify(change.after),
    ],
  );
  await db.query(`select pg_notify('${LIVE_CONFIG_CHANNEL}', '')`);
}

export interface AuditRow {
  id: string;
  at: Date;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  cursor_at: string;
}

/** A page of the audit, newest first by (at, id); `limit + 1` rows say whether there is a next one. */
export async function selectAudit(
  db: Queryable,
  limit: number,
  olderThan: { createdAt: string; id: string } | undefined,
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `select id, at, actor, action, target, before, after,
       to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
     from admin_audit
     where $2::timestamptz is null or (at, id) < ($2::timestamptz, $3::text)
     order by at desc, id desc
     limit $1::int`,
    [limit + 1, olderThan?.createdAt ?? null, olderThan?.id ?? null],
  );
  return rows;
}

/** A model's routes as the operator set them (the whole list, in order). */
export interface RouteOverrideRow {
  kind: string;
  model: string;
  routes: LiveRoute[];
}

/** One route of a model's live list. */
export interface LiveRoute {
  provider: string;
  endpoint: string;
  /** Absent: the route serves only requests that bring images (its image endpoint). */
  mapping?: string;
  /** The endpoint, and its mapping, used instead when the request brings images to start from. */
  image_endpoint?: string;
  image_mapping?: string;
  /** Fixed input fields the route sends, over what its mapping makes (absent: none). */
  params?: RouteParams;
  tier: number;
  weight: number;
  enabled: boolean;
}

/** A route's fixed input fields. */
export type RouteParams = Record<string, string | number | boolean>;

export async function selectRouteOverrides(db: Queryable): Promise<RouteOverrideRow[]> {
  return (await db.query<RouteOverrideRow>('select kind, model, routes from model_routes order by kind, model')).rows;
}

export async function selectRouteOverride(
  db: Queryable,
  kind: string,
  model: string,
  lock = false,
): Promise<RouteOverrideRow | undefined> {
  const { rows } = await db.query<RouteOverrideRow>(
    `select kind, model, routes from model_routes where kind = $1::text and model = $2::text ${lock ? 'for update' : ''}`,
    [kind, model],
  );
  return rows[0];
}

/** Writes a model's route list; null: back to the catalog's (the row is removed). */
export async function saveRouteOverride(
  db: Queryable,
  kind: string,
  model: string,
  routes: LiveRoute[] | null,
): Promise<void> {
  if (routes === null) {
    await db.query('delete from model_routes where kind = $1::text and model = $2::text', [kind, model]);
    return;
  }
  await db.query(
    `insert into model_routes (kind, model, routes) values ($1::text, $2::text, $3::jsonb)
     on conflict (kind, model) do update set routes = excluded.routes, updated_at = now()`,
    [kind, model, JSON.stringify(routes)],
  );
}
