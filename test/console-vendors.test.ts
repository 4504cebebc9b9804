// The console's pages of the vendor credentials and of a model's routes, over HTTP, signed in with
// the admin token: a credential added, edited, disabled and enabled, deleted; a model's routes
// replaced and given back to the catalog. Each change is seen through the admin API and is an
// audit row of the console operator; the environment's key cannot be changed from the console,
// but for enabling it again after the service disabled it; refused forms are shown again with the
// API's words and write nothing; a team's session and a form without its CSRF token change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { credentialRoutes } from '../src/modules/console/pages/credentials.ts';
import { modelRoutesRoutes } from '../src/modules/console/pages/model-routes.ts';
import type { CredentialAnswer } from '../src/modules/credentials/service.ts';
import { Browser } from './console-helpers.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, credentialBecomes, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';
const CREDENTIALS = '/console/operator/credentials';
const ROUTES = '/console/operator/routes';
const ENV_SECRET = 'env-fal-secret-k9w2';
const ENV_ID = 'env:fal';
const MODEL = 'flux-1-schnell';

type Credential = CredentialAnswer;
interface AuditEntry {
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}
interface ModelRoutes {
  source: 'catalog' | 'override';
  routes: Array<{
    provider: string;
    endpoint: string;
    mapping: string | null;
    params?: Record<string, string | number | boolean>;
    tier: number;
    weight: number;
    enabled: boolean;
  }>;
}

