// The fal.ai adapter against a fake fal queue (test/fakes/fal.ts) built from fal's public API
// shapes: what it sends, how it reads every answer, and which webhooks it believes.

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WorkError } from '../src/lib/errors.ts';
import { createFalProvider, falAppId } from '../src/providers/fal/client.ts';
import { jwksFromUrl } from '../src/providers/fal/webhook.ts';
import {
  type PollResult,
  type Provider,
  type ProviderError,
  type VendorHandle,
  WebhookRejectedError,
} from '../src/providers/types.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';

describe('the fal.ai adapter', () => {
  let fal: FakeFal;
  let provider: Provider;

  before(async () => {
    fal = await startFakeFal();
    provider = createFalProvider({
      key: fal.key,
      queueUrl: fal.url,
      requestTimeoutS: 300,
      fetch,
      jwks: jwksFromUrl(fal.jwksUrl, fetch),
    });
  });
  after(() => fal.close());

  const submit = async (prompt: string, endpoint = 'fal-ai/flux/dev', webhookUrl?: string) => {
    const r = await provider.submit({ endpoint, input: { prompt }, idempotencyKey: 'item_1', webhookUrl });
    assert.equal(r.kind, 'accepted');
    return r as Extract<typeof r, { kind: 'accepted' }>;
  };

  /** The ProviderError a call ends with. */
  const failure = async (call: () => Promise<unknown>): Promise<ProviderError> => {
    try {
      await call();
    } catch (err) {
      assert.ok(err instanceof WorkError, String(err));
      return err;
    }
    assert.fail('expected a ProviderError');
  };

  test('submits the input with the key, the timeout and the webhook, and keeps the returned URLs', async () => {
    const accepted = await submit('a red fox', 'fal-ai/flux/dev', 'https://api.example.com/webhooks/providers/fal');
    const sent = fal.submissions.at(-1);
    assert.equal(sent?.endpoint, 'fal-ai/flux/dev');
    assert.deepEqual(sent?.input, { prompt: 'a red fox' });
    assert.equal(sent?.headers.authorization, `Key ${fal.key}`);
    assert.equal(sent?.headers['x-fal-request-timeout'], '300');
    assert.equal(sent?.webhookUrl, 'https://api.example.com/webhooks/providers/fal');
    assert.equal(accepted.vendorRequestId, accepted.handle.request_id);
    // Status, result and cancel URLs drop the subpath (`/dev`).
    assert.equal(accepted.handle.status_url, `${fal.url}/fal-ai/flux/requests/${accepted.vendorRequestId}/status`);
    assert.equal(accepted.handle.response_url, `${fal.url}/fal-ai/flux/requests/${accepted.vendorRequestId}`);
  });

  test('polls IN_QUEUE (with the queue position), IN_PROGRESS, then reads the files of COMPLETED', async () => {
    const { handle } = await submit('a red fox');
    const first = await provider.poll(handle);
    assert.deepEqual(first, { kind: 'pending', progress: 0, queuePosition: 2, pollAfterMs: 2000 });
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', pollAfterMs: 1000 });
    const done = await provider.poll(handle);
    assert.equal(done.kind, 'done');
    const output = (done as Extract<PollResult, { kind: 'done' }>).output;
    assert.deepEqual(output.files, [
      {
        url: `${fal.url}/files/${handle.request_id}.png`,
        contentType: 'image/png',
        fileName: `${handle.request_id}.png`,
        size: undefined,
        width: 64,
        height: 48,
      },
    ]);
    assert.equal(output.metadata.seed, 42);
  });

  test('workflows and comfy endpoints keep three path segments', async () => {
    assert.equal(falAppId('fal-ai/flux/dev'), 'fal-ai/flux');
    assert.equal(falAppId('fal-ai/flux-lora'), 'fal-ai/flux-lora');
    assert.equal(falAppId('workflows/acme/upscale/v2'), 'workflows/acme/upscale');
    assert.equal(falAppId('comfy/acme/portrait'), 'comfy/acme/portrait');
    const { handle } = await submit('a workflow', 'workflows/acme/upscale/v2');
    assert.match(String(handle.status_url), /\/workflows\/acme\/upscale\/requests\/[^/]+\/status$/);
    await provider.poll(handle);
    await provider.poll(handle);
    assert.equal((await provider.poll(handle)).kind, 'done');
  });

  test('422 is the input, with fal’s own words; no retry and no other route', async () => {
    const err = await failure(() => submit('bad [fal:422]'));
    assert.equal(err.kind, 'invalid_input');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, false);
    assert.match(err.message, /image_size: unexpected value/);
    const policy = await failure(() => submit('flagged [fal:content-policy]'));
    assert.equal(policy.kind, 'content_policy');
    assert.equal(policy.failover, false);
  });

  test('429 is a rate limit with its Retry-After; 500 with X-Fal-Error-Type is fal’s infrastructure', async () => {
    const limited = await failure(() => submit('busy [fal:429]'));
    assert.equal(limited.kind, 'rate_limited');
    assert.equal(limited.retryable, true);
    assert.equal(limited.retryAfterMs, 2000);
    const down = await failure(() => submit('down [fal:500]'));
    assert.equal(down.kind, 'unavailable');
    assert.equal(down.retryable, true);
    assert.equal(down.failover, true);
    assert.equal(down.vendorCode, '500 runner_scheduling_failure');
  });

  test('a wrong key is auth (another route may serve); malformed JSON is retryable', async () => {
    const wrong = createFalProvider({ key: 'nope', queueUrl: fal.url, fetch, jwks: jwksFromUrl(fal.jwksUrl, fetch) });
    const err = await failure(() =>
      wrong.submit({ endpoint: 'fal-ai/flux/dev', input: { prompt: 'x' }, idempotencyKey: 'i' }),
    );
    assert.equal(err.kind, 'auth');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, true);
    assert.ok(!err.message.includes('nope'), 'the key is not in the message');
    const malformed = await failure(() => submit('garbled [fal:malformed]'));
    assert.equal(malformed.kind, 'unavailable');
    assert.equal(malformed.retryable, true);
  });

  test('a job COMPLETED with an error fails retryably; a user-timeout 504 on the result is final', async () => {
    const errored = await submit('oom [fal:error]');
    await provider.poll(errored.handle);
    await provider.poll(errored.handle);
    const failed = await provider.poll(errored.handle);
    assert.equal(failed.kind, 'failed');
    const error = (failed as Extract<PollResult, { kind: 'failed' }>).error;
    assert.equal(error.retryable, true);
    assert.match(error.message, /CUDA out of memory/);

    const slow = await submit('slow [fal:504-user]');
    await provider.poll(slow.handle);
    await provider.poll(slow.handle);
    const timedOut = await provider.poll(slow.handle);
    assert.equal(timedOut.kind, 'failed');
    const timeout = (timedOut as Extract<PollResult, { kind: 'failed' }>).error;
    assert.equal(timeout.kind, 'timeout');
    assert.equal(timeout.retryable, false);
    assert.equal(timeout.failover, false);
  });

  test('cancel asks fal with PUT on the cancel URL, and says whether the job had started or finished', async () => {
    const { handle } = await submit('to cancel');
    // Its status, read first, says IN_QUEUE: fal removes it from its queue, it never runs.
    assert.equal(await provider.cancel?.(handle), 'not_started');
    assert.deepEqual(fal.cancels.at(-1), handle.request_id);
    // Read again it is IN_PROGRESS: the cancel only signals its runner.
    assert.equal(await provider.cancel?.(handle), 'running');
    const done = await submit('done before the cancel');
    for (let i = 0; i < 3; i++) await provider.poll(done.handle);
    assert.equal(await provider.cancel?.(done.handle), 'finished');
  });

  test('an unreachable fal is retryable and unavailable', async () => {
    // A port that was just free: the connection is refused.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r));
    const gone = createFalProvider({
      key: 'k',
      queueUrl: `http://127.0.0.1:${port}`,
      fetch,
      jwks: jwksFromUrl(fal.jwksUrl, fetch),
    });
    const err = await failure(() => gone.submit({ endpoint: 'fal-ai/flux/dev', input: {}, idempotencyKey: 'i' }));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.maybeAccepted, false, 'a refused connection never reached fal');
  });

  test('a submit whose answer is lost, or that times out, may have been accepted', async () => {
    const cut = await failure(() =>
      provider.submit({ endpoint: 'fal-ai/flux/dev', input: { prompt: 'x [fal:cut]' }, idempotencyKey: 'i' }),
    );
    assert.equal(cut.maybeAccepted, true);
    const slow = createFalProvider({
      key: fal.key,
      queueUrl: fal.url,
      fetch: (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(300) }),
      jwks: jwksFromUrl(fal.jwksUrl, fetch),
    });
    const hung = await failure(() =>
      slow.submit({ endpoint: 'fal-ai/flux/dev', input: { prompt: 'x [fal:hang]' }, idempotencyKey: 'i' }),
    );
    assert.equal(hung.kind, 'timeout');
    assert.equal(hung.maybeAccepted, true);
  });

  test('a result given inline as a data URL (sync_mode) is bytes', async () => {
    const { handle } = await submit('inline [fal:data-uri]');
    let result = await provider.poll(handle);
    while (result.kind === 'pending') result = await provider.poll(handle);
    assert.equal(result.kind, 'done');
    const file = result.kind === 'done' ? result.output.files[0] : undefined;
    assert.ok(file && 'data' in file);
    assert.equal(file.contentType, 'image/png');
    assert.deepEqual([...file.data.subarray(1, 4)], [...Buffer.from('PNG')]);
  });
});

