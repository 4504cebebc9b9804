import { Type } from 'typebox';

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
