// The operator's live changes: a model's price and availability, aliases, a team's rules. Each is
// checked against the catalog (which stays as shipped), written with its audit row, and announced
// to every process in the same transaction.
import type pg from 'pg';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { ENDPOINT_PRICES, FAMILY_PRICE, FAMILY_PRICE_SCHEMA } from '../../catalog/endpoint-prices.ts';
import type { MediaCatalog } from '../../catalog/media-models.ts';
import {
  MEDIA_PRICE_SCHEMAS,
  UPSCALER_PRICE_SCHEMA,
  type Upscaler,
  upscalerPrice,
} from '../../catalog/media-models.ts';
import { IMAGE_PRICE_SCHEMA, type ModelCatalog } from '../../catalog/models.ts';
import { ENDPOINT_MODELS, INFLUENCER_MODEL_ROUTES } from '../../catalog/routes.ts';
import { withTransaction } from '../../db/pool.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { type Page, pageWindow, toPage } from '../../lib/pagination.ts';
import { MODEL_KINDS, type ModelKind } from '../models/schemas.ts';
import { MODEL_REF, MODEL_REF_MAX, PRICE_MULTIPLIER_MAX, TEAM_MODEL_LIST_MAX } from './limits.ts';
import * as sql from './sql.ts';

/**
 * The kinds of the model list whose models a request names (and whose prices and aliases change
 * live): all of them but voices, which a request names by voice id, not as a model of the list.
 */
export const LIVE_KINDS = MODEL_KINDS.filter((kind): kind is Exclude<ModelKind, 'voice'> => kind !== 'voice');
export type LiveKind = (typeof LIVE_KINDS)[number];

/** The catalog list of each kind. */
export function catalogLists(
  catalog: ModelCatalog,
  media: MediaCatalog,
): Record<LiveKind, ReadonlyArray<{ id: string; price?: unknown; provider_family?: boolean }>> {
  return {
    image: catalog.image,
    edit: catalog.edit,
    face: catalog.face,
    video: media.video,
    lipsync: media.lipsync,
    reference_video: media.reference_video,
    talking_head: media.talking_head,
    upscale: media.upscalers,
    music: media.music,
    model_3d: media.model_3d,
    text: media.text,
  };
}

export const PRICE_SCHEMAS: Partial<Record<LiveKind, TSchema>> = {
  image: IMAGE_PRICE_SCHEMA,
  edit: IMAGE_PRICE_SCHEMA,
  face: IMAGE_PRICE_SCHEMA,
  ...MEDIA_PRICE_SCHEMAS,
};

export const isLiveKind = (kind: string): kind is LiveKind => (LIVE_KINDS as readonly string[]).includes(kind);

export interface Catalogs {
  catalog: ModelCatalog;
  media: MediaCatalog;
}

/** A model's price and availability now, with the catalog's price and what the operator overrode. */
export interface ModelSettings {
  kind: string;
  model: string;
  price: Record<string, unknown> | null;
  catalog_price: Record<string, unknown> | null;
  available: boolean;
  override: { price: Record<string, unknown> | null; available: boolean | null };
}

/** What the operator may change of a model: its price (the schema an override must meet), its availability. */
export interface Changeable {
  /** The catalog's price object (what a `null` override goes back to). */
  catalogPrice: Record<string, unknown>;
  schema: TSchema;
  /** Whether `available` applies (a model of the catalog's lists; not the models endpoints name themselves). */
  switchable: boolean;
}

/**
 * The model `kind:model` of the model list whose price (and availability) the operator changes, or
 * undefined: a model of the catalog's lists (upscalers priced by their own fields, the provider
 * family of video models by quality), or a model an endpoint names itself (the influencer model,
 * motion control, the LoRA video model, influencer videos, speech, voice clones and designs).
 */
export function changeableModel(catalogs: Catalogs, kind: string, model: string): Changeable | undefined {
  if (isLiveKind(kind)) {
    const entry = catalogLists(catalogs.catalog, catalogs.media)[kind].find((m) => m.id === model);
    if (entry) {
      if (kind === 'upscale') {
        return { catalogPrice: upscalerPrice(entry as Upscaler), schema: UPSCALER_PRICE_SCHEMA, switchable: true };
      }
      if (entry.provider_family) return { catalogPrice: FAMILY_PRICE, schema: FAMILY_PRICE_SCHEMA, switchable: true };
      const schema = PRICE_SCHEMAS[kind];
      if (schema && entry.price) {
        return { catalogPrice: entry.price as Record<string, unknown>, schema, switchable: true };
      }
    }
  }
  const endpoint = ENDPOINT_PRICES[`${kind}:${model}`];
  return endpoint && { catalogPrice: endpoint.price, schema: endpoint.schema, switchable: false };
}

