// The console in a real browser: headless Chromium driven by playwright-core, against one test
// server. Signing in and out; every team and operator page loading with no console error (CSP
// violations are console errors), no uncaught exception, no failed request and no answer of 400 or
// more; the playground quoting and showing an image in place; a failed generation's error and
// refund; a top-up through the built-in checkout; an operator issuing a key a team then signs in
// with; what a team may not reach; and the playground by keyboard alone.
// CONSOLE_SCREENSHOTS=<dir> keeps the screenshots the last test takes there (docs/console: 1280×800 PNGs).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium } from './browser-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const VIEWPORT = { width: 1280, height: 800 };

/**
 * What goes wrong while a page is open: console errors (a CSP violation is one), uncaught
 * exceptions, failed requests and answers of 400 or more. Chromium's media player cancels its own
 * range requests once it has what `preload` asks for, and the live status closes its own event
 * stream: those aborts are not failures.
 */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    if (request.resourceType() === 'media' && reason === 'net::ERR_ABORTED') return;
    // The live status closes its event stream itself once the generation has ended.
    if (request.resourceType() === 'eventsource' && reason === 'net::ERR_ABORTED') return;
    problems.push(`failed: ${request.method()} ${request.url()} ${reason}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400)
      problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return problems;
}

/** The number in an element's text ("1,234 credits" is 1234). */
const numberIn = async (page: Page, selector: string) => {
  const text = (await page.locator(selector).first().textContent()) ?? '';
  const found = /-?[\d,]+/.exec(text);
  assert.ok(found, `a number in ${selector}: ${text}`);
  return Number(found[0].replaceAll(',', ''));
};

/** A page's #balance, as the overview shows it. */
async function shownBalance(page: Page, base: string): Promise<number> {
  await page.goto(`${base}/console`);
  return numberIn(page, '#balance');
}

/** What the checks read of a page's elements (the tests' tsconfig has no DOM types). */
interface ElementState {
  id: string;
  tagName: string;
  textContent: string | null;
  disabled?: boolean;
  naturalWidth?: number;
  readyState?: number;
  error?: unknown;
  loaded?: boolean;
  labels?: ArrayLike<{ textContent: string | null }> | null;
  getAttribute(name: string): string | null;
  getClientRects(): { length: number };
  closest(selector: string): unknown;
}

/** Waits until the first element a selector finds passes `ready` (run in the page). */
async function waitForElement(page: Page, selector: string, ready: (element: ElementState) => boolean) {
  // Generous: on two busy cores a page decoding a video or a GLB in software can stall for seconds.
  const handle = await page.locator(selector).first().elementHandle({ timeout: 30_000 });
  await page.waitForFunction(ready, handle, { timeout: 30_000 });
}

/** The natural width of the first image a selector finds: more than 0 once it decoded. */
const decodedWidth = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((img: ElementState) => img.naturalWidth ?? 0);

/** What has the keyboard focus: its tag, id, where a link goes, and its accessible name. */
async function focusedElement(page: Page) {
  const focused = page.locator(':focus');
  if ((await focused.count()) === 0) return null;
  return focused.evaluate((el: ElementState) => {
    const labels = el.labels ? Array.from(el.labels, (l) => l.textContent ?? '').join(' ') : '';
    const name = el.getAttribute('aria-label') || labels || el.textContent || '';
    return {
      tag: el.tagName.toLowerCase(),
      id: el.id,
      href: el.getAttribute('href') ?? '',
      name: name.replace(/\s+/g, ' ').trim(),
      inForm: el.closest('form[hx-post$="/submit"]') !== null,
    };
  });
}

/** A receiver of webhooks that accepts them all. */
async function startReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

describe('the console in Chromium', () => {
  let server: TestServer;
  let team: TeamFixture;
  let other: TeamFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  /** The team's browser, signed in by the first test and out by the last. */
  let teamContext: BrowserContext;
  let operatorContext: BrowserContext;
  const generations: Record<'image' | 'model' | 'video' | 'music' | 'otherTeams', string> = {
    image: '',
    model: '',
    video: '',
    music: '',
    otherTeams: '',
  };

  const url = (path: string) => `${server.url}${path}`;

  /** Opens a path in a new tab, waits for the network to settle and asserts nothing went wrong. */
  async function assertLoadsCleanly(context: BrowserContext, path: string, check?: (page: Page) => Promise<unknown>) {
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      const response = await page.goto(url(path), { waitUntil: 'networkidle' });
      assert.equal(response?.status(), 200, path);
      assert.equal(new URL(page.url()).pathname, path.split('?')[0], `${path}: not redirected`);
      await check?.(page);
      assert.deepEqual(problems, [], `${path}: ${problems.join('\n')}`);
    } finally {
      await page.close();
    }
  }

  type PageCheck = string | [string, (page: Page) => Promise<unknown>];

  /** assertLoadsCleanly for each path (and its check), a few tabs at a time. */
  async function assertAllLoadCleanly(context: BrowserContext, pages: PageCheck[]) {
    const queue = [...pages];
    const tab = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (typeof next === 'string') await assertLoadsCleanly(context, next);
        else await assertLoadsCleanly(context, ...next);
      }
    };
    await Promise.all([tab(), tab(), tab()]);
  }

  /** Signs in through the form; answers the page it lands on. */
  async function signIn(context: BrowserContext, credential: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(url('/console/login'));
    await page.getByLabel(/API key/).fill(credential);
    await Promise.all([
      page.waitForURL((u) => u.pathname !== '/console/login' || u.search === '?failed'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    return page;
  }

  before(async () => {
    // Long enough for a page to see a generation running, short enough for a quick file.
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '500' } });
    receiver = await startReceiver();
    [team, other] = await Promise.all([createTeam(server, 5000, 'Acme Studio'), createTeam(server, 100, 'Other Team')]);
    const made = async (key: string, path: string, body: unknown) => {
      const r = await call<{ generation_id: string }>(server, 'POST', path, { token: key, body });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      const done = await waitForGeneration(server, key, r.body.generation_id);
      assert.equal(done.status, 'completed', `${path}: ${JSON.stringify(done)}`);
      return r.body.generation_id;
    };
    const [image, model, video, music, otherTeams, voice, workspace] = await Promise.all([
      made(team.key, '/api/v1/images/generate', {
        prompt: 'a lighthouse on a cliff at dusk, oil painting',
        webhook: receiver.url,
      }),
      made(team.key, '/api/v1/models-3d/generate', {
        prompt: 'a teapot',
        settings: { mode: 'preview', target_polycount: 2000 },
      }),
      made(team.key, '/api/v1/videos/generate', {
        prompt: 'waves rolling onto a beach',
        model: 'ltx-video-13b',
        settings: { duration: 1 },
      }),
      made(team.key, '/api/v1/music/generate', {
        title: 'Harbour Lights',
        style: 'calm lo-fi piano',
        instrumental: true,
      }),
      made(other.key, '/api/v1/images/generate', { prompt: 'a red bicycle' }),
      call(server, 'POST', '/api/v2/voice-design', {
        token: team.key,
        body: { prompt: 'a warm, calm narrator', name: 'Narrator' },
      }),
      call(server, 'POST', '/api/v1/workspaces', { token: team.key, body: { name: 'Spring campaign' } }),
    ]);
    assert.equal(voice.status, 200, voice.text);
    assert.equal(workspace.status, 201, workspace.text);
    Object.assign(generations, { image, model, video, music, otherTeams });
    browser = await launchChromium();
    teamContext = await browser.newContext({ viewport: VIEWPORT });
    operatorContext = await browser.newContext({ viewport: VIEWPORT });
    // Generous: Chromium renders in software here, beside the server and the rest of the suite on two cores.
    for (const context of [teamContext, operatorContext]) context.setDefaultTimeout(30_000);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise<void>((r) => (receiver ? receiver.server.close(() => r()) : r()));
  });

  test('signs in with an API key into an HttpOnly, SameSite=Strict session; a wrong key is refused', async () => {
    const anonymous = await browser.newContext({ viewport: VIEWPORT });
    try {
      await assertLoadsCleanly(anonymous, '/console/login');
      const refused = await signIn(anonymous, 'gms_not-a-key-at-all');
      assert.equal(new URL(refused.url()).pathname + new URL(refused.url()).search, '/console/login?failed');
      assert.equal(await refused.getByRole('alert').textContent(), 'That is not a valid API key or admin token.');
      assert.equal((await anonymous.cookies()).filter((c) => c.name === 'gm_console').length, 0);
    } finally {
      await anonymous.close();
    }

    const page = await signIn(teamContext, team.key);
    assert.equal(new URL(page.url()).pathname, '/console');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
    const session = (await teamContext.cookies()).find((c) => c.name === 'gm_console');
    assert.ok(session, 'a session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/console');
    assert.ok(!session.value.startsWith('gms_'), 'the cookie is not the key');
    await page.close();
  });

  test('every team page loads with no console error, no uncaught exception and no failed request', async () => {
    await assertAllLoadCleanly(teamContext, [
      '/console',
      '/console/generations',
      '/console/generations?status=completed&kind=image',
      '/console/playground',
      '/console/playground/images-generate',
      '/console/playground/videos-generate',
      '/console/playground/models-3d-generate',
      '/console/playground/text-to-speech',
      '/console/playground/music-generate',
      '/console/billing',
      '/console/webhooks',
      '/console/workspaces',
      '/console/library',
      '/console/projects',
      [
        `/console/generations/${generations.image}`,
        async (page) => assert.ok((await decodedWidth(page, '.media-result img')) > 0, 'the image decodes'),
      ],
      [
        `/console/generations/${generations.video}`,
        (page) =>
          waitForElement(page, '.media-result video', (video) => (video.readyState ?? 0) >= 1 && video.error === null),
      ],
      [
        `/console/generations/${generations.model}`,
        // <model-viewer> ran (its module and its shadow root's style allowed by the page's CSP) and read the GLB.
        (page) => waitForElement(page, 'model-viewer', (viewer) => viewer.loaded === true),
      ],
      `/console/generations/${generations.music}`,
    ]);
  });

  test("a 3D generation's page opened while it runs shows the viewer with the model once it is done", async () => {
    const made = await call<{ generation_id: string }>(server, 'POST', '/api/v1/models-3d/generate', {
      token: team.key,
      body: { prompt: 'a chair', settings: { mode: 'preview', target_polycount: 2000 } },
    });
    assert.equal(made.status, 200, made.text);
    // Its item can neither start nor finish while the item's row is held (the simulator takes 500 ms,
    // the hold a few): the page opens while it runs, however slowly the browser comes up.
    const hold = await server.pool.connect();
    await hold.query('begin');
    await hold.query('select 1 from generation_items where generation_id = $1 for update', [made.body.generation_id]);
    const page = await teamContext.newPage();
    const problems = watchProblems(page);
    try {
      const response = await page.goto(url(`/console/generations/${made.body.generation_id}`));
      assert.match((await response?.text()) ?? '', /data-live=/, 'the page opened while the generation ran');
    } finally {
      await hold.query('commit');
      hold.release();
    }
    await waitForElement(page, 'model-viewer', (viewer) => viewer.loaded === true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the playground quotes an image, shows it running and then the image in place; the balance drops by the quote', async () => {
    const page = await teamContext.newPage();
    const problems = watchProblems(page);
    const before = await shownBalance(page, server.url);
    await page.goto(url('/console/playground/images-generate'));
    await page.getByLabel(/^Prompt/).fill('a paper boat on a pond, morning light');
    await page.getByRole('button', { name: 'Quote' }).click();
    await page.locator('#quote .quote').waitFor();
    const quote = await numberIn(page, '#quote .quote');
    assert.ok(quote > 0, `a quote: ${await page.locator('#quote').textContent()}`);
    assert.match((await page.locator('#quote').textContent()) ?? '', new RegExp(`balance ${before}`));

    await page.getByRole('button', { name: 'Generate' }).click();
    // The live status first, then the image once the event stream says it is done.
    await page.locator('#result .badge.queued, #result .badge.processing').first().waitFor();
    assert.match(
      (await page.locator('#result').textContent()) ?? '',
      new RegExp(`accepted: ${quote} credits? charged`),
    );
    const image = page.locator('#result .media-result img');
    await image.waitFor({ timeout: 20_000 });
    assert.ok((await decodedWidth(page, '#result .media-result img')) > 0, 'the image decodes');
    assert.equal(await page.locator('#result .badge.completed').count(), 2, 'the generation and its item completed');
    assert.deepEqual(problems, []);

    assert.equal(await shownBalance(page, server.url), before - quote);
    await page.close();
  });

  test('a failing generation shows its error and its refund, and the balance is back', async () => {
    const page = await teamContext.newPage();
    const problems = watchProblems(page);
    const before = await shownBalance(page, server.url);
    await page.goto(url('/console/playground/images-generate'));
    await page.getByLabel(/^Prompt/).fill('a storm over the sea [simulate:fail]');
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.locator('#result .badge.failed').first().waitFor({ timeout: 20_000 });
    const result = (await page.locator('#result').textContent()) ?? '';
    assert.match(result, /The simulator failed this work because the prompt asked for it/);
    assert.match(
      result,
      /0 of 1 completed, 1 failed · 0 credits \(failed items are refunded, unless their error says otherwise\)/,
    );
    assert.deepEqual(problems, []);

    // Its own page says the same; the ledger has the charge and its refund.
    await page.locator('#result a[href^="/console/generations/"]').first().click();
    await page.waitForURL(/\/console\/generations\/gen_/);
    const shown = (await page.locator('main').textContent()) ?? '';
    assert.match(shown, /failed items are refunded/);
    assert.match(shown, /the prompt asked for it/);
    assert.equal(await shownBalance(page, server.url), before);
    await page.goto(url('/console/billing'));
    const [refund, charge] = await page.locator('main table').first().locator('tbody tr').all();
    assert.match((await refund?.textContent()) ?? '', /refund\s*\+\d+/);
    assert.match((await charge?.textContent()) ?? '', /charge\s*-\d+/);
    await page.close();
  });

  test('Buy on the billing page pays in the built-in checkout and comes back with the credits', async () => {
    const page = await teamContext.newPage();
    await page.goto(url('/console/billing'));
    const before = await numberIn(page, '#balance');
    await Promise.all([
      page.waitForURL(/\/checkout\//),
      page.getByRole('button', { name: 'Buy Starter for $10.00' }).click(),
    ]);
    const checkout = (await page.locator('main').textContent()) ?? '';
    for (const shown of ['Acme Studio', 'Starter', '1,000', '$10.00']) assert.ok(checkout.includes(shown), shown);
    await Promise.all([
      page.waitForURL(url('/console/billing?top_up=paid')),
      page.getByRole('button', { name: /^Pay / }).click(),
    ]);
    assert.match((await page.getByRole('status').first().textContent()) ?? '', /Thank you/);
    assert.equal(await numberIn(page, '#balance'), before + 1000);
    await page.close();
  });

  test('the playground by keyboard alone: every control in order, each labelled; a quote and an image', async () => {
    const page = await teamContext.newPage();
    const problems = watchProblems(page);
    await page.goto(url('/console/playground'));
    const tab = async () => {
      await page.keyboard.press('Tab');
      return focusedElement(page);
    };
    // The first stop skips the navigation; from there Tab reaches the image endpoint's link.
    assert.equal((await tab())?.name, 'Skip to content');
    await page.keyboard.press('Enter');
    for (let i = 0; ; i++) {
      assert.ok(i < 40, 'Tab reaches the link to the image form');
      if ((await tab())?.href === '/console/playground/images-generate') break;
    }
    await Promise.all([page.waitForURL(/\/images-generate$/), page.keyboard.press('Enter')]);

    // The form's controls, in the order a reader meets them.
    const controls = await page
      .locator('form[hx-post$="/submit"] :is(input:not([type=hidden]), select, textarea, button)')
      .evaluateAll((elements: ElementState[]) =>
        elements
          .filter((el) => el.getClientRects().length > 0 && !el.disabled)
          .map((el) => el.id || (el.textContent ?? '').trim()),
      );
    assert.ok(controls.includes('f-prompt') && controls.includes('Generate'), controls.join(', '));
    const reached: string[] = [];
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter'); // the skip link again
    for (let i = 0; ; i++) {
      assert.ok(i < 80, `Tab reaches Generate: ${reached.join(', ')}`);
      const focused = await tab();
      assert.ok(focused, 'something has the focus');
      assert.notEqual(focused.name, '', `a label for ${focused.tag}#${focused.id}`);
      if (!focused.inForm) continue;
      reached.push(focused.id || focused.name);
      if (focused.id === 'f-prompt') await page.keyboard.type('a kite over the dunes');
      if (focused.name === 'Quote') {
        await page.keyboard.press('Enter');
        await page.locator('#quote .quote').waitFor();
        assert.match((await page.locator('#quote').textContent()) ?? '', /\d+ credits? \(balance \d+\)/);
      }
      if (focused.name === 'Generate') break;
    }
    assert.deepEqual(reached, controls, 'Tab visits every control of the form, in order');
    await page.keyboard.press('Space');
    const image = page.locator('#result .media-result img');
    await image.waitFor({ timeout: 20_000 });
    assert.ok((await decodedWidth(page, '#result .media-result img')) > 0, 'the image decodes');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a team gets 403 on the operator's pages and 404 on another team's generation", async () => {
    const page = await teamContext.newPage();
    for (const path of [
      '/console/operator/teams',
      `/console/operator/teams/${team.id}`,
      '/console/operator/providers',
    ]) {
      const response = await page.goto(url(path));
      assert.equal(response?.status(), 403, path);
      assert.equal(await page.getByRole('alert').textContent(), 'This page is for operators only.');
      assert.equal(await page.locator('a[href^="/console/operator/"]').count(), 0, 'no operator links');
    }
    const response = await page.goto(url(`/console/generations/${generations.otherTeams}`));
    assert.equal(response?.status(), 404);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Not found');
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /red bicycle/);
    for (const part of ['fragment', 'events']) {
      const answer = await teamContext.request.get(url(`/console/generations/${generations.otherTeams}/${part}`));
      assert.equal(answer.status(), 404, part);
    }
    await page.close();
  });

  test("an operator's pages load cleanly; the operator issues a key and the team signs in with it", async () => {
    const landing = await signIn(operatorContext, server.adminToken);
    assert.equal(new URL(landing.url()).pathname, '/console/operator/teams');
    await landing.close();
    await assertAllLoadCleanly(operatorContext, [
      '/console/operator/teams',
      `/console/operator/teams/${other.id}`,
      '/console/operator/attempts',
      `/console/operator/attempts?generation_id=${generations.image}`,
      '/console/operator/credentials',
      '/console/operator/routes?kind=image&model=flux-1-schnell',
      [
        '/console/operator/providers',
        async (page) => {
          await page.getByRole('button', { name: 'Check the configured providers' }).click();
          await page.getByText('built in: nothing to ask').first().waitFor();
        },
      ],
    ]);

    const page = await operatorContext.newPage();
    const problems = watchProblems(page);
    await page.goto(url('/console/operator/teams'));
    await Promise.all([page.waitForURL(/\/teams\/team_/), page.getByRole('link', { name: 'Other Team' }).click()]);
    await page.getByLabel('Name of a new key (optional)').fill('Browser key');
    await page.getByRole('button', { name: 'Issue a key' }).click();
    const key = await page.getByLabel('The API key').inputValue();
    assert.match(key, /^gms_/);
    // Shown once: the team's page never shows it again.
    await page.goto(url(`/console/operator/teams/${other.id}`));
    assert.equal(await page.getByLabel('The API key').count(), 0);
    assert.doesNotMatch(await page.content(), new RegExp(key));
    assert.match((await page.locator('#api-keys').textContent()) ?? '', /Browser key/);
    assert.deepEqual(problems, []);

    await Promise.all([page.waitForURL(url('/console/login')), page.getByRole('button', { name: 'Sign out' }).click()]);
    await page.close();
    const asTeam = await signIn(operatorContext, key);
    assert.equal(new URL(asTeam.url()).pathname, '/console');
    assert.match((await asTeam.locator('main').textContent()) ?? '', new RegExp(generations.otherTeams));
    assert.equal(
      await numberIn(asTeam, '#balance'),
      (await call<number>(server, 'GET', '/api/v1/billing/credits', { token: other.key })).body,
    );
    await asTeam.close();
  });

  test('the main pages render whole at 1280×800 (the screenshots of docs/console)', async () => {
    // Into CONSOLE_SCREENSHOTS when asked (docs/console), into a folder of the test's otherwise.
    const dir = SCREENSHOTS ?? (await mkdtemp(join(tmpdir(), 'console-shots-')));
    await mkdir(dir, { recursive: true });
    const shoot = async (
      context: BrowserContext,
      path: string,
      name: string,
      prepare?: (page: Page) => Promise<void>,
    ) => {
      const page = await context.newPage();
      await page.goto(url(path), { waitUntil: 'networkidle' });
      await prepare?.(page);
      // A palette PNG: a fraction of the size, and the console's flat colours survive it.
      const png = await page.screenshot({ type: 'png' });
      const saved = await sharp(png)
        .png({ palette: true, quality: 90, effort: 10 })
        .toFile(join(dir, `${name}.png`));
      assert.deepEqual([saved.width, saved.height], [VIEWPORT.width, VIEWPORT.height], name);
      // A page that rendered is more than a blank screen: its palette PNG has content.
      assert.ok(saved.size > 5_000, `${name}: ${saved.size} bytes`);
      await page.close();
    };
    await shoot(teamContext, '/console', 'overview');
    await shoot(teamContext, '/console/generations', 'generations');
    await shoot(teamContext, `/console/generations/${generations.image}`, 'generation');
    await shoot(teamContext, '/console/playground/images-generate', 'playground', (page) =>
      page.getByLabel(/^Prompt/).fill('a lighthouse on a cliff at dusk, oil painting'),
    );
    await shoot(teamContext, '/console/billing', 'billing');
    await shoot(teamContext, '/console/webhooks', 'webhooks');
    await shoot(teamContext, '/console/library', 'library');
    const operator = await browser.newContext({ viewport: VIEWPORT });
    await (await signIn(operator, server.adminToken)).close();
    await shoot(operator, '/console/operator/teams', 'operator-teams');
    await shoot(operator, '/console/operator/providers', 'operator-providers');
    await operator.close();
    if (SCREENSHOTS === undefined) await rm(dir, { recursive: true, force: true });
  });

  test('Sign out returns to the sign-in page and the old cookie no longer opens anything', async () => {
    const session = (await teamContext.cookies()).find((c) => c.name === 'gm_console');
    assert.ok(session);
    const page = await teamContext.newPage();
    await page.goto(url('/console'));
    await Promise.all([page.waitForURL(url('/console/login')), page.getByRole('button', { name: 'Sign out' }).click()]);
    assert.equal(await page.getByRole('button', { name: 'Sign in' }).count(), 1);
    assert.equal((await teamContext.cookies()).filter((c) => c.name === 'gm_console').length, 0);
    // The browser is signed out, and the cookie it had is dead on the server too.
    await page.goto(url('/console/billing'));
    assert.equal(new URL(page.url()).pathname, '/console/login');
    const replayed = await call(server, 'GET', '/console', { headers: { cookie: `gm_console=${session.value}` } });
    assert.equal(replayed.status, 303);
    assert.equal(replayed.headers.get('location'), '/console/login');
    await page.close();
  });
});