describe('the vendor credentials and model routes pages', () => {
  let server: TestServer;
  let team: TeamFixture;
  let operator: Browser;

  const admin = <T>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, body });
  const audit = async () => (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data;
  const credentials = async () => (await admin<{ data: Credential[] }>('GET', '/admin/v1/credentials')).body.data;
  const submit = async (action: string, fields: Record<string, string>, from: string) => {
    const form = await operator.request('GET', from);
    assert.equal(form.status, 200, form.text);
    return operator.request('POST', action, { _csrf: csrfOf(form.text), ...fields });
  };
  const itemPath = (id: string) => `${CREDENTIALS}/${encodeURIComponent(id)}`;

  before(async () => {
    server = await startTestServer({ env: { FAL_KEY: ENV_SECRET } });
    team = await createTeam(server, 100, 'vendor pages team');
    operator = new Browser(server);
    assert.equal((await operator.signIn(server.adminToken)).status, 303);
  });
  after(async () => {
    await server?.close();
  });

  test("the credentials page lists the environment's key read-only, and both pages are in the operator menu", async () => {
    const shown = await operator.request('GET', CREDENTIALS);
    assert.equal(shown.status, 200, shown.text);
    assert.match(shown.text, /href="\/console\/operator\/credentials"/);
    assert.match(shown.text, /href="\/console\/operator\/routes"/);
    assert.match(
      shown.text,
      /<tr id="cred-env-fal">[\s\S]*?<code>…k9w2<\/code>[\s\S]*?Set by the environment: read-only/,
    );
    assert.ok(!shown.text.includes(ENV_SECRET), 'the secret is never on the page');
    assert.ok(!shown.text.includes(`action="${itemPath(ENV_ID)}`), 'no control changes the environment key');
    assert.doesNotMatch(shown.text, / style="| on[a-z]+="|<script>/, 'nothing inline for the CSP to block');
  });

  test('a credential added, edited, disabled, enabled and deleted from the page, each audited as the console operator', async () => {
    const secret = 'sk-console-added-7h3q';
    const added = await submit(
      CREDENTIALS,
      { provider: 'fal', name: 'backup account', secret, base_url: '', weight: '3', rpm: '60', max_in_flight: '' },
      CREDENTIALS,
    );
    assert.equal(added.status, 303, added.text);
    const made = (await credentials()).find((c) => c.name === 'backup account');
    assert.ok(made, 'the admin API lists it');
    assert.deepEqual(
      [
        made.provider,
        made.secret_last4,
        made.base_url,
        made.weight,
        made.rpm,
        made.max_in_flight,
        made.state,
        made.source,
      ],
      ['fal', '7h3q', null, 3, 60, null, 'active', 'api'],
    );
    assert.equal(added.location, `${CREDENTIALS}?added=${encodeURIComponent(made.id)}#added`);
    const after = await operator.request('GET', added.location ?? '');
    assert.match(after.text, /Added <strong>backup account<\/strong> for fal: its secret ends in <code>7h3q<\/code>/);
    assert.ok(!after.text.includes(secret), 'the secret is not shown again');

    const edited = await submit(
      itemPath(made.id),
      {
        name: 'backup account 2',
        base_url: 'https://queue.example.test',
        weight: '5',
        rpm: '',
        max_in_flight: '4',
        secret: 'sk-console-rotated-m8p1',
      },
      CREDENTIALS,
    );
    assert.equal(edited.status, 303, edited.text);
    const changed = (await credentials()).find((c) => c.id === made.id);
    assert.deepEqual(
      [changed?.name, changed?.base_url, changed?.weight, changed?.rpm, changed?.max_in_flight, changed?.secret_last4],
      ['backup account 2', 'https://queue.example.test', 5, null, 4, 'm8p1'],
    );

    assert.equal((await submit(`${itemPath(made.id)}/disable`, {}, CREDENTIALS)).status, 303);
    assert.equal((await credentials()).find((c) => c.id === made.id)?.state, 'disabled');
    const listed = await operator.request('GET', CREDENTIALS);
    assert.match(listed.text, /disabled by the operator/);
    assert.equal((await submit(`${itemPath(made.id)}/enable`, {}, CREDENTIALS)).status, 303);
    assert.equal((await credentials()).find((c) => c.id === made.id)?.state, 'active');

    assert.equal((await submit(`${itemPath(made.id)}/delete`, {}, CREDENTIALS)).status, 303);
    assert.equal(
      (await credentials()).find((c) => c.id === made.id),
      undefined,
    );

    const rows = (await audit()).filter((e) => e.target === `credential:${made.id}`);
    assert.deepEqual(rows.map((e) => e.action).reverse(), [
      'credential.create',
      'credential.update',
      'credential.update',
      'credential.update',
      'credential.delete',
    ]);
    assert.ok(
      rows.every((e) => e.actor === 'console operator'),
      JSON.stringify(rows),
    );
    const written = JSON.stringify(rows);
    assert.ok(!written.includes(secret) && !written.includes('sk-console-rotated-m8p1'), 'no secret in the audit');
  });

  test("the environment's key cannot be changed from the console: refused, nothing written", async () => {
    const before = (await audit()).length;
    for (const [action, fields] of [
      [itemPath(ENV_ID), { name: 'renamed', weight: '9' }],
      [`${itemPath(ENV_ID)}/disable`, {}],
      [`${itemPath(ENV_ID)}/delete`, {}],
    ] as const) {
      const refused = await submit(action, fields, CREDENTIALS);
      assert.equal(refused.status, 409, action);
      assert.match(refused.text, /set by the environment and is read-only in the console/);
    }
    const env = (await credentials()).find((c) => c.id === ENV_ID);
    assert.deepEqual([env?.source, env?.state, env?.weight], ['env', 'active', 1]);
    assert.equal((await audit()).length, before);
  });

  test("refused credential forms are shown again with the API's words, and write nothing", async () => {
    const before = (await audit()).length;
    const count = (await credentials()).length;
    const short = await submit(
      CREDENTIALS,
      { provider: 'fal', name: 'too short', secret: 'abc', base_url: '', weight: '' },
      CREDENTIALS,
    );
    assert.equal(short.status, 400);
    assert.match(short.text, /role="alert"/);
    assert.match(short.text, /<code>[^<]*secret<\/code>/, 'the field is named');
    assert.match(short.text, /value="too short"/, 'the typed name stays');
    const badUrl = await submit(
      CREDENTIALS,
      { provider: 'fal', name: 'bad url', secret: 'sk-long-enough-1234', base_url: 'ftp://nowhere', weight: '' },
      CREDENTIALS,
    );
    assert.equal(badUrl.status, 400);
    assert.match(badUrl.text, /must be an absolute http\(s\) URL/);
    assert.ok(!badUrl.text.includes('sk-long-enough-1234'), 'a refused secret is not shown back');
    const badWeight = await submit(
      CREDENTIALS,
      { provider: 'fal', name: 'bad weight', secret: 'sk-long-enough-1234', weight: 'lots' },
      CREDENTIALS,
    );
    assert.equal(badWeight.status, 400);

    assert.equal(
      (await submit(CREDENTIALS, { provider: 'fal', name: 'kept', secret: 'sk-kept-secret-5555' }, CREDENTIALS)).status,
      303,
    );
    const kept = (await credentials()).find((c) => c.name === 'kept');
    assert.ok(kept);
    const afterAdd = (await audit()).length;
    const blank = await submit(itemPath(kept.id), { name: '  ', weight: '1' }, CREDENTIALS);
    assert.equal(blank.status, 400);
    assert.match(blank.text, /<details open>/, "the refused credential's form is open again");
    const unknown = await submit(`${itemPath('cred_nope')}/disable`, {}, CREDENTIALS);
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /There is no credential cred_nope/);
    assert.equal((await credentials()).find((c) => c.id === kept.id)?.name, 'kept');
    assert.equal((await audit()).length, afterAdd);
    assert.equal(afterAdd, before + 1, 'only the accepted add was written');
    assert.equal((await credentials()).length, count + 1);
  });

  test("a model's routes replaced from the page and given back to the catalog, audited as the console operator", async () => {
    const view = `${ROUTES}?kind=image&model=${MODEL}`;
    const shown = await operator.request('GET', view);
    assert.equal(shown.status, 200, shown.text);
    assert.match(shown.text, /In force: the catalog&#39;s routes/);
    assert.match(shown.text, /<table id="routes-in-force">[\s\S]*?fal-ai\/flux\/schnell/);
    const list = [
      { provider: 'fal', endpoint: 'fal-ai/flux-1/schnell', mapping: 'flux', tier: 0, weight: 2 },
      { provider: 'fal', endpoint: 'fal-ai/flux/schnell', mapping: 'flux', tier: 1, enabled: false },
    ];
    const replaced = await submit(ROUTES, { kind: 'image', model: MODEL, routes: JSON.stringify(list) }, view);
    assert.equal(replaced.status, 303, replaced.text);
    const now = await admin<ModelRoutes>('GET', `/admin/v1/models/image/${MODEL}/routes`);
    assert.equal(now.body.source, 'override');
    assert.deepEqual(
      now.body.routes.map((r) => [r.endpoint, r.tier, r.weight, r.enabled]),
      [
        ['fal-ai/flux-1/schnell', 0, 2, true],
        ['fal-ai/flux/schnell', 1, 1, false],
      ],
    );
    const page = await operator.request('GET', view);
    assert.match(page.text, /In force: the operator&#39;s routes/);
    assert.match(page.text, /Back to the catalog's routes/);

    const restored = await submit(`${ROUTES}/catalog`, { kind: 'image', model: MODEL }, view);
    assert.equal(restored.status, 303, restored.text);
    assert.equal((await admin<ModelRoutes>('GET', `/admin/v1/models/image/${MODEL}/routes`)).body.source, 'catalog');

    const rows = (await audit()).filter((e) => e.action === 'model.routes' && e.target === `image:${MODEL}`);
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.ok(rows.every((e) => e.actor === 'console operator'));
    assert.equal(rows[0]?.after, null, 'the newest: back to the catalog');
  });

  test('the list offered for editing keeps every field of the routes: given back unchanged, it changes nothing they do', async () => {
    // The raw-mode face model's catalog routes send a fixed field (`raw: true`); Tripo's fal route
    // serves only requests that bring an image (no mapping of its own).
    const cases: Array<[string, string, (offered: Array<Record<string, unknown>>, page: string) => void]> = [
      [
        'face',
        'flux-1.1-pro-ultra-raw',
        (offered) =>
          assert.deepEqual(
            offered.map((r) => r.params),
            [{ raw: true }, { raw: true }],
          ),
      ],
      [
        'model_3d',
        'tripo-2.5',
        (offered, page) => {
          assert.deepEqual(
            offered.map((r) => [r.mapping, r.image_mapping]),
            [[null, 'tripo-image']],
          );
          assert.match(page, /none: requests with images only/);
        },
      ],
    ];
    for (const [kind, model, check] of cases) {
      const path = `/admin/v1/models/${kind}/${model}/routes`;
      const view = `${ROUTES}?kind=${kind}&model=${model}`;
      const shown = await operator.request('GET', view);
      assert.equal(shown.status, 200, shown.text);
      const typed = /<textarea id="routes-json"[^>]*>([\s\S]*?)<\/textarea>/.exec(shown.text)?.[1] ?? '';
      const text = typed
        .replaceAll('&quot;', '"')
        .replaceAll('&#39;', "'")
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&amp;', '&');
      check(JSON.parse(text) as Array<Record<string, unknown>>, shown.text);
      const catalog = (await admin<ModelRoutes>('GET', path)).body.routes;
      const replaced = await submit(ROUTES, { kind, model, routes: text }, view);
      assert.equal(replaced.status, 303, replaced.text);
      const now = await admin<ModelRoutes>('GET', path);
      assert.equal(now.body.source, 'override');
      assert.deepEqual(now.body.routes, catalog, `${model}: the same routes, every field included`);
      const restored = await submit(`${ROUTES}/catalog`, { kind, model }, view);
      assert.equal(restored.status, 303, restored.text);
    }
  });

  test("refused route lists are shown again as typed with the API's words, and write nothing", async () => {
    const before = (await audit()).length;
    const view = `${ROUTES}?kind=image&model=${MODEL}`;
    const notJson = await submit(ROUTES, { kind: 'image', model: MODEL, routes: '[{"provider": ' }, view);
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /The routes are not JSON/);
    assert.match(notJson.text, /\[\{&quot;provider&quot;: <\/textarea>/, 'the typed list stays');
    const badVendor = await submit(
      ROUTES,
      { kind: 'image', model: MODEL, routes: '[{"provider": "nobody", "endpoint": "x", "mapping": "flux"}]' },
      view,
    );
    assert.equal(badVendor.status, 400);
    assert.match(badVendor.text, /<code>routes\[0\]\.provider<\/code>: is not a known vendor/);
    const badMapping = await submit(
      ROUTES,
      { kind: 'image', model: MODEL, routes: '[{"provider": "fal", "endpoint": "x", "mapping": "nope"}]' },
      view,
    );
    assert.equal(badMapping.status, 400);
    assert.match(badMapping.text, /routes\[0\]\.mapping/);
    const notList = await submit(ROUTES, { kind: 'image', model: MODEL, routes: '{"provider": "fal"}' }, view);
    assert.equal(notList.status, 400);
    assert.match(notList.text, /role="alert"/);
    const unknown = await submit(ROUTES, { kind: 'image', model: 'no-such-model', routes: '[]' }, view);
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /role="alert"/);
    assert.equal((await admin<ModelRoutes>('GET', `/admin/v1/models/image/${MODEL}/routes`)).body.source, 'catalog');
    assert.equal((await audit()).length, before);
  });

  test("a team's session gets 403 on every page and form; a form without its CSRF token is refused", async () => {
    const before = (await audit()).length;
    const count = (await credentials()).length;
    const browser = new Browser(server);
    await browser.signIn(team.key);
    const csrf = await browser.csrf('/console');
    for (const route of [...credentialRoutes, ...modelRoutesRoutes]) {
      const path = route.path.replace(':id', encodeURIComponent(ENV_ID));
      const answer =
        route.method === 'GET'
          ? await browser.request('GET', path)
          : await browser.request('POST', path, {
              _csrf: csrf,
              provider: 'fal',
              name: 'sneaky',
              secret: 'sk-sneaky-secret-0000',
              kind: 'image',
              model: MODEL,
              routes: '[]',
            });
      assert.equal(answer.status, 403, `${route.method} ${path}`);
    }
    const forged = await operator.request('POST', CREDENTIALS, {
      provider: 'fal',
      name: 'forged',
      secret: 'sk-forged-secret-0000',
    });
    assert.equal(forged.status, 403);
    const forgedRoutes = await operator.request('POST', ROUTES, { kind: 'image', model: MODEL, routes: '[]' });
    assert.equal(forgedRoutes.status, 403);
    assert.equal((await audit()).length, before);
    assert.equal((await credentials()).length, count);
  });
});

describe("the environment's key the service disabled, on the credentials page", () => {
  let fal: FakeFal;
  let server: TestServer;

  before(async () => {
    fal = await startFakeFal();
    // fal refuses this key: the first submit takes it out of service.
    server = await startTestServer({ env: { ...fal.env, FAL_KEY: 'refused-env-key-3k2j' } });
  });
  after(async () => {
    await server?.close();
    await fal?.close();
  });

  test('is offered only "Enable again", which makes it active, audited as the console operator', async () => {
    const team = await createTeam(server, 100, 'refused key team');
    const made = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a refused key', model: MODEL },
    });
    assert.equal(made.status, 200, made.text);
    await credentialBecomes(server, ENV_ID, 'disabled');
    // The item goes on elsewhere; until it has ended, a retry could take the key again once it is
    // enabled (and be refused again, disabling it).
    await waitForGeneration(server, team.key, made.body.generation_id, 30_000);

    const operator = new Browser(server);
    assert.equal((await operator.signIn(server.adminToken)).status, 303);
    const shown = await operator.request('GET', CREDENTIALS);
    const actions = [...shown.text.matchAll(/action="(\/console\/operator\/credentials\/env[^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(actions, [`${CREDENTIALS}/${encodeURIComponent(ENV_ID)}/enable`]);
    const enabled = await operator.request('POST', actions[0] ?? '', { _csrf: csrfOf(shown.text) });
    assert.equal(enabled.status, 303, enabled.text);
    await credentialBecomes(server, ENV_ID, 'active');
    const audit = await call<{ data: AuditEntry[] }>(server, 'GET', '/admin/v1/audit?limit=100', {
      token: server.adminToken,
    });
    const enable = audit.body.data.find((e) => e.action === 'credential.enable' && e.target === `credential:${ENV_ID}`);
    assert.equal(enable?.actor, 'console operator', JSON.stringify(audit.body.data));
  });
});
