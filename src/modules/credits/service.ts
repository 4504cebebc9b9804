import type { Queryable } from '../../db/pool.ts';
import { insufficientCredits, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import * as sql from './sql.ts';

export type { LedgerKind, LedgerRow } from './sql.ts';

export interface LedgerEntry {
  id: string;
  amount: number;
  balance_after: number;
  kind: sql.LedgerKind;
  reason: string;
  generation_id: string | null;
  created_at: string;
}

export function toLedgerEntry(row: sql.LedgerRow): LedgerEntry {
  return {
    id: row.id,
    amount: row.amount,
    balance_after: row.balance_after,
    kind: row.kind,
    reason: row.reason,
    generation_id: row.generation_id,
    created_at: row.created_at.toISOString(),
  };
}

export interface CreditChange {
  teamId: string;
  /** Positive adds credits, negative takes them. */
  amount: number;
  kind: sql.LedgerKind;
  reason: string;
  generationId?: string | null;
}

/**
 * Changes a team's balance by `amount` and appends the ledger row; call inside the transaction
 * that owns the change. Throws 402 `insufficient_credits` when the balance would go below zero.
 */
export async function changeCredits(db: Queryable, change: CreditChange): Promise<LedgerEntry> {
  const row = await sql.applyCreditChange(db, {
    id: newId('led'),
    teamId: change.teamId,
    amount: change.amount,
    kind: change.kind,
    reason: change.reason,
    generationId: change.generationId ?? null,
  });
  if (row) return toLedgerEntry(row);
  const balance = await sql.selectBalance(db, change.teamId);
  if (balance === undefined) throw notFound('Team', change.teamId);
  throw insufficientCredits(-change.amount, balance);
}

/** The team's current balance. */
export async function getBalance(db: Queryable, teamId: string): Promise<number> {
  const balance = await sql.selectBalance(db, teamId);
  if (balance === undefined) throw notFound('Team', teamId);
  return balance;
}

/** Ledger entries, newest first. */
export async function listLedger(
  db: Queryable,
  teamId: string,
  limit: number,
  before?: string,
): Promise<LedgerEntry[]> {
  return (await sql.selectLedger(db, teamId, limit, before)).map(toLedgerEntry);
}
