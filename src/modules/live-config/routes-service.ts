// A model's vendor routes set by the operator without a restart, in place of the catalog's: the
// whole ordered list, each route with its tier, weight and whether it is enabled. Checked against
// the vendors the service knows, written with its audit row and announced in one transaction.
import type pg from 'pg';
import type { ModelRoute } from '../../catalog/models.ts';
import { ENDPOINT_MODELS } from '../../catalog/routes.ts';
import { type Queryable, withTransaction } from '../../db/pool.ts';
import { invalidField, notFound } from '../../lib/errors.ts';
import { VENDORS } from '../../providers/vendors.ts';
import { ENDPOINT_MAX, ROUTE_PARAM_NAME, ROUTE_PARAM_TEXT_MAX, ROUTE_PARAMS_MAX, ROUTES_MAX } from './limits.ts';
import { type Catalogs, catalogLists, LIVE_KINDS } from './service.ts';
import * as sql from './sql.ts';

/** One route as the admin API shows and takes it. */
export interface RouteEntry {
  provider: string;
  endpoint: string;
  mapping: string | null;
  /** Present when the route has an endpoint for requests that bring images to start from. */
  image_endpoint?: string;
  image_mapping?: string;
  /** Present when the route sends fixed input fields. */
  params?: sql.RouteParams;
  tier: number;
  weight: number;
  enabled: boolean;
}

/** A model's routes now: the operator's list or the catalog's. */
export interface ModelRoutesView {
  kind: string;
  model: string;
  /** `override`: the operator's list serves; `catalog`: the catalog's. */
  source: 'catalog' | 'override';
  routes: RouteEntry[];
  catalog_routes: RouteEntry[];
}

/**
 * A route as the body of a change gives it (tier, weight and enabled may be left out; mapping null
 * or left out for a route that serves only requests that bring images, as GET shows one).
 */
export interface RouteInput {
  provider: string;
  endpoint: string;
  mapping?: string | null;
  image_endpoint?: string;
  image_mapping?: string;
  params?: sql.RouteParams;
  tier?: number;
  weight?: number;
  enabled?: boolean;
}

/** The catalog's routes of `kind:model` (none for a model the catalog serves without a vendor). */
export function catalogRoutesOf(catalogs: Catalogs, kind: string, model: string): readonly ModelRoute[] {
  if ((LIVE_KINDS as readonly string[]).includes(kind)) {
    const list = catalogLists(catalogs.catalog, catalogs.media)[kind as (typeof LIVE_KINDS)[number]];
    const entry = list.find((m) => m.id === model) as { routes?: ModelRoute[] } | undefined;
    if (entry) return entry.routes ?? [];
  }
  const endpoint = ENDPOINT_MODELS[model];
  if (endpoint && endpoint.kind === kind) return endpoint.routes;
  throw notFound(`${kind} model`, model);
}

/** A route's image endpoint and its mapping, when it has both (the registry uses them only together). */
const imageRoute = (route: { image_endpoint?: string; image_mapping?: string }) =>
  route.image_endpoint && route.image_mapping
    ? { image_endpoint: route.image_endpoint, image_mapping: route.image_mapping }
    : {};

/** A route's fixed input fields, when it has any. */
const paramsOf = (route: { params?: sql.RouteParams }) =>
  route.params && Object.keys(route.params).length > 0 ? { params: route.params } : {};

const PARAM_NAME = new RegExp(ROUTE_PARAM_NAME);

/** Checks a route's fixed input fields (`at` names the route in errors). */
function checkParams(at: string, params: unknown): sql.RouteParams | undefined {
  if (params === undefined) return undefined;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw invalidField(`${at}.params`, 'must be an object of input fields');
  }
  const entries = Object.entries(params);
  if (entries.length > ROUTE_PARAMS_MAX)
    throw invalidField(`${at}.params`, `must have at most ${ROUTE_PARAMS_MAX} fields`);
  for (const [name, value] of entries) {
    if (!PARAM_NAME.test(name)) {
      throw invalidField(
        `${at}.params`,
        `${JSON.stringify(name)} is not an input field's name (letters, digits, _ . -)`,
      );
    }
    const ok =
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      (typeof value === 'string' && value.length <= ROUTE_PARAM_TEXT_MAX);
    if (!ok) {
      throw invalidField(
        `${at}.params.${name}`,
        `must be a string of at most ${ROUTE_PARAM_TEXT_MAX} characters, a finite number or a boolean`,
      );
    }
  }
  return params as sql.RouteParams;
}

/** A catalog route in the admin API's terms: its tier is its place in the list. */
const fromCatalog = (route: ModelRoute, position: number): RouteEntry => ({
  provider: route.provider,
  endpoint: route.endpoint,
  mapping: route.mapping ?? null,
  ...imageRoute(route),
  ...paramsOf(route),
  tier: route.tier ?? position,
  weight: route.weight ?? 1,
  enabled: route.enabled ?? true,
});

/** A live route in the admin API's terms (a route without a mapping shows `mapping: null`). */
const fromLive = ({ mapping, ...route }: sql.LiveRoute): RouteEntry => ({
  provider: route.provider,
  endpoint: route.endpoint,
  mapping: mapping ?? null,
  ...imageRoute(route),
  ...paramsOf(route),
  tier: route.tier,
  weight: route.weight,
  enabled: route.enabled,
});

function viewOf(catalogs: Catalogs, kind: string, model: string, live: sql.LiveRoute[] | undefined): ModelRoutesView {
  const catalog = catalogRoutesOf(catalogs, kind, model).map(fromCatalog);
  return {
    kind,
    model,
    source: live ? 'override' : 'catalog',
    routes: live?.map(fromLive) ?? catalog,
    catalog_routes: catalog,
  };
}

