// The Replicate adapter against a fake Replicate API (test/fakes/replicate.ts) built from
// Replicate's public API shapes: what it sends, how it reads every answer, and which webhooks it
// believes.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { signStandardWebhook as signOurWebhook } from '../src/lib/standard-webhooks.ts';
import { createReplicateProvider, progressFromLogs } from '../src/providers/replicate/client.ts';
import {
  type OutputFile,
  type PollResult,
  type Provider,
  type ProviderError,
  type ProviderOutput,
  type SubmitResult,
  type VendorHandle,
  type WebhookEvent,
  WebhookRejectedError,
} from '../src/providers/types.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { closedPort, failure } from './provider-helpers.ts';

function accepted(result: SubmitResult): Extract<SubmitResult, { kind: 'accepted' }> {
  assert.equal(result.kind, 'accepted');
  return result as Extract<SubmitResult, { kind: 'accepted' }>;
}

function doneOutput(result: PollResult | SubmitResult): ProviderOutput {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return (result as { output: ProviderOutput }).output;
}

function failedError(result: PollResult): ProviderError {
  assert.equal(result.kind, 'failed', JSON.stringify(result));
  return (result as Extract<PollResult, { kind: 'failed' }>).error;
}

function urlOf(file: OutputFile | undefined): string | undefined {
  return file && 'url' in file ? file.url : undefined;
}

