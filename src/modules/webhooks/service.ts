import type pg from 'pg';
import { retryWhileUnavailable } from '../../db/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { addJob } from '../../db/sql.ts';
import { newId } from '../../lib/ids.ts';
import { FetchFailedError, safeFetch, UnsafeUrlError } from '../../lib/safe-fetch.ts';
import { signStandardWebhook } from '../../lib/standard-webhooks.ts';
import * as sql from './sql.ts';

export const WEBHOOK_TASK = 'webhook_deliver';
const TIMEOUT_MS = 10_000;
// An attempt holds its delivery this long: the POST's timeout with room to record the outcome.
const ATTEMPT_LEASE_MS = 60_000;
const RECORD_PATIENCE_MS = 30_000;
/**
 * Attempts of one delivery job. The schedule of DESIGN §6 is kept by the delivery row (one job
 * per scheduled attempt); the job's own retries only cover an attempt cut short by a crash or
 * an outage, which is then made again with the same webhook-id (at-least-once).
 */
export const WEBHOOK_JOB_MAX_ATTEMPTS = 25;

/**
 * Records a delivery for a finished generation and queues its first attempt, in the caller's
 * transaction (the one that finished the generation), so a finish is never without its webhook.
 */
export async function enqueueWebhook(
  db: Queryable,
  d: { teamId: string; generationId: string; url: string; eventType: string; data: unknown },
): Promise<void> {
  const id = newId('whd');
  const payload = JSON.stringify({ type: d.eventType, timestamp: new Date().toISOString(), data: d.data });
  const inserted = await sql.insertDelivery(db, { ...d, id, payload });
  if (inserted) await queueDeliveryAttempt(db, id);
}

/** Queues the job of a delivery's next attempt, in the caller's transaction. */
export async function queueDeliveryAttempt(db: Queryable, deliveryId: string, runAt?: Date): Promise<void> {
  await addJob(db, WEBHOOK_TASK, { delivery_id: deliveryId }, { maxAttempts: WEBHOOK_JOB_MAX_ATTEMPTS, runAt });
}

export interface DeliveryOptions {
  allowPrivateUrls: boolean;
  retryDelaysS: number[];
}

/**
 * One delivery attempt: POST the stored body, signed now; only a 2xx counts and redirects are
 * not followed. A failure schedules the next attempt as a new job until the schedule runs out.
 */
export async function attemptDelivery(pool: pg.Pool, deliveryId: string, options: DeliveryOptions): Promise<void> {
  const delivery = await sql.leasePendingDelivery(pool, deliveryId, ATTEMPT_LEASE_MS);
  if (!delivery) return;
  const attempt = delivery.attempts + 1;
  const timestamp = Math.floor(Date.now() / 1000);
  const started = Date.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const response = await safeFetch(delivery.url, {
      method: 'POST',
      body: delivery.payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'genmedia-webhooks/1',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signStandardWebhook(delivery.webhook_secret, delivery.id, timestamp, delivery.payload),
      },
      allowPrivate: options.allowPrivateUrls,
      followRedirects: false,
      timeoutMs: TIMEOUT_MS,
      maxBytes: 64 * 1024,
      acceptStatus: () => true,
    });
    statusCode = response.status;
    if (response.status < 200 || response.status >= 300) error = `HTTP ${response.status}`;
  } catch (err) {
    if (err instanceof UnsafeUrlError || err instanceof FetchFailedError) error = err.message;
    else error = err instanceof Error ? err.message : String(err);
    if (err instanceof FetchFailedError && err.status !== undefined) statusCode = err.status;
  }
  const durationMs = Date.now() - started;
  const delay = options.retryDelaysS[attempt - 1];
  // The POST is made: a short outage must not make it again (it would still be safe: same webhook-id).
  const record = () =>
    withTransaction(pool, async (client) => {
      await sql.recordAttempt(client, { deliveryId, attempt, statusCode, error, durationMs });
      if (error === null) {
        await sql.updateDelivery(client, deliveryId, attempt, 'delivered', null);
      } else if (delay === undefined) {
        await sql.updateDelivery(client, deliveryId, attempt, 'failed', null);
      } else {
        const next = new Date(Date.now() + delay * 1000);
        await sql.updateDelivery(client, deliveryId, attempt, 'pending', next);
        await queueDeliveryAttempt(client, deliveryId, next);
      }
    });
  await retryWhileUnavailable(record, { maxMs: RECORD_PATIENCE_MS });
}
