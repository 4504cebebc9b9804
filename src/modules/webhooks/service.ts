import type pg from 'pg';
import { retryWhileUnavailable } from '../../db/errors.ts';
import type { Queryable } from '../../db/pool.ts';
import { withTransaction } from '../../db/pool.ts';
import { addJob } from '../../db/sql.ts';
import type { EngineMetrics } from '../../engine/types.ts';
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { type Page, pageWindow, toPage } from '../../lib/pagination.ts';
import { FetchFailedError, safeFetch, UnsafeUrlError } from '../../lib/safe-fetch.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { generateWebhookSecret } from '../../lib/secrets.ts';
import { signStandardWebhook } from '../../lib/standard-webhooks.ts';
import { currentTraceparent, inSpan, outgoingTraceparent, recordError, SpanKind } from '../../lib/tracing.ts';
import type {
  DeliveryAttempt,
  DeliveryQuery,
  SigningSecret,
  WebhookDelivery,
  WebhookDeliveryDetail,
} from './schemas.ts';
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
  // The trace it is queued in (the generation's) goes with it: its attempts continue that trace.
  const traceparent = currentTraceparent();
  const payload = traceparent ? { delivery_id: deliveryId, traceparent } : { delivery_id: deliveryId };
  await addJob(db, WEBHOOK_TASK, payload, { maxAttempts: WEBHOOK_JOB_MAX_ATTEMPTS, runAt });
}

export interface DeliveryOptions {
  allowPrivateUrls: boolean;
  retryDelaysS: number[];
  /** Opens the team's signing secret (stored sealed). */
  secrets: SecretBox;
  /** Counts each attempt's outcome for the process's metrics. */
  metrics?: Pick<EngineMetrics, 'webhookAttempted'>;
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
    const response = await inSpan('webhook POST', webhookSpan(delivery.url, delivery.id, attempt), async (span) => {
      // The receiver may continue the generation's trace (W3C trace context, when propagated).
      const traceparent = outgoingTraceparent();
      const answer = await safeFetch(delivery.url, {
        method: 'POST',
        body: delivery.payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'genmedia-webhooks/1',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signStandardWebhook(
            options.secrets.open(delivery.webhook_secret),
            delivery.id,
            timestamp,
            delivery.payload,
          ),
          ...(traceparent ? { traceparent } : {}),
        },
        allowPrivate: options.allowPrivateUrls,
        followRedirects: false,
        timeoutMs: TIMEOUT_MS,
        maxBytes: 64 * 1024,
        acceptStatus: () => true,
      });
      span?.setAttribute('http.response.status_code', answer.status);
      if (answer.status < 200 || answer.status >= 300) recordError(span, new Error(`HTTP ${answer.status}`));
      return answer;
    });
    statusCode = response.status;
    if (response.status < 200 || response.status >= 300) error = `HTTP ${response.status}`;
  } catch (err) {
    if (err instanceof UnsafeUrlError || err instanceof FetchFailedError) error = err.message;
    else error = err instanceof Error ? err.message : String(err);
    if (err instanceof FetchFailedError && err.status !== undefined) statusCode = err.status;
  }
  const durationMs = Date.now() - started;
  // A redelivery of a finished delivery is one attempt: it is not retried.
  const delay = delivery.redelivery === 'extra' ? undefined : options.retryDelaysS[attempt - 1];
  const trigger = delivery.redelivery === 'next' || delivery.redelivery === 'extra' ? 'redelivery' : 'schedule';
  // The POST is made: a short outage must not make it again (it would still be safe: same webhook-id).
  const record = () =>
    withTransaction(pool, async (client) => {
      const outcome: sql.DeliveryState = error === null ? 'delivered' : delay === undefined ? 'failed' : 'pending';
      const next = outcome === 'pending' ? new Date(Date.now() + (delay ?? 0) * 1000) : null;
      const now = await sql.finishAttempt(client, deliveryId, attempt, outcome, next);
      await sql.recordAttempt(client, {
        deliveryId,
        attempt,
        statusCode,
        error,
        durationMs,
        trigger,
        nextAttemptAt: now.next_attempt_at,
      });
      // A redelivery asked for during this attempt is due at once (its job runs now).
      if (now.state === 'pending')
        await queueDeliveryAttempt(client, deliveryId, now.redelivered ? undefined : (next ?? undefined));
      return now.state;
    });
  const state = await retryWhileUnavailable(record, { maxMs: RECORD_PATIENCE_MS });
  options.metrics?.webhookAttempted({
    outcome: error === null ? 'delivered' : state === 'pending' ? 'failed_attempt' : 'gave_up',
    statusCode,
  });
}

/** The client span of one POST: the receiver's host and port, never its URL (it may hold a token). */
function webhookSpan(url: string, deliveryId: string, attempt: number) {
  const target = URL.parse(url);
  return {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': 'POST',
      ...(target
        ? {
            'server.address': target.hostname,
            'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
          }
        : {}),
      'genmedia.webhook.delivery_id': deliveryId,
      'genmedia.webhook.attempt': attempt,
    },
  };
}

// ---- the team's own view ------------------------------------------------------------------------