describe('the Replicate adapter', () => {
  let replicate: FakeReplicate;
  let provider: Provider;

  before(async () => {
    replicate = await startFakeReplicate();
    provider = createReplicateProvider({ token: replicate.token, baseUrl: `${replicate.url}/`, fetch });
  });
  after(() => replicate.close());

  const submit = (prompt: string, endpoint = 'black-forest-labs/flux-dev', extra: { holdS?: number } = {}) =>
    provider.submit({ endpoint, input: { prompt }, idempotencyKey: 'item_1', ...extra });

  /** Polls until the prediction leaves starting/processing. */
  const settle = async (handle: VendorHandle): Promise<PollResult> => {
    for (let i = 0; i < 10; i++) {
      const result = await provider.poll(handle);
      if (result.kind !== 'pending') return result;
    }
    assert.fail('the prediction never ended');
  };

  test('an official model goes to /v1/models/{owner}/{name}/predictions with the token and the webhook', async () => {
    const result = accepted(
      await provider.submit({
        endpoint: 'black-forest-labs/flux-dev',
        input: { prompt: 'a red fox', aspect_ratio: '16:9' },
        idempotencyKey: 'item_1',
        webhookUrl: 'https://api.example.com/webhooks/providers/replicate/item_1',
      }),
    );
    const sent = replicate.submissions.at(-1);
    assert.equal(sent?.path, '/v1/models/black-forest-labs/flux-dev/predictions');
    assert.deepEqual(sent?.body, {
      input: { prompt: 'a red fox', aspect_ratio: '16:9' },
      webhook: 'https://api.example.com/webhooks/providers/replicate/item_1',
      webhook_events_filter: ['completed'],
    });
    assert.equal(sent?.headers.authorization, `Bearer ${replicate.token}`);
    assert.equal(sent?.headers['content-type'], 'application/json');
    assert.equal(sent?.headers.prefer, undefined, 'no hold was asked');
    assert.equal(result.vendorRequestId, result.handle.prediction_id);
    assert.deepEqual(result.handle, {
      prediction_id: result.vendorRequestId,
      get_url: `${replicate.url}/v1/predictions/${result.vendorRequestId}`,
      cancel_url: `${replicate.url}/v1/predictions/${result.vendorRequestId}/cancel`,
    });
    assert.equal(provider.idempotentSubmit ?? false, false, 'Replicate takes no idempotency key');
  });

  test('a versioned model goes to /v1/predictions with the version in the body', async () => {
    const version = '5c7d5dc6dd8bf75c1acaa8565735e7986bc5b66206b55cca93cb72c9bf15ccaa';
    accepted(await submit('a red fox', `acme/sdxl-custom:${version}`));
    const sent = replicate.submissions.at(-1);
    assert.equal(sent?.path, '/v1/predictions');
    assert.deepEqual(sent?.body, { version, input: { prompt: 'a red fox' } });
    assert.equal(sent?.headers.authorization, `Bearer ${replicate.token}`);
  });

  test('an endpoint that is not owner/name[:version] is refused before anything is sent', async () => {
    const before = replicate.submissions.length;
    const err = await failure(() => submit('x', 'flux-dev'));
    assert.equal(err.kind, 'internal');
    assert.equal(err.retryable, false);
    assert.equal(replicate.submissions.length, before);
  });

  test('Prefer: wait holds the submit; a prediction that comes back succeeded is done', async () => {
    const output = doneOutput(await submit('a quick fox', 'black-forest-labs/flux-schnell', { holdS: 90 }));
    assert.equal(replicate.submissions.at(-1)?.headers.prefer, 'wait=60', 'Replicate holds at most 60 s');
    assert.match(urlOf(output.files[0]) ?? '', /\/out-0\.png$/);
    assert.equal(output.metadata.predict_time, 1.25);
    assert.equal(typeof output.metadata.prediction_id, 'string');

    const running = accepted(
      await submit('a slow fox [replicate:slow]', 'black-forest-labs/flux-schnell', { holdS: 5 }),
    );
    assert.equal(replicate.submissions.at(-1)?.headers.prefer, 'wait=5');
    assert.equal(doneOutput(await settle(running.handle)).files.length, 1);
  });

  test('the cost is the predict time at the price of the hardware the operator names for the model', async () => {
    const priced = createReplicateProvider({
      token: replicate.token,
      baseUrl: replicate.url,
      fetch,
      usdPerSecondByModel: { 'black-forest-labs/flux-dev': 0.0014 },
    });
    const output = doneOutput(
      await priced.submit({
        endpoint: 'black-forest-labs/flux-dev',
        input: { prompt: 'a fox' },
        idempotencyKey: 'c1',
        holdS: 10,
      }),
    );
    // The fake's prediction says `metrics.predict_time` 1.25 s: on an A100 (80GB) at $0.0014/s.
    assert.equal(output.metadata.predict_time, 1.25);
    assert.ok(Math.abs((output.vendorCost ?? Number.NaN) - 1.25 * 0.0014) < 1e-12, String(output.vendorCost));
    const unnamed = doneOutput(
      await priced.submit({
        endpoint: 'black-forest-labs/flux-schnell',
        input: { prompt: 'a fox' },
        idempotencyKey: 'c2',
        holdS: 10,
      }),
    );
    assert.equal(unnamed.vendorCost, undefined, 'a model whose hardware is not named has no known cost');
  });

  test('polls starting, then processing with the progress of its logs, then the file of succeeded', async () => {
    const { handle } = accepted(await submit('a red fox'));
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', pollAfterMs: 2000 });
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', progress: 0.5, pollAfterMs: 1000 });
    const output = doneOutput(await provider.poll(handle));
    assert.deepEqual(output.files, [
      { url: `${replicate.url}/files/${handle.prediction_id}/out-0.png`, fileName: 'out-0.png' },
    ]);
    assert.deepEqual(output.metadata, { prediction_id: handle.prediction_id, predict_time: 1.25 });
    assert.equal(output.vendorCost, undefined, 'Replicate gives no per-request cost');
  });

  test('an array of URLs is every file in order; an object output gives its URL fields', async () => {
    const list = accepted(await submit('two foxes [replicate:array]'));
    const files = doneOutput(await settle(list.handle)).files.map(urlOf);
    assert.deepEqual(files, [
      `${replicate.url}/files/${list.handle.prediction_id}/out-0.png`,
      `${replicate.url}/files/${list.handle.prediction_id}/out-1.png`,
    ]);
    const object = accepted(await submit('a mesh [replicate:object]'));
    const output = doneOutput(await settle(object.handle));
    assert.deepEqual(output.files.map(urlOf), [`${replicate.url}/files/${object.handle.prediction_id}/mesh.glb`]);
    assert.deepEqual(output.metadata.output, { seed: 42 });
  });

  test('a data URL output is bytes', async () => {
    const { handle } = accepted(await submit('inline [replicate:data-uri]'));
    const file = doneOutput(await settle(handle)).files[0];
    assert.ok(file && 'data' in file);
    assert.equal(file.contentType, 'image/png');
    assert.deepEqual([...file.data.subarray(1, 4)], [...Buffer.from('PNG')]);
  });

  test('an output with no file in it (a text) fails for good', async () => {
    const { handle } = accepted(await submit('words [replicate:text]'));
    const err = failedError(await settle(handle));
    assert.equal(err.retryable, false);
    assert.equal(err.kind, 'internal');
    assert.match(err.message, /no file/);
  });

  test('failed is retryable with Replicate’s error; an NSFW refusal is content_policy', async () => {
    const failed = accepted(await submit('oom [replicate:failed]'));
    const err = failedError(await settle(failed.handle));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.match(err.message, /CUDA out of memory/);

    const nsfw = accepted(await submit('flagged [replicate:nsfw]'));
    const refused = failedError(await settle(nsfw.handle));
    assert.equal(refused.kind, 'content_policy');
    assert.equal(refused.retryable, false);
    assert.equal(refused.failover, false);
    assert.match(refused.message, /NSFW content detected/);
  });

  test('canceled is kind canceled; aborted (never started, not billed) is retryable unavailable', async () => {
    const canceled = failedError(await settle(accepted(await submit('stop [replicate:canceled]')).handle));
    assert.equal(canceled.kind, 'canceled');
    assert.equal(canceled.retryable, false);
    const aborted = failedError(await settle(accepted(await submit('late [replicate:aborted]')).handle));
    assert.equal(aborted.kind, 'unavailable');
    assert.equal(aborted.retryable, true);
    assert.equal(aborted.failover, true);
  });

  test('a prediction without urls, or with urls on another host, gets URLs built on the base URL', async () => {
    for (const tag of ['no-urls', 'foreign-urls']) {
      const { handle, vendorRequestId } = accepted(await submit(`links [replicate:${tag}]`));
      assert.equal(handle.get_url, `${replicate.url}/v1/predictions/${vendorRequestId}`, tag);
      assert.equal(handle.cancel_url, `${replicate.url}/v1/predictions/${vendorRequestId}/cancel`, tag);
    }
  });

  test('a handle is plain JSON that survives being stored and read back', async () => {
    const { handle } = accepted(await submit('stored'));
    const stored = JSON.parse(JSON.stringify(handle)) as VendorHandle;
    assert.equal((await provider.poll(stored)).kind, 'pending');
  });

  test('cancel POSTs to the cancel URL, and says whether the prediction had started or finished', async () => {
    const { handle } = accepted(await submit('to cancel'));
    // Still starting: canceled with started_at null, never run, not billed.
    assert.equal(await provider.cancel?.(handle), 'not_started');
    assert.equal(replicate.cancels.at(-1), handle.prediction_id);
    assert.equal(failedError(await provider.poll(handle)).kind, 'canceled');
    const running = accepted(await submit('busy [replicate:running]'));
    assert.equal(await provider.cancel?.(running.handle), 'running');
    const done = accepted(await submit('done first'));
    await settle(done.handle);
    assert.equal(await provider.cancel?.(done.handle), 'finished');
  });

  test('401 and 403 are auth, another route may serve; the token is never in the message', async () => {
    const wrong = createReplicateProvider({ token: 'r8_wrong_token', baseUrl: replicate.url, fetch });
    const err = await failure(() =>
      wrong.submit({ endpoint: 'black-forest-labs/flux-dev', input: { prompt: 'x' }, idempotencyKey: 'i' }),
    );
    assert.equal(err.kind, 'auth');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, true);
    assert.equal(err.vendorCode, '401');
    assert.ok(!err.message.includes('r8_wrong_token'));
    const check = await wrong.check?.();
    assert.equal(check?.reachable, false);
    assert.match(check?.detail ?? '', /refused our credentials \(HTTP 401\)/);
    assert.equal((await provider.check?.())?.reachable, true, 'GET /v1/account with the right token');
    const forbidden = await failure(() => submit('x [replicate:403]'));
    assert.equal(forbidden.kind, 'auth');
    assert.equal(forbidden.vendorCode, '403');
  });

  test('402 is quota; 404 (no such model or version) is final here but another route may serve', async () => {
    const quota = await failure(() => submit('x [replicate:402]'));
    assert.equal(quota.kind, 'quota');
    assert.equal(quota.retryable, false);
    assert.equal(quota.failover, true);
    const missing = await failure(() => submit('x [replicate:404]', 'acme/gone:0123abcd'));
    assert.equal(missing.kind, 'internal');
    assert.equal(missing.retryable, false);
    assert.equal(missing.failover, true);
    assert.match(missing.message, /could not be found/);
  });

  test('422 is the input, with Replicate’s invalid fields; no retry and no other route', async () => {
    const err = await failure(() => submit('x [replicate:422]'));
    assert.equal(err.kind, 'invalid_input');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, false);
    assert.match(err.message, /input\.width: Must be less than or equal to 1440/);
  });

  test('429 is a rate limit with its Retry-After; 5xx is retryable unavailable', async () => {
    const limited = await failure(() => submit('x [replicate:429]'));
    assert.equal(limited.kind, 'rate_limited');
    assert.equal(limited.retryable, true);
    assert.equal(limited.retryAfterMs, 2000);
    const down = await failure(() => submit('x [replicate:500]'));
    assert.equal(down.kind, 'unavailable');
    assert.equal(down.retryable, true);
    assert.equal(down.failover, true);
    assert.equal(down.vendorCode, '500');
  });

  test('a body that is not JSON is retryable; a created prediction whose answer is garbled may exist', async () => {
    const html = await failure(() => submit('x [replicate:502-html]'));
    assert.equal(html.kind, 'unavailable');
    assert.equal(html.retryable, true);
    assert.equal(html.vendorCode, '502');
    const garbled = await failure(() => submit('x [replicate:malformed]'));
    assert.equal(garbled.kind, 'unavailable');
    assert.equal(garbled.retryable, true);
    assert.equal(garbled.maybeAccepted, true, 'a 201 was answered: the prediction may be running');
  });

  test('a poll of a prediction Replicate does not know fails; an unreachable Replicate is thrown to try again', async () => {
    const gone = failedError(
      await provider.poll({ prediction_id: 'nope', get_url: `${replicate.url}/v1/predictions/nope`, cancel_url: '' }),
    );
    assert.equal(gone.kind, 'internal');
    const away = `http://127.0.0.1:${await closedPort()}`;
    const refused = createReplicateProvider({ token: 'k', baseUrl: away, fetch });
    const err = await failure(() => refused.poll({ prediction_id: 'x', get_url: `${away}/v1/predictions/x` }));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
  });

  test('a refused connection never reached Replicate; a cut one may have created the prediction', async () => {
    const gone = createReplicateProvider({ token: 'k', baseUrl: `http://127.0.0.1:${await closedPort()}`, fetch });
    const refused = await failure(() =>
      gone.submit({ endpoint: 'black-forest-labs/flux-dev', input: {}, idempotencyKey: 'i' }),
    );
    assert.equal(refused.kind, 'unavailable');
    assert.equal(refused.retryable, true);
    assert.equal(refused.maybeAccepted, false);
    const cut = await failure(() => submit('x [replicate:cut]'));
    assert.equal(cut.retryable, true);
    assert.equal(cut.maybeAccepted, true);
  });

  test('a submit canceled by its signal is canceled, not retried', async () => {
    const controller = new AbortController();
    const pending = provider.submit({
      endpoint: 'black-forest-labs/flux-dev',
      input: { prompt: 'x [replicate:hang]' },
      idempotencyKey: 'i',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const err = await failure(() => pending);
    assert.equal(err.kind, 'canceled');
    assert.equal(err.retryable, false);
  });

  test('progress is the last tqdm percentage of the logs, across redraws', () => {
    assert.equal(
      progressFromLogs(' 10%|█         | 1/10 [00:01<00:09]\n 76%|███████▋  | 7568/10000 [00:33<00:10]'),
      0.76,
    );
    assert.equal(
      progressFromLogs('  0%|  | 0/4 [00:00<?]\r 25%|▎ | 1/4 [00:01<00:03]\r100%|██| 4/4 [00:02<00:00]\n'),
      1,
    );
    assert.equal(progressFromLogs('Using seed: 42\nLoading weights'), undefined);
    assert.equal(progressFromLogs(null), undefined);
  });
});

