// The TypeScript SDK in a real browser: packages/sdk/dist bundled by esbuild for the browser (the
// Node-only download module left out), loaded by a page in headless Chromium that is served from
// the same origin as the API (the service has no CORS), as a site behind one reverse proxy would be.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { launchChromium } from './browser-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

const SDK_ENTRY = fileURLToPath(new URL('../packages/sdk/dist/index.js', import.meta.url));
const NODE_ONLY = './node-download.js';
const PAGE = '<!doctype html><meta charset="utf-8"><title>SDK in a browser</title><h1>SDK in a browser</h1>';

/** The SDK as one browser ES module, and what esbuild says it imports beyond itself. */
async function bundleSdk(): Promise<{ code: string; imports: Metafile['outputs'][string]['imports'] }> {
  const result = await build({
    entryPoints: [SDK_ENTRY],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    outfile: 'sdk.js',
    metafile: true,
    logLevel: 'silent',
    // download() imports it only when called, and only Node can run it.
    external: [NODE_ONLY],
  });
  const [file] = result.outputFiles;
  const [output] = Object.values(result.metafile.outputs);
  assert.ok(file && output, 'esbuild wrote the bundle');
  return { code: file.text, imports: output.imports };
}

/**
 * A site on 127.0.0.1: the test page and the bundle, and every /api/ and /media/ request forwarded
 * to the service, so the page and the API share one origin. `paths` records what was forwarded.
 */
interface Site {
  url: string;
  paths: string[];
  /** Where /api/ and /media/ go (set once the service is up). */
  target: string;
  close(): Promise<void>;
}

