// The Meshy adapter against a fake Meshy API (test/fakes/meshy.ts) built from Meshy's public API
// shapes: what it sends, the preview→refine chain it runs in poll (and does not run twice after a
// crash), how it reads every answer, and the mappings' refusals.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NodeIO } from '@gltf-transform/core';
import { WorkError } from '../src/lib/errors.ts';
import { createMeshyProvider } from '../src/providers/meshy/client.ts';
import { MESHY_MAPPINGS } from '../src/providers/meshy/mappings.ts';
import type {
  Model3dRequest,
  PollResult,
  Provider,
  ProviderError,
  ProviderOutput,
  SubmitResult,
  VendorHandle,
} from '../src/providers/types.ts';
import { type FakeMeshy, startFakeMeshy } from './fakes/meshy.ts';
import { failure } from './provider-helpers.ts';

const REQUEST: Model3dRequest = {
  kind: 'model3d',
  prompt: 'a wooden chest',
  imageUrl: null,
  mode: 'preview',
  artStyle: 'realistic',
  topology: 'triangle',
  targetPolycount: 30_000,
  symmetry: 'auto',
  tPose: false,
  pbr: false,
  promptExpansion: false,
  seed: null,
};

function accepted(result: SubmitResult): Extract<SubmitResult, { kind: 'accepted' }> {
  assert.equal(result.kind, 'accepted');
  return result as Extract<SubmitResult, { kind: 'accepted' }>;
}

function pending(result: PollResult): Extract<PollResult, { kind: 'pending' }> {
  assert.equal(result.kind, 'pending', JSON.stringify(result));
  return result as Extract<PollResult, { kind: 'pending' }>;
}

function doneOutput(result: PollResult): ProviderOutput {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return (result as { output: ProviderOutput }).output;
}

function failedError(result: PollResult): ProviderError {
  assert.equal(result.kind, 'failed', JSON.stringify(result));
  return (result as Extract<PollResult, { kind: 'failed' }>).error;
}