function catalogModel(catalogs: Catalogs, kind: string, model: string): Changeable {
  if (!isLiveKind(kind) && !Object.keys(ENDPOINT_PRICES).some((key) => key.startsWith(`${kind}:`))) {
    throw notFound('Model kind', kind);
  }
  const found = changeableModel(catalogs, kind, model);
  if (!found) throw notFound(`${kind} model`, model);
  return found;
}

/** A 400 naming the first field of `value` that `schema` refuses, under `prefix`. */
export function checkAgainst(schema: TSchema, value: unknown, prefix: string): void {
  // The catalog's own schema, with no fields beside its own (a misspelt field would be ignored).
  const known = (schema as { properties?: Record<string, unknown> }).properties;
  if (known && typeof value === 'object' && value !== null) {
    const extra = Object.keys(value).find((key) => !(key in known));
    if (extra !== undefined) throw invalidField(`${prefix}.${extra}`, 'is not a field of this kind of price');
  }
  if (Value.Check(schema, value)) return;
  const first = [...Value.Errors(schema, value)][0];
  const path = (first?.instancePath ?? '').split('/').filter(Boolean).join('.');
  throw invalidField(path ? `${prefix}.${path}` : prefix, first?.message ?? 'is not valid');
}

function settingsOf(kind: string, model: string, catalogPrice: unknown, row: sql.OverrideRow | undefined) {
  const override = { price: row?.price ?? null, available: row?.available ?? null };
  const base = (catalogPrice ?? null) as Record<string, unknown> | null;
  return {
    kind,
    model,
    price: override.price ?? base,
    catalog_price: base,
    available: override.available !== false,
    override,
  };
}

export async function readModelSettings(pool: pg.Pool, catalogs: Catalogs, kind: string, model: string) {
  const found = catalogModel(catalogs, kind, model);
  return settingsOf(kind, model, found.catalogPrice, await sql.selectOverride(pool, kind, model));
}

/** Changes a model's price or availability (`null`: back to the catalog's); absent fields stay. */
export async function changeModel(
  pool: pg.Pool,
  catalogs: Catalogs,
  actor: string,
  kind: string,
  model: string,
  body: { price?: unknown; available?: boolean | null },
): Promise<ModelSettings> {
  const found = catalogModel(catalogs, kind, model);
  if (body.price !== undefined && body.price !== null) checkAgainst(found.schema, body.price, 'price');
  if (body.available !== undefined && body.available !== null && !found.switchable) {
    throw invalidField(
      'available',
      `the ${kind} model ${model} is named by its endpoint and cannot be switched off here`,
    );
  }
  return withTransaction(pool, async (client) => {
    const before = await sql.selectOverride(client, kind, model, true);
    const after: sql.OverrideRow = {
      kind,
      model,
      price:
        body.price === undefined ? (before?.price ?? null) : ((body.price ?? null) as Record<string, unknown> | null),
      available: body.available === undefined ? (before?.available ?? null) : body.available,
    };
    await sql.saveOverride(client, after);
    await sql.recordChange(client, {
      actor,
      action: 'model.update',
      target: `${kind}:${model}`,
      before: { price: before?.price ?? null, available: before?.available ?? null },
      after: { price: after.price, available: after.available },
    });
    return settingsOf(kind, model, found.catalogPrice, after);
  });
}

export interface Alias {
  alias: string;
  kind: string;
  model: string;
  created_at: string;
}

const toAlias = (row: sql.AliasRow): Alias => ({
  alias: row.alias,
  kind: row.kind,
  model: row.model,
  created_at: row.created_at.toISOString(),
});

export async function listAliases(pool: pg.Pool): Promise<Alias[]> {
  return (await sql.selectAliases(pool)).map(toAlias);
}

export async function readAlias(pool: pg.Pool, alias: string): Promise<Alias> {
  const row = await sql.selectAlias(pool, alias);
  if (!row) throw notFound('Alias', alias);
  return toAlias(row);
}

/** Makes `alias` name the catalog model `kind:model` (a 400 naming the field when there is none). */
export async function putAlias(
  pool: pg.Pool,
  catalogs: Catalogs,
  actor: string,
  alias: string,
  body: { kind: string; model: string },
): Promise<Alias> {
  if (!isLiveKind(body.kind)) throw invalidField('kind', `must be one of ${LIVE_KINDS.join(', ')}`);
  const lists = catalogLists(catalogs.catalog, catalogs.media);
  if (!lists[body.kind].some((m) => m.id === body.model)) {
    throw invalidField('model', `is not a ${body.kind} model of the catalog`);
  }
  if (lists[body.kind].some((m) => m.id === alias)) {
    throw invalidField('alias', `is the id of a ${body.kind} model of the catalog`);
  }
  return withTransaction(pool, async (client) => {
    const before = await sql.selectAlias(client, alias, true);
    const row = await sql.upsertAlias(client, alias, body.kind, body.model);
    await sql.recordChange(client, {
      actor,
      action: 'alias.put',
      target: `alias:${alias}`,
      before: before ? { kind: before.kind, model: before.model } : null,
      after: { kind: row.kind, model: row.model },
    });
    return toAlias(row);
  });
}

