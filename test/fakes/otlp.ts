// A fake OpenTelemetry collector on 127.0.0.1: it takes OTLP/HTTP JSON exports at POST /v1/traces
// (ExportTraceServiceRequest: resourceSpans[].scopeSpans[].spans[], ids in hex, attributes as
// key/AnyValue pairs), answers 200 with an empty partial success, and keeps every span with its
// resource's attributes. `waitFor` resolves once the spans received satisfy a check.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
};

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  events: Array<{ name: string; attributes: Record<string, string | number | boolean> }>;
  resource: Record<string, string | number | boolean>;
}

export interface FakeCollector {
  /** The base URL (OTEL_EXPORTER_OTLP_ENDPOINT). */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the exports received. */
  contentTypes: string[];
  waitFor(check: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return JSON.stringify(v);
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined) {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

export async function startFakeCollector(): Promise<FakeCollector> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributes(s.attributes),
              status: { code: s.status?.code ?? 0, message: s.status?.message },
              events: (s.events ?? []).map((e: { name: string; attributes?: [] }) => ({
                name: e.name,
                attributes: attributes(e.attributes),
              })),
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    waitFor: (check, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (check(spans)) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`the collector never received the spans awaited (${spans.length} received)`));
        }, timeoutMs);
        const wake = () => {
          if (!check(spans)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
