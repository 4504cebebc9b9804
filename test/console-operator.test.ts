// The console's operator pages over HTTP, signed in with the admin token: the teams (create, grant
// or correct credits, the cap of items at once, the ledger), a team's API keys (issued and shown
// once, revoked), the providers (with a check) and a generation's vendor attempts, against the
// simulator and a fake fal queue; and that a team's session, or a form without its CSRF token,
// changes nothing there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorRoutes } from '../src/modules/console/pages/operator.ts';
import { Browser } from './console-helpers.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
const balanceOn = (text: string) => Number(/id="balance">(-?\d+) credits/.exec(text)?.[1]);
const capOn = (text: string) => /<dd id="cap">([^<]*)<\/dd>/.exec(text)?.[1];

/** An operator's browser, signed in with the admin token. */
async function operator(server: TestServer): Promise<Browser> {
  const browser = new Browser(server);
  const signed = await browser.signIn(server.adminToken);
  assert.equal(signed.status, 303);
  return browser;
}

/** Sends a form of a page as the browser would: with the page's CSRF token. */
async function submit(browser: Browser, pagePath: string, action: string, fields: Record<string, string>) {
  const form = await browser.request('GET', pagePath);
  assert.equal(form.status, 200, form.text);
  return browser.request('POST', action, { _csrf: csrfOf(form.text), ...fields });
}

