import { type Static, Type } from 'typebox';
import { readJsonList } from './json-list.ts';

const PlanVariantData = Type.Object({
  id: Type.String({ minLength: 1 }),
  active: Type.Boolean(),
  price: Type.Integer({ minimum: 0 }),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  interval: Type.Literal('one_time'),
  interval_count: Type.Integer({ minimum: 1 }),
  credits: Type.Integer({ minimum: 1 }),
});

const PlanData = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  storeId: Type.String({ minLength: 1 }),
  variants: Type.Array(PlanVariantData, { minItems: 1 }),
});

/** A one-time credit plan as kept in `credit-plans.json` (variants also say how many credits they buy). */
export type CreditPlan = Static<typeof PlanData>;

const PLANS_FILE = new URL('./credit-plans.json', import.meta.url);

/** Loads and validates the plans file; a malformed file stops the start with the reason. */
export function loadCreditPlans(file: URL = PLANS_FILE): CreditPlan[] {
  const data = readJsonList(file, PlanData, 'credit-plans.json');
  const ids = new Set<string>();
  for (const plan of data) {
    for (const id of [plan.id, ...plan.variants.map((v) => v.id)]) {
      if (ids.has(id)) throw new Error(`credit-plans.json: id '${id}' is used twice`);
      ids.add(id);
    }
  }
  return data;
}