describe('fal.ai webhooks', () => {
  let fal: FakeFal;
  let provider: Provider;
  let now = Date.now();

  before(async () => {
    fal = await startFakeFal();
    provider = createFalProvider({
      key: fal.key,
      queueUrl: fal.url,
      fetch,
      jwks: jwksFromUrl(fal.jwksUrl, fetch, () => now),
      now: () => now,
    });
  });
  after(() => fal.close());

  const ok = (
    requestId: string,
    payload: unknown = { images: [{ url: 'https://x/y.png', content_type: 'image/png' }] },
  ) => JSON.stringify({ request_id: requestId, gateway_request_id: requestId, status: 'OK', payload });

  const verify = (headers: Record<string, string>, body: string) =>
    provider.verifyWebhook?.(headers, Buffer.from(body)) as Promise<{ vendorRequestId: string; result: PollResult }>;

  test('a genuine webhook gives the job and its output', async () => {
    const body = ok('req-1');
    const event = await verify(fal.signWebhook('req-1', body), body);
    assert.equal(event.vendorRequestId, 'req-1');
    assert.equal(event.result.kind, 'done');
  });

  test('a bad signature, another key, a stale timestamp or a missing header is refused', async () => {
    const body = ok('req-2');
    const headers = fal.signWebhook('req-2', body);
    await assert.rejects(verify(headers, body.replace('req-2', 'req-3')), WebhookRejectedError, 'a changed body');
    const stranger = generateKeyPairSync('ed25519').privateKey;
    await assert.rejects(verify(fal.signWebhook('req-2', body, undefined, stranger), body), WebhookRejectedError);
    const old = Math.floor(now / 1000) - 301;
    await assert.rejects(verify(fal.signWebhook('req-2', body, old), body), /300 s/);
    const { 'x-fal-webhook-user-id': _dropped, ...missing } = headers;
    await assert.rejects(verify(missing, body), /x-fal-webhook-user-id/);
    // Within the tolerance still passes.
    const recent = Math.floor(now / 1000) - 299;
    assert.equal((await verify(fal.signWebhook('req-2', body, recent), body)).vendorRequestId, 'req-2');
  });

  test('an ERROR with a validation detail is invalid input; a null payload means fetch the result', async () => {
    const error = JSON.stringify({
      request_id: 'req-4',
      status: 'ERROR',
      error: 'Invalid input',
      payload: { detail: [{ loc: ['body', 'num_images'], msg: 'must be at most 4' }] },
    });
    const failed = await verify(fal.signWebhook('req-4', error), error);
    assert.equal(failed.result.kind, 'failed');
    const reason = (failed.result as Extract<PollResult, { kind: 'failed' }>).error;
    assert.equal(reason.kind, 'invalid_input');
    assert.match(reason.message, /num_images: must be at most 4/);
    const empty = JSON.stringify({ request_id: 'req-5', status: 'OK', payload: null, payload_error: 'too large' });
    assert.deepEqual((await verify(fal.signWebhook('req-5', empty), empty)).result, {
      kind: 'pending',
      pollAfterMs: 0,
    });
  });

  test('a rotated signing key is fetched again (at most once a minute)', async () => {
    fal.rotateKey();
    const body = ok('req-6');
    // The cached keys were read less than a minute ago: the new key is not fetched yet.
    await assert.rejects(verify(fal.signWebhook('req-6', body), body), WebhookRejectedError);
    now += 61_000;
    const headers = fal.signWebhook('req-6', body, Math.floor(now / 1000));
    assert.equal((await verify(headers, body)).vendorRequestId, 'req-6');
  });
});

// A handle is plain JSON that survives being stored and read back.
test('a fal handle is plain JSON', async () => {
  const fal = await startFakeFal();
  try {
    const provider = createFalProvider({
      key: fal.key,
      queueUrl: fal.url,
      fetch,
      jwks: jwksFromUrl(fal.jwksUrl, fetch),
    });
    const accepted = await provider.submit({
      endpoint: 'fal-ai/flux/dev',
      input: { prompt: 'x' },
      idempotencyKey: 'i',
    });
    assert.equal(accepted.kind, 'accepted');
    const handle = JSON.parse(JSON.stringify((accepted as { handle: VendorHandle }).handle)) as VendorHandle;
    assert.equal((await provider.poll(handle)).kind, 'pending');
  } finally {
    await fal.close();
  }
});
