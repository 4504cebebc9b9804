// Nothing delivered is refunded: an influencer video's frames, whose URLs its answer hands out, stay
// charged when the video is cancelled; a 3D model whose URL was handed out at creation cannot be
// cancelled once its file is being stored: the cancel answers that the work completed.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { resultKey } from '../src/engine/create.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration, waitForInfluencer } from './media-helpers.ts';

type CancelAnswer = StatusRecord & { refunded_credits: number; message: string };

const refundsOf = async (server: TestServer, generationId: string) =>
  Number(
    (
      await server.app.deps.pool.query(
        `select coalesce(sum(amount), 0) as sum from credit_ledger where generation_id = $1 and kind = 'refund'`,
        [generationId],
      )
    ).rows[0].sum,
  );

/** Waits until the item at `position` of a generation satisfies `ready` (its row as SQL reads it). */
async function untilItem(
  server: TestServer,
  generationId: string,
  position: number,
  ready: (row: { status: string; vendor_state: string | null }) => boolean,
): Promise<void> {
  for (const deadline = Date.now() + 30_000; ; await sleep(50)) {
    const { rows } = await server.app.deps.pool.query(
      `select status, vendor_state from generation_items where generation_id = $1 and position = $2`,
      [generationId, position],
    );
    if (rows[0] && ready(rows[0])) return;
    if (Date.now() > deadline) assert.fail(`item ${position} never got there: ${JSON.stringify(rows[0])}`);
  }
}

describe('cancelling what was already delivered (fal)', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;
  let images: Server;
  let faceUrl: string;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({ env: fal.env });
    team = await createTeam(server, 100_000);
    const face = await sharp({
      create: { width: 512, height: 512, channels: 3, background: { r: 200, g: 160, b: 140 } },
    })
      .png()
      .toBuffer();
    images = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(face.length) }).end(face);
    });
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    faceUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/face.png`;
  });
  after(async () => {
    fal.hold(false);
    fal.holdFiles(false);
    await fal.release();
    images.close();
    await server.close();
    await fal.close();
  });

  test('an influencer video keeps the charge of the frames it handed out; only the video part is refunded', async () => {
    const made = await call<{ influencer_id: string }>(server, 'POST', '/api/v1/influencers/create', {
      token: team.key,
      body: { image_urls: [faceUrl], name: 'Frame Keeper' },
    });
    assert.equal(made.status, 200, made.text);
    await waitForInfluencer(server, team.key, made.body.influencer_id);
    const before = await balanceOf(server, team.key);
    // The frames are made at once; the video between them waits in fal's queue.
    fal.hold(true, 'IN_QUEUE', 'fal-ai/bytedance/seedance/v1/pro/image-to-video');
    const video = await call<{
      generation_id: string;
      first_frame_url: string;
      last_frame_url: string;
      credits_used: number;
    }>(server, 'POST', '/api/v1/influencers/video', {
      token: team.key,
      body: { influencer_id: made.body.influencer_id, prompt: 'unboxing a phone' },
    });
    assert.equal(video.status, 200, video.text);
    assert.equal(video.body.credits_used, 30 * 8, 'the price is unchanged: 30 credits a second');
    await untilItem(server, video.body.generation_id, 2, (row) => row.vendor_state === 'accepted');
    for (const frame of [video.body.first_frame_url, video.body.last_frame_url]) {
      assert.equal((await fetch(frame)).status, 200, 'the frames were delivered');
    }
    const answer = await call<CancelAnswer>(server, 'POST', `/api/v1/generations/${video.body.generation_id}/cancel`, {
      token: team.key,
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.items.map((i) => [i.status, i.error]),
      [
        ['COMPLETED', null],
        ['COMPLETED', null],
        ['FAILED', 'canceled'],
      ],
    );
    const frames = 2 * 8;
    assert.equal(await balanceOf(server, team.key), before - frames, 'the delivered frames stay paid for');
    assert.equal(await refundsOf(server, video.body.generation_id), video.body.credits_used - frames);
    assert.equal(answer.body.refunded_credits, video.body.credits_used - frames);
    assert.equal(answer.body.credits_used, frames);
    fal.hold(false);
    await fal.release();
  });

  test('a vendor file that cannot be finished is refunded and deleted from storage: nothing refunded stays fetchable', async () => {
    const made = await call<{ influencer_id: string }>(server, 'POST', '/api/v1/influencers/create', {
      token: team.key,
      body: { image_urls: [faceUrl], name: 'Broken Take' },
    });
    assert.equal(made.status, 200, made.text);
    await waitForInfluencer(server, team.key, made.body.influencer_id);
    const before = await balanceOf(server, team.key);
    // fal's video is stored, then voicing it fails: it holds no video.
    const video = await call<{ generation_id: string; credits_used: number }>(
      server,
      'POST',
      '/api/v1/influencers/video',
      { token: team.key, body: { influencer_id: made.body.influencer_id, prompt: 'a broken take [fal:broken-file]' } },
    );
    assert.equal(video.status, 200, video.text);
    const done = await waitForGeneration(server, team.key, video.body.generation_id);
    assert.equal(done.items[2]?.status, 'FAILED', JSON.stringify(done.items));
    assert.match(String(done.items[2]?.error), /could not be used/);
    const frames = 2 * 8;
    assert.equal(await refundsOf(server, video.body.generation_id), video.body.credits_used - frames);
    assert.equal(await balanceOf(server, team.key), before - frames);
    const { rows } = await server.pool.query<{ id: string; storage_token: string }>(
      'select id, storage_token from generation_items where generation_id = $1 and position = 2',
      [video.body.generation_id],
    );
    const key = resultKey(video.body.generation_id, rows[0]?.id as string, rows[0]?.storage_token as string, 'mp4');
    assert.equal(
      (await fetch(server.app.deps.storage.publicUrl(key))).status,
      404,
      'the stored vendor file was deleted',
    );
  });

  test('a 3D model whose file is being stored under the URL handed out answers that it completed, and refunds nothing', async () => {
    const before = await balanceOf(server, team.key);
    fal.holdFiles(true);
    const requested = fal.fileRequests();
    const created = await call<{ generation_id: string; model_url: string; credits_used: number }>(
      server,
      'POST',
      '/api/v1/models-3d/generate',
      { token: team.key, body: { prompt: 'a wooden stool', model: 'meshy-6-preview' } },
    );
    assert.equal(created.status, 200, created.text);
    // The vendor finished and the GLB is on its way into our storage, under the URL handed out.
    for (const deadline = Date.now() + 15_000; fal.fileRequests() === requested; await sleep(50)) {
      if (Date.now() > deadline) assert.fail('the result was never fetched from the vendor');
    }
    const answer = await call<{ error: { code: string; message: string } }>(
      server,
      'POST',
      `/api/v1/generations/${created.body.generation_id}/cancel`,
      { token: team.key },
    );
    assert.equal(answer.status, 409, answer.text);
    assert.equal(answer.body.error.code, 'generation_finished');
    assert.match(answer.body.error.message, /completed/);
    assert.match(answer.body.error.message, /nothing was refunded/);
    fal.holdFiles(false);
    const done = await waitForGeneration(server, team.key, created.body.generation_id);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    assert.equal(done.items[0]?.url, created.body.model_url);
    assert.equal((await fetch(created.body.model_url)).status, 200);
    assert.equal(await refundsOf(server, created.body.generation_id), 0);
    assert.equal(await balanceOf(server, team.key), before - created.body.credits_used);
  });
});
