// The console's team pages over HTTP: billing (plans, a top-up paid end to end on the built-in
// checkout, the ledger and its CSV download, usage), webhooks (the secret and its rotation,
// deliveries with their attempts, redelivery in place), workspaces, the library (influencers,
// voices, music) and projects (storyboards, desktop projects), each with its empty state; CSRF on
// every form; and that a team never sees another team's data.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Browser } from './console-helpers.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration, waitForInfluencer } from './media-helpers.ts';

interface Received {
  path: string;
  body: string;
}

async function startReceiver() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

interface Attempt {
  attempt: number;
  trigger: string;
  status_code: number | null;
}
interface Delivery {
  id: string;
  generation_id: string;
  status: string;
  attempts: Attempt[];
}
interface LedgerEntry {
  id: string;
  kind: string;
  amount: number;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const TEAM_PAGES = [
  '/console/billing',
  '/console/webhooks',
  '/console/workspaces',
  '/console/library',
  '/console/projects',
];

/** What the CSP forbids: inline scripts, inline styles and inline handlers. */
function assertNoInlineCode(text: string, path: string) {
  assert.doesNotMatch(text, /<script>|<script [^>]*>[^<]+<\/script>| on[a-z]+="| style="/, path);
}

describe('the console team pages', () => {
  let server: TestServer;
  let team: TeamFixture;
  let other: TeamFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;
  /** The team's image, used as a source for the influencer and the storyboard. */
  let imageUrl: string;
  /** What only the other team has: none of it may appear on the team's pages. */
  const theirs: string[] = [];

  const generate = async (key: string, body: Record<string, unknown>) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', { token: key, body });
    assert.equal(r.status, 200, r.text);
    return waitForGeneration(server, key, r.body.generation_id);
  };

  const deliveryOf = async (key: string, generationId: string) =>
    (
      await call<{ data: Delivery[] }>(server, 'GET', `/api/v1/webhooks/deliveries?generation_id=${generationId}`, {
        token: key,
      })
    ).body.data[0];

  before(async () => {
    server = await startTestServer({ env: { WEBHOOK_RETRY_DELAYS_S: '1,1' } });
    team = await createTeam(server, 100_000, 'pages team');
    other = await createTeam(server, 100_000, 'other team');
    receiver = await startReceiver();
    browser = new Browser(server);
    assert.equal((await browser.signIn(team.key)).status, 303);
    const image = await generate(team.key, { prompt: 'a portrait for the console', batch: 1 });
    imageUrl = image.result_urls[0] ?? '';
    assert.ok(imageUrl, 'the image has a URL');

    // The other team's data, under names of its own.
    const ws = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
      token: other.key,
      body: { name: 'Their hidden workspace' },
    });
    const voice = await call<{ voice_id: string }>(server, 'POST', '/api/v1/voices/generate', {
      token: other.key,
      body: { method: 'design', prompt: 'a whisper', name: 'Their hidden voice' },
    });
    assert.equal(voice.status, 200, voice.text);
    const pushed = await call(server, 'POST', '/api/v1/desktop-projects', {
      token: other.key,
      body: {
        desktop_project_id: 'their-hidden-desktop',
        name: 'Their hidden desktop',
        payload: { storyboards: [], timelines: [], metadata: {} },
      },
    });
    assert.equal(pushed.status, 200, pushed.text);
    const storyboard = await call<{ id: string }>(server, 'POST', `/admin/v1/teams/${other.id}/storyboards`, {
      token: server.adminToken,
      body: { name: 'Their hidden storyboard' },
    });
    assert.equal(storyboard.status, 201, storyboard.text);
    const generation = await generate(other.key, { prompt: 'theirs', webhook: `${receiver.url}/theirs` });
    const delivery = await waitFor(() => deliveryOf(other.key, generation.generation_id), 'their delivery');
    theirs.push(
      ws.body.id,
      'Their hidden',
      voice.body.voice_id,
      storyboard.body.id,
      generation.generation_id,
      delivery.id,
    );
  });
  after(async () => {
    receiver.server.close();
    await server.close();
  });

  test('every page answers 200 with its empty state for a team that has nothing yet', async () => {
    const fresh = await createTeam(server, 0, 'empty team');
    const empty = new Browser(server);
    await empty.signIn(fresh.key);
    const expected: Record<string, RegExp[]> = {
      '/console/billing': [/0 credits/, /No entries in the ledger yet/, /No usage in this range/],
      '/console/webhooks': [/No webhook deliveries yet/, /<details>/],
      '/console/workspaces': [/No workspaces yet/],
      '/console/library': [/No influencers yet/, /No voices yet/, /No music yet/],
      '/console/projects': [/No storyboards yet/, /No desktop projects yet/],
    };
    for (const path of TEAM_PAGES) {
      const page = await empty.request('GET', path);
      assert.equal(page.status, 200, `${path}: ${page.text.slice(0, 500)}`);
      for (const pattern of expected[path] ?? []) assert.match(page.text, pattern, path);
      assertNoInlineCode(page.text, path);
    }
  });

  test('billing: a Buy button per variant; the built-in checkout paid from the console raises the balance once', async () => {
    const billing = await browser.request('GET', '/console/billing');
    assert.equal(billing.status, 200);
    // The built-in provider takes no money, and the page says so before anyone presses Buy.
    assert.match(billing.text, /Test checkout, no payment/);
    for (const variant of ['starter-1000', 'creator-5500', 'studio-24000', 'studio-24000-eur', 'scale-130000'])
      assert.match(billing.text, new RegExp(`name="variant_id" value="${variant}"`));
    assert.doesNotMatch(billing.text, /creator-5000-legacy/, 'an inactive variant is not on sale');
    assert.match(billing.text, /\$10\.00/);
    assert.match(billing.text, /€189\.00/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(billing.text)?.[1] ?? '';

    const before = await balanceOf(server, team.key);
    const buy = await browser.request('POST', '/console/billing/top-up', {
      _csrf: csrf,
      plan_id: 'starter',
      variant_id: 'starter-1000',
    });
    assert.equal(buy.status, 303, buy.text);
    const checkoutUrl = buy.location ?? '';
    assert.ok(checkoutUrl.startsWith(`${server.url}/checkout/chk_`), checkoutUrl);
    // The console's own page of the checkout (where a vendor's checkout is reached from).
    const checkoutId = checkoutUrl.slice(`${server.url}/checkout/`.length);
    const summary = await browser.request('GET', `/console/billing/checkouts/${checkoutId}`);
    assert.equal(summary.status, 200);
    assert.match(summary.text, /1000 credits/);
    assert.match(summary.text, /Test checkout, no payment/);
    assert.match(summary.text, new RegExp(`href="${checkoutUrl}" role="button">Continue to payment`));
    const notTheirs = new Browser(server);
    await notTheirs.signIn(other.key);
    assert.equal((await notTheirs.request('GET', `/console/billing/checkouts/${checkoutId}`)).status, 404);
    const checkoutPage = await fetch(checkoutUrl);
    assert.equal(checkoutPage.status, 200);
    const action = /action="(\/checkout\/[^"]+\/pay)"/.exec(await checkoutPage.text())?.[1];
    assert.ok(action, 'the checkout page has its Pay form');
    const pay = () =>
      fetch(`${server.url}${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
    const paid = await pay();
    assert.equal(paid.status, 303);
    const landing = paid.headers.get('location') ?? '';
    assert.equal(landing, `${server.url}/console/billing?top_up=paid`);
    assert.equal(await balanceOf(server, team.key), before + 1000);
    const back = await browser.request('GET', landing.slice(server.url.length));
    assert.equal(back.status, 200);
    assert.match(back.text, /Thank you/);
    assert.match(back.text, new RegExp(`id="balance">${before + 1000} credits`));
    assert.match(back.text, /<td>purchase<\/td>/);
    // Pressed again, Pay credits nothing more.
    assert.equal((await pay()).status, 303);
    assert.equal(await balanceOf(server, team.key), before + 1000);

    // A cancelled checkout lands back on billing and credits nothing.
    const second = await browser.request('POST', '/console/billing/top-up', { _csrf: csrf, plan_id: 'starter' });
    assert.equal(second.status, 303);
    const cancelAction = /action="(\/checkout\/[^"]+\/cancel)"/.exec(await (await fetch(second.location ?? '')).text());
    const cancelled = await fetch(`${server.url}${cancelAction?.[1]}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: server.url },
    });
    assert.equal(cancelled.headers.get('location'), `${server.url}/console/billing?top_up=cancelled`);
    assert.equal(await balanceOf(server, team.key), before + 1000);

    // An unknown plan is the API's error, shown on a page.
    const unknown = await browser.request('POST', '/console/billing/top-up', { _csrf: csrf, plan_id: 'nope' });
    assert.ok(unknown.status === 400 || unknown.status === 404, `status ${unknown.status}`);
    assert.match(unknown.text, /role="alert"/);
  });

  test('billing: the ledger page by page, and all of it as a CSV download', async () => {
    const many = await createTeam(server, 10, 'ledger team');
    for (let i = 0; i < 105; i++) {
      const grant = await call(server, 'POST', `/admin/v1/teams/${many.id}/credits`, {
        token: server.adminToken,
        body: { amount: 1, reason: i === 0 ? 'a reason, with "quotes"' : `grant ${i}` },
      });
      assert.equal(grant.status, 201, grant.text);
    }
    const entries: LedgerEntry[] = [];
    for (let cursor: string | null = ''; cursor !== null; ) {
      const r: { body: { data: LedgerEntry[]; next_cursor: string | null } } = await call(
        server,
        'GET',
        `/api/v1/billing/ledger?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        { token: many.key },
      );
      entries.push(...r.body.data);
      cursor = r.body.next_cursor;
    }
    assert.ok(entries.length > 100, `${entries.length} entries`);

    const reader = new Browser(server);
    await reader.signIn(many.key);
    const billing = await reader.request('GET', '/console/billing');
    assert.match(billing.text, /href="\/console\/billing\/ledger\.csv"/);
    const next = /href="(\/console\/billing\?cursor=[^"]+)"/.exec(billing.text)?.[1];
    assert.ok(next, 'a next page link');
    const second = await reader.request('GET', next.replaceAll('&amp;', '&'));
    assert.equal(second.status, 200);
    assert.match(second.text, /grant \d+/);

    const csv = await reader.request('GET', '/console/billing/ledger.csv');
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(
      csv.headers.get('content-disposition') ?? '',
      /^attachment; filename="ledger-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = csv.text.split('\r\n');
    assert.equal(lines[0], 'id,created_at,kind,amount,balance_after,reason,generation_id');
    assert.equal(lines.at(-1), '', 'every row ends in CRLF');
    const rows = lines.slice(1, -1);
    assert.equal(rows.length, entries.length, 'every entry, across the API pages, once');
    assert.deepEqual(
      rows.map((row) => row.split(',')[0]),
      entries.map((e) => e.id),
    );
    assert.ok(rows.some((row) => row.includes('"a reason, with ""quotes"""')));
    assert.equal(lines.filter((l) => l.startsWith('id,')).length, 1, 'one header row');
  });

  test('billing: usage by kind and by model over a range, and a range the API refuses', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const page = await browser.request('GET', `/console/billing?from=${today}&to=${today}`);
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(`name="from" value="${today}"`));
    const usage = (
      await call<{ by_operation: Array<{ kind: string | null; model: string | null }> }>(
        server,
        'GET',
        `/api/v1/billing/usage?from=${today}&to=${today}`,
        { token: team.key },
      )
    ).body;
    assert.ok(usage.by_operation.length > 0);
    for (const row of usage.by_operation) {
      if (row.kind) assert.match(page.text, new RegExp(`<td>${row.kind}</td>`));
      if (row.model) assert.match(page.text, new RegExp(`<td>${row.model}</td>`));
    }
    assert.match(page.text, new RegExp(`<td>${today}</td>`));
    const wrong = await browser.request('GET', '/console/billing?from=2026-01-10&to=2026-01-01');
    assert.equal(wrong.status, 200, 'the rest of the page still shows');
    assert.match(wrong.text, /role="alert"/);
  });

  test('webhooks: the secret behind a reveal, deliveries with their attempts, redelivery in place', async () => {
    const done = await generate(team.key, { prompt: 'a webhook please', webhook: `${receiver.url}/ok` });
    const delivery = await waitFor(async () => {
      const d = await deliveryOf(team.key, done.generation_id);
      return d?.status === 'delivered' ? d : undefined;
    }, 'the delivery');
    const secret = (await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key })).body
      .secret;

    const page = await browser.request('GET', '/console/webhooks');
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      new RegExp(
        `<details>\\s*<summary>[^<]+</summary>\\s*<p class="secret" id="signing-secret">${secret.replace(/[+/]/g, '\\$&')}</p>`,
      ),
    );
    assert.match(page.text, new RegExp(`id="delivery-${delivery.id}"`));
    assert.match(page.text, new RegExp(`href="/console/generations/${done.generation_id}"`));
    assert.match(page.text, /<td class="ok">200<\/td>/);
    assert.match(page.text, /\d+ ms<\/td>/);
    assertNoInlineCode(page.text, '/console/webhooks');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';

    // htmx posts the button's form and swaps the answer in place of the delivery.
    const swapped = await browser.request(
      'POST',
      `/console/webhooks/deliveries/${delivery.id}/redeliver`,
      { _csrf: csrf },
      { 'hx-request': 'true' },
    );
    assert.equal(swapped.status, 200, swapped.text);
    assert.match(swapped.text, new RegExp(`^<article id="delivery-${delivery.id}"`));
    assert.doesNotMatch(swapped.text, /<html/);
    const redelivered = await waitFor(async () => {
      const d = await deliveryOf(team.key, done.generation_id);
      return d?.attempts.length === 2 && d.status === 'delivered' ? d : undefined;
    }, 'the redelivery');
    assert.equal(redelivered.attempts[1]?.trigger, 'redelivery');
    assert.equal(receiver.received.filter((r) => r.body.includes(done.generation_id)).length, 2);
    const fragment = await browser.request('GET', `/console/webhooks/deliveries/${delivery.id}`, undefined, {
      'hx-request': 'true',
    });
    assert.match(fragment.text, /\(redelivery\)/);
    assert.doesNotMatch(fragment.text, /hx-trigger/, 'a settled delivery is no longer followed');

    // Without htmx the form posts and lands on the delivery's page, with its body.
    const plain = await browser.request('POST', `/console/webhooks/deliveries/${delivery.id}/redeliver`, {
      _csrf: csrf,
    });
    assert.equal(plain.status, 303);
    assert.equal(plain.location, `/console/webhooks/deliveries/${delivery.id}`);
    const detail = await browser.request('GET', plain.location ?? '');
    assert.equal(detail.status, 200);
    assert.match(detail.text, /generation\.completed/);
    await waitFor(async () => {
      const d = await deliveryOf(team.key, done.generation_id);
      return d?.attempts.length === 3 ? d : undefined;
    }, 'the second redelivery');
  });

  test('webhooks: rotating needs the confirmation, shows the new secret once, and the API agrees', async () => {
    const before = (await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key })).body
      .secret;
    const csrf = await browser.csrf('/console/webhooks');
    const unconfirmed = await browser.request('POST', '/console/webhooks/secret/rotate', { _csrf: csrf });
    assert.equal(unconfirmed.status, 400);
    assert.match(unconfirmed.text, /Tick the box/);
    const same = await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key });
    assert.equal(same.body.secret, before);

    const rotated = await browser.request('POST', '/console/webhooks/secret/rotate', { _csrf: csrf, confirm: 'yes' });
    assert.equal(rotated.status, 200, rotated.text);
    const shown = /<details open>[\s\S]*?id="signing-secret">([^<]+)</.exec(rotated.text)?.[1];
    assert.ok(shown?.startsWith('whsec_'), 'the new secret is shown, revealed');
    assert.notEqual(shown, before);
    const now = await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key });
    assert.equal(now.body.secret, shown);
    // Afterwards it is behind the reveal again.
    const later = await browser.request('GET', '/console/webhooks');
    assert.match(later.text, /<details>/);
    assert.doesNotMatch(later.text, /rotated/);
  });

  test('workspaces: created from the form (escaped), each linking to its generations', async () => {
    const csrf = await browser.csrf('/console/workspaces');
    const created = await browser.request('POST', '/console/workspaces', { _csrf: csrf, name: '<b>Console & Co</b>' });
    assert.equal(created.status, 303, created.text);
    const id = /created=([^&]+)$/.exec(created.location ?? '')?.[1] ?? '';
    assert.match(id, /^ws_/);
    const list = await browser.request('GET', created.location ?? '');
    assert.equal(list.status, 200);
    assert.ok(list.text.includes('&lt;b&gt;Console &amp; Co&lt;/b&gt;'));
    assert.ok(!list.text.includes('<b>Console'));
    assert.match(list.text, new RegExp(`href="/console/generations\\?workspace_id=${id}"`));

    const inside = await generate(team.key, { prompt: 'in the workspace', workspace_id: id });
    const generations = await browser.request('GET', `/console/generations?workspace_id=${id}`);
    assert.match(generations.text, new RegExp(inside.generation_id));
    assert.doesNotMatch(generations.text, new RegExp(theirs[4] ?? 'none'));

    const blank = await browser.request('POST', '/console/workspaces', { _csrf: csrf, name: '' });
    assert.equal(blank.status, 400);
    assert.match(blank.text, /role="alert"/);
  });

  test('library: influencers with their face, voices with a preview player, tracks with players and generations', async () => {
    const influencer = await call<{ influencer_id: string }>(server, 'POST', '/api/v1/influencers/create', {
      token: team.key,
      body: { image_urls: [imageUrl], name: 'Console Face' },
    });
    assert.equal(influencer.status, 200, influencer.text);
    const ready = await waitForInfluencer(server, team.key, influencer.body.influencer_id);
    const voice = await call<{ voice_id: string; audio_url: string }>(server, 'POST', '/api/v1/voices/generate', {
      token: team.key,
      body: { method: 'design', prompt: 'a calm narrator', name: 'Console Narrator' },
    });
    assert.equal(voice.status, 200, voice.text);
    const music = await call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: team.key,
      body: { title: 'Console Anthem', style: 'lo-fi piano', instrumental: true },
    });
    assert.equal(music.status, 200, music.text);
    await waitForGeneration(server, team.key, music.body.generation_id);
    const track = (
      await call<Array<{ url: string; generation_id: string }>>(server, 'GET', '/api/v1/music', { token: team.key })
    ).body.find((t) => t.generation_id === music.body.generation_id);
    assert.ok(track);

    const page = await browser.request('GET', '/console/library');
    assert.equal(page.status, 200);
    assert.match(page.text, /Console Face/);
    assert.match(page.text, new RegExp(`<img class="thumb" src="${ready.face_image}"`));
    assert.match(page.text, /<span class="ok">ready<\/span>/);
    assert.match(page.text, /Console Narrator/);
    assert.match(page.text, new RegExp(`<audio src="${voice.body.audio_url}" controls`));
    assert.match(page.text, /Console Anthem/);
    assert.match(page.text, /lo-fi piano/);
    assert.match(page.text, new RegExp(`<audio src="${track.url}" controls`));
    assert.match(page.text, new RegExp(`href="/console/generations/${music.body.generation_id}"`));
    assertNoInlineCode(page.text, '/console/library');
  });

  test('projects: storyboards and desktop projects, their detail pages read-only', async () => {
    const storyboard = await call<{ id: string }>(server, 'POST', `/admin/v1/teams/${team.id}/storyboards`, {
      token: server.adminToken,
      body: {
        name: 'Console Storyboard',
        aspect_ratio: '16:9',
        outfits: [{ name: 'Yellow raincoat', image_urls: [imageUrl] }],
        scenes: [
          {
            title: 'Harbour at dawn',
            shots: [
              {
                description: 'Boats leave the harbour',
                camera: 'wide, slow dolly-in',
                frames: [{ image_versions: [{ url: imageUrl }, { url: imageUrl, selected: true }] }],
                video_versions: [{ url: `${server.url}/media/none.mp4` }],
              },
            ],
          },
          { title: 'Empty quay' },
        ],
      },
    });
    assert.equal(storyboard.status, 201, storyboard.text);
    for (const n of [1, 2]) {
      const pushed = await call(server, 'POST', '/api/v1/desktop-projects', {
        token: team.key,
        body: {
          desktop_project_id: 'console-desktop-1',
          name: 'Console Desktop',
          payload: { storyboards: [{ id: 'a' }, { id: 'b' }], timelines: [{ id: 'main' }], metadata: { saved: n } },
        },
      });
      assert.equal(pushed.status, 200, pushed.text);
    }

    const list = await browser.request('GET', '/console/projects');
    assert.equal(list.status, 200);
    assert.match(list.text, new RegExp(`href="/console/projects/storyboards/${storyboard.body.id}"`));
    assert.match(list.text, /Harbour at dawn · Empty quay/);
    assert.match(list.text, /href="\/console\/projects\/desktop\/console-desktop-1"/);
    assert.match(list.text, /Console Desktop/);

    const detail = await browser.request('GET', `/console/projects/storyboards/${storyboard.body.id}`);
    assert.equal(detail.status, 200);
    assert.match(detail.text, /Scene 1: Harbour at dawn/);
    assert.match(detail.text, /Yellow raincoat/);
    assert.match(detail.text, /wide, slow dolly-in/);
    assert.match(detail.text, /2 versions/);
    assert.match(detail.text, /<video /);
    assert.match(detail.text, /No shots\./);
    assert.doesNotMatch(detail.text, /<form method="post" action="\/console\/projects/, 'read-only');

    const desktop = await browser.request('GET', '/console/projects/desktop/console-desktop-1');
    assert.equal(desktop.status, 200);
    assert.match(desktop.text, /Latest snapshot/);
    assert.match(desktop.text, /<dt>Storyboards<\/dt><dd>2<\/dd>/);
    assert.match(desktop.text, /<dt>Timelines<\/dt><dd>1<\/dd>/);
    assert.match(desktop.text, /&quot;saved&quot;: 2/);
    assert.match(desktop.text, /href="\/console\/projects\/desktop\/console-desktop-1\?version=1"/);
    const first = await browser.request('GET', '/console/projects/desktop/console-desktop-1?version=1');
    assert.match(first.text, /Snapshot version 1/);
    assert.match(first.text, /&quot;saved&quot;: 1/);

    const theirStoryboard = await browser.request('GET', `/console/projects/storyboards/${theirs[3]}`);
    assert.equal(theirStoryboard.status, 404);
    const theirDesktop = await browser.request('GET', '/console/projects/desktop/their-hidden-desktop');
    assert.equal(theirDesktop.status, 404);
    const theirDelivery = await browser.request('GET', `/console/webhooks/deliveries/${theirs[5]}`);
    assert.equal(theirDelivery.status, 404);
  });

  test("every form needs the session's CSRF token; nothing changes without it", async () => {
    const secret = (await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key })).body
      .secret;
    const balance = await balanceOf(server, team.key);
    const workspaces = (await call<unknown[]>(server, 'GET', '/api/v1/workspaces', { token: team.key })).body.length;
    const delivery = (
      await call<{ data: Delivery[] }>(server, 'GET', '/api/v1/webhooks/deliveries', { token: team.key })
    ).body.data[0];
    assert.ok(delivery);
    const attempts = delivery.attempts.length;
    const forms: Array<[string, Record<string, string>]> = [
      ['/console/billing/top-up', { plan_id: 'starter' }],
      ['/console/webhooks/secret/rotate', { confirm: 'yes' }],
      [`/console/webhooks/deliveries/${delivery.id}/redeliver`, {}],
      ['/console/workspaces', { name: 'forged' }],
    ];
    for (const [path, form] of forms) {
      const forged = await browser.request('POST', path, form);
      assert.equal(forged.status, 403, path);
      const wrong = await browser.request('POST', path, { ...form, _csrf: 'guess' });
      assert.equal(wrong.status, 403, path);
      const csrf = await browser.csrf();
      const foreign = await browser.request('POST', path, { ...form, _csrf: csrf }, { origin: 'https://evil.example' });
      assert.equal(foreign.status, 403, path);
    }
    await sleep(300);
    assert.equal(
      (await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key })).body.secret,
      secret,
    );
    assert.equal(await balanceOf(server, team.key), balance);
    assert.equal(
      (await call<unknown[]>(server, 'GET', '/api/v1/workspaces', { token: team.key })).body.length,
      workspaces,
    );
    assert.equal((await deliveryOf(team.key, delivery.generation_id))?.attempts.length, attempts);
    const signedOut = await new Browser(server).request('GET', '/console/billing/ledger.csv');
    assert.equal(signedOut.status, 303);
    assert.equal(signedOut.location, '/console/login');
  });

  test("another team's data never appears on the team's pages", async () => {
    const paths = [
      ...TEAM_PAGES,
      '/console/webhooks?status=delivered',
      '/console/billing/ledger.csv',
      '/console/projects/desktop/console-desktop-1',
    ];
    for (const path of paths) {
      const page = await browser.request('GET', path);
      assert.equal(page.status, 200, path);
      for (const mark of theirs) assert.ok(!page.text.includes(mark), `${path} shows ${mark}`);
    }
  });
});
