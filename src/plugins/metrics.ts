import pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { App } from '../app-types.ts';
import type { Queryable } from '../db/pool.ts';
import { batchedCallsSent } from '../engine/sql/batched.ts';
import type { EngineMetrics } from '../engine/types.ts';
import type { WorkErrorKind } from '../lib/errors.ts';
import { bearerSecretHook } from '../modules/api-keys/hooks.ts';
import { type QueueStatRow, selectQueueStats } from './metrics-sql.ts';

/** The process's Prometheus registry, with Node's own metrics (CPU, memory, event loop, GC). */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Counts every answer of `app` and its latency, by method, route pattern and status. */
export function installRequestMetrics(app: App): void {
  const registry = app.deps.metrics;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, keeps the label set bounded.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * GET /metrics in Prometheus text format. With METRICS_TOKEN set it takes that bearer token, and a
 * wrong one counts as a failed authentication of the client's address.
 */
export function installMetricsRoute(app: App): void {
  const { metrics, config } = app.deps;
  const token = config.metrics.token;
  app.get(
    '/metrics',
    {
      schema: { hide: true },
      logLevel: 'warn',
      ...(token ? { onRequest: bearerSecretHook(app, 'metrics token', () => token) } : {}),
    },
    async (_request, reply) => {
      reply.type(metrics.contentType);
      return metrics.metrics();
    },
  );
}

// Failure kinds that may become a label value; anything else is counted as `other`, so a label can
// never take an unbounded set of values.
const ERROR_KINDS: ReadonlySet<string> = new Set([
  'invalid_input',
  'content_policy',
  'auth',
  'quota',
  'rate_limited',
  'unavailable',
  'timeout',
  'canceled',
  'internal',
] satisfies WorkErrorKind[]);

/** The error_kind label: `none` for a success, `unspecified` for a failure that gave no kind. */
function errorKindLabel(ok: boolean, kind: string | null | undefined): string {
  if (ok) return 'none';
  if (!kind) return 'unspecified';
  return ERROR_KINDS.has(kind) ? kind : 'other';
}

// Media work takes from under a second (an image from a warm model) to half an hour (a long video).
const ITEM_DURATION_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800];

/**
 * The service's own series in `registry`: generations, items, their durations, vendor attempts and
 * webhook attempts as counted by this process, and the queue as the database has it at scrape time.
 */
