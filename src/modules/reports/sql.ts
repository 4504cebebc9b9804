import type { Queryable } from '../../db/pool.ts';

/** The provider id the simulator's attempts are recorded under: the service itself, not a vendor. */
const SIMULATOR = 'simulator';

/** What the margin report is grouped by. */
export type MarginGroup = 'model' | 'vendor' | 'team';

export interface MarginRow {
  key: string;
  generations: number;
  credits: number;
  revenue_usd: number | null;
  vendor_cost_usd: number;
  margin_usd: number | null;
  unpriced_attempts: number;
}

// The key of a generation's credits, and of an attempt's cost, under each grouping. Under `vendor`
// an item's credits go to the vendor that served it last ('(service)': the service's own work).
const REVENUE_KEY: Record<MarginGroup, string> = {
  model: "coalesce(g.model, '(none)')",
  team: 'g.team_id',
  vendor: "coalesce(i.provider, '(service)')",
};
const COST_KEY: Record<MarginGroup, string> = {
  model: "coalesce(g.model, '(none)')",
  team: 'g.team_id',
  vendor: 'a.provider',
};

/**
 * Revenue and vendor cost of the generations created in [from, to), grouped. Credits are net of
 * refunds (charged minus refunded); under `vendor` a generation's net credits are shared among its
 * items in proportion to their prices. Cost is the sum of the recorded attempts' cost (US dollars)
 * of those generations and of their sub-work (the speech an item needed), counted with the item
 * that needed it; an attempt of unknown cost is counted in `unpriced_attempts` (the simulator's never are, nor a
 * submit the vendor refused). All sums are numeric: exact to the vendor's figures.
 */
export async function selectMargin(
  db: Queryable,
  from: Date,
  to: Date,
  group: MarginGroup,
  creditValueUsd: number | null,
): Promise<MarginRow[]> {
  const revenue =
    group === 'vendor'
      ? `select key, count(distinct generation_id)::int as generations,
           sum(case when prices = 0 then 0 else price::numeric * net / prices end) as credits
         from (
           select ${REVENUE_KEY.vendor} as key, g.id as generation_id, i.price,
             g.credits_charged - g.credits_refunded as net,
             sum(i.price) over (partition by g.id) as prices
           from gens g join generation_items i on i.generation_id = g.id
         ) shares
         group by 1`
      : `select ${REVENUE_KEY[group]} as key, count(*)::int as generations,
           sum(g.credits_charged - g.credits_refunded)::numeric as credits
         from gens g group by 1`;
  const { rows } = await db.query<MarginRow>(
    `with gens as (
       select g.id, g.team_id, g.model, g.credits_charged, g.credits_refunded
       from generations g
       where g.parent_item_id is null and g.created_at >= $1::timestamptz and g.created_at < $2::timestamptz
     ), owned as (
       select id as generation_id, id as owner_id from gens
       union all
       select s.id, i.generation_id from generations s
       join generation_items i on i.id = s.parent_item_id
       join gens on gens.id = i.generation_id
     ), revenue as (${revenue}
     ), cost as (
       select ${COST_KEY[group]} as key, coalesce(sum(a.cost), 0) as cost,
         count(*) filter (where a.cost is null and a.outcome is distinct from 'submit_failed')::int as unpriced
       from item_attempts a
       join owned o on o.generation_id = a.generation_id
       join gens g on g.id = o.owner_id
       where a.provider <> $4::text
       group by 1
     ), joined as (
       select coalesce(r.key, c.key) as key, coalesce(r.generations, 0) as generations,
         coalesce(r.credits, 0) as credits, coalesce(c.cost, 0) as cost, coalesce(c.unpriced, 0) as unpriced
       from revenue r full join cost c on c.key = r.key
     )
     select key, generations, credits::float8 as credits,
       (credits * $3::numeric)::float8 as revenue_usd,
       cost::float8 as vendor_cost_usd,
       (credits * $3::numeric - cost)::float8 as margin_usd,
       unpriced as unpriced_attempts
     from joined order by key`,
    [from, to, creditValueUsd === null ? null : String(creditValueUsd), SIMULATOR],
  );
  return rows;
}
