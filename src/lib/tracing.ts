// OpenTelemetry traces: off unless an OTLP endpoint is configured. Off, nothing is registered (the
// API's tracer is a no-op, the HTTP hooks are not installed) and the helpers below call their
// function straight away. On, spans go in batches to `<endpoint>/v1/traces` as OTLP/HTTP JSON.
//
// One generation is one trace across processes: its accept span's context is stored with each
// item (`generation_items.traceparent`, W3C form) and every job of the item continues it, whoever
// queued the job (the API, the vendor's webhook, the recovery sweep); a webhook delivery's job
// carries the context it was queued in.

import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; unset, tracing is off. */
  endpoint: string | undefined;
  /** OTEL_SERVICE_NAME. */
  serviceName: string;
  /** The process's ROLE (api, worker, all): a resource attribute. */
  role: string;
  /** OTEL_BSP_SCHEDULE_DELAY: the longest a finished span waits for its batch to be sent. */
  exportDelayMs: number;
  /** OTEL_PROPAGATORS has `tracecontext`: outgoing calls carry the W3C `traceparent`. */
  propagate: boolean;
}

export interface Tracing {
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

let enabled = false;
let propagate = false;
const tracer = trace.getTracer('genmedia');

/** Whether this process records spans. */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Starts exporting spans when an endpoint is configured (once a process); answers undefined when
 * tracing stays off.
 */
export function startTracing(settings: TracingSettings): Tracing | undefined {
  if (!settings.endpoint || enabled) return undefined;
  const exporter = new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.serviceName,
      'genmedia.role': settings.role,
      'process.pid': process.pid,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  trace.setGlobalTracerProvider(provider);
  enabled = true;
  propagate = settings.propagate;
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
    },
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C traceparent's context (a remote parent), or undefined for a missing or malformed one. */
export function contextFromTraceparent(value: unknown): Context | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value);
  if (!m || /^0+$/.test(m[1] as string) || /^0+$/.test(m[2] as string)) return undefined;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: m[1] as string,
    spanId: m[2] as string,
    traceFlags: Number.parseInt(m[3] as string, 16),
    isRemote: true,
  });
}

/**
 * The `traceparent` header a call made now carries (to a vendor, a webhook receiver): the active
 * span's, when tracing is on, a span is active and OTEL_PROPAGATORS asks for trace context. A
 * vendor that records it (a self-hosted OpenAI-compatible server, a collector in front of it) joins
 * the generation's trace; nothing secret is in it.
 */
export function outgoingTraceparent(): string | undefined {
  return propagate ? currentTraceparent() : undefined;
}

/** The active span's W3C traceparent, when tracing is on and a span is active. */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/**
 * Marks a span failed with `error`: its name and message only (no stack, no cause), through
 * `redact` when the message may quote a credential (a vendor's answer).
 */
export function recordError(span: Span | undefined, error: unknown, redact: (text: string) => string = (t) => t): void {
  if (!span) return;
  const message = redact(error instanceof Error ? error.message : String(error));
  if (error instanceof Error) span.recordException({ name: error.name, message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export interface SpanSettings {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context when absent. */
  parent?: Context;
  /** Applied to the message of an error the span records. */
  redact?: (text: string) => string;
}

/**
 * Runs `fn` in a span named `name` (the active span while it runs; ended when it settles, failed
 * when it throws). Tracing off, `fn` runs as is with no span.
 */
export function inSpan<T>(
  name: string,
  settings: SpanSettings,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!enabled) return fn(undefined);
  const parent = settings.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: settings.kind, attributes: settings.attributes }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      recordError(span, err, settings.redact);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Runs `fn` with no active span (work for something else than the current trace). */
export function outsideTrace<T>(fn: () => T): T {
  return enabled ? context.with(ROOT_CONTEXT, fn) : fn();
}

export { type Span, SpanKind };

/** Starts a span without making it active (the HTTP hooks make it active themselves). */
export function startSpan(name: string, settings: SpanSettings): Span {
  return tracer.startSpan(
    name,
    { kind: settings.kind, attributes: settings.attributes },
    settings.parent ?? context.active(),
  );
}

/** Calls `fn` with `span` active. */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(ROOT_CONTEXT, span), fn);
}

/**
 * Runs a queued job in a consumer span continuing the trace of `traceparent` (a new trace without
 * one). Tracing off, `fn` runs as is.
 */
export function inJobSpan<T>(
  task: string,
  traceparent: unknown,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!enabled) return fn(undefined);
  return inSpan(
    `process ${task}`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextFromTraceparent(traceparent) ?? ROOT_CONTEXT,
      attributes: {
        'messaging.system': 'graphile_worker',
        'messaging.operation.type': 'process',
        'messaging.destination.name': task,
        ...attributes,
      },
    },
    fn,
  );
}