describe('the operator pages, with the simulator only', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1000, 'existing team');
  });
  after(async () => {
    await server?.close();
  });

  test('an operator signs in with the admin token and sees the teams with their credits', async () => {
    const browser = await operator(server);
    const teams = await browser.request('GET', '/console/operator/teams');
    assert.equal(teams.status, 200);
    assert.match(teams.text, new RegExp(`<a href="/console/operator/teams/${team.id}">existing team</a>`));
    assert.match(teams.text, /<td>1000<\/td>/);
    assert.match(teams.text, /<label for="team-name">Name<\/label>/);
    assert.match(teams.text, /<label for="team-credits">Starting credits<\/label>/);
    assert.match(teams.text, /<button type="submit">Create the team<\/button>/);
    assert.doesNotMatch(teams.text, / style="| on[a-z]+="|<script>/, 'nothing inline for the CSP to block');
  });

  test('creates a team with starting credits; a refused name is shown beside the form', async () => {
    const browser = await operator(server);
    const created = await submit(browser, '/console/operator/teams', '/console/operator/teams', {
      name: 'Acme <studio>',
      credits: '250',
    });
    assert.equal(created.status, 303);
    const teamPage = created.location ?? '';
    assert.match(teamPage, /^\/console\/operator\/teams\/[^/]+$/);
    const shown = await browser.request('GET', teamPage);
    assert.equal(shown.status, 200);
    assert.match(shown.text, /<h1>Team Acme &lt;studio&gt;<\/h1>/, 'the name is escaped');
    assert.equal(balanceOn(shown.text), 250);
    assert.match(shown.text, /<td>grant<\/td>\s*<td class="ok">\+250<\/td>/, 'the starting credits are a grant');
    const list = await browser.request('GET', '/console/operator/teams');
    assert.match(list.text, new RegExp(`<a href="${teamPage}">Acme &lt;studio&gt;</a>[\\s\\S]*?<td>250</td>`));

    const refused = await submit(browser, '/console/operator/teams', '/console/operator/teams', {
      name: '',
      credits: '-5',
    });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /<article class="error" role="alert">/);
    assert.match(refused.text, /value="-5"/, 'the form keeps what was typed');
  });

  test('grants and corrects credits: the balance and the ledger change; a refusal shows in place', async () => {
    const browser = await operator(server);
    const path = `/console/operator/teams/${team.id}`;
    const before = await browser.request('GET', path);
    const balance = balanceOn(before.text);

    const granted = await submit(browser, path, `${path}/credits`, { amount: '120', reason: 'welcome bonus' });
    assert.equal(granted.status, 303);
    const afterGrant = await browser.request('GET', path);
    assert.equal(balanceOn(afterGrant.text), balance + 120);
    assert.match(
      afterGrant.text,
      /<td>grant<\/td>\s*<td class="ok">\+120<\/td>\s*<td>\d+<\/td>\s*<td>welcome bonus<\/td>/,
    );
    assert.equal(
      (await call<number>(server, 'GET', '/api/v1/billing/credits', { token: team.key })).body,
      balance + 120,
    );

    const corrected = await submit(browser, path, `${path}/credits`, { amount: '-20', reason: 'double grant' });
    assert.equal(corrected.status, 303);
    const afterCorrection = await browser.request('GET', path);
    assert.equal(balanceOn(afterCorrection.text), balance + 100);
    assert.match(afterCorrection.text, /<td>correction<\/td>\s*<td class="error">-20<\/td>/);

    const belowZero = await submit(browser, path, `${path}/credits`, { amount: '-99999999', reason: 'too much' });
    assert.equal(belowZero.status, 402);
    assert.match(
      belowZero.text,
      /<section aria-labelledby="credits-title">[\s\S]*?<article class="error" role="alert">/,
    );
    assert.equal(balanceOn(belowZero.text), balance + 100, 'nothing taken');

    const notANumber = await submit(browser, path, `${path}/credits`, { amount: 'lots', reason: 'typo' });
    assert.equal(notANumber.status, 400);
    assert.match(notANumber.text, /<li><code>[^<]*amount[^<]*<\/code>/, 'the field named by the API');
    assert.match(notANumber.text, /value="lots"/);

    const unknown = await browser.request('POST', '/console/operator/teams/team_nope/credits', {
      _csrf: csrfOf(before.text),
      amount: '5',
      reason: 'x',
    });
    assert.equal(unknown.status, 404);
  });

  test("sets and clears a team's cap of items at once", async () => {
    const browser = await operator(server);
    const path = `/console/operator/teams/${team.id}`;
    assert.match(capOn((await browser.request('GET', path)).text) ?? '', /^default \(\d+\)$/);

    const set = await submit(browser, path, `${path}/cap`, { max_concurrent_items: '3' });
    assert.equal(set.status, 303);
    const capped = await browser.request('GET', path);
    assert.equal(capOn(capped.text), '3');
    assert.match(capped.text, /id="cap-value" name="max_concurrent_items"[^>]*value="3"/);
    const admin = await call<{ max_concurrent_items: number | null }>(server, 'GET', `/admin/v1/teams/${team.id}`, {
      token: server.adminToken,
    });
    assert.equal(admin.body.max_concurrent_items, 3);
    assert.match((await browser.request('GET', '/console/operator/teams')).text, /<td>3<\/td>/);

    const zero = await submit(browser, path, `${path}/cap`, { max_concurrent_items: '0' });
    assert.equal(zero.status, 400);
    assert.match(zero.text, /<section aria-labelledby="cap-title">[\s\S]*?<article class="error" role="alert">/);
    assert.equal(capOn(zero.text), '3', 'unchanged');

    const cleared = await submit(browser, path, `${path}/cap`, { max_concurrent_items: '' });
    assert.equal(cleared.status, 303);
    assert.match(capOn((await browser.request('GET', path)).text) ?? '', /^default \(\d+\)$/);
    const again = await call<{ max_concurrent_items: number | null }>(server, 'GET', `/admin/v1/teams/${team.id}`, {
      token: server.adminToken,
    });
    assert.equal(again.body.max_concurrent_items, null);
  });

  test("shows a team's rules: its price multiplier and the models allowed and denied to it", async () => {
    const browser = await operator(server);
    const path = `/console/operator/teams/${team.id}`;
    const plain = (await browser.request('GET', path)).text;
    assert.match(plain, /<dd id="price-multiplier">1 <span class="muted">\(list prices\)<\/span><\/dd>/);
    assert.match(plain, /<dd id="allowed-models"><span class="muted">every model not denied<\/span><\/dd>/);
    assert.match(plain, /<dd id="denied-models"><span class="muted">none<\/span><\/dd>/);
    const patched = await call(server, 'PATCH', `/admin/v1/teams/${team.id}`, {
      token: server.adminToken,
      body: { price_multiplier: 1.25, denied_models: ['image:flux-1-pro', 'video:sora-2'] },
    });
    assert.equal(patched.status, 200, patched.text);
    const ruled = (await browser.request('GET', path)).text;
    assert.match(ruled, /<dd id="price-multiplier">1.25<\/dd>/);
    assert.match(ruled, /<dd id="denied-models"><code>image:flux-1-pro<\/code>, <code>video:sora-2<\/code><\/dd>/);
    const reset = await call(server, 'PATCH', `/admin/v1/teams/${team.id}`, {
      token: server.adminToken,
      body: { price_multiplier: 1, denied_models: [] },
    });
    assert.equal(reset.status, 200, reset.text);
  });

  test('issues a key shown once, which works until it is revoked from the page', async () => {
    const browser = await operator(server);
    const path = `/console/operator/teams/${team.id}`;
    const created = await submit(browser, path, `${path}/api-keys`, { name: 'ci runner' });
    assert.equal(created.status, 201);
    assert.match(created.text, /<article class="new-key" id="new-key" role="status"/);
    assert.match(created.text, /only time the key is shown/);
    const key = /id="new-key-value"[^>]*value="(gms_[^"]+)"/.exec(created.text)?.[1];
    assert.ok(key, 'the key is on the answer page');
    assert.equal(created.headers.get('cache-control'), 'no-store');

    const reloaded = await browser.request('GET', path);
    assert.ok(!reloaded.text.includes(key), 'the team page does not show it again');
    assert.doesNotMatch(reloaded.text, /id="new-key"/);
    assert.match(reloaded.text, /<td>ci runner<\/td>\s*<td><code>gms_/, 'the key is listed by its prefix');
    assert.ok(!(await browser.request('GET', '/console/operator/teams')).text.includes(key));
    const stored = await server.pool.query(`select count(*)::int as n from console_sessions where sealed_key is not null
      and kind = 'operator'`);
    assert.equal(stored.rows[0].n, 0, 'no session keeps it');

    const works = await call<number>(server, 'GET', '/api/v1/billing/credits', { token: key });
    assert.equal(works.status, 200);
    assert.equal(works.body, balanceOn(reloaded.text));

    const keys = await call<Array<{ id: string; name: string | null }>>(
      server,
      'GET',
      `/admin/v1/teams/${team.id}/api-keys`,
      { token: server.adminToken },
    );
    const keyId = keys.body.find((k) => k.name === 'ci runner')?.id ?? '';
    assert.match(reloaded.text, new RegExp(`action="${path}/api-keys/${keyId}/revoke"`));
    assert.match(
      reloaded.text,
      /<button type="submit" class="secondary" aria-label="Revoke the key ci runner">Revoke<\/button>/,
    );

    // A key of another team is not revoked through this team's page.
    const other = await createTeam(server, 10, 'other team');
    const foreign = await submit(browser, path, `${path}/api-keys/${other.keyId}/revoke`, {});
    assert.equal(foreign.status, 404);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: other.key })).status, 200);

    const revoked = await submit(browser, path, `${path}/api-keys/${keyId}/revoke`, {});
    assert.equal(revoked.status, 303);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: key })).status, 401);
    const listed = await browser.request('GET', path);
    assert.match(listed.text, /<td>ci runner<\/td>[\s\S]*?revoked <time/);
  });

  test('the providers page lists the simulator and what is not configured; its check answers', async () => {
    const browser = await operator(server);
    const providers = await browser.request('GET', '/console/operator/providers');
    assert.equal(providers.status, 200);
    assert.match(providers.text, /<td><strong>simulator<\/strong><\/td>\s*<td><span class="ok">yes<\/span><\/td>/);
    assert.match(providers.text, /<td><strong>fal<\/strong><\/td>\s*<td><span class="muted">no key<\/span><\/td>/);
    assert.match(providers.text, /No route is cooling down\./);
    assert.match(providers.text, /<span class="muted">not checked<\/span>/);
    assert.match(providers.text, /<button type="submit">Check the configured providers<\/button>/);
    assert.match(providers.text, /<summary>simulator: \d+ routes<\/summary>/);

    const checked = await browser.request('GET', '/console/operator/providers?check=true');
    assert.equal(checked.status, 200);
    assert.doesNotMatch(checked.text, /not checked/);
    assert.match(checked.text, /<strong>simulator<\/strong>[\s\S]*?built in: nothing to ask/);
    assert.match(checked.text, /<strong>fal<\/strong>[\s\S]*?<span class="muted">not configured<\/span>/);

    // htmx asks for the table alone.
    const fragment = await browser.request('GET', '/console/operator/providers?check=true', undefined, {
      'hx-request': 'true',
    });
    assert.equal(fragment.status, 200);
    assert.match(fragment.text, /^<div id="providers">/);
    assert.doesNotMatch(fragment.text, /<html/);
  });

  test("the attempts page: a simulator generation's attempt, a 404 for an unknown id", async () => {
    const made = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse for the operator', batch: 1 },
    });
    assert.equal(made.status, 200, made.text);
    await waitForGeneration(server, team.key, made.body.generation_id);
    const browser = await operator(server);
    const empty = await browser.request('GET', '/console/operator/attempts');
    assert.equal(empty.status, 200);
    assert.match(empty.text, /<label for="generation-id">Generation id<\/label>/);
    assert.doesNotMatch(empty.text, /role="alert"/);

    const simulated = await browser.request(
      'GET',
      `/console/operator/attempts?generation_id=${made.body.generation_id}`,
    );
    assert.equal(simulated.status, 200);
    // The simulator is a route like a vendor's: its attempt is listed, under its name.
    assert.match(simulated.text, /<td>simulator<\/td>\s*<td><code>image\.generate<\/code><\/td>/);
    assert.match(simulated.text, /<span class="badge completed">completed<\/span>/);
    assert.match(simulated.text, new RegExp(`value="${made.body.generation_id}"`));

    const unknown = await browser.request('GET', '/console/operator/attempts?generation_id=gen_nope');
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /<article class="error" role="alert"><strong>Generation gen_nope not found/);
    assert.match(unknown.text, /<form method="get" action="\/console\/operator\/attempts">/, 'the form stays');

    const tooLong = await browser.request('GET', `/console/operator/attempts?generation_id=${'x'.repeat(65)}`);
    assert.equal(tooLong.status, 400);
    assert.match(tooLong.text, /role="alert"/);
  });

  test("a team's session gets 403 on every operator page and form, and changes nothing", async () => {
    const browser = new Browser(server);
    await browser.signIn(team.key);
    const csrf = await browser.csrf('/console');
    assert.ok(csrf);
    const before = await call<{ credits: number; max_concurrent_items: number | null }>(
      server,
      'GET',
      `/admin/v1/teams/${team.id}`,
      { token: server.adminToken },
    );
    assert.ok(operatorRoutes.length >= 8);
    for (const route of operatorRoutes) {
      const path = route.path.replace(':id', team.id).replace(':keyId', team.keyId);
      const answer =
        route.method === 'GET'
          ? await browser.request('GET', path)
          : await browser.request('POST', path, {
              _csrf: csrf,
              name: 'sneaky',
              credits: '5',
              amount: '1000',
              reason: 'free credits',
              max_concurrent_items: '1000',
            });
      assert.equal(answer.status, 403, `${route.method} ${path}`);
      assert.doesNotMatch(answer.text, /gms_[A-Za-z0-9_-]{20}/, `${route.method} ${path} shows no key`);
    }
    const afterwards = await call<{ credits: number; max_concurrent_items: number | null }>(
      server,
      'GET',
      `/admin/v1/teams/${team.id}`,
      { token: server.adminToken },
    );
    assert.deepEqual(afterwards.body, before.body);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status, 200);
  });

  test('an operator form without its CSRF token, or from another origin, is refused with 403', async () => {
    const browser = await operator(server);
    const path = `/console/operator/teams/${team.id}`;
    const balance = balanceOn((await browser.request('GET', path)).text);
    const csrf = await browser.csrf(path);
    const forms: Array<[string, Record<string, string>]> = [
      ['/console/operator/teams', { name: 'forged' }],
      [`${path}/credits`, { amount: '500', reason: 'forged' }],
      [`${path}/cap`, { max_concurrent_items: '1' }],
      [`${path}/api-keys`, { name: 'forged' }],
      [`${path}/api-keys/${team.keyId}/revoke`, {}],
    ];
    for (const [action, fields] of forms) {
      assert.equal((await browser.request('POST', action, fields)).status, 403, `${action} without a token`);
      assert.equal(
        (await browser.request('POST', action, { _csrf: 'guess', ...fields })).status,
        403,
        `${action} with a wrong token`,
      );
      assert.equal(
        (await browser.request('POST', action, { _csrf: csrf, ...fields }, { origin: 'https://evil.example' })).status,
        403,
        `${action} from another origin`,
      );
    }
    const after = await browser.request('GET', path);
    assert.equal(balanceOn(after.text), balance);
    assert.doesNotMatch(after.text, /forged/);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status, 200);
    assert.doesNotMatch((await browser.request('GET', '/console/operator/teams')).text, /forged/);
  });
});

