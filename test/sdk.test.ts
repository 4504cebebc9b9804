// The TypeScript SDK (@genmedia/sdk, as built) against the running service: its types regenerate
// from /openapi.json without a difference; every namespace's happy path; one error class per
// code; retries that keep their Idempotency-Key (no second charge when an answer is lost);
// waiting over the live status stream and by polling; webhook verification; and a core that
// imports nothing of Node's.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  FailedGenerationError,
  ForbiddenError,
  GenerationFinishedError,
  type GenerationStatus,
  GenMedia,
  IdempotencyMismatchError,
  InsufficientCreditsError,
  InvalidRequestError,
  ModelNotFoundError,
  ModelUnavailableError,
  NotFoundError,
  RateLimitedError,
  TimeoutError,
  UnauthorizedError,
  VERSION,
  verifyWebhook,
  WebhookVerificationError,
} from '@genmedia/sdk';
import sharp from 'sharp';
import { fetchDocument, SCHEMA_TYPES_FILE, typesFromDocument } from '../packages/sdk/scripts/generate-types.ts';
import { createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf } from './media-helpers.ts';

const SDK_DIST = new URL('../packages/sdk/dist/', import.meta.url);

/** What a proxy in front of the service saw of one request. */
interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
}

/**
 * A proxy on 127.0.0.1 in front of the service, as a network or a load balancer between a client
 * and the service would be: it forwards every request, and `intercept` may answer one itself
 * (an error status) or cut the connection after forwarding it (an answer lost on the way back).
 */