async function startSite(bundle: string): Promise<Site> {
  const site: Site = { url: '', paths: [], target: '', close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    }
    if (path === '/sdk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
      return;
    }
    if (!path.startsWith('/api/') && !path.startsWith('/media/')) {
      res.writeHead(404).end();
      return;
    }
    site.paths.push(`${req.method} ${path}`);
    const upstream = httpRequest(`${site.target}${path}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

/** A webhook signed as the service signs them (Standard Webhooks), with the team's secret. */
function signedWebhook(secret: string): { body: string; headers: Record<string, string> } {
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const at = new Date();
  const body = JSON.stringify({
    type: 'generation.completed',
    timestamp: at.toISOString(),
    data: { generation_id: 'gen_browser', status: 'completed', result_urls: ['https://example.com/a.png'] },
  });
  const signature = new Webhook(secret).sign(id, at, body);
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

/** What the page saw, as plain data. */
interface PageOutcome {
  before: number;
  after: number;
  status: string;
  generationId: string;
  progress: string[];
  urls: string[];
  sameOrigin: boolean;
  resultType: string;
  resultBytes: number;
  listed: boolean;
  verifiedHeaders: string;
  verifiedRecord: string;
  tampered: string;
  wrongSecret: string;
}

/** Everything the page does with the SDK, run in the browser (the SDK is imported there). */
async function useSdkInPage(
  page: Page,
  input: { origin: string; apiKey: string; webhook: { body: string; headers: Record<string, string> }; secret: string },
): Promise<PageOutcome> {
  // `origin` is the page's own (the test's tsconfig has no DOM types for `location`).
  return page.evaluate(async ({ origin, apiKey, webhook, secret }) => {
    const sdk = (await import(`${origin}/sdk.js`)) as typeof import('@genmedia/sdk');
    const gm = new sdk.GenMedia({ apiKey, baseUrl: origin });
    const before = await gm.billing.credits();
    const progress: string[] = [];
    const { accepted, generation, urls } = await gm.run(
      gm.images.generate,
      { prompt: 'a lighthouse drawn in a browser', batch: 1 },
      { onProgress: (s) => progress.push(`${s.status}:${s.items[0]?.progress ?? ''}`) },
    );
    const first = urls[0] ?? '';
    const result = await fetch(first);
    const resultBytes = (await result.arrayBuffer()).byteLength;
    const listed = (await gm.generations.list()).data.some((g) => g.generation_id === accepted.generation_id);
    const after = await gm.billing.credits();
    const failure = (run: () => unknown) => {
      try {
        run();
        return 'accepted';
      } catch (err) {
        return (err as Error).name;
      }
    };
    return {
      before,
      after,
      status: generation.status,
      generationId: accepted.generation_id,
      progress,
      urls,
      sameOrigin: new URL(first).origin === origin,
      resultType: result.headers.get('content-type') ?? '',
      resultBytes,
      listed,
      verifiedHeaders: sdk.verifyWebhook(webhook.body, new Headers(webhook.headers), secret).data.generation_id,
      verifiedRecord: gm.webhooks.verify(new TextEncoder().encode(webhook.body), webhook.headers, secret).type,
      tampered: failure(() => sdk.verifyWebhook(webhook.body.replace('completed', 'failed'), webhook.headers, secret)),
      wrongSecret: failure(() =>
        sdk.verifyWebhook(webhook.body, webhook.headers, `whsec_${btoa('another secret of 24 bytes')}`),
      ),
    };
  }, input);
}

describe('the SDK in a browser', () => {
  let bundle: Awaited<ReturnType<typeof bundleSdk>>;
  let site: Site;
  let server: TestServer;
  let team: TeamFixture;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    bundle = await bundleSdk();
    site = await startSite(bundle.code);
    // Result URLs are made from PUBLIC_BASE_URL: the site's, as behind a reverse proxy.
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '300', PUBLIC_BASE_URL: site.url } });
    site.target = server.url;
    team = await createTeam(server, 1000, 'Browser SDK Team');
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(site.url);
    assert.equal(new URL(page.url()).origin, site.url);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
  });

  test('bundles for the browser with nothing of Node but the download module, loaded only on call', () => {
    assert.deepEqual(
      bundle.imports.map((i) => ({ path: i.path, kind: i.kind, external: i.external })),
      [{ path: NODE_ONLY, kind: 'dynamic-import', external: true }],
    );
    assert.doesNotMatch(bundle.code, /from\s*["']node:|require\(["']node:/);
  });

  test('reads the balance, runs an image over the live status stream, lists it and verifies webhooks', async () => {
    const quote = await call<{ credits: number }>(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: { endpoint: '/api/v1/images/generate', body: { prompt: 'a lighthouse drawn in a browser', batch: 1 } },
    });
    assert.equal(quote.status, 200, quote.text);
    assert.ok(quote.body.credits > 0);
    const secret = await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key });
    assert.equal(secret.status, 200, secret.text);

    const seen = await useSdkInPage(page, {
      origin: site.url,
      apiKey: team.key,
      webhook: signedWebhook(secret.body.secret),
      secret: secret.body.secret,
    });

    assert.equal(seen.status, 'completed');
    assert.ok(seen.progress.length >= 2, `progress was reported: ${seen.progress.join(', ')}`);
    assert.match(seen.progress.at(-1) ?? '', /^completed:/);
    assert.ok(
      site.paths.includes(`GET /api/v1/generations/${seen.generationId}/events`),
      'the page waited over the status stream',
    );
    assert.equal(seen.before, 1000);
    assert.equal(seen.before - seen.after, quote.body.credits, 'the balance went down by the price');
    const balance = await call<number>(server, 'GET', '/api/v1/billing/credits', { token: team.key });
    assert.equal(balance.body, seen.after);

    assert.equal(seen.urls.length, 1);
    assert.ok(seen.sameOrigin, `the result is served by the page's origin: ${seen.urls[0]}`);
    assert.match(seen.resultType, /^image\//);
    assert.ok(seen.resultBytes > 0);
    assert.ok(seen.listed, 'the generation is in the list');

    assert.equal(seen.verifiedHeaders, 'gen_browser');
    assert.equal(seen.verifiedRecord, 'generation.completed');
    assert.equal(seen.tampered, 'WebhookVerificationError');
    assert.equal(seen.wrongSecret, 'WebhookVerificationError');
    assert.deepEqual(pageErrors, []);
  });

  test('a wrong key is an UnauthorizedError in the page', async () => {
    const failure = await page.evaluate(async (origin) => {
      const sdk = (await import(`${origin}/sdk.js`)) as typeof import('@genmedia/sdk');
      const gm = new sdk.GenMedia({ apiKey: 'gms_wrong', baseUrl: origin });
      try {
        await gm.billing.credits();
        return { name: 'none', status: 0, code: '', isUnauthorized: false };
      } catch (err) {
        const e = err as InstanceType<typeof sdk.ApiError>;
        return { name: e.name, status: e.status, code: e.code, isUnauthorized: err instanceof sdk.UnauthorizedError };
      }
    }, site.url);
    assert.deepEqual(failure, { name: 'UnauthorizedError', status: 401, code: 'unauthorized', isUnauthorized: true });
  });
});