describe('the Meshy adapter', () => {
  let meshy: FakeMeshy;
  let provider: Provider;

  before(async () => {
    meshy = await startFakeMeshy();
    provider = createMeshyProvider({ apiKey: meshy.apiKey, baseUrl: `${meshy.url}/`, fetch });
  });
  after(() => meshy.close());

  const submit = (request: Partial<Model3dRequest>) => {
    const full = { ...REQUEST, ...request };
    const mapping = full.imageUrl === null ? MESHY_MAPPINGS['text-to-3d'] : MESHY_MAPPINGS['image-to-3d'];
    assert.ok(mapping);
    return provider.submit({ endpoint: 'meshy-5', input: mapping(full), idempotencyKey: 'item_1' });
  };

  /** Polls until the job ends, following replacement handles; every progress seen. */
  const settle = async (first: VendorHandle) => {
    let handle = first;
    const progress: number[] = [];
    const handles: VendorHandle[] = [];
    for (let i = 0; i < 12; i++) {
      const result = await provider.poll(handle);
      if (result.kind !== 'pending') return { result, progress, handles, handle };
      if (result.progress !== undefined) progress.push(result.progress);
      if (result.handle) {
        handle = result.handle;
        handles.push(handle);
      }
    }
    assert.fail('the task never ended');
  };

  const refinesOf = (previewId: unknown) =>
    meshy.posts.filter((p) => p.body.mode === 'refine' && p.body.preview_task_id === previewId).length;

  test('a preview-only text task is one preview task, polled to its GLB', async () => {
    const { handle, vendorRequestId } = accepted(await submit({ seed: 7, tPose: true }));
    const sent = meshy.posts.at(-1);
    assert.equal(sent?.path, '/openapi/v2/text-to-3d');
    assert.equal(sent?.headers.authorization, `Bearer ${meshy.apiKey}`);
    assert.deepEqual(sent?.body, {
      mode: 'preview',
      prompt: 'a wooden chest',
      art_style: 'realistic',
      topology: 'triangle',
      target_polycount: 30_000,
      should_remesh: true,
      symmetry_mode: 'auto',
      pose_mode: 't-pose',
      seed: 7,
      ai_model: 'meshy-5',
    });
    assert.deepEqual(handle, {
      kind: 'text',
      stage: 'preview',
      preview_task_id: vendorRequestId,
      refine_task_id: null,
      full: 0,
      pbr: 0,
      ai_model: 'meshy-5',
    });
    assert.deepEqual(await provider.poll(handle), {
      kind: 'pending',
      progress: 0,
      queuePosition: 3,
      pollAfterMs: 5000,
    });
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', progress: 0.5, pollAfterMs: 3000 });
    const output = doneOutput(await provider.poll(handle));
    const file = output.files[0];
    assert.ok(file && 'url' in file);
    assert.equal(file.contentType, 'model/gltf-binary');
    assert.equal(output.metadata.preview_task_id, vendorRequestId);
    assert.match(String(output.metadata.thumbnail_url), /preview\.png$/);
    assert.equal(refinesOf(vendorRequestId), 0, 'a preview is not refined');
    // The GLB is served without our key, and is a real one.
    const glb = Buffer.from(await (await fetch(file.url)).arrayBuffer());
    const doc = await new NodeIO().readBinary(new Uint8Array(glb));
    assert.equal(doc.getRoot().listMeshes().length, 1);
  });

  test('a full text task is a preview then exactly one refine, the handle replaced, progress 0 → 0.5 → 1', async () => {
    const { handle } = accepted(await submit({ mode: 'full', pbr: true }));
    const previewId = handle.preview_task_id;
    const { result, progress, handles } = await settle(handle);
    const output = doneOutput(result);
    assert.equal(refinesOf(previewId), 1);
    const refine = meshy.posts.find((p) => p.body.mode === 'refine' && p.body.preview_task_id === previewId);
    assert.deepEqual(refine?.body, {
      mode: 'refine',
      preview_task_id: previewId,
      enable_pbr: true,
      ai_model: 'meshy-5',
    });
    assert.equal(handles.length, 1, 'one replacement handle');
    const replaced = handles[0];
    assert.equal(replaced?.stage, 'refine');
    assert.equal(typeof replaced?.refine_task_id, 'string');
    assert.equal(replaced?.preview_task_id, previewId);
    assert.deepEqual(progress, [0, 0.25, 0.5, 0.5, 0.75]);
    assert.deepEqual(
      progress.every((p, i) => i === 0 || p >= (progress[i - 1] ?? 0)),
      true,
      'progress never goes back',
    );
    assert.equal(output.metadata.refine_task_id, replaced?.refine_task_id);
    assert.deepEqual(output.metadata.texture_urls, [
      { base_color: `${meshy.url}/assets/${replaced?.refine_task_id}/base_color.png` },
    ]);
  });

  test('the cost is the credits Meshy says its tasks used (a preview and its refine) at the credit price', async () => {
    assert.equal(
      doneOutput((await settle(accepted(await submit({})).handle)).result).vendorCost,
      undefined,
      'no credit price: the cost is unknown, not 0',
    );
    const priced = createMeshyProvider({ apiKey: meshy.apiKey, baseUrl: meshy.url, fetch, usdPerCredit: 0.02 });
    const mapping = MESHY_MAPPINGS['text-to-3d'];
    assert.ok(mapping);
    const full = accepted(
      await priced.submit({ endpoint: 'meshy-5', input: mapping({ ...REQUEST, mode: 'full' }), idempotencyKey: 'c1' }),
    );
    let handle = full.handle;
    let output: ProviderOutput | undefined;
    for (let i = 0; i < 12 && !output; i++) {
      const result = await priced.poll(handle);
      if (result.kind === 'done') output = result.output;
      else if (result.kind === 'pending' && result.handle) handle = result.handle;
      else assert.notEqual(result.kind, 'failed');
    }
    // The fake's preview says consumed_credits 5, its refine 10: 15 credits at $0.02.
    assert.equal(handle.preview_credits, 5, 'the preview’s credits ride on the refine’s handle');
    assert.equal(output?.metadata.consumed_credits, 10);
    assert.ok(Math.abs((output?.vendorCost ?? Number.NaN) - 15 * 0.02) < 1e-12, String(output?.vendorCost));
  });

  test('a refine whose handle was lost (a crash) is found and used, never POSTed again', async () => {
    const { handle } = accepted(await submit({ mode: 'full' }));
    const previewId = handle.preview_task_id;
    pending(await provider.poll(handle));
    pending(await provider.poll(handle));
    const started = pending(await provider.poll(handle));
    assert.equal(started.handle?.stage, 'refine');
    assert.equal(refinesOf(previewId), 1);
    // The engine crashed before recording started.handle: the old preview-stage handle is polled.
    const again = pending(await provider.poll(handle));
    assert.deepEqual(again.handle, started.handle, 'the existing refine');
    assert.equal(again.progress, 0.5);
    assert.equal(refinesOf(previewId), 1, 'no second refine');
    const { result } = await settle(again.handle ?? handle);
    assert.equal(doneOutput(result).metadata.refine_task_id, started.handle?.refine_task_id);
    assert.equal(refinesOf(previewId), 1);
  });

  test('image to 3D is one task with the image and should_texture, polled to its GLB', async () => {
    const { handle, vendorRequestId } = accepted(
      await submit({ imageUrl: 'https://example.com/chair.png', mode: 'full', pbr: true, topology: 'quad' }),
    );
    const sent = meshy.posts.at(-1);
    assert.equal(sent?.path, '/openapi/v1/image-to-3d');
    assert.deepEqual(sent?.body, {
      image_url: 'https://example.com/chair.png',
      topology: 'quad',
      target_polycount: 30_000,
      should_remesh: true,
      symmetry_mode: 'auto',
      pose_mode: '',
      should_texture: true,
      enable_pbr: true,
      ai_model: 'meshy-5',
    });
    assert.deepEqual(handle, { kind: 'image', task_id: vendorRequestId, ai_model: 'meshy-5' });
    const { result, progress } = await settle(handle);
    assert.deepEqual(progress, [0, 0.5]);
    const output = doneOutput(result);
    assert.equal(output.metadata.task_id, vendorRequestId);
    assert.equal(output.files.length, 1);
  });

  test('a failed task is retryable unavailable; a moderation refusal is content_policy; canceled is canceled', async () => {
    const failed = failedError((await settle(accepted(await submit({ prompt: 'x [meshy:failed]' })).handle)).result);
    assert.equal(failed.kind, 'unavailable');
    assert.equal(failed.retryable, true);
    assert.match(failed.message, /Internal server error during generation/);

    const refused = failedError(
      (await settle(accepted(await submit({ prompt: 'x [meshy:moderation]' })).handle)).result,
    );
    assert.equal(refused.kind, 'content_policy');
    assert.equal(refused.retryable, false);
    assert.equal(refused.failover, false);

    const canceled = failedError(
      (await settle(accepted(await submit({ prompt: 'x [meshy:canceled]' })).handle)).result,
    );
    assert.equal(canceled.kind, 'canceled');
  });

  test('error statuses: 401 auth, 402 quota, 429 rate_limited with Retry-After, 500 unavailable, 400 invalid_input', async () => {
    const auth = await failure(() => submit({ prompt: 'x [meshy:401]' }));
    assert.equal(auth.kind, 'auth');
    assert.equal(auth.retryable, false);
    const quota = await failure(() => submit({ prompt: 'x [meshy:402]' }));
    assert.equal(quota.kind, 'quota');
    assert.match(quota.message, /Insufficient credits/);
    const limited = await failure(() => submit({ prompt: 'x [meshy:429]' }));
    assert.equal(limited.kind, 'rate_limited');
    assert.equal(limited.retryable, true);
    assert.equal(limited.retryAfterMs, 2000);
    const down = await failure(() => submit({ prompt: 'x [meshy:500]' }));
    assert.equal(down.kind, 'unavailable');
    assert.equal(down.retryable, true);
    const invalid = await failure(() =>
      provider.submit({ endpoint: 'meshy-5', input: { mode: 'preview' }, idempotencyKey: 'item_1' }),
    );
    assert.equal(invalid.kind, 'invalid_input');
    assert.equal(invalid.retryable, false);
  });

  test('a refine refused for credits fails the poll for good (quota); an unknown task is not retried', async () => {
    const { handle } = accepted(await submit({ mode: 'full', prompt: 'x [meshy:refine-402]' }));
    const err = failedError((await settle(handle)).result);
    assert.equal(err.kind, 'quota');
    assert.equal(err.retryable, false);
    const unknown = failedError(await provider.poll({ ...handle, preview_task_id: 'no-such-task' }));
    assert.equal(unknown.kind, 'internal');
    assert.match(unknown.message, /HTTP 404/);
  });

  test('an unreachable Meshy is thrown to try again, marked maybe accepted on submit', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise((r) => probe.close(r));
    const gone = createMeshyProvider({ apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, fetch });
    const err = await failure(() =>
      gone.submit({ endpoint: 'meshy-5', input: { mode: 'preview', prompt: 'x' }, idempotencyKey: 'i' }),
    );
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.maybeAccepted, false, 'a refused connection never reached Meshy');
    await failure(() => gone.poll({ kind: 'image', task_id: 't', ai_model: null }));
  });

  test('check reads the balance: reachable with the key, not with a wrong one', async () => {
    assert.equal((await provider.check?.())?.reachable, true);
    const wrong = createMeshyProvider({ apiKey: 'msy_wrong', baseUrl: meshy.url, fetch });
    const check = await wrong.check?.();
    assert.equal(check?.reachable, false);
    assert.match(check?.detail ?? '', /refused our credentials \(HTTP 401\)/);
    assert.equal(provider.cancel, undefined, 'Meshy has no cancel for these tasks');
  });

  test('the mappings refuse what Meshy cannot take', async () => {
    const text = MESHY_MAPPINGS['text-to-3d'];
    const image = MESHY_MAPPINGS['image-to-3d'];
    assert.ok(text && image);
    const refused = (map: typeof text, request: Partial<Model3dRequest>) => {
      try {
        map({ ...REQUEST, ...request });
      } catch (err) {
        assert.ok(err instanceof WorkError);
        assert.equal(err.kind, 'invalid_input');
        return true;
      }
      return false;
    };
    assert.ok(refused(text, { artStyle: 'cartoon' }));
    assert.ok(refused(text, { targetPolycount: 50 }));
    assert.ok(refused(text, { targetPolycount: 300_001 }));
    assert.ok(refused(text, { prompt: 'x'.repeat(601) }));
    assert.ok(refused(text, { promptExpansion: true }));
    assert.ok(refused(text, { imageUrl: 'https://example.com/a.png' }));
    assert.ok(refused(image, {}));
    assert.ok(refused(image, { imageUrl: 'https://example.com/a.png', artStyle: 'sculpture' }));
    assert.ok(!refused(text, { artStyle: 'sculpture', targetPolycount: 100, symmetry: 'off' }));
    assert.deepEqual(text({ ...REQUEST, mode: 'full', pbr: true, seed: 3 }), {
      mode: 'full',
      prompt: 'a wooden chest',
      art_style: 'realistic',
      topology: 'triangle',
      target_polycount: 30_000,
      should_remesh: true,
      symmetry_mode: 'auto',
      pose_mode: '',
      enable_pbr: true,
      seed: 3,
    });
  });
});
