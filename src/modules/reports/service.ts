import type { Static } from 'typebox';
import type { Queryable } from '../../db/pool.ts';
import { invalidField } from '../../lib/errors.ts';
import { toCsv } from '../billing/csv.ts';
import type { MarginQuery } from './schemas.ts';
import { type MarginGroup, type MarginRow, selectMargin } from './sql.ts';

export interface MarginReportData {
  credit_value_usd: number | null;
  from: string;
  to: string;
  group_by: MarginGroup;
  rows: MarginRow[];
  negative: MarginRow[];
}

/** The longest range one report covers, in days. */
export const MAX_MARGIN_DAYS = 366;

function instant(field: string, value: string): Date {
  const ms = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidField(field, 'must be an ISO 8601 date or time, e.g. 2026-11-01T00:00:00Z');
  return new Date(ms);
}

/**
 * Revenue against vendor cost of the generations created in [from, to), by model, vendor or team;
 * revenue and margin are null when what a credit is worth is not configured.
 */
export async function marginReport(
  db: Queryable,
  creditValueUsd: number | undefined,
  query: Static<typeof MarginQuery>,
): Promise<MarginReportData> {
  const from = instant('from', query.from);
  const to = instant('to', query.to);
  if (to.getTime() <= from.getTime()) throw invalidField('to', 'must be after from');
  if (to.getTime() - from.getTime() > MAX_MARGIN_DAYS * 86_400_000)
    throw invalidField('to', `the range may cover at most ${MAX_MARGIN_DAYS} days`);
  const group = query.group_by as MarginGroup;
  const rows = await selectMargin(db, from, to, group, creditValueUsd ?? null);
  return {
    credit_value_usd: creditValueUsd ?? null,
    from: from.toISOString(),
    to: to.toISOString(),
    group_by: group,
    rows,
    negative: rows.filter((row) => row.margin_usd !== null && row.margin_usd < 0),
  };
}

export const MARGIN_CSV_COLUMNS = [
  'key',
  'generations',
  'credits',
  'revenue_usd',
  'vendor_cost_usd',
  'margin_usd',
  'unpriced_attempts',
] as const;

/** The report's rows as CSV (a header row, CRLF line ends; an unknown figure is an empty field). */
export function marginCsv(report: MarginReportData): string {
  return toCsv(MARGIN_CSV_COLUMNS, report.rows);
}
