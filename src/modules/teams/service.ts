import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { startWaitingItems } from '../../engine/index.ts';
import type { EngineServices } from '../../engine/types.ts';
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { generateWebhookSecret } from '../../lib/secrets.ts';
import { changeCredits } from '../credits/service.ts';
import { type Catalogs, checkTeamRules, type TeamRulesChange, writeTeamRules } from '../live-config/service.ts';
import * as sql from './sql.ts';

export interface Team {
  id: string;
  name: string;
  credits: number;
  max_concurrent_items: number | null;
  running_items: number;
  price_multiplier: number;
  allowed_models: string[];
  denied_models: string[];
  created_at: string;
}

function toTeam(row: sql.TeamRow): Team {
  return {
    id: row.id,
    name: row.name,
    credits: row.credits,
    max_concurrent_items: row.max_concurrent_items,
    running_items: row.running_items,
    price_multiplier: Number(row.price_multiplier),
    allowed_models: row.allowed_models,
    denied_models: row.denied_models,
    created_at: row.created_at.toISOString(),
  };
}

/** Creates a team with a fresh webhook secret; starting credits go through the ledger. */
export async function createTeam(
  pool: pg.Pool,
  secrets: SecretBox,
  input: { name: string; credits?: number },
): Promise<Team> {
  return withTransaction(pool, async (client) => {
    const row = await sql.insertTeam(client, newId('team'), input.name, secrets.seal(generateWebhookSecret()));
    if (input.credits && input.credits > 0) {
      const entry = await changeCredits(client, {
        teamId: row.id,
        amount: input.credits,
        kind: 'grant',
        reason: 'Starting credits',
      });
      row.credits = entry.balance_after;
    }
    return toTeam(row);
  });
}

export async function getTeam(db: Queryable, teamId: string): Promise<Team> {
  const row = await sql.selectTeam(db, teamId);
  if (!row) throw notFound('Team', teamId);
  return toTeam(row);
}

/** Teams, newest first; `before` is the last id of the previous page. */
export async function listTeams(db: Queryable, limit: number, before?: string): Promise<Team[]> {
  return (await sql.selectTeams(db, limit, before)).map(toTeam);
}

/**
 * Changes a team's settings: its cap of items running at once (null: TEAM_MAX_CONCURRENT_ITEMS;
 * items waiting for room that a higher cap lets in are started now) and its live rules (price multiplier, allowed
 * and denied models), checked before anything is written, with an audit row for the rules.
 */
export async function updateTeam(
  pool: pg.Pool,
  services: EngineServices,
  catalogs: Catalogs,
  actor: string,
  teamId: string,
  change: TeamRulesChange & { max_concurrent_items?: number | null },
): Promise<Team> {
  checkTeamRules(catalogs, change);
  return withTransaction(pool, async (client) => {
    if (change.max_concurrent_items !== undefined) {
      if (!(await sql.updateTeamCap(client, teamId, change.max_concurrent_items))) throw notFound('Team', teamId);
      await startWaitingItems(client, teamId, services.teamMaxConcurrentItems);
    }
    await writeTeamRules(client, actor, teamId, change);
    const row = await sql.selectTeam(client, teamId);
    if (!row) throw notFound('Team', teamId);
    return toTeam(row);
  });
}

export async function countTeams(db: Queryable): Promise<number> {
  return sql.countTeams(db);
}