export async function removeAlias(pool: pg.Pool, actor: string, alias: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    const before = await sql.selectAlias(client, alias, true);
    if (!before) throw notFound('Alias', alias);
    await sql.deleteAlias(client, alias);
    await sql.recordChange(client, {
      actor,
      action: 'alias.delete',
      target: `alias:${alias}`,
      before: { kind: before.kind, model: before.model },
      after: null,
    });
  });
}

/** What PATCH /admin/v1/teams/{id} may change of a team's live rules. */
export interface TeamRulesChange {
  price_multiplier?: number;
  allowed_models?: string[];
  denied_models?: string[];
}

const MODEL_REF_PATTERN = new RegExp(MODEL_REF);

/** Checks the `kind:model` entries of a rule list (a 400 naming the entry otherwise). */
function checkModelList(catalogs: Catalogs, field: string, entries: string[]): void {
  const lists = catalogLists(catalogs.catalog, catalogs.media);
  if (entries.length > TEAM_MODEL_LIST_MAX)
    throw invalidField(field, `must have at most ${TEAM_MODEL_LIST_MAX} entries`);
  entries.forEach((entry, i) => {
    const [kind, ...rest] = entry.split(':');
    const model = rest.join(':');
    if (!kind || !model || entry.length > MODEL_REF_MAX || !MODEL_REF_PATTERN.test(entry)) {
      throw invalidField(`${field}.${i}`, 'must be kind:model');
    }
    if (isLiveKind(kind) && lists[kind].some((m) => m.id === model)) return;
    // Models the endpoints name themselves (the influencer image model, motion control, speech...).
    if (kind === 'image' && model === INFLUENCER_MODEL_ROUTES.id) return;
    if ((kind === 'video' || kind === 'voice') && ENDPOINT_MODELS[model] !== undefined) return;
    // The voices: the preset ones and those the operator maps to a vendor's voices.
    if (kind === 'voice') return;
    throw invalidField(`${field}.${i}`, `'${entry}' is not a model of the model list`);
  });
}

/** Checks a change of a team's rules before anything is written. */
export function checkTeamRules(catalogs: Catalogs, change: TeamRulesChange): void {
  const multiplier = change.price_multiplier;
  if (multiplier !== undefined && !(multiplier > 0 && multiplier <= PRICE_MULTIPLIER_MAX)) {
    throw invalidField('price_multiplier', `must be a number above 0 and at most ${PRICE_MULTIPLIER_MAX}`);
  }
  if (change.allowed_models) checkModelList(catalogs, 'allowed_models', change.allowed_models);
  if (change.denied_models) checkModelList(catalogs, 'denied_models', change.denied_models);
}

/** Writes a team's rules with the audit row, in the caller's transaction (the team is there). */
export async function writeTeamRules(
  client: pg.PoolClient,
  actor: string,
  teamId: string,
  change: TeamRulesChange,
): Promise<void> {
  if (
    change.price_multiplier === undefined &&
    change.allowed_models === undefined &&
    change.denied_models === undefined
  ) {
    return;
  }
  const row = await sql.selectTeamRulesOf(client, teamId);
  if (!row) throw notFound('Team', teamId);
  const before = {
    price_multiplier: Number(row.price_multiplier),
    allowed_models: row.allowed_models,
    denied_models: row.denied_models,
  };
  const after = {
    price_multiplier: change.price_multiplier ?? before.price_multiplier,
    allowed_models: change.allowed_models ?? before.allowed_models,
    denied_models: change.denied_models ?? before.denied_models,
  };
  await sql.updateTeamRules(client, teamId, after);
  await sql.recordChange(client, { actor, action: 'team.update', target: `team:${teamId}`, before, after });
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export async function listAudit(pool: pg.Pool, query: { limit?: number; cursor?: string }): Promise<Page<AuditEntry>> {
  const window = pageWindow({ limit: query.limit, cursor: query.cursor }, 'aud');
  const rows = await sql.selectAudit(pool, window.limit, window.olderThan);
  return toPage(rows, window.limit, (row) => ({
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    target: row.target,
    before: row.before,
    after: row.after,
  }));
}