interface Proxy {
  url: string;
  seen: Seen[];
  intercept?: (
    seen: Seen,
    index: number,
  ) => 'forward' | 'lose-answer' | { status: number; headers?: Record<string, string>; body: string };
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const proxy: Proxy = { url: '', seen: [], close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const seen: Seen = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
    };
    const index = proxy.seen.push(seen) - 1;
    const decision = proxy.intercept?.(seen, index) ?? 'forward';
    if (typeof decision === 'object') {
      req.resume();
      res.writeHead(decision.status, { 'content-type': 'application/json', ...decision.headers }).end(decision.body);
      return;
    }
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (decision === 'lose-answer') {
        // The service did the work and answered; the client never hears it.
        answer.resume();
        answer.on('end', () => res.socket?.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

describe('the SDK', () => {
  let server: TestServer;
  let team: TeamFixture;
  let gm: GenMedia;

  before(async () => {
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '300' } });
    team = await createTeam(server, 100_000);
    gm = new GenMedia({ apiKey: team.key, baseUrl: server.url });
  });
  after(async () => {
    await server.close();
  });

  test('its types are what the running service documents (regenerate with npm run sdk:types)', async () => {
    const fresh = await typesFromDocument(await fetchDocument(server.url));
    const committed = await readFile(SCHEMA_TYPES_FILE, 'utf8');
    assert.ok(fresh === committed, 'packages/sdk/src/schema.d.ts is stale: run the service and `npm run sdk:types`');
  });

  test('the SDK and the CLI are versioned with the service, publishable with their built files', async () => {
    const manifest = async (path: string) =>
      JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as Record<string, unknown> & {
        version: string;
        files: string[];
      };
    const service = await manifest('../package.json');
    const sdk = await manifest('../packages/sdk/package.json');
    const cli = await manifest('../packages/cli/package.json');
    assert.equal(sdk.version, service.version);
    assert.equal(cli.version, service.version);
    assert.equal(VERSION, service.version, 'the SDK sends its own version');
    assert.equal((cli.dependencies as Record<string, string>)['@genmedia/sdk'], service.version);
    for (const pkg of [sdk, cli]) {
      assert.equal(pkg.type, 'module');
      assert.equal(pkg.private, undefined, 'publishable');
      assert.deepEqual(pkg.files, ['dist', 'README.md']);
    }
    assert.deepEqual(sdk.exports, { '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    assert.deepEqual(cli.bin, { genmedia: './dist/main.js' });
    const { stdout } = await promisify(execFile)(process.execPath, [
      fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url)),
      '--version',
    ]);
    assert.equal(stdout.trim(), service.version);
  });

  test('the core imports nothing of Node; only the download helper does', async () => {
    const files = (await readdir(SDK_DIST)).filter((f) => f.endsWith('.js'));
    assert.ok(files.includes('index.js') && files.includes('node-download.js'), files.join(','));
    for (const file of files) {
      const source = await readFile(new URL(file, SDK_DIST), 'utf8');
      const nodeImports = [...source.matchAll(/(?:from\s+|import\s*\(\s*)['"](node:[^'"]+|fs|path|stream|os)['"]/g)];
      if (file === 'node-download.js') assert.ok(nodeImports.length > 0);
      else assert.deepEqual(nodeImports, [], `${file} imports Node modules`);
    }
    // The download helper is loaded only when download() is called.
    const client = await readFile(new URL('client.js', SDK_DIST), 'utf8');
    assert.match(client, /await import\(['"]\.\/node-download\.js['"]\)/);
    assert.doesNotMatch(client, /^import .*node-download/m);
  });

  test('runs on Node 20 as well (the machine’s own node, when it has one)', async () => {
    const node20 = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p)) ?? process.execPath;
    const script = `
      const { GenMedia } = await import(${JSON.stringify(new URL('index.js', SDK_DIST).href)});
      const gm = new GenMedia({ apiKey: process.env.K, baseUrl: process.env.U });
      const { urls } = await gm.run(gm.images.generate, { prompt: 'on an older node', batch: 1 });
      console.log(JSON.stringify({ version: process.version, credits: await gm.billing.credits(), urls }));`;
    const { stdout } = await promisify(execFile)(node20, ['--input-type=module', '-e', script], {
      env: { ...process.env, K: team.key, U: server.url },
    });
    const out = JSON.parse(stdout) as { version: string; credits: number; urls: string[] };
    assert.equal(out.urls.length, 1);
    assert.equal(typeof out.credits, 'number');
  });

  test('images: run submits, waits and answers URLs of real files; download writes them', async () => {
    const seen: GenerationStatus[] = [];
    const result = await gm.run(
      gm.images.generate,
      { prompt: 'a lighthouse at dusk', batch: 2, settings: { aspect_ratio: '16:9' } },
      { onProgress: (status) => seen.push(status) },
    );
    assert.equal(result.generation.status, 'completed');
    assert.equal(result.urls.length, 2);
    assert.equal(seen.at(-1)?.status, 'completed');
    assert.ok(seen.length >= 2, 'progress was reported on the way');
    const dir = await mkdtemp(join(tmpdir(), 'sdk-download-'));
    try {
      const path = join(dir, 'first.png');
      const bytes = await gm.download(result.urls[0] as string, path);
      assert.equal((await stat(path)).size, bytes);
      const meta = await sharp(path).metadata();
      assert.equal(meta.format, 'png');
      assert.ok((meta.width ?? 0) > (meta.height ?? 0), '16:9 is wide');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const face = await gm.run(gm.images.generateFace, { prompt: 'a calm face', batch: 1 });
    assert.equal(face.urls.length, 1);
    const edited = await gm.run(gm.images.edit, { image_url: result.urls[0] as string, prompt: 'add snow' });
    assert.equal(edited.urls.length, 1);
  });

  test('videos, music and 3D: each run ends completed with its file', async () => {
    const video = await gm.run(gm.videos.generate, { prompt: 'waves', settings: { duration: 5 } });
    assert.match(video.urls[0] ?? '', /\.mp4$/);
    const track = await gm.run(gm.music.generate, { title: 'Tide', style: 'ambient', instrumental: true });
    assert.equal(track.generation.status, 'completed');
    const tracks = await gm.music.list();
    const mine = tracks.find((t) => t.generation_id === track.accepted.generation_id);
    assert.ok(mine, JSON.stringify(tracks));
    assert.equal((await gm.music.get(mine.id)).id, mine.id);
    const model = await gm.run(gm.models3d.generate, { prompt: 'a teapot' });
    assert.match(model.urls[0] ?? '', /\.glb$/);
  });

  test('speech and voices: presets, text to speech, a clone and a design, listed and read', async () => {
    const presets = await gm.speech.voices();
    const preset = presets[0];
    assert.ok(preset, 'preset voices are listed');
    const spoken = await gm.speech.create({ voice_id: preset.voice_id, text: 'Hello from the SDK.' });
    assert.equal(spoken.status, 'completed');
    assert.match(spoken.audio_url, /^http/);
    const clone = await gm.voices.clone({ audio_url: spoken.audio_url, name: 'sdk clone' });
    assert.equal(clone.type, 'cloned');
    const design = await gm.voices.design({ prompt: 'a warm, low voice', name: 'sdk design' });
    assert.equal(design.type, 'designed');
    const v1 = await gm.voices.generate({ method: 'clone', audio_url: spoken.audio_url, name: 'sdk v1' });
    assert.ok(v1.voice_id);
    const listed = await gm.voices.list();
    assert.ok(listed.some((v) => v.id === clone.voice_id));
    assert.equal((await gm.voices.get(design.voice_id)).id, design.voice_id);
  });

  test('text: generate answers text and usage; stream yields the same kind of text in pieces', async () => {
    const answer = await gm.text.generate({ prompt: 'Write a haiku about tides.', settings: { max_tokens: 200 } });
    assert.ok(answer.text.length > 0);
    assert.ok(answer.usage.total_tokens > 0);
    let streamed = '';
    let pieces = 0;
    for await (const piece of gm.text.stream({ prompt: 'Write a haiku about tides.', settings: { max_tokens: 200 } })) {
      streamed += piece;
      pieces += 1;
    }
    assert.equal(streamed, answer.text, 'the same prompt and default model give the same text');
    assert.ok(pieces > 1, 'the text came piece by piece');
  });

  test('influencers: created from images, listed, and generating once ready', async () => {
    const { urls } = await gm.run(gm.images.generateFace, { prompt: 'a portrait for training', batch: 1 });
    const created = await gm.influencers.create({ image_urls: urls, name: 'sdk influencer' });
    assert.equal(created.name, 'sdk influencer');
    for (const deadline = Date.now() + 30_000; ; ) {
      const found = (await gm.influencers.list()).find((i) => i.id === created.influencer_id);
      if (found?.ready_for_generation) break;
      assert.ok(Date.now() < deadline, 'the influencer became ready');
      await new Promise((r) => setTimeout(r, 200));
    }
    const pictures = await gm.run(gm.influencers.generate, {
      influencer_id: created.influencer_id,
      prompt: 'at the beach',
    });
    assert.ok(pictures.urls.length >= 1);
  });

  test('generations: list, status, quote, cancel, and wait by stream or by polling', async () => {
    const quote = await gm.generations.quote({ endpoint: '/api/v1/images/generate', body: { prompt: 'x', batch: 3 } });
    assert.ok(quote.credits > 0);
    assert.equal(quote.balance, await gm.billing.credits());
    const accepted = await gm.videos.generate({ prompt: 'a long, slow take', settings: { duration: 10 } });
    const running = await gm.generations.status(accepted.generation_id);
    assert.equal(running.generation_id, accepted.generation_id);
    const cancelled = await gm.generations.cancel(accepted.generation_id);
    assert.equal(cancelled.status, 'failed');
    assert.equal(cancelled.items[0]?.error, 'canceled');
    const page = await gm.generations.list({ limit: 2 });
    assert.equal(page.data.length, 2);
    assert.equal(page.data[0]?.generation_id, accepted.generation_id, 'newest first');
    const next = await gm.generations.list({ limit: 2, cursor: page.next_cursor ?? undefined });
    assert.notEqual(next.data[0]?.generation_id, page.data[0]?.generation_id);

    const polled = await gm.images.generate({ prompt: 'waited by polling', batch: 1 });
    const byPoll = await gm.generations.wait(polled.generation_id, { mode: 'poll', pollInterval: 100 });
    assert.equal(byPoll.status, 'completed');
  });

  test('billing, models, workspaces, storyboards and desktop projects answer their records', async () => {
    const plans = await gm.billing.plans();
    assert.ok(plans.length > 0);
    const credits = await gm.billing.credits();
    assert.equal(credits, await balanceOf(server, team.key));
    const ledger = await gm.billing.ledger({ limit: 5 });
    assert.ok(ledger.data.length > 0);
    const csv = await gm.billing.ledgerCsv({ limit: 5 });
    assert.match(csv.split('\n')[0] ?? '', /amount/);
    const usage = await gm.billing.usage();
    assert.ok(usage);
    const plan = plans[0] as (typeof plans)[number];
    const checkout = await gm.billing.topUp({ plan_id: plan.id });
    assert.match(checkout.checkoutUrl, /^http/);
    const id = new URL(checkout.checkoutUrl).pathname.split('/').at(-1) as string;
    assert.equal((await gm.billing.checkout(id)).id, id);

    const all = await gm.models.list();
    assert.ok(all.data.some((m) => m.kind === 'text' && m.default));
    assert.ok((await gm.models.list({ kind: 'video' })).data.every((m) => m.kind === 'video'));
    assert.ok((await gm.models.images()).length > 0);
    assert.ok((await gm.models.videos()).length > 0);

    const workspace = await gm.workspaces.create({ name: 'sdk workspace' });
    assert.equal((await gm.workspaces.get(workspace.id)).name, 'sdk workspace');
    assert.ok((await gm.workspaces.list()).some((w) => w.id === workspace.id));

    assert.ok(Array.isArray(await gm.storyboards.list()));
    await assert.rejects(gm.storyboards.get('no-such-project'), NotFoundError);

    const pushed = await gm.desktopProjects.push({
      desktop_project_id: 'sdk-project',
      name: 'SDK',
      payload: { metadata: { app: 'sdk' }, storyboards: [], timelines: [] },
    });
    assert.equal(pushed.version, 1);
    assert.equal((await gm.desktopProjects.get('sdk-project')).version, 1);
    assert.equal((await gm.desktopProjects.versions('sdk-project')).length, 1);
    assert.ok((await gm.desktopProjects.list()).some((p) => p.desktop_project_id === 'sdk-project'));
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const media = await gm.desktopProjects.uploadMedia('sdk-project', new Blob([png], { type: 'image/png' }), 'a.png');
    assert.equal(media.kind, 'image');
  });

  test('webhooks: the secret, deliveries with their attempts, redelivery and verification', async () => {
    const received: Array<{ body: string; headers: Record<string, string | string[] | undefined> }> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push({ body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const { secret } = await gm.webhooks.secret();
      const done = await gm.run(gm.images.generate, { prompt: 'with a webhook', batch: 1, webhook: url });
      for (const deadline = Date.now() + 10_000; received.length === 0; ) {
        assert.ok(Date.now() < deadline, 'the webhook arrived');
        await new Promise((r) => setTimeout(r, 50));
      }
      const hook = received[0] as (typeof received)[number];
      const event = gm.webhooks.verify(hook.body, hook.headers, secret);
      assert.equal(event.type, 'generation.completed');
      assert.equal(event.data.generation_id, done.accepted.generation_id);
      assert.deepEqual(
        verifyWebhook(Buffer.from(hook.body), new Headers(hook.headers as Record<string, string>), secret).data.status,
        'completed',
      );
      assert.throws(
        () => gm.webhooks.verify(hook.body.replace('completed', 'failed'), hook.headers, secret),
        WebhookVerificationError,
      );
      assert.throws(
        () => gm.webhooks.verify(hook.body, { ...hook.headers, 'webhook-timestamp': '1000' }, secret),
        WebhookVerificationError,
      );

      const deliveries = await gm.webhooks.deliveries();
      const delivery = deliveries.data.find((d) => d.generation_id === done.accepted.generation_id);
      assert.ok(delivery, JSON.stringify(deliveries));
      assert.equal((await gm.webhooks.delivery(delivery.id)).id, delivery.id);
      await gm.webhooks.redeliver(delivery.id);
      for (const deadline = Date.now() + 10_000; received.length < 2; ) {
        assert.ok(Date.now() < deadline, 'the redelivery arrived');
        await new Promise((r) => setTimeout(r, 50));
      }
      const rotated = await gm.webhooks.rotateSecret();
      assert.notEqual(rotated.secret, secret);
      assert.throws(() => gm.webhooks.verify(hook.body, hook.headers, rotated.secret), WebhookVerificationError);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  test('each error code is its own class, with what the API said', async () => {
    const invalid = await gm.images.generate({ prompt: '' }).catch((e: unknown) => e);
    assert.ok(invalid instanceof InvalidRequestError, String(invalid));
    assert.equal(invalid.status, 400);
    assert.ok(
      invalid.details.some((d) => d.field === 'prompt'),
      JSON.stringify(invalid.details),
    );
    assert.match(invalid.requestId ?? '', /^req_/);

    await assert.rejects(gm.images.generate({ prompt: 'x', model: 'no-such-model' }), ModelNotFoundError);
    await assert.rejects(gm.generations.status('gen_00000000000000000000000000'), NotFoundError);
    await assert.rejects(
      new GenMedia({ apiKey: 'gms_wrong', baseUrl: server.url }).billing.credits(),
      UnauthorizedError,
    );

    const poor = await createTeam(server, 3);
    const short = await new GenMedia({ apiKey: poor.key, baseUrl: server.url }).images
      .generate({ prompt: 'x', batch: 2 })
      .catch((e: unknown) => e);
    assert.ok(short instanceof InsufficientCreditsError, String(short));
    assert.equal(short.needed, 8);
    assert.equal(short.available, 3);

    const other = await createTeam(server, 100);
    const theirs = await new GenMedia({ apiKey: other.key, baseUrl: server.url }).workspaces.create({ name: 'theirs' });
    await assert.rejects(gm.images.generate({ prompt: 'x', workspace_id: theirs.id }), ForbiddenError);

    const finished = await gm.run(gm.images.generate, { prompt: 'done already', batch: 1 });
    await assert.rejects(gm.generations.cancel(finished.accepted.generation_id), GenerationFinishedError);

    await gm.images.generate({ prompt: 'keyed' }, { idempotencyKey: 'sdk-key-1' });
    await assert.rejects(
      gm.images.generate({ prompt: 'another body' }, { idempotencyKey: 'sdk-key-1' }),
      IdempotencyMismatchError,
    );

    const failing = await gm.run(gm.images.generate, { prompt: 'break [simulate:fail]' }).catch((e: unknown) => e);
    assert.ok(failing instanceof FailedGenerationError, String(failing));
    assert.equal(failing.generation.status, 'failed');
    assert.match(failing.message, /simulate:fail/);

    const slow = await gm.videos.generate({ prompt: 'a slow one', settings: { duration: 10 } });
    await assert.rejects(gm.generations.wait(slow.generation_id, { timeout: 50 }), TimeoutError);
    const aborted = new AbortController();
    const waiting = gm.generations.wait(slow.generation_id, { signal: aborted.signal });
    aborted.abort(new Error('stop waiting'));
    await assert.rejects(waiting, /stop waiting/);
  });
});

describe('the SDK through an unreliable network', () => {
  let server: TestServer;
  let team: TeamFixture;
  let proxy: Proxy;
  let gm: GenMedia;

  before(async () => {
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '200' } });
    team = await createTeam(server, 10_000);
    proxy = await startProxy(server.url);
    gm = new GenMedia({ apiKey: team.key, baseUrl: proxy.url, maxRetryDelay: 2000 });
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  const generations = async () =>
    Number(
      (await server.pool.query('select count(*)::int as n from generations where team_id = $1', [team.id])).rows[0].n,
    );

  test('an answer lost on the way back is asked for again with the same Idempotency-Key: charged once', async () => {
    const before = await balanceOf(server, team.key);
    const count = await generations();
    proxy.seen.length = 0;
    proxy.intercept = (seen, index) => (seen.method === 'POST' && index === 0 ? 'lose-answer' : 'forward');
    const accepted = await gm.images.generate({ prompt: 'lost and found', batch: 2 });
    proxy.intercept = undefined;
    const posts = proxy.seen.filter((s) => s.method === 'POST');
    assert.equal(posts.length, 2, 'sent twice');
    assert.ok(posts[0]?.idempotencyKey, 'with a key');
    assert.equal(posts[1]?.idempotencyKey, posts[0]?.idempotencyKey, 'the same key both times');
    assert.equal(await generations(), count + 1, 'one generation');
    assert.equal(await balanceOf(server, team.key), before - 8, 'charged once');
    assert.equal((await gm.generations.wait(accepted.generation_id)).status, 'completed');
  });

  test('429 and 503 are retried after their Retry-After; 5xx without one after a backoff', async () => {
    proxy.seen.length = 0;
    const answers = [
      { status: 429, headers: { 'retry-after': '1' }, body: '{"error":{"code":"rate_limited","message":"slow down"}}' },
      { status: 503, headers: { 'retry-after': '1' }, body: '{"error":{"code":"service_unavailable","message":"db"}}' },
      { status: 502, body: '<html>bad gateway</html>' },
    ];
    proxy.intercept = (_seen, index) => answers[index] ?? 'forward';
    const started = Date.now();
    const credits = await gm.billing.credits();
    proxy.intercept = undefined;
    assert.equal(typeof credits, 'number');
    assert.equal(proxy.seen.length, 4);
    assert.ok(Date.now() - started >= 2000, 'each Retry-After of 1 s was honoured');
  });

  test('a refusal is not retried, and retries end with the last error', async () => {
    proxy.seen.length = 0;
    await assert.rejects(gm.images.generate({ prompt: 'x', batch: 99 }), InvalidRequestError);
    assert.equal(proxy.seen.length, 1, 'a 400 is final');
    proxy.seen.length = 0;
    proxy.intercept = () => ({
      status: 429,
      headers: { 'retry-after': '0' },
      body: '{"error":{"code":"rate_limited","message":"no"}}',
    });
    const limited = await new GenMedia({ apiKey: team.key, baseUrl: proxy.url, maxRetries: 2 }).billing
      .credits()
      .catch((e: unknown) => e);
    proxy.intercept = undefined;
    assert.ok(limited instanceof RateLimitedError, String(limited));
    assert.equal(limited.retryAfter, 0);
    assert.equal(proxy.seen.length, 3, 'the first attempt and two retries');
    // A model the deployment cannot make is a 503 too, but one that no retry mends.
    proxy.seen.length = 0;
    proxy.intercept = () => ({
      status: 503,
      headers: { 'retry-after': '0' },
      body: '{"error":{"code":"model_unavailable","message":"no provider makes it"}}',
    });
    const unavailable = await gm.images.generate({ prompt: 'x' }).catch((e: unknown) => e);
    proxy.intercept = undefined;
    assert.ok(unavailable instanceof ModelUnavailableError, String(unavailable));
    assert.equal(proxy.seen.length, 1, 'model_unavailable is final');
  });

  test('wait follows the live status stream and does not poll', async () => {
    const accepted = await gm.images.generate({ prompt: 'watched live', batch: 2 });
    proxy.seen.length = 0;
    const statuses: string[] = [];
    const final = await gm.generations.wait(accepted.generation_id, { onProgress: (s) => statuses.push(s.status) });
    assert.equal(final.status, 'completed');
    assert.ok(
      proxy.seen.some((s) => s.path.endsWith('/events')),
      'the stream was used',
    );
    assert.ok(!proxy.seen.some((s) => s.path.endsWith('/status')), 'no polling');
    assert.equal(statuses.at(-1), 'completed');
  });

  test('wait polls where the stream is not passed through (a proxy without SSE)', async () => {
    const accepted = await gm.images.generate({ prompt: 'watched by polling', batch: 1 });
    proxy.seen.length = 0;
    proxy.intercept = (seen) =>
      seen.path.endsWith('/events')
        ? { status: 404, body: '{"error":{"code":"not_found","message":"No route"}}' }
        : 'forward';
    const final = await gm.generations.wait(accepted.generation_id, { pollInterval: 100 });
    proxy.intercept = undefined;
    assert.equal(final.status, 'completed');
    assert.ok(proxy.seen.filter((s) => s.path.endsWith('/status')).length >= 1, 'polled');
  });
});
