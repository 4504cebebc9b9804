import type pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { generateWebhookSecret } from '../../lib/secrets.ts';
import { changeCredits } from '../credits/service.ts';
import * as sql from './sql.ts';

export interface Team {
  id: string;
  name: string;
  credits: number;
  created_at: string;
}

function toTeam(row: sql.TeamRow): Team {
  return { id: row.id, name: row.name, credits: row.credits, created_at: row.created_at.toISOString() };
}

/** Creates a team with a fresh webhook secret; starting credits go through the ledger. */
export async function createTeam(pool: pg.Pool, input: { name: string; credits?: number }): Promise<Team> {
  return withTransaction(pool, async (client) => {
    const row = await sql.insertTeam(client, newId('team'), input.name, generateWebhookSecret());
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

export async function countTeams(db: Queryable): Promise<number> {
  return sql.countTeams(db);
}

/** The secret that signs the team's outgoing webhooks. */
export async function getWebhookSecret(db: Queryable, teamId: string): Promise<string> {
  const secret = await sql.selectWebhookSecret(db, teamId);
  if (secret === undefined) throw notFound('Team', teamId);
  return secret;
}

/** Replaces the team's webhook signing secret; deliveries from now on use the new one. */
export async function rotateWebhookSecret(db: Queryable, teamId: string): Promise<string> {
  const secret = generateWebhookSecret();
  if (!(await sql.updateWebhookSecret(db, teamId, secret))) throw notFound('Team', teamId);
  return secret;
}
