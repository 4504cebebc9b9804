import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { call, sleep, type TestServer } from './helpers.ts';

export interface StatusRecord {
  generation_id: string;
  status: string;
  result_urls: string[];
  credits_used: number;
  total_items: number;
  completed_items: number;
  failed_items: number;
  expires_at: string | null;
  items: Array<{
    id: string;
    type: string;
    status: string;
    url: string | null;
    error: string | null;
    progress: number;
    queue_position: number | null;
    created_at: string;
    updated_at: string;
  }>;
}

export interface ErrorReply {
  error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

/** Polls the status endpoint until the generation is terminal. */
export async function waitForGeneration(server: TestServer, key: string, id: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${id}/status`, { token: key });
    assert.equal(r.status, 200, r.text);
    if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
    if (Date.now() > deadline) throw new Error(`generation ${id} still ${r.body.status}`);
    await sleep(100);
  }
}

/** Polls the influencer list until the influencer is ready for generation; its listing then. */
export async function waitForInfluencer<
  T extends { id: string; ready_for_generation: boolean } = {
    id: string;
    face_image: string;
    ready_for_generation: boolean;
  },
>(server: TestServer, key: string, id: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await call<T[]>(server, 'GET', '/api/v1/influencers', { token: key });
    assert.equal(list.status, 200, list.text);
    const found = list.body.find((i) => i.id === id);
    if (found?.ready_for_generation) return found;
    if (Date.now() > deadline) throw new Error(`influencer ${id} never became ready`);
    await sleep(100);
  }
}

/** Creates a generation, waits for it, and returns its first result URL (asserting it completed). */
export async function generateAndWait(
  server: TestServer,
  key: string,
  path: string,
  body: unknown,
): Promise<{ id: string; url: string; status: StatusRecord; created: Record<string, unknown> }> {
  const r = await call<Record<string, unknown>>(server, 'POST', path, { token: key, body });
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  const id = String(r.body.generation_id);
  const status = await waitForGeneration(server, key, id);
  assert.equal(status.status, 'completed', `${path} ${JSON.stringify(status)}`);
  return { id, url: status.result_urls[0] ?? '', status, created: r.body };
}

/** Downloads a result and measures it with ffprobe. */
export async function fetchAndProbe(url: string) {
  const r = await fetch(url);
  assert.equal(r.status, 200, url);
  const data = Buffer.from(await r.arrayBuffer());
  return { data, contentType: r.headers.get('content-type'), probe: await probeMedia(data) };
}

export const balanceOf = async (server: { url: string }, key: string) =>
  (await call<number>(server, 'GET', '/api/v1/billing/credits', { token: key })).body;

/** Expects a 4xx with the given code and, when given, a detail for the field. */
export async function expectError(
  server: TestServer,
  key: string,
  path: string,
  body: unknown,
  status: number,
  code: string,
  field?: string,
): Promise<ErrorReply> {
  const r = await call<ErrorReply>(server, 'POST', path, { token: key, body });
  assert.equal(r.status, status, `${path} ${JSON.stringify(body)} → ${r.text}`);
  assert.equal(r.body.error.code, code, r.text);
  if (field)
    assert.ok(
      r.body.error.details?.some((d) => d.field === field),
      `expected a detail for ${field}: ${r.text}`,
    );
  return r.body;
}

/** Asserts a 400 invalid_request with a detail for the named field, for each body in turn. */
export async function expectInvalid(
  server: TestServer,
  key: string,
  path: string,
  cases: Array<[body: unknown, field: string]>,
): Promise<void> {
  for (const [body, field] of cases) await expectError(server, key, path, body, 400, 'invalid_request', field);
}

/**
 * A server of LoRA weights (any path, a few bytes): requests name their weights by URL, and the
 * service copies them in when it accepts the request.
 */
export async function startWeightsServer(): Promise<{ url: (name: string) => string; close: () => void }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(64, 7));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: (name) => `${base}/${name}`, close: () => server.close() };
}