/**
 * Checks a route list against the vendors the service knows (`field` names it in errors) and
 * gives it with its defaults: tier its place in the list, weight 1, enabled. An image endpoint
 * comes with its mapping, one of the vendor's, as the catalog's routes have them.
 */
export function checkRoutes(field: string, routes: readonly RouteInput[]): sql.LiveRoute[] {
  if (routes.length > ROUTES_MAX) throw invalidField(field, `must have at most ${ROUTES_MAX} routes`);
  const checked = routes.map((route, i): sql.LiveRoute => {
    const at = `${field}[${i}]`;
    const vendor = VENDORS.find((v) => v.id === route.provider);
    if (!vendor) throw invalidField(`${at}.provider`, `is not a known vendor (${VENDORS.map((v) => v.id).join(', ')})`);
    for (const key of ['endpoint', 'image_endpoint'] as const) {
      const endpoint = route[key];
      if (endpoint !== undefined && endpoint.length > ENDPOINT_MAX) {
        throw invalidField(`${at}.${key}`, `must be at most ${ENDPOINT_MAX} characters`);
      }
    }
    const mappings = `${vendor.id} (${Object.keys(vendor.mappings).join(', ')})`;
    const mapping = route.mapping ?? undefined;
    if (mapping === undefined && route.image_mapping === undefined) {
      throw invalidField(
        `${at}.mapping`,
        `is needed (one of ${mappings}), unless the route serves only requests that bring images (image_endpoint and image_mapping)`,
      );
    }
    if (mapping !== undefined && !Object.hasOwn(vendor.mappings, mapping))
      throw invalidField(`${at}.mapping`, `is not a mapping of ${mappings}`);
    if ((route.image_endpoint === undefined) !== (route.image_mapping === undefined)) {
      const missing = route.image_endpoint === undefined ? 'image_endpoint' : 'image_mapping';
      const given = missing === 'image_endpoint' ? 'image_mapping' : 'image_endpoint';
      throw invalidField(`${at}.${missing}`, `is needed with ${given}`);
    }
    if (route.image_mapping !== undefined && !Object.hasOwn(vendor.mappings, route.image_mapping)) {
      throw invalidField(`${at}.image_mapping`, `is not a mapping of ${mappings}`);
    }
    if (route.tier !== undefined && (!Number.isInteger(route.tier) || route.tier < 0)) {
      throw invalidField(`${at}.tier`, 'must be an integer of 0 or more');
    }
    if (route.weight !== undefined && !(route.weight > 0)) throw invalidField(`${at}.weight`, 'must be more than 0');
    const params = checkParams(at, route.params);
    return {
      provider: route.provider,
      endpoint: route.endpoint,
      ...(mapping === undefined ? {} : { mapping }),
      ...imageRoute(route),
      ...paramsOf({ params }),
      tier: route.tier ?? i,
      weight: route.weight ?? 1,
      enabled: route.enabled ?? true,
    };
  });
  // A route is known by its vendor and endpoint (its circuit breaker, an item's failover from it):
  // two routes of one list may not send to the same one, for requests without images or with them
  // (a route without an image endpoint takes those to its own endpoint).
  for (const images of [false, true]) {
    const taken = new Map<string, number>();
    checked.forEach((route, i) => {
      const served = route.mapping !== undefined;
      const endpoint = images
        ? (route.image_endpoint ?? (served ? route.endpoint : undefined))
        : served
          ? route.endpoint
          : undefined;
      if (endpoint === undefined) return;
      const key = `${route.provider} ${endpoint}`;
      const first = taken.get(key);
      if (first !== undefined) {
        const at = `${field}[${i}].${images && route.image_endpoint !== undefined ? 'image_endpoint' : 'endpoint'}`;
        throw invalidField(
          at,
          `sends to ${endpoint} as ${field}[${first}] does: each route needs an endpoint of its own`,
        );
      }
      taken.set(key, i);
    });
  }
  return checked;
}

export async function readModelRoutes(
  pool: pg.Pool,
  catalogs: Catalogs,
  kind: string,
  model: string,
): Promise<ModelRoutesView> {
  catalogRoutesOf(catalogs, kind, model);
  return viewOf(catalogs, kind, model, (await sql.selectRouteOverride(pool, kind, model))?.routes);
}

/** Sets a model's routes (null: back to the catalog's), with the audit row, in the caller's transaction. */
export async function writeModelRoutes(
  client: Queryable,
  actor: string,
  kind: string,
  model: string,
  routes: sql.LiveRoute[] | null,
): Promise<void> {
  const before = (await sql.selectRouteOverride(client, kind, model, true))?.routes ?? null;
  await sql.saveRouteOverride(client, kind, model, routes);
  await sql.recordChange(client, { actor, action: 'model.routes', target: `${kind}:${model}`, before, after: routes });
}

/** Replaces a model's routes with `routes` (checked first: nothing is written when one is refused). */
export async function changeModelRoutes(
  pool: pg.Pool,
  catalogs: Catalogs,
  actor: string,
  kind: string,
  model: string,
  routes: readonly RouteInput[] | null,
): Promise<ModelRoutesView> {
  catalogRoutesOf(catalogs, kind, model);
  const checked = routes === null ? null : checkRoutes('routes', routes);
  await withTransaction(pool, (client) => writeModelRoutes(client, actor, kind, model, checked));
  return viewOf(catalogs, kind, model, checked ?? undefined);
}
