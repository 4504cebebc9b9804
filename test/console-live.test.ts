// The console's page of the live configuration, over HTTP, signed in with the admin token: an alias
// set and deleted from its form, a model's price changed and given back to the catalog, the audit
// saying the console operator made them; refused forms shown again with the API's words and nothing
// changed; a team's session and a form without its CSRF token change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { liveRoutes } from '../src/modules/console/pages/live.ts';
import { Browser } from './console-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
const PAGE = '/console/operator/live';

interface AuditPage {
  data: Array<{ actor: string; action: string; target: string; before: unknown; after: unknown }>;
}

describe('the live configuration page', () => {
  let server: TestServer;
  let team: TeamFixture;
  let operator: Browser;

  const audit = async () =>
    (await call<AuditPage>(server, 'GET', '/admin/v1/audit?limit=100', { token: server.adminToken })).body.data;
  const submit = async (action: string, fields: Record<string, string>, from = PAGE) => {
    const form = await operator.request('GET', from);
    assert.equal(form.status, 200, form.text);
    return operator.request('POST', action, { _csrf: csrfOf(form.text), ...fields });
  };

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1000, 'live team');
    operator = new Browser(server);
    assert.equal((await operator.signIn(server.adminToken)).status, 303);
  });
  after(async () => {
    await server?.close();
  });

  test('the page shows no aliases and no changes on a fresh database, and is in the operator menu', async () => {
    const shown = await operator.request('GET', PAGE);
    assert.equal(shown.status, 200);
    assert.match(shown.text, /No aliases: teams name the catalog's models only/);
    assert.match(shown.text, /No change has been made yet/);
    assert.match(shown.text, /href="\/console\/operator\/live"/);
  });

  test('an alias set and deleted from the page, audited as the console operator', async () => {
    const set = await submit(`${PAGE}/aliases`, { alias: 'house-fast', kind: 'image', model: 'flux-1-schnell' });
    assert.equal(set.status, 303, set.text);
    const shown = await operator.request('GET', PAGE);
    assert.match(shown.text, /<td><code>house-fast<\/code><\/td><td>image<\/td><td><code>flux-1-schnell<\/code><\/td>/);
    const listed = await call<{ data: Array<{ alias: string; model: string }> }>(server, 'GET', '/admin/v1/aliases', {
      token: server.adminToken,
    });
    assert.deepEqual(
      listed.body.data.map((a) => [a.alias, a.model]),
      [['house-fast', 'flux-1-schnell']],
    );
    const made = await call(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a quick sketch', model: 'house-fast' },
    });
    assert.equal(made.status, 200, made.text);

    const deleted = await submit(`${PAGE}/aliases/house-fast/delete`, {});
    assert.equal(deleted.status, 303, deleted.text);
    assert.doesNotMatch((await operator.request('GET', PAGE)).text, /<td><code>house-fast<\/code><\/td><td>image/);
    const rows = (await audit()).filter((e) => e.target.includes('house-fast'));
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.ok(
      rows.every((e) => e.actor === 'console operator'),
      JSON.stringify(rows),
    );
    const page = await operator.request('GET', PAGE);
    assert.match(page.text, /<td>console operator<\/td>/);
  });

  test("a refused alias is shown again with the API's words, and nothing is written", async () => {
    const before = (await audit()).length;
    const refused = await submit(`${PAGE}/aliases`, { alias: 'ghost', kind: 'image', model: 'no-such-model' });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /role="alert"/);
    assert.match(refused.text, /value="no-such-model"/, 'the typed values stay');
    assert.equal((await audit()).length, before);
  });

  test("a model's price changed from the page and given back to the catalog", async () => {
    const view = `${PAGE}?kind=image&model=flux-1-schnell`;
    const shown = await operator.request('GET', view);
    assert.equal(shown.status, 200);
    const catalogPrice = /<dt>The catalog's price<\/dt><dd><code>([^<]*)<\/code>/.exec(shown.text)?.[1] ?? '';
    assert.ok(catalogPrice.length > 2, shown.text);
    const price = JSON.parse(catalogPrice.replaceAll('&quot;', '"')) as Record<string, number>;
    const field = Object.keys(price)[0] as string;
    const raised = { ...price, [field]: (price[field] ?? 0) + 7 };
    const changed = await submit(
      `${PAGE}/models`,
      { kind: 'image', model: 'flux-1-schnell', price: JSON.stringify(raised), available: '' },
      view,
    );
    assert.equal(changed.status, 303, changed.text);
    const now = await call<{ price: unknown; override: { price: unknown } }>(
      server,
      'GET',
      '/admin/v1/models/image/flux-1-schnell',
      { token: server.adminToken },
    );
    assert.deepEqual(now.body.price, raised);

    const back = await submit(
      `${PAGE}/models`,
      { kind: 'image', model: 'flux-1-schnell', price: 'catalog', available: '' },
      view,
    );
    assert.equal(back.status, 303, back.text);
    const restored = await call<{ price: unknown; override: { price: unknown } }>(
      server,
      'GET',
      '/admin/v1/models/image/flux-1-schnell',
      { token: server.adminToken },
    );
    assert.deepEqual(restored.body.price, price);
    assert.equal(restored.body.override.price, null);
  });

  test('a price that is not JSON, or a change of nothing, is refused and changes nothing', async () => {
    const before = (await audit()).length;
    const view = `${PAGE}?kind=image&model=flux-1-schnell`;
    const notJson = await submit(
      `${PAGE}/models`,
      { kind: 'image', model: 'flux-1-schnell', price: '{not json', available: '' },
      view,
    );
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /The price is not JSON/);
    const nothing = await submit(`${PAGE}/models`, { kind: 'image', model: 'flux-1-schnell', price: '' }, view);
    assert.equal(nothing.status, 400);
    assert.match(nothing.text, /Nothing to change/);
    const unknown = await submit(`${PAGE}/models`, { kind: 'image', model: 'no-such-model', available: 'false' }, view);
    assert.equal(unknown.status, 404);
    assert.equal((await audit()).length, before);
  });

  test("a team's session gets 403 on the page and its forms; a form without its CSRF token is refused", async () => {
    const before = (await audit()).length;
    const browser = new Browser(server);
    await browser.signIn(team.key);
    const csrf = await browser.csrf('/console');
    for (const route of liveRoutes) {
      const path = route.path.replace(':alias', 'sneaky');
      const answer =
        route.method === 'GET'
          ? await browser.request('GET', path)
          : await browser.request('POST', path, {
              _csrf: csrf,
              alias: 'sneaky',
              kind: 'image',
              model: 'flux-1-schnell',
              available: 'false',
            });
      assert.equal(answer.status, 403, `${route.method} ${path}`);
    }
    const forged = await operator.request('POST', `${PAGE}/aliases`, {
      alias: 'forged',
      kind: 'image',
      model: 'flux-1-schnell',
    });
    assert.equal(forged.status, 403);
    assert.equal((await audit()).length, before);
  });
});
