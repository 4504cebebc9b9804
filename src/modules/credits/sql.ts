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
 * Moves the balance and appends the ledger row in one statement (apply_credit_change, migration
 * 0036: the generation engine's own statements call it too). The row lock taken by the update
 * serialises concurrent changes of one team, and the `>= 0` guard is re-checked after the lock, so
 * concurrent charges can never overspend. No row back: unknown team or short balance.
 */
export async function applyCreditChange(db: Queryable, change: LedgerInsert): Promise<LedgerRow | undefined> {
  const { rows } = await db.query<LedgerRow>(
    `select ${LEDGER_COLUMNS}
     from apply_credit_change($1::text, $2::text, $3::bigint, $4::text, $5::text, $6::text)`,
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

/** A ledger row with the exact key of its place in the list (created_at to the microsecond). */
export interface LedgerPageRow extends LedgerRow {
  cursor_at: string;
}

/** Which part of a team's ledger a page reads; times are ISO timestamps. */
export interface LedgerWindow {
  /** Entries created strictly after this time, to the millisecond as entries show it. */
  createdAfter?: string;
  /** Entries created strictly before this time. */
  createdBefore?: string;
  /** Strictly older than this (created_at, id): the last entry of the page before. */
  olderThan?: { createdAt: string; id: string };
}

/**
 * One page of a team's ledger, newest first by (created_at, id): one statement, a range of the
 * (team_id, created_at desc, id desc) index read from the cursor down.
 */
export async function selectLedgerPage(
  db: Queryable,
  teamId: string,
  window: LedgerWindow,
  limit: number,
): Promise<LedgerPageRow[]> {
  const args: unknown[] = [teamId];
  const arg = (value: unknown, cast: string) => {
    args.push(value);
    return `$${args.length}::${cast}`;
  };
  const where = ['team_id = $1::text'];
  if (window.createdAfter)
    where.push(`created_at >= ${arg(window.createdAfter, 'timestamptz')} + interval '1 millisecond'`);
  if (window.createdBefore) where.push(`created_at < ${arg(window.createdBefore, 'timestamptz')}`);
  if (window.olderThan) {
    where.push(
      `(created_at, id) < (${arg(window.olderThan.createdAt, 'timestamptz')}, ${arg(window.olderThan.id, 'text')})`,
    );
  }
  const { rows } = await db.query<LedgerPageRow>(
    `select ${LEDGER_COLUMNS},
            to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
     from credit_ledger
     where ${where.join(' and ')}
     order by created_at desc, id desc
     limit ${arg(limit, 'int')}`,
    args,
  );
  return rows;
}

/**
 * One group of a usage report: a UTC day (`day` set), an operation and model (`by_operation`
 * true), or the whole range (neither).
 */
export interface UsageRow {
  day: string | null;
  by_operation: boolean;
  operation: string | null;
  model: string | null;
  charged: number;
  refunded: number;
  generations: number;
}

/**
 * Credits charged and refunded in the UTC days `from`..`to` (inclusive, `YYYY-MM-DD`), by day, by
 * operation and model (from the generation each entry names), and in all: one pass over a range
 * of the (team_id, created_at) ledger index, which holds every ledger column this reads.
 */
export async function selectUsage(db: Queryable, teamId: string, from: string, to: string): Promise<UsageRow[]> {
  const { rows } = await db.query<UsageRow>(
    `with entries as (
       select (l.created_at at time zone 'UTC')::date as day, l.kind, l.amount, l.generation_id, g.operation, g.model
       from credit_ledger l
       left join generations g on g.id = l.generation_id
       where l.team_id = $1::text
         and l.created_at >= ($2::date)::timestamp at time zone 'UTC'
         and l.created_at < ($3::date + 1)::timestamp at time zone 'UTC'
         and l.kind in ('charge', 'refund')
     )
     select to_char(day, 'YYYY-MM-DD') as day,
            grouping(operation, model) = 0 as by_operation,
            operation, model,
            coalesce(sum(-amount) filter (where kind = 'charge'), 0)::bigint as charged,
            coalesce(sum(amount) filter (where kind = 'refund'), 0)::bigint as refunded,
            count(*) filter (where kind = 'charge')::int as generations
     from entries
     group by grouping sets ((day), (operation, model), ())`,
    [teamId, from, to],
  );
  return rows;
}
