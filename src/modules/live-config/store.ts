// The live configuration of one process: the operator's model overrides, aliases and team rules,
// read from PostgreSQL at start and kept in memory. Every change is written in a transaction that
// also sends NOTIFY on `live_config` (sql.ts); each process LISTENs on one connection of its own
// and reads the whole (small) configuration again when told, so a change applies everywhere within
// moments of its commit. After a lost connection it listens again with backoff and reloads, since
// changes made meanwhile were not heard. The catalog stays the base: these are applied on lookup.
import type pg from 'pg';
import type { LiveModelLayer } from '../../catalog/lookup.ts';
import { NotifiedReload } from '../../db/notified-reload.ts';
import type { LiveRules, TeamModelRules } from '../../engine/types.ts';
import * as sql from './sql.ts';

const DEFAULT_RULES: TeamModelRules = { priceMultiplier: 1, allowedModels: [], deniedModels: [] };

/** Whether a team's rules let it use the model `kind:model`. */
export function permits(rules: TeamModelRules, kind: string, model: string): boolean {
  const key = `${kind}:${model}`;
  if (rules.deniedModels.includes(key)) return false;
  return rules.allowedModels.length === 0 || rules.allowedModels.includes(key);
}

export interface LiveModelOverride {
  price: Record<string, unknown> | null;
  available: boolean | null;
}

interface Snapshot {
  models: Map<string, LiveModelOverride>;
  aliases: Map<string, { kind: string; model: string }>;
  teams: Map<string, TeamModelRules>;
  /** The routes the operator set, by `kind:model` (readRoutes). */
  routes: Map<string, sql.LiveRoute[]>;
}

const empty = (): Snapshot => ({ models: new Map(), aliases: new Map(), teams: new Map(), routes: new Map() });

export class LiveConfig implements LiveModelLayer, LiveRules {
  private state: Snapshot = empty();
  private readonly notified: NotifiedReload;
  // The parts of the process that hold the configuration (the API, the worker): it listens while any does.
  private holders = 0;
  private starting: Promise<void> | undefined;

  constructor(pool: pg.Pool) {
    this.notified = new NotifiedReload(pool, {
      channel: sql.LIVE_CONFIG_CHANNEL,
      applicationName: 'genmedia-live-config',
      what: 'live configuration',
      read: async () => {
        this.state = await read(pool);
      },
    });
  }

  /** Listens, then reads the configuration (a change between the two is heard). */
  async start(log: { warn(obj: object, msg: string): void }): Promise<void> {
    this.holders += 1;
    if (this.holders > 1) return this.starting;
    this.starting = this.notified.start(log);
    try {
      await this.starting;
    } catch (err) {
      this.holders -= 1;
      throw err;
    }
  }

  /** Lets go of the configuration; the last holder to stop closes the listening connection. */
  async stop(): Promise<void> {
    if (this.holders > 1) {
      this.holders -= 1;
      return;
    }
    this.holders = 0;
    await this.notified.stop();
  }

  /** Reads the whole configuration again (folded with a read under way). */
  reload(): Promise<void> {
    return this.notified.reload();
  }

  aliasOf(kind: string, id: string): string | undefined {
    const alias = this.state.aliases.get(id);
    return alias && alias.kind === kind ? alias.model : undefined;
  }

  priceOf(kind: string, id: string): Record<string, unknown> | undefined {
    return this.state.models.get(`${kind}:${id}`)?.price ?? undefined;
  }

  /** The price object to charge for `kind:id` now: the operator's, else `base` (the catalog's). */
  priceOr<T>(kind: string, id: string, base: T): T {
    return (this.priceOf(kind, id) as T | undefined) ?? base;
  }

  override(kind: string, id: string): LiveModelOverride | undefined {
    return this.state.models.get(`${kind}:${id}`);
  }

  /** The aliases of the model `kind:id`. */
  aliasesOf(kind: string, id: string): string[] {
    const out: string[] = [];
    for (const [alias, target] of this.state.aliases) if (target.kind === kind && target.model === id) out.push(alias);
    return out.sort();
  }

  isSwitchedOff(kind: string, model: string): boolean {
    return this.state.models.get(`${kind}:${model}`)?.available === false;
  }

  teamRules(teamId: string): TeamModelRules {
    return this.state.teams.get(teamId) ?? DEFAULT_RULES;
  }

  /** The routes the operator set for the model `kind:model`, or undefined for the catalog's. */
  routesOf(kind: string, model: string): readonly sql.LiveRoute[] | undefined {
    return this.state.routes.get(`${kind}:${model}`);
  }
}

async function read(pool: pg.Pool): Promise<Snapshot> {
  const snapshot = empty();
  const [models, aliases, teams] = await Promise.all([
    sql.selectOverrides(pool),
    sql.selectAliases(pool),
    sql.selectTeamRules(pool),
  ]);
  for (const m of models) snapshot.models.set(`${m.kind}:${m.model}`, { price: m.price, available: m.available });
  for (const a of aliases) snapshot.aliases.set(a.alias, { kind: a.kind, model: a.model });
  for (const t of teams) {
    snapshot.teams.set(t.id, {
      priceMultiplier: Number(t.price_multiplier),
      allowedModels: t.allowed_models,
      deniedModels: t.denied_models,
    });
  }
  snapshot.routes = await readRoutes(pool);
  return snapshot;
}

/** The route lists the operator set, by `kind:model`. */
async function readRoutes(pool: pg.Pool): Promise<Map<string, sql.LiveRoute[]>> {
  const out = new Map<string, sql.LiveRoute[]>();
  for (const row of await sql.selectRouteOverrides(pool)) out.set(`${row.kind}:${row.model}`, row.routes);
  return out;
}
