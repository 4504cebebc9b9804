// A self-hosted ComfyUI behind the whole service: a fake ComfyUI (test/fakes/comfyui.ts) on
// 127.0.0.1 behind a proxy header, selected with COMFYUI_URL, COMFYUI_HEADERS and COMFYUI_MODELS as
// an operator would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { loadMediaCatalog } from '../src/catalog/media-models.ts';
import { loadModelCatalog } from '../src/catalog/models.ts';
import { addComfyRoutes } from '../src/catalog/operator-routes.ts';
import { type FakeComfy, startFakeComfy } from './fakes/comfyui.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

const PROXY = { name: 'x-proxy-key', value: 'proxy-secret-1' };

describe('images on the operator’s own ComfyUI', () => {
  let comfy: FakeComfy;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    comfy = await startFakeComfy({ requireHeader: PROXY });
    server = await startTestServer({
      env: {
        COMFYUI_URL: comfy.url,
        COMFYUI_HEADERS: JSON.stringify({ [PROXY.name]: PROXY.value }),
        COMFYUI_MODELS: JSON.stringify({ 'image:sdxl': { workflow: 'text-to-image' } }),
        VENDOR_POLL_MIN_MS: '200',
        ITEM_MAX_ATTEMPTS: '3',
        // Room for the first two tests' steps on a busy machine; the third waits it out.
        ITEM_DEADLINE_S: 'image=10',
        SWEEP_INTERVAL_MS: '200',
      },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await comfy.close();
  });

  /** The prompt ComfyUI got for `text`, once it has it. */
  async function submitted(text: string) {
    for (const deadline = Date.now() + 20_000; ; ) {
      const found = comfy.submissions.find((s) => JSON.stringify(s.prompt).includes(text));
      if (found) return found;
      if (Date.now() > deadline) assert.fail(`ComfyUI never got the prompt "${text}"`);
      await sleep(50);
    }
  }

  const status = (id: string) =>
    call<StatusRecord>(server, 'GET', `/api/v1/generations/${id}/status`, { token: team.key }).then((r) => r.body);

  test('a mapped model runs there first: queue position, then the file, fetched with the proxy’s header', async () => {
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse in fog', model: 'sdxl', settings: { aspect_ratio: '16:9' } },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.generation_id;
    const sent = await submitted('a lighthouse in fog');
    const { rows } = await server.pool.query<{ id: string }>(
      'select id from generation_items where generation_id = $1',
      [id],
    );
    assert.match(sent.promptId, new RegExp(`^${rows[0]?.id}-\\d+$`), 'our item (and attempt) is the prompt id');
    assert.equal(sent.headers[PROXY.name], PROXY.value);
    // Waiting in ComfyUI's queue shows in the status record.
    for (const deadline = Date.now() + 10_000; (await status(id)).items[0]?.queue_position !== 0; ) {
      if (Date.now() > deadline) assert.fail('the queue position never reached the status record');
      await sleep(100);
    }
    comfy.run(sent.promptId);
    comfy.finish(sent.promptId);
    const done = await waitForGeneration(server, team.key, id, 20_000);
    assert.equal(done.status, 'completed');
    const url = done.items[0]?.url ?? '';
    assert.ok(url.startsWith(`${server.url}/media/`), url);
    const image = await sharp(Buffer.from(await (await fetch(url)).arrayBuffer())).metadata();
    assert.deepEqual([image.format, image.width, image.height], ['png', 64, 48], 'the bytes ComfyUI made');
    const view = comfy.requests.find((r) => r.path.startsWith('/view'));
    assert.equal(view?.headers[PROXY.name], PROXY.value, 'the result was read with the proxy’s header');
    assert.equal(await balanceOf(server, team.key), before - done.credits_used);
  });

  test('a submit whose answer was cut is asked again with the same prompt id and queued once', async () => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a harbour at dawn [comfy:cut]', model: 'sdxl' },
    });
    assert.equal(created.status, 200, created.text);
    const sent = await submitted('a harbour at dawn');
    // The service asks again (same id) after the cut; ComfyUI must still hold exactly one prompt.
    for (const deadline = Date.now() + 10_000; ; ) {
      const { rows } = await server.pool.query<{ vendor_state: string | null }>(
        'select vendor_state from generation_items where generation_id = $1',
        [created.body.generation_id],
      );
      if (rows[0]?.vendor_state === 'accepted') break;
      if (Date.now() > deadline) assert.fail(`never accepted: ${rows[0]?.vendor_state}`);
      await sleep(100);
    }
    comfy.run(sent.promptId);
    comfy.finish(sent.promptId);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 20_000);
    assert.equal(done.status, 'completed');
    const posts = comfy.submissions.filter((s) => JSON.stringify(s.prompt).includes('a harbour at dawn'));
    assert.equal(posts.length, 1, 'queued once');
  });

  test('a prompt that never runs fails at the deadline, refunded once, and is taken off the queue', async () => {
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a queue that never moves', model: 'sdxl' },
    });
    const sent = await submitted('a queue that never moves');
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    assert.match(done.items[0]?.error ?? '', /^Timed out/);
    assert.equal(await balanceOf(server, team.key), before);
    for (const deadline = Date.now() + 5000; !comfy.deletes.includes(sent.promptId); ) {
      if (Date.now() > deadline) assert.fail('the prompt was never deleted from the queue');
      await sleep(50);
    }
  });

  test('a model the operator did not map stays with its other routes', async () => {
    const count = comfy.submissions.length;
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'simulated', model: 'flux-1-schnell' },
    });
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 20_000);
    assert.equal(done.status, 'completed');
    assert.equal(comfy.submissions.length, count);
  });
});

describe('COMFYUI_MODELS', () => {
  test('puts the ComfyUI route first, by workflow for requests without and with images', () => {
    const catalog = loadModelCatalog();
    const media = loadMediaCatalog();
    addComfyRoutes(catalog, media, { 'image:sdxl': { workflow: 'text-to-image', image_workflow: 'image-to-image' } }, [
      'text-to-image',
      'image-to-image',
    ]);
    addComfyRoutes(catalog, media, { 'video:wan-2.2': { image_workflow: 'image-to-video' } }, ['image-to-video']);
    assert.deepEqual(catalog.find('image', 'sdxl')?.routes[0], {
      provider: 'comfyui',
      endpoint: 'text-to-image',
      mapping: 'image',
      image_endpoint: 'image-to-image',
      image_mapping: 'image',
    });
    // Only an image workflow: a text-only request has no mapping there and takes the next route.
    assert.deepEqual(media.video.find((m) => m.id === 'wan-2.2')?.routes[0], {
      provider: 'comfyui',
      endpoint: 'image-to-video',
      image_endpoint: 'image-to-video',
      image_mapping: 'video',
    });
  });

  test('a model or a workflow that does not exist stops the start, naming the setting', () => {
    const catalog = loadModelCatalog();
    const media = loadMediaCatalog();
    assert.throws(
      () => addComfyRoutes(catalog, media, { 'image:nope': { workflow: 'text-to-image' } }, ['text-to-image']),
      /COMFYUI_MODELS: "image:nope" is not a image model/,
    );
    assert.throws(
      () => addComfyRoutes(catalog, media, { 'image:sdxl': { workflow: 'mine' } }, ['text-to-image']),
      /COMFYUI_MODELS: "image:sdxl" names the workflow "mine"/,
    );
  });
});
