import { Type } from 'typebox';
import { OperationName } from '../../catalog/operation-names.ts';

export const PlanVariant = Type.Object({
  id: Type.String(),
  active: Type.Boolean(),
  price: Type.Number({ description: 'Price in the smallest unit of the currency (cents)' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  interval: Type.String({ description: "Always 'one_time' for the plans listed" }),
  interval_count: Type.Integer(),
});

export const CreditPlan = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    storeId: Type.String(),
    variants: Type.Array(PlanVariant),
  },
  { $id: 'CreditPlan', title: 'CreditPlan' },
);

export const LEDGER_KINDS = ['grant', 'correction', 'charge', 'refund', 'purchase'] as const;

/** One change of the team's balance, as the team's ledger shows it. */
export const TeamLedgerEntry = Type.Object(
  {
    id: Type.String({ examples: ['led_01jb6x3t8h2k9m4n5p6q7r8s9t'] }),
    amount: Type.Integer({ description: 'Credits added (positive) or taken (negative: a charge)' }),
    balance_after: Type.Integer({ description: 'The balance this change produced' }),
    kind: Type.Enum([...LEDGER_KINDS], {
      description:
        '`charge` (a generation accepted), `refund` (a failed item, or the unused part of a charge), ' +
        '`purchase` (a paid checkout), `grant` and `correction` (by the operator)',
    }),
    reason: Type.String(),
    generation_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The generation charged or refunded, if any',
    }),
    created_at: Type.String({ format: 'date-time', examples: ['2026-11-22T01:22:07.123Z'] }),
  },
  { title: 'TeamLedgerEntry' },
);

/** The columns of the CSV form of the ledger, in order (the JSON field names). */
export const LEDGER_CSV_COLUMNS = [
  'id',
  'created_at',
  'kind',
  'amount',
  'balance_after',
  'reason',
  'generation_id',
] as const;

const UsageFigures = {
  charged: Type.Integer({ description: 'Credits charged (`charge` entries), as a positive number' }),
  refunded: Type.Integer({ description: 'Credits given back (`refund` entries)' }),
  net: Type.Integer({ description: 'charged - refunded: what was spent' }),
  generations: Type.Integer({ description: 'Generations charged' }),
};

export const UsageQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      format: 'date',
      description: 'First UTC day (YYYY-MM-DD); default: 29 days before `to`',
      examples: ['2026-11-01'],
    }),
  ),
  to: Type.Optional(
    Type.String({
      format: 'date',
      description: 'Last UTC day, included (YYYY-MM-DD); default: today',
      examples: ['2026-11-30'],
    }),
  ),
});

export const Usage = Type.Object(
  {
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    totals: Type.Object(UsageFigures),
    days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...UsageFigures }), {
      description: 'Every UTC day of the range, oldest first (days without usage are zeros)',
    }),
    by_operation: Type.Array(
      Type.Object({
        kind: Type.Union([Type.String(), Type.Null()], {
          description: 'The family of the operation (`image`, `video`, ...)',
        }),
        operation: Type.Union([Type.String(), Type.Null()], { examples: [OperationName.imageGenerate] }),
        model: Type.Union([Type.String(), Type.Null()]),
        ...UsageFigures,
      }),
      { description: 'Totals of each operation and model, most spent first' },
    ),
  },
  { $id: 'Usage', title: 'Usage' },
);
