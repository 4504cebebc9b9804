import type { Static } from 'typebox';
import type { Queryable } from '../../db/pool.ts';
import { invalidField } from '../../lib/errors.ts';
import { type Page, type PageQuery, pageWindow, toPage } from '../../lib/pagination.ts';
import { type LedgerEntry, toLedgerEntry } from '../credits/service.ts';
import * as creditSql from '../credits/sql.ts';
import { toCsv } from './csv.ts';
import { LEDGER_CSV_COLUMNS, type Usage } from './schemas.ts';

/** One page of the team's ledger, newest first (a 400 for a bad window or cursor). */
export async function listLedgerPage(db: Queryable, teamId: string, query: PageQuery): Promise<Page<LedgerEntry>> {
  const window = pageWindow(query, 'led');
  const rows = await creditSql.selectLedgerPage(db, teamId, window, window.limit + 1);
  return toPage(rows, window.limit, toLedgerEntry);
}

/** A page of ledger entries as CSV: a header row and one row per entry. */
export function ledgerCsv(entries: LedgerEntry[]): string {
  return toCsv(LEDGER_CSV_COLUMNS, entries);
}

/** The longest range a usage report covers, in days (a leap year). */
export const MAX_USAGE_DAYS = 366;
const DEFAULT_USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

type UsageReport = Static<typeof Usage>;
type UsageFigures = UsageReport['totals'];

function dayOf(field: string, value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || ms < Date.UTC(1970, 0, 1)) throw invalidField(field, 'must be a date from 1970-01-01 on');
  return ms;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function figures(row: creditSql.UsageRow | undefined): UsageFigures {
  const charged = row?.charged ?? 0;
  const refunded = row?.refunded ?? 0;
  return { charged, refunded, net: charged - refunded, generations: row?.generations ?? 0 };
}

/**
 * Credits charged and refunded by the team over UTC days `from`..`to` (both included; default
 * the last 30 days up to today), per day and per operation and model: one query.
 */
export async function getUsage(
  db: Queryable,
  teamId: string,
  query: { from?: string; to?: string },
  now = new Date(),
): Promise<UsageReport> {
  const to = query.to === undefined ? Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`) : dayOf('to', query.to);
  const from = query.from === undefined ? to - (DEFAULT_USAGE_DAYS - 1) * DAY_MS : dayOf('from', query.from);
  if (from > to) throw invalidField('from', 'must not be after to');
  if ((to - from) / DAY_MS + 1 > MAX_USAGE_DAYS) {
    throw invalidField('from', `the range may cover at most ${MAX_USAGE_DAYS} days; ask for several ranges`);
  }
  const rows = await creditSql.selectUsage(db, teamId, isoDay(from), isoDay(to));
  const byDay = new Map<string, creditSql.UsageRow>();
  let total: creditSql.UsageRow | undefined;
  const byOperation: UsageReport['by_operation'] = [];
  for (const row of rows) {
    if (row.day !== null) byDay.set(row.day, row);
    else if (row.by_operation) {
      byOperation.push({
        kind: row.operation === null ? null : (row.operation.split('.')[0] ?? row.operation),
        operation: row.operation,
        model: row.model,
        ...figures(row),
      });
    } else total = row;
  }
  byOperation.sort(
    (a, b) =>
      b.net - a.net || b.charged - a.charged || `${a.operation} ${a.model}`.localeCompare(`${b.operation} ${b.model}`),
  );
  const days: UsageReport['days'] = [];
  for (let day = from; day <= to; day += DAY_MS) {
    const date = isoDay(day);
    days.push({ date, ...figures(byDay.get(date)) });
  }
  return { from: isoDay(from), to: isoDay(to), totals: figures(total), days, by_operation: byOperation };
}