function toSigningSecret(secrets: SecretBox, row: sql.SigningSecretRow): SigningSecret {
  return { secret: secrets.open(row.webhook_secret), created_at: row.webhook_secret_created_at.toISOString() };
}

/** The secret that signs the team's webhooks, and since when (it is stored sealed). */
export async function getSigningSecret(db: Queryable, secrets: SecretBox, teamId: string): Promise<SigningSecret> {
  const row = await sql.selectSigningSecret(db, teamId);
  if (!row) throw notFound('Team', teamId);
  return toSigningSecret(secrets, row);
}

/**
 * Replaces the team's signing secret with a new one at once: every attempt made from now on
 * (first attempts, retries, redeliveries) is signed with it; an attempt already on the wire
 * keeps the old signature.
 */
export async function rotateSigningSecret(db: Queryable, secrets: SecretBox, teamId: string): Promise<SigningSecret> {
  const row = await sql.replaceSigningSecret(db, teamId, secrets.seal(generateWebhookSecret()));
  if (!row) throw notFound('Team', teamId);
  return toSigningSecret(secrets, row);
}

/**
 * Seals the signing secrets stored before they were encrypted (an upgrade); run at start. Each is
 * replaced only if it is still the value read, so concurrent starts do no harm.
 */
export async function sealStoredSecrets(pool: pg.Pool, secrets: SecretBox): Promise<number> {
  let sealed = 0;
  for (const row of await sql.selectUnsealedSecrets(pool)) {
    const done = await withTransaction(pool, (client) =>
      sql.resealSecret(client, row.id, row.webhook_secret, secrets.seal(row.webhook_secret)),
    );
    if (done) sealed += 1;
  }
  return sealed;
}

/** How many attempts of one delivery are shown (the latest); `attempt_count` has them all. */
export const ATTEMPTS_SHOWN = 50;

function toAttempt(row: sql.AttemptRow): DeliveryAttempt {
  return {
    attempt: row.attempt,
    trigger: row.trigger,
    created_at: row.created_at.toISOString(),
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
  };
}

function toDelivery(row: sql.TeamDeliveryRow, attempts: sql.AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    generation_id: row.generation_id,
    event_type: row.event_type,
    url: row.url,
    status: row.state,
    attempt_count: row.attempts,
    next_attempt_at: row.state === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    attempts: attempts.map(toAttempt),
  };
}

function groupAttempts(rows: sql.AttemptRow[]): Map<string, sql.AttemptRow[]> {
  const byDelivery = new Map<string, sql.AttemptRow[]>();
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id);
    if (list) list.push(row);
    else byDelivery.set(row.delivery_id, [row]);
  }
  return byDelivery;
}

/** One page of the team's deliveries, newest first, each with its latest attempts: two queries. */
export async function listDeliveries(
  db: Queryable,
  teamId: string,
  query: DeliveryQuery,
): Promise<Page<WebhookDelivery>> {
  const window = pageWindow(query, 'whd');
  const rows = await sql.selectTeamDeliveries(
    db,
    teamId,
    { ...window, state: query.status, generationId: query.generation_id },
    window.limit + 1,
  );
  const shown = rows.slice(0, window.limit);
  const attempts = groupAttempts(
    await sql.selectAttempts(
      db,
      shown.map((row) => row.id),
      ATTEMPTS_SHOWN,
    ),
  );
  return toPage(rows, window.limit, (row) => toDelivery(row, attempts.get(row.id) ?? []));
}

/** One delivery of the team with its latest attempts and the body it sends; 404 for any other. */
export async function getDelivery(db: Queryable, teamId: string, id: string): Promise<WebhookDeliveryDetail> {
  const row = await sql.selectTeamDelivery(db, teamId, id);
  if (!row) throw notFound('Webhook delivery', id);
  const attempts = await sql.selectAttempts(db, [id], ATTEMPTS_SHOWN);
  return { ...toDelivery(row, attempts), payload: row.payload };
}

/**
 * Queues a new attempt of a delivery of the team, whatever its state: a pending delivery's next
 * attempt is made now (and its schedule goes on if that fails); a delivered or failed one gets
 * one more attempt, not retried. While an attempt is under way, the new one follows it as soon
 * as it is recorded. The body is the same, under the same webhook-id, signed with the current secret.
 */
export async function redeliver(pool: pg.Pool, teamId: string, id: string): Promise<WebhookDeliveryDetail> {
  const found = await withTransaction(pool, async (client) => {
    const delivery = await sql.lockTeamDelivery(client, teamId, id);
    if (!delivery) return false;
    if (delivery.attempt_under_way) {
      await sql.requestRedeliveryAfterAttempt(client, id);
      return true;
    }
    const continues = delivery.state === 'pending' && delivery.redelivery !== 'extra';
    await sql.deleteQueuedAttempts(client, WEBHOOK_TASK, id);
    await sql.scheduleRedelivery(client, id, continues ? 'next' : 'extra');
    await queueDeliveryAttempt(client, id);
    return true;
  });
  if (!found) throw notFound('Webhook delivery', id);
  return getDelivery(pool, teamId, id);
}