export function createServiceMetrics(registry: Registry, pool: Queryable): EngineMetrics {
  const generations = new Counter({
    name: 'genmedia_generations_accepted_total',
    help: 'Generations accepted (charged and queued), by operation and model',
    labelNames: ['operation', 'model'] as const,
    registers: [registry],
  });
  const finished = new Counter({
    name: 'genmedia_generations_finished_total',
    help: 'Generations that reached their final status, by operation, model and status (completed, failed)',
    labelNames: ['operation', 'model', 'status'] as const,
    registers: [registry],
  });
  const items = new Counter({
    name: 'genmedia_items_finished_total',
    help: 'Items that reached their outcome, by operation, model, provider, outcome and error kind',
    labelNames: ['operation', 'model', 'provider', 'outcome', 'error_kind'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'genmedia_item_duration_seconds',
    help: "Time from a generation's acceptance to its item's outcome (what its client waits), by operation, provider and outcome",
    labelNames: ['operation', 'provider', 'outcome'] as const,
    buckets: ITEM_DURATION_BUCKETS,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'genmedia_vendor_attempts_total',
    help: 'Vendor attempts ended, by provider, vendor endpoint, outcome and error kind',
    labelNames: ['provider', 'endpoint', 'outcome', 'error_kind'] as const,
    registers: [registry],
  });
  const webhooks = new Counter({
    name: 'genmedia_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, failed_attempt, gave_up) and status class',
    labelNames: ['outcome', 'status_class'] as const,
    registers: [registry],
  });
  const capped = new Counter({
    name: 'genmedia_credential_cap_hits_total',
    help: "Submits that met a vendor credential's full cap, by provider, cap (max_in_flight, rpm) and outcome (skipped: another credential took the item; deferred: the item waits)",
    labelNames: ['provider', 'cap', 'outcome'] as const,
    registers: [registry],
  });
  const roomWaitClaims = new Counter({
    name: 'genmedia_room_wait_claims_total',
    help: "Claims tried by synchronous requests whose items wait for room in their team's cap (the first, and one each time the item is woken)",
    registers: [registry],
  });
  installQueueGauges(registry, pool);
  if (pool instanceof pg.Pool) installBatchCounters(registry, pool);

  return {
    generationAccepted: (g) => generations.inc({ operation: g.operation, model: g.model ?? 'none' }),
    generationFinished: (g) => finished.inc({ operation: g.operation, model: g.model ?? 'none', status: g.status }),
    itemFinished: (i) => {
      const outcome = i.ok ? 'completed' : 'failed';
      const provider = i.provider ?? 'simulator';
      items.inc({
        operation: i.operation,
        model: i.model ?? 'none',
        provider,
        outcome,
        error_kind: errorKindLabel(i.ok, i.errorKind),
      });
      if (i.acceptedAt) {
        duration.observe(
          { operation: i.operation, provider, outcome },
          Math.max(0, Date.now() - i.acceptedAt.getTime()) / 1000,
        );
      }
    },
    vendorAttemptEnded: (a) =>
      attempts.inc({
        provider: a.provider,
        endpoint: a.endpoint,
        outcome: a.outcome,
        error_kind: errorKindLabel(a.outcome === 'completed', a.errorKind),
      }),
    credentialCapped: (c) => capped.inc({ provider: c.provider, cap: c.cap, outcome: c.outcome }),
    roomWaitClaimTried: () => roomWaitClaims.inc(),
    webhookAttempted: (a) =>
      webhooks.inc({
        outcome: a.outcome,
        status_class: a.statusCode === null ? 'network' : `${Math.floor(a.statusCode / 100)}xx`,
      }),
  };
}

/**
 * Group commit (src/db/batched-calls.ts), read from the pool's batcher at scrape time: the
 * statements of accept_generation and finish_item (one call alone, or a batch of several of both),
 * the calls they carried by function, and of these the calls sent again because another call of
 * their batch raised. Calls made inside a caller's transaction are not batched and not counted.
 */
function installBatchCounters(registry: Registry, pool: pg.Pool): void {
  new Counter({
    name: 'genmedia_db_statements_total',
    help: 'Statements of accept_generation and finish_item sent, by kind (alone: one call; batch: several calls, of either function, in one transaction)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      this.reset();
      const { statements } = batchedCallsSent(pool);
      this.inc({ kind: 'alone' }, statements.alone);
      this.inc({ kind: 'batch' }, statements.batch);
    },
  });
  new Counter({
    name: 'genmedia_db_calls_total',
    help: 'Calls of accept_generation and finish_item carried by those statements, by function and kind (alone, batch)',
    labelNames: ['function', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [fn, sent] of Object.entries(batchedCallsSent(pool).calls)) {
        this.inc({ function: fn, kind: 'alone' }, sent.alone);
        this.inc({ function: fn, kind: 'batch' }, sent.batch);
      }
    },
  });
  new Counter({
    name: 'genmedia_db_calls_sent_again_total',
    help: 'Calls of accept_generation and finish_item sent again because another call of their batch raised (the batch was undone), by function',
    labelNames: ['function'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [fn, sent] of Object.entries(batchedCallsSent(pool).calls)) this.inc({ function: fn }, sent.again);
    },
  });
}

// A scrape must answer even when the database does not: the queue's series wait this long at most.
const QUEUE_QUERY_TIMEOUT_MS = 2000;

/**
 * Gauges of the queue, read from the database at scrape time with one query that every gauge of a
 * scrape shares (prom-client collects them together). When the query fails or takes too long, the
 * queue's series are left out and genmedia_queue_stats_up is 0; the rest of /metrics is served.
 */
function installQueueGauges(registry: Registry, pool: Queryable): void {
  let pending: Promise<QueueStatRow[] | undefined> | undefined;
  const read = (): Promise<QueueStatRow[] | undefined> => {
    pending ??= withTimeout(selectQueueStats(pool), QUEUE_QUERY_TIMEOUT_MS)
      .catch(() => undefined)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  new Gauge({
    name: 'genmedia_queue_items',
    help: 'Items QUEUED and PROCESSING now, by item type and status (the same in every process)',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
    async collect() {
      const rows = await read();
      this.reset();
      for (const row of rows ?? []) this.set({ type: row.type, status: row.status }, row.items);
    },
  });
  new Gauge({
    name: 'genmedia_queue_oldest_age_seconds',
    help: 'Seconds since the oldest QUEUED item of each type was accepted (the same in every process)',
    labelNames: ['type'] as const,
    registers: [registry],
    async collect() {
      const rows = await read();
      this.reset();
      for (const row of rows ?? []) if (row.status === 'QUEUED') this.set({ type: row.type }, row.oldest_age_s);
    },
  });
  new Gauge({
    name: 'genmedia_queue_stats_up',
    help: '1 when this scrape read the queue from the database, 0 when it could not (its series are left out)',
    registers: [registry],
    async collect() {
      this.set((await read()) ? 1 : 0);
    },
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Counts the service's changes of a vendor credential's health (disabled, cooling, enabled again). */
export function createCredentialMetrics(registry: Registry): (e: { provider: string; event: string }) => void {
  const events = new Counter({
    name: 'genmedia_credential_events_total',
    help: "Changes of a vendor credential's health made by the service, by provider and event (disabled, cooling, enabled)",
    labelNames: ['provider', 'event'] as const,
    registers: [registry],
  });
  return (e) => events.inc({ provider: e.provider, event: e.event });
}