describe('the operator pages, with a fake fal queue', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({ env: fal.env });
    team = await createTeam(server, 1000, 'fal team');
  });
  after(async () => {
    await server?.close();
    await fal?.close();
  });

  test("the attempts page shows a fal generation's attempt; the providers page its success rate and check", async () => {
    const made = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a harbour at dusk', model: 'flux-1-schnell' },
    });
    assert.equal(made.status, 200, made.text);
    const done = await waitForGeneration(server, team.key, made.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const admin = await call<Array<{ vendor_request_id: string | null }>>(
      server,
      'GET',
      `/admin/v1/generations/${made.body.generation_id}/attempts`,
      { token: server.adminToken },
    );
    const requestId = admin.body[0]?.vendor_request_id;
    assert.ok(requestId);

    const browser = await operator(server);
    const attempts = await browser.request(
      'GET',
      `/console/operator/attempts?generation_id=${made.body.generation_id}`,
    );
    assert.equal(attempts.status, 200);
    const rows = attempts.text.match(/<tr>\s*<td><small>/g) ?? [];
    assert.equal(rows.length, 1, 'one attempt');
    assert.match(
      attempts.text,
      new RegExp(
        `<td><small>${done.items[0]?.id}</small></td>\\s*<td>fal</td>\\s*<td><code>fal-ai/flux/schnell</code></td>\\s*<td><code>${requestId}</code></td>`,
      ),
    );
    assert.match(attempts.text, /<span class="badge completed">completed<\/span>/);
    assert.match(attempts.text, /<time datetime="[^"]+">[^<]+ UTC<\/time><\/td>\s*<td><time/, 'started and finished');

    const providers = await browser.request('GET', '/console/operator/providers?check=true');
    assert.equal(providers.status, 200);
    assert.match(
      providers.text,
      /<td><strong>fal<\/strong><\/td>\s*<td><span class="ok">yes<\/span><\/td>\s*<td>100\.0 %<\/td>/,
    );
    assert.match(
      providers.text,
      /<strong>fal<\/strong>[\s\S]*?<strong>unknown<\/strong><br><small>fal\.ai has no harmless call/,
    );
    assert.ok(!providers.text.includes(fal.key), 'the vendor key is never shown');
  });
});
