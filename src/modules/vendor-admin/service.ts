// The operator's view of the providers: which are configured, how they fare, which models each
// serves and which routes are cooling down; and every vendor attempt of a generation.
import type { Static } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { catalogRoutes, enabledRoutes } from '../../catalog/routes.ts';
import { simulatorMayServe } from '../../config.ts';
import { coolingRoutes } from '../../engine/index.ts';
import { AppError } from '../../lib/errors.ts';
import { redact } from '../../providers/policy.ts';
import { routeKey } from '../../providers/registry.ts';
import type { ProviderCheck } from '../../providers/types.ts';
import type { Attempt, ProviderSummary } from './schemas.ts';
import * as sql from './sql.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const SIMULATOR = 'simulator';

// The model list's kind of a catalog's models, where the catalog is named otherwise (SIMULATOR_MODELS names list kinds).
const LIST_KINDS: Record<string, string> = { influencer: 'image', upscalers: 'upscale', speech: 'voice' };

/**
 * Every provider the catalog names (and the simulator), with the routes in force (the operator's
 * live list of a model where there is one, else the catalog's) and health; with `check`, each
 * configured vendor is asked one harmless authenticated question, all at once.
 */
export async function listProviders(
  deps: Pick<Deps, 'pool' | 'catalog' | 'media' | 'providers' | 'config' | 'live'>,
  options: { check: boolean } = { check: false },
): Promise<Static<typeof ProviderSummary>[]> {
  const [counts, cooling] = await Promise.all([
    sql.selectAttemptCounts(deps.pool, new Date(Date.now() - DAY_MS)),
    coolingRoutes(deps.pool),
  ]);
  const configured = new Set(deps.providers.configured());
  const byProvider = new Map<string, Static<typeof ProviderSummary>['routes']>();
  const routesOf = (id: string) => {
    let list = byProvider.get(id);
    if (!list) {
      list = [];
      byProvider.set(id, list);
    }
    return list;
  };
  routesOf(SIMULATOR);
  for (const id of configured) routesOf(id);
  for (const { kind, model, routes: catalog } of catalogRoutes(deps.catalog, deps.media)) {
    const live = deps.live.routesOf(LIST_KINDS[kind] ?? kind, model);
    const routes = live ?? catalog;
    const source = live ? 'override' : 'catalog';
    routes.forEach((route, position) => {
      routesOf(route.provider).push({
        kind,
        model,
        endpoint: route.endpoint,
        position,
        source,
        enabled: route.enabled !== false,
        cooling_until: cooling.get(routeKey(route))?.toISOString() ?? null,
      });
    });
    // The simulator serves what no configured route does, where the operator lets it.
    const allowance = deps.config.providers.simulator;
    if (
      deps.providers.candidates(enabledRoutes(routes)).length === 0 &&
      simulatorMayServe(allowance, LIST_KINDS[kind] ?? kind, model)
    ) {
      routesOf(SIMULATOR).push({
        kind,
        model,
        endpoint: kind,
        position: routes.length,
        source,
        enabled: true,
        cooling_until: null,
      });
    }
  }
  const checks = new Map<string, ProviderCheck>();
  if (options.check) {
    await Promise.all(
      [...configured].map(async (id) => {
        const check = deps.providers.get(id)?.check;
        checks.set(
          id,
          check
            ? await check().catch((err: unknown) => ({ reachable: false, detail: String(err) }))
            : { reachable: null, detail: 'this vendor has no harmless call to ask' },
        );
      }),
    );
  }
  return [...byProvider.entries()]
    .sort(([a], [b]) => (a === SIMULATOR ? 1 : b === SIMULATOR ? -1 : a.localeCompare(b)))
    .map(([id, routes]) => {
      const count = counts.get(id);
      const check = checks.get(id);
      return {
        id,
        configured: id === SIMULATOR || configured.has(id),
        success_rate: count && count.finished > 0 ? count.completed / count.finished : null,
        ...(check ? { check: { ...check, detail: redact(check.detail, deps.providers.secrets()) } } : {}),
        routes,
      };
    });
}

/** Every vendor attempt of a generation's items, oldest first. */
export async function listAttempts(deps: Pick<Deps, 'pool'>, generationId: string): Promise<Static<typeof Attempt>[]> {
  const rows = await sql.selectAttempts(deps.pool, generationId);
  if (!rows) throw new AppError('not_found', `Generation ${generationId} not found`);
  return rows.map((r) => ({
    ...r,
    started_at: r.started_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
    answered_at: r.answered_at?.toISOString() ?? null,
  }));
}