describe('Replicate webhooks', () => {
  let replicate: FakeReplicate;
  let now = Date.now();
  let configured: Provider;
  let fetched: Provider;

  before(async () => {
    replicate = await startFakeReplicate();
    configured = createReplicateProvider({
      token: replicate.token,
      baseUrl: replicate.url,
      webhookSecret: replicate.secret(),
      fetch,
      now: () => now,
    });
    fetched = createReplicateProvider({ token: replicate.token, baseUrl: replicate.url, fetch, now: () => now });
  });
  after(() => replicate.close());

  const prediction = (id: string, fields: Record<string, unknown> = {}) =>
    JSON.stringify({
      id,
      model: 'black-forest-labs/flux-dev',
      version: 'hidden',
      status: 'succeeded',
      output: [`${replicate.url}/files/${id}/out-0.png`],
      error: null,
      logs: '',
      metrics: { predict_time: 2.5 },
      urls: { get: `${replicate.url}/v1/predictions/${id}`, cancel: `${replicate.url}/v1/predictions/${id}/cancel` },
      ...fields,
    });

  const verify = (target: Provider, headers: Record<string, string>, body: string): Promise<WebhookEvent> => {
    assert.ok(target.verifyWebhook);
    return target.verifyWebhook(headers, Buffer.from(body));
  };

  test('a genuine webhook gives the prediction and its output', async () => {
    const body = prediction('pred1');
    const event = await verify(configured, replicate.signWebhook(body, Math.floor(now / 1000)), body);
    assert.equal(event.vendorRequestId, 'pred1');
    const output = doneOutput(event.result);
    assert.equal(urlOf(output.files[0]), `${replicate.url}/files/pred1/out-0.png`);
    assert.equal(output.metadata.predict_time, 2.5);
  });

  test('a webhook sent by the fake when a prediction completes verifies', async () => {
    const received: Array<{ headers: Record<string, string>; body: string }> = [];
    const sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
        received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
        res.end();
      });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    try {
      const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
      const real = createReplicateProvider({ token: replicate.token, baseUrl: replicate.url, fetch });
      const { vendorRequestId } = accepted(
        await real.submit({
          endpoint: 'black-forest-labs/flux-dev',
          input: { prompt: 'a fox' },
          idempotencyKey: 'i',
          webhookUrl: sinkUrl,
        }),
      );
      for (const end = Date.now() + 10_000; received.length === 0 && Date.now() < end; ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const delivery = received[0];
      assert.ok(delivery, 'the webhook arrived');
      const event = await verify(real, delivery.headers, delivery.body);
      assert.equal(event.vendorRequestId, vendorRequestId);
      assert.equal(event.result.kind, 'done');
    } finally {
      await new Promise((r) => sink.close(r));
    }
  });

  test('a changed body, another secret, a stale timestamp or a missing header is refused', async () => {
    const body = prediction('pred2');
    const at = Math.floor(now / 1000);
    const headers = replicate.signWebhook(body, at);
    await assert.rejects(verify(configured, headers, body.replace('pred2', 'pred3')), WebhookRejectedError);
    const stranger = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    await assert.rejects(verify(configured, replicate.signWebhook(body, at, stranger), body), /does not match/);
    await assert.rejects(verify(configured, replicate.signWebhook(body, at - 301), body), /300 s/);
    await assert.rejects(verify(configured, replicate.signWebhook(body, at + 301), body), /300 s/);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const missing = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
      await assert.rejects(verify(configured, missing, body), new RegExp(name));
    }
    await assert.rejects(
      verify(configured, { ...headers, 'webhook-signature': 'v1,not-base64-at-all!' }, body),
      WebhookRejectedError,
    );
    // Within the tolerance still passes, and any one of several signatures may be the right one.
    const recent = replicate.signWebhook(body, at - 299);
    assert.equal((await verify(configured, recent, body)).vendorRequestId, 'pred2');
    const rotated = replicate.signWebhook(body, at, stranger, headers['webhook-id']);
    const both = `${rotated['webhook-signature']} ${headers['webhook-signature']}`;
    assert.equal((await verify(configured, { ...headers, 'webhook-signature': both }, body)).vendorRequestId, 'pred2');
  });

  test('a signed body that is not a prediction is refused', async () => {
    const body = JSON.stringify({ hello: 'world' });
    await assert.rejects(
      verify(configured, replicate.signWebhook(body, Math.floor(now / 1000)), body),
      /not a Replicate/,
    );
  });

  test('failed, canceled and still-running predictions map as a poll does', async () => {
    const at = Math.floor(now / 1000);
    const failed = prediction('pred4', { status: 'failed', output: null, error: 'NSFW content detected.' });
    assert.equal(
      failedError((await verify(configured, replicate.signWebhook(failed, at), failed)).result).kind,
      'content_policy',
    );
    const canceled = prediction('pred5', { status: 'canceled', output: null });
    assert.equal(
      failedError((await verify(configured, replicate.signWebhook(canceled, at), canceled)).result).kind,
      'canceled',
    );
    const running = prediction('pred6', {
      status: 'processing',
      output: null,
      logs: ' 40%|████      | 4/10 [00:01<00:01]',
    });
    assert.deepEqual((await verify(configured, replicate.signWebhook(running, at), running)).result, {
      kind: 'pending',
      progress: 0.4,
      pollAfterMs: 1000,
    });
  });

  test('without a configured secret, the default secret is fetched once and cached', async () => {
    const body = prediction('pred7');
    const reads = replicate.secretReads();
    assert.equal(
      (await verify(fetched, replicate.signWebhook(body, Math.floor(now / 1000)), body)).vendorRequestId,
      'pred7',
    );
    assert.equal(
      (await verify(fetched, replicate.signWebhook(body, Math.floor(now / 1000)), body)).vendorRequestId,
      'pred7',
    );
    assert.equal(replicate.secretReads(), reads + 1);
  });

  test('a rotated secret is fetched again, at most once a minute', async () => {
    replicate.rotateSecret();
    const body = prediction('pred8');
    const reads = replicate.secretReads();
    // The cached secret was read less than a minute ago: the new one is not fetched yet.
    await assert.rejects(
      verify(fetched, replicate.signWebhook(body, Math.floor(now / 1000)), body),
      WebhookRejectedError,
    );
    await assert.rejects(
      verify(fetched, replicate.signWebhook(body, Math.floor(now / 1000)), body),
      WebhookRejectedError,
    );
    assert.equal(replicate.secretReads(), reads);
    now += 61_000;
    const event = await verify(fetched, replicate.signWebhook(body, Math.floor(now / 1000)), body);
    assert.equal(event.vendorRequestId, 'pred8');
    assert.equal(replicate.secretReads(), reads + 1);
    // A configured secret is never fetched: the rotated one does not verify with it.
    await assert.rejects(
      verify(configured, replicate.signWebhook(body, Math.floor(now / 1000)), body),
      /does not match/,
    );
    assert.equal(replicate.secretReads(), reads + 1);
  });

  test('a secret that cannot be fetched refuses the webhook', async () => {
    const offline = createReplicateProvider({ token: 'r8_wrong_token', baseUrl: replicate.url, fetch, now: () => now });
    const body = prediction('pred9');
    await assert.rejects(
      verify(offline, replicate.signWebhook(body, Math.floor(now / 1000)), body),
      /could not be read/,
    );
  });

  test('our own outgoing Standard Webhooks signature verifies the same way', async () => {
    const body = prediction('pred10');
    const at = Math.floor(now / 1000);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(at) };
    const signature = signOurWebhook(replicate.secret(), 'msg_1', at, body);
    const ours = createReplicateProvider({
      token: replicate.token,
      baseUrl: replicate.url,
      webhookSecret: replicate.secret(),
      fetch,
      now: () => now,
    });
    assert.equal((await verify(ours, { ...headers, 'webhook-signature': signature }, body)).vendorRequestId, 'pred10');
  });
});
