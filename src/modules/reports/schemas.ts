import { Type } from 'typebox';

export const MarginQuery = Type.Object({
  from: Type.String({ description: 'Start of the range (ISO 8601, inclusive): generations created from then' }),
  to: Type.String({ description: 'End of the range (ISO 8601, exclusive)' }),
  group_by: Type.Enum(['model', 'vendor', 'team'], { default: 'model' }),
  format: Type.Optional(Type.Enum(['json', 'csv'])),
});

const Usd = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const MarginRowSchema = Type.Object(
  {
    key: Type.String({ description: 'The model id, the vendor (provider id) or the team id' }),
    generations: Type.Integer(),
    credits: Type.Number({ description: 'Credits charged net of refunds' }),
    revenue_usd: Usd('credits × credit_value_usd; null when CREDIT_VALUE_USD is unset'),
    vendor_cost_usd: Type.Number({ description: 'The sum of the priced vendor attempts, in US dollars' }),
    margin_usd: Usd('revenue_usd − vendor_cost_usd; null when CREDIT_VALUE_USD is unset'),
    unpriced_attempts: Type.Integer({
      description: 'Vendor attempts whose cost is unknown (not in vendor_cost_usd: not free, unpriced)',
    }),
  },
  { title: 'MarginRow' },
);

export const MarginReport = Type.Object(
  {
    credit_value_usd: Type.Union([Type.Number(), Type.Null()], {
      description: 'What one credit is worth (CREDIT_VALUE_USD); null when unset',
    }),
    from: Type.String(),
    to: Type.String(),
    group_by: Type.String(),
    rows: Type.Array(MarginRowSchema),
    negative: Type.Array(MarginRowSchema, { description: 'The rows whose margin is below 0' }),
  },
  { $id: 'MarginReport', title: 'MarginReport' },
);
