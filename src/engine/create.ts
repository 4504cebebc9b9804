import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { withTransaction } from '../db/pool.ts';
import { newId } from '../lib/ids.ts';
import { changeCredits } from '../modules/credits/service.ts';
import { completeIdempotencyKey, type IdempotencyClaim } from '../modules/idempotency/service.ts';
import * as sql from './sql.ts';
import type { CreatedGeneration, GenerationPlan } from './types.ts';

/** The job that runs one item. */
export const ITEM_TASK = 'generation_item';

export interface CreateInput<TBody> {
  teamId: string;
  workspaceId: string | null;
  plan: GenerationPlan;
  itemMaxAttempts: number;
  idempotency: IdempotencyClaim | null;
  /** Builds the response body; it is stored with the idempotency key in the same transaction. */
  respond: (created: CreatedGeneration) => TBody;
}

/**
 * Accepts a generation in one transaction: charges the full price (402 and nothing written when
 * the balance is short), writes the generation and its items, queues one job per item, and
 * stores the response under the request's Idempotency-Key. Either all of it happens or none.
 */
export async function createGeneration<TBody>(pool: pg.Pool, input: CreateInput<TBody>): Promise<TBody> {
  const { plan } = input;
  const id = newId('gen');
  const items = plan.items.map((item, position) => ({
    id: newId('item'),
    position,
    type: item.type,
    model: item.model ?? plan.model,
    input: item.input ?? {},
    price: item.price,
    storageToken: randomBytes(16).toString('hex'),
  }));
  const total = items.reduce((sum, item) => sum + item.price, 0);

  return withTransaction(pool, async (client) => {
    if (total > 0) {
      await changeCredits(client, {
        teamId: input.teamId,
        amount: -total,
        kind: 'charge',
        reason: plan.model ? `${plan.operation} (${plan.model})` : plan.operation,
        generationId: id,
      });
    }
    const createdAt = await sql.insertGeneration(client, {
      id,
      teamId: input.teamId,
      workspaceId: input.workspaceId,
      operation: plan.operation,
      model: plan.model,
      input: plan.input,
      creditsCharged: total,
      totalItems: items.length,
      estimatedSeconds: plan.estimatedSeconds,
      webhookUrl: plan.webhookUrl ?? null,
    });
    await sql.insertItems(client, id, items);
    await sql.addItemJobs(
      client,
      ITEM_TASK,
      items.map((i) => i.id),
      input.itemMaxAttempts,
    );
    const body = input.respond({
      id,
      status: 'queued',
      itemIds: items.map((i) => i.id),
      creditsCharged: total,
      estimatedSeconds: plan.estimatedSeconds,
      createdAt,
    });
    if (input.idempotency) await completeIdempotencyKey(client, input.idempotency, 200, JSON.stringify(body));
    return body;
  });
}
