import type { Queryable } from '../../db/pool.ts';

export type LedgerKind = 'grant' | 'correction' | 'charge' | 'refund' | 'purchase';

export interface LedgerRow {
  id: string;
  team_id: string;
  amount: number;
  balance_after: number;
  kind: LedgerKind;
  reason: string;
  generation_id: string | null;
  created_at: Date;
}

export interface LedgerInsert {
  id: string;
  teamId: string;
  amount: number;
  kind: LedgerKind;
  reason: string;
  generationId: string | null;
}

const LEDGER_COLUMNS = 'id, team_id, amount, balance_after, kind, reason, generation_id, created_at';

/**
 * Moves the balance and appends the ledger row in one statement. The row lock taken by the
 * update serialises concurrent changes of one team, and the `>= 0` guard is re-checked after
 * the lock, so concurrent charges can never overspend. No row back: unknown team or short balance.
 */
export async function applyCreditChange(db: Queryable, change: LedgerInsert): Promise<LedgerRow | undefined> {
  const { rows } = await db.query<LedgerRow>(
    `with updated as (
       update teams set credits = credits + $3::bigint
       where id = $2::text and credits + $3::bigint >= 0
       returning credits
     )
     insert into credit_ledger (id, team_id, amount, balance_after, kind, reason, generation_id)
     select $1::text, $2::text, $3::bigint, updated.credits, $4::text, $5::text, $6::text from updated
     returning ${LEDGER_COLUMNS}`,
    [change.id, change.teamId, change.amount, change.kind, change.reason, change.generationId],
  );
  return rows[0];
}

export async function selectBalance(db: Queryable, teamId: string): Promise<number | undefined> {
  const { rows } = await db.query<{ credits: number }>('select credits from teams where id = $1::text', [teamId]);
  return rows[0]?.credits;
}

/** Newest first (in the order the changes were applied), keyset-paginated by entry id. */
export async function selectLedger(
  db: Queryable,
  teamId: string,
  limit: number,
  before: string | undefined,
): Promise<LedgerRow[]> {
  const { rows } = await db.query<LedgerRow>(
    `select ${LEDGER_COLUMNS} from credit_ledger
     where team_id = $1::text
       and ($3::text is null or seq < (select seq from credit_ledger where id = $3::text))
     order by seq desc
     limit $2::int`,
    [teamId, limit, before ?? null],
  );
  return rows;
}
