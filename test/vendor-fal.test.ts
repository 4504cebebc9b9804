// images/generate served by fal.ai through the whole service: a fake fal queue (test/fakes/fal.ts)
// on 127.0.0.1, selected with FAL_QUEUE_URL and FAL_JWKS_URL as an operator would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration, waitForInfluencer } from './media-helpers.ts';

const generate = (server: TestServer, team: TeamFixture, body: Record<string, unknown>) =>
  call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', { token: team.key, body });

async function itemErrors(server: TestServer, generationId: string): Promise<string[]> {
  const { rows } = await server.pool.query<{ error: string }>(
    'select error from generation_items where generation_id = $1 order by position',
    [generationId],
  );
  return rows.map((r) => r.error);
}

describe('images through fal.ai, finished by its webhooks', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      env: { ...fal.env, ITEM_MAX_ATTEMPTS: '2' },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('a FLUX model is sent to fal once per item and its images are copied into our storage', async () => {
    const before = await balanceOf(server, team.key);
    const created = await generate(server, team, {
      prompt: 'a red fox in the snow',
      model: 'flux-1-schnell',
      batch: 2,
      settings: { aspect_ratio: '16:9', num_inference_steps: 4 },
    });
    assert.equal(created.status, 200, created.text);
    // Within the wait only a webhook (or the poll an early one asks for) finishes a job: the first
    // scheduled poll is VENDOR_POLL_MAX_MS (a minute) away. The poll counts below tell which.
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const sent = fal.submissions.filter((s) => s.input.prompt === 'a red fox in the snow');
    assert.equal(sent.length, 2, 'one vendor job per item, none twice');
    assert.equal(sent[0]?.endpoint, 'fal-ai/flux/schnell');
    const [firstItem] = (
      await server.pool.query<{ id: string }>(
        'select id from generation_items where generation_id = $1 order by position',
        [created.body.generation_id],
      )
    ).rows;
    const webhookUrl = new URL(
      sent.find((s) => s.webhookUrl?.includes(`item=${firstItem?.id}&`))?.webhookUrl ?? 'http://missing/',
    );
    assert.equal(`${webhookUrl.origin}${webhookUrl.pathname}`, `${server.url}/webhooks/providers/fal`);
    assert.equal(webhookUrl.searchParams.get('item'), firstItem?.id, 'the webhook URL names the item');
    assert.match(webhookUrl.searchParams.get('sig') ?? '', /^[A-Za-z0-9_-]{43}$/, "with the item's credential");
    assert.deepEqual(Object.keys(sent[0]?.input ?? {}).sort(), [
      'enable_safety_checker',
      'image_size',
      'num_images',
      'num_inference_steps',
      'output_format',
      'prompt',
      'seed',
    ]);
    assert.equal(sent[0]?.input.num_inference_steps, 4);
    const size = sent[0]?.input.image_size as { width: number; height: number };
    assert.ok(size.width > size.height, '16:9 is wider than tall');
    for (const item of done.items) {
      assert.ok(item.url?.startsWith(`${server.url}/media/`), `our own URL, not the vendor's: ${item.url}`);
      const image = await fetch(item.url as string);
      assert.equal(image.headers.get('content-type'), 'image/png');
      const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
      assert.deepEqual([meta.width, meta.height], [64, 48], 'the bytes fal made');
    }
    assert.equal(await balanceOf(server, team.key), before - done.credits_used);
    const { rows } = await server.pool.query<{
      provider: string;
      outcome: string;
      vendor_request_id: string;
      early: boolean;
    }>(
      `select a.provider, a.outcome, a.vendor_request_id, i.vendor_webhook_at is not null as early
       from item_attempts a join generation_items i on i.id = a.item_id where a.generation_id = $1`,
      [created.body.generation_id],
    );
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r) => r.provider === 'fal' && r.outcome === 'completed' && r.vendor_request_id));
    // A webhook that came before the submit's answer was recorded (a busy machine) marks its item,
    // and recording the answer polls the job once, at once. Otherwise fal is not asked again.
    assert.deepEqual(
      rows.map((r) => fal.polls(r.vendor_request_id)),
      rows.map((r) => (r.early ? 1 : 0)),
      'the result the signed webhook carried was used: fal was not asked again',
    );
  });

  test('a webhook that arrives before the submit is answered still finishes the item at once', async () => {
    const created = await generate(server, team, { prompt: 'instant [fal:webhook-first]', model: 'flux-1-schnell' });
    assert.equal(created.status, 200, created.text);
    const started = Date.now();
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    // The safety-net poll is VENDOR_POLL_MAX_MS (60 s) away: only the early webhook can be this quick.
    assert.ok(Date.now() - started < 5000, `completed after ${Date.now() - started} ms`);
    const sent = fal.webhooks.filter((w) => w.body.includes('instant [fal:webhook-first]'));
    assert.equal(sent.length, 1);
    assert.ok(
      (fal.submissions.find((s) => s.input.prompt === 'instant [fal:webhook-first]')?.webhookUrl ?? '').includes(
        '?item=',
      ),
    );
  });

  test('images/edit sends the image to edit to the model’s fal endpoint', async () => {
    const source = `${fal.url}/files/source.png`;
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/edit', {
      token: team.key,
      body: { image_url: source, prompt: 'give it a red scarf', model: 'flux-kontext-pro' },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const sent = fal.submissions.filter((s) => s.input.prompt === 'give it a red scarf');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.endpoint, 'fal-ai/flux-pro/kontext');
    // Our copy of the image, taken when the request was accepted, at a signed URL of ours.
    const given = new URL(String(sent[0]?.input.image_url));
    assert.equal(given.origin, server.url);
    assert.match(given.pathname, /^\/media\/gen_[A-Za-z0-9_-]+\/input-[0-9a-f]{32}\.png$/);
    assert.ok(given.searchParams.get('signature'));
    assert.ok(done.items[0]?.url?.startsWith(`${server.url}/media/`));
  });

  test('images/generate-face sends each item to its model’s fal endpoint, traits in the prompt', async () => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate-face', {
      token: team.key,
      body: { prompt: 'studio portrait', seed: 3, gender: 'female', hair_color: 'red', batch: 3 },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const sent = fal.submissions.filter((s) => String(s.input.prompt).startsWith('studio portrait'));
    assert.ok(sent.length >= 1, 'face models with a fal route went to fal');
    for (const s of sent) {
      assert.match(String(s.input.prompt), /red/);
      assert.ok(!('loras' in s.input));
    }
    assert.equal(new Set(sent.map((s) => s.endpoint)).size, sent.length, 'a different model for each item');
  });

  test('influencer images compose the influencer’s face and the references at fal', async () => {
    const created = await call<{ influencer_id: string }>(server, 'POST', '/api/v1/influencers/create', {
      token: team.key,
      body: { image_urls: [`${fal.url}/files/face.png`] },
    });
    assert.equal(created.status, 200, created.text);
    const face = (await waitForInfluencer(server, team.key, created.body.influencer_id)).face_image;
    const outfit = `${fal.url}/files/outfit.png`;
    const generated = await call<{ generation_id: string }>(server, 'POST', '/api/v1/influencers/generate', {
      token: team.key,
      body: { influencer_id: created.body.influencer_id, prompt: 'at the harbour', outfit_image: outfit },
    });
    assert.equal(generated.status, 200, generated.text);
    const done = await waitForGeneration(server, team.key, generated.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const sent = fal.submissions.filter((s) => s.input.prompt === 'at the harbour');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.endpoint, 'fal-ai/flux-pro/kontext/multi');
    const [first, reference] = (sent[0]?.input.image_urls ?? []) as string[];
    assert.equal(first, face, 'the face first, then the references');
    assert.ok(reference?.startsWith(`${server.url}/media/`) && reference.includes('/input-'), reference);
    const copy = await fetch(reference as string);
    assert.equal(copy.status, 200, 'the outfit as we copied it, readable at its signed URL');
    assert.deepEqual(Buffer.from(await copy.arrayBuffer()), Buffer.from(await (await fetch(outfit)).arrayBuffer()));
  });

  test('a model whose routes fal cannot serve yet stays on the simulator', async () => {
    const count = fal.submissions.length;
    const created = await generate(server, team, { prompt: 'simulated', model: 'flux-1-pro' });
    const done = await waitForGeneration(server, team.key, created.body.generation_id);
    assert.equal(done.status, 'completed');
    assert.equal(fal.submissions.length, count);
  });

  test('fal refusing the input fails the item with fal’s words and refunds it, without a retry', async () => {
    const before = await balanceOf(server, team.key);
    const created = await generate(server, team, { prompt: 'bad size [fal:422]', model: 'flux-1-schnell' });
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    assert.match((await itemErrors(server, created.body.generation_id))[0] ?? '', /image_size: unexpected value/);
    assert.equal(await balanceOf(server, team.key), before);
    assert.equal(fal.submissions.filter((s) => s.input.prompt === 'bad size [fal:422]').length, 1);
  });

  test('a rate limit is retried after its Retry-After, then the next route, then failed and refunded once', async () => {
    const before = await balanceOf(server, team.key);
    const started = Date.now();
    const created = await generate(server, team, { prompt: 'busy [fal:429]', model: 'flux-1-schnell' });
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    const sent = fal.submissions.filter((s) => s.input.prompt === 'busy [fal:429]').map((s) => s.endpoint);
    // ITEM_MAX_ATTEMPTS (2) on each of the model's two routes, in their order.
    assert.deepEqual(sent, [
      'fal-ai/flux/schnell',
      'fal-ai/flux/schnell',
      'fal-ai/flux-1/schnell',
      'fal-ai/flux-1/schnell',
    ]);
    assert.ok(Date.now() - started >= 4000, 'waited the Retry-After of 2 s before each retry on a route');
    assert.match(done.items[0]?.error ?? '', /Too many requests/);
    assert.equal(await balanceOf(server, team.key), before);
    const { rows } = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from credit_ledger where generation_id = $1 and kind = 'refund'`,
      [created.body.generation_id],
    );
    assert.equal(rows[0]?.n, 1);
  });

  test('a webhook with a bad signature is 401 and an unknown provider 404', async () => {
    const body = JSON.stringify({ request_id: 'x', status: 'OK', payload: {} });
    const forged = await call(server, 'POST', '/webhooks/providers/fal', {
      raw: body,
      headers: {
        'content-type': 'application/json',
        ...fal.signWebhook('x', body),
        'x-fal-webhook-signature': 'ab'.repeat(64),
      },
    });
    assert.equal(forged.status, 401, forged.text);
    const stale = await call(server, 'POST', '/webhooks/providers/fal', {
      raw: body,
      headers: fal.signWebhook('x', body, Math.floor(Date.now() / 1000) - 600),
    });
    assert.equal(stale.status, 401);
    const genuine = await call(server, 'POST', '/webhooks/providers/fal', {
      raw: body,
      headers: fal.signWebhook('x', body),
    });
    assert.equal(genuine.status, 200, 'a genuine webhook for a job we do not know is acknowledged');
    assert.equal((await call(server, 'POST', '/webhooks/providers/nobody', { raw: body })).status, 404);
  });

  test("a signed webhook of one item's job, posted to another item's URL, is refused and changes nothing", async () => {
    fal.hold(true);
    const prompts = ['bound one', 'bound two'];
    const ids: string[] = [];
    for (const prompt of prompts) {
      const created = await generate(server, team, { prompt, model: 'flux-1-schnell' });
      assert.equal(created.status, 200, created.text);
      ids.push(created.body.generation_id);
    }
    const jobs = async () =>
      (
        await server.pool.query<{ generation_id: string; vendor_request_id: string }>(
          `select generation_id, vendor_request_id from generation_items
           where generation_id = any($1::text[]) and vendor_state = 'accepted' order by generation_id`,
          [ids],
        )
      ).rows;
    for (const deadline = Date.now() + 10_000; (await jobs()).length < 2; await sleep(20)) {
      if (Date.now() > deadline) throw new Error('the jobs never reached fal');
    }
    const [one, two] = await Promise.all(
      ids.map(async (id) => (await jobs()).find((j) => j.generation_id === id)?.vendor_request_id ?? ''),
    );
    const urlOf = (prompt: string) => new URL(fal.submissions.find((s) => s.input.prompt === prompt)?.webhookUrl ?? '');
    // Job one's result, genuinely signed by fal, sent to the URL fal was given for item two.
    const body = JSON.stringify({ request_id: one, status: 'OK', payload: { images: [] } });
    const crossed = await call(server, 'POST', `${urlOf('bound two').pathname}${urlOf('bound two').search}`, {
      raw: body,
      headers: fal.signWebhook(one as string, body),
    });
    assert.equal(crossed.status, 401, crossed.text);
    // Item two's URL without its credential, or with item one's, is refused too.
    const bare = urlOf('bound two');
    bare.searchParams.set('sig', urlOf('bound one').searchParams.get('sig') ?? '');
    const body2 = JSON.stringify({ request_id: two, status: 'OK', payload: { images: [] } });
    const swapped = await call(server, 'POST', `${bare.pathname}${bare.search}`, {
      raw: body2,
      headers: fal.signWebhook(two as string, body2),
    });
    assert.equal(swapped.status, 401, swapped.text);
    const { rows } = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from generation_items where generation_id = any($1::text[]) and status = 'PROCESSING'`,
      [ids],
    );
    assert.equal(rows[0]?.n, 2, 'both items still running');
    fal.hold(false);
    await fal.release();
    for (const id of ids) assert.equal((await waitForGeneration(server, team.key, id, 30_000)).status, 'completed');
  });
});

describe('images through fal.ai when fal cannot reach us', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    // A loopback PUBLIC_BASE_URL without ALLOW_PRIVATE_URLS: no webhook, polls only. The fake's
    // result URLs are on loopback too, and are fetched because they are fal's own origin.
    server = await startTestServer({
      env: { ...fal.env, ALLOW_PRIVATE_URLS: 'false' },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('the job is polled (queued, running, completed) until it is done', async () => {
    const created = await generate(server, team, { prompt: 'polled fox', model: 'flux-1-dev' });
    assert.equal(created.status, 200, created.text);
    const done: StatusRecord = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const sent = fal.submissions.filter((s) => s.input.prompt === 'polled fox');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.webhookUrl, undefined);
    assert.equal(sent[0]?.endpoint, 'fal-ai/flux-lora');
    const { rows } = await server.pool.query<{ vendor_request_id: string }>(
      'select vendor_request_id from generation_items where generation_id = $1',
      [created.body.generation_id],
    );
    assert.equal(fal.polls(rows[0]?.vendor_request_id ?? ''), 3, 'IN_QUEUE, IN_PROGRESS, COMPLETED');
  });
});
