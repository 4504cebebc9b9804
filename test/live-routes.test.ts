// A model's vendor routes set live: the list set through the admin API of one process serves the
// items run by another on the same database within a second; tiers and weights pick among them, a
// disabled route is never used, a model may get a route it had none of, and a refused list names
// the entry at fault and changes nothing. A request keeps the routes it was accepted with; live
// video routes keep to a request's provider and serve a first frame on their image endpoint.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { pickRoute } from '../src/engine/vendor.ts';
import { startServiceProcess } from './chaos/service.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { type StatusRecord, waitForGeneration } from './media-helpers.ts';

const exec = promisify(execFile);
const MODEL = 'flux-1-schnell';
const FIRST = 'fal-ai/flux/schnell';
const SECOND = 'fal-ai/flux-1/schnell';

const routesPath = (model = MODEL, kind = 'image') => `/admin/v1/models/${kind}/${model}/routes`;

interface RouteView {
  provider: string;
  endpoint: string;
  mapping: string | null;
  image_endpoint?: string;
  image_mapping?: string;
  params?: Record<string, string | number | boolean>;
  tier: number;
  weight: number;
  enabled: boolean;
}
interface ModelRoutes {
  kind: string;
  model: string;
  source: 'catalog' | 'override';
  routes: RouteView[];
  catalog_routes: RouteView[];
}
interface AuditEntry {
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

describe('the tier and weight pick', () => {
  const route = (name: string, tier: number | undefined, weight?: number) => ({ name, route: { tier, weight } });

  test('the lowest tier only; within it, by weight within 5 %', () => {
    const routes = [route('late', 1, 100), route('a', 0, 3), route('b', 0, 1)];
    const picks = new Map<string, number>();
    const draws = 20_000;
    // A fixed sequence spread evenly over [0, 1) stands for the random draws.
    for (let i = 0; i < draws; i++) {
      const picked = pickRoute(routes, () => (i * 0.618_033_988_75) % 1);
      picks.set(picked?.name ?? '', (picks.get(picked?.name ?? '') ?? 0) + 1);
    }
    assert.equal(picks.get('late'), undefined, 'a higher tier is not used while the lowest has a route');
    const shareA = (picks.get('a') ?? 0) / draws;
    assert.ok(Math.abs(shareA - 0.75) <= 0.05 * 0.75, `a was picked ${shareA} of the time, 0.75 expected`);
    // Math.random too, over many picks.
    let a = 0;
    for (let i = 0; i < draws; i++) if (pickRoute(routes)?.name === 'a') a++;
    assert.ok(Math.abs(a / draws - 0.75) <= 0.05 * 0.75, `a was picked ${a / draws} of the time`);
  });

  test('without tiers, the place in the list: the first', () => {
    assert.equal(pickRoute([route('one', undefined), route('two', undefined)])?.name, 'one');
    assert.equal(pickRoute([]), undefined);
  });
});

describe('an item queued for a worker keeps the routes it was accepted with', () => {
  let fal: FakeFal;
  let api: TestServer;
  let worker: TestServer | undefined;

  before(async () => {
    fal = await startFakeFal();
    // The API process runs nothing: the item waits for a worker as a job.
    api = await startTestServer({ env: fal.env, worker: false });
  });
  after(async () => {
    await worker?.close();
    await api?.close();
    await fal?.close();
  });

  test('a worker that starts it after the list changed sends it on the list in force when it was accepted', async () => {
    const team = await createTeam(api, 1000);
    const admin = (method: string, body?: unknown) =>
      call(api, method, routesPath(), { token: api.adminToken, ...(body === undefined ? {} : { body }) });
    const DEV = 'fal-ai/flux/dev';
    const KREA = 'fal-ai/flux-krea-lora';
    const firstRoute = () => api.app.deps.live.routesOf('image', MODEL)?.[0]?.endpoint;
    /** Until the API process has heard the change (its live configuration is read again on NOTIFY). */
    const heard = async (endpoint: string) => {
      const started = Date.now();
      while (firstRoute() !== endpoint && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 20));
      assert.equal(firstRoute(), endpoint);
    };
    assert.equal((await admin('PUT', { routes: [{ provider: 'fal', endpoint: DEV, mapping: 'flux' }] })).status, 200);
    await heard(DEV);
    const created = await call<{ generation_id: string }>(api, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'queued before the change', model: MODEL },
    });
    assert.equal(created.status, 200, created.text);
    const changed = await admin('PUT', { routes: [{ provider: 'fal', endpoint: KREA, mapping: 'flux-lora' }] });
    assert.equal(changed.status, 200);
    await heard(KREA);
    // Started now, with room in the team's cap: the usual claim (one statement) takes the item.
    worker = await startTestServer({ env: fal.env, databaseUrl: api.databaseUrl, adminToken: api.adminToken });
    const done = await waitForGeneration(worker, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    assert.deepEqual(
      fal.submissions.filter((s) => s.input.prompt === 'queued before the change').map((s) => s.endpoint),
      [DEV],
    );
  });
});

describe('live routes across two processes', () => {
  let fal: FakeFal;
  let a: TestServer;
  let b: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    // A serves the admin API only; B runs the items.
    a = await startTestServer({ env: fal.env, worker: false });
    b = await startTestServer({ env: fal.env, databaseUrl: a.databaseUrl, adminToken: a.adminToken });
    team = await createTeam(a, 1000);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await fal?.close();
  });

  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(a, method, path, { token: a.adminToken, ...(body === undefined ? {} : { body }) });
  const generate = async (server: TestServer, prompt: string, model = MODEL): Promise<StatusRecord> => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, model },
    });
    assert.equal(created.status, 200, created.text);
    return waitForGeneration(server, team.key, created.body.generation_id, 30_000);
  };
  const sentFor = (prompt: string) => fal.submissions.filter((s) => s.input.prompt === prompt).map((s) => s.endpoint);

  /** Waits (bounded) until `check` holds, and answers how long that took. */
  async function within(ms: number, check: () => boolean): Promise<number> {
    const started = performance.now();
    while (!check()) {
      if (performance.now() - started > ms * 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(check(), `the change did not apply within ${ms * 3} ms`);
    return performance.now() - started;
  }

  test("GET shows the catalog's routes until a list is set", async () => {
    const got = await admin<ModelRoutes>('GET', routesPath());
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.source, 'catalog');
    assert.deepEqual(
      got.body.routes.map((r) => [r.provider, r.endpoint, r.tier, r.weight, r.enabled]),
      [
        ['fal', FIRST, 0, 1, true],
        ['fal', SECOND, 1, 1, true],
        ['replicate', 'black-forest-labs/flux-schnell', 2, 1, true],
      ],
    );
    assert.equal((await admin('GET', routesPath('no-such-model'))).status, 404);
  });

  test('a list set on A serves the items B runs within a second; a disabled route is never used; DELETE restores', async () => {
    const set = await admin<ModelRoutes>('PUT', routesPath(), {
      routes: [
        { provider: 'fal', endpoint: FIRST, mapping: 'flux', tier: 0, enabled: false },
        { provider: 'fal', endpoint: SECOND, mapping: 'flux', tier: 1 },
      ],
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.source, 'override');
    assert.deepEqual(
      set.body.routes.map((r) => [r.endpoint, r.tier, r.weight, r.enabled]),
      [
        [FIRST, 0, 1, false],
        [SECOND, 1, 1, true],
      ],
    );
    const took = await within(1000, () => b.app.deps.live.routesOf('image', MODEL) !== undefined);
    assert.ok(took < 1000, `B applied the routes in ${took} ms`);
    // The providers view shows the list in force, not the catalog's.
    await within(1000, () => a.app.deps.live.routesOf('image', MODEL) !== undefined);
    const providers = await admin<
      Array<{
        id: string;
        routes: Array<{ kind: string; model: string; endpoint: string; source: string; enabled: boolean }>;
      }>
    >('GET', '/admin/v1/providers');
    assert.equal(providers.status, 200, providers.text);
    const of = (id: string) =>
      providers.body
        .find((p) => p.id === id)
        ?.routes.filter((r) => r.kind === 'image' && r.model === MODEL)
        .map((r) => [r.endpoint, r.source, r.enabled]);
    assert.deepEqual(of('fal'), [
      [FIRST, 'override', false],
      [SECOND, 'override', true],
    ]);
    assert.deepEqual(of('replicate') ?? [], [], "the catalog's replicate route is not in the operator's list");

    for (const prompt of ['routes a', 'routes b', 'routes c']) {
      const done = await generate(b, prompt);
      assert.equal(done.status, 'completed');
      assert.deepEqual(sentFor(prompt), [SECOND], 'the disabled first route is never used');
    }

    const audit = await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=5');
    const entry = audit.body.data.find((e) => e.action === 'model.routes');
    assert.equal(entry?.target, `image:${MODEL}`);
    assert.equal(entry?.before, null);

    const restored = await admin<ModelRoutes>('DELETE', routesPath());
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.source, 'catalog');
    await within(1000, () => b.app.deps.live.routesOf('image', MODEL) === undefined);
    const back = await generate(b, 'routes d');
    assert.deepEqual(sentFor('routes d'), [FIRST], "the catalog's first route again");
    assert.equal(back.status, 'completed');
  });

  test('the routes of one tier share the items by weight; a failover goes to the other route of the tier', async () => {
    // A weight of zero is refused, so the all-but-certain pick is a very large weight.
    const set = await admin('PUT', routesPath(), {
      routes: [
        { provider: 'fal', endpoint: FIRST, mapping: 'flux', tier: 0, weight: 0.0001 },
        { provider: 'fal', endpoint: SECOND, mapping: 'flux', tier: 0, weight: 1_000_000 },
        { provider: 'replicate', endpoint: 'black-forest-labs/flux-schnell', mapping: 'flux-schnell', tier: 1 },
      ],
    });
    assert.equal(set.status, 200, set.text);
    await within(1000, () => b.app.deps.live.routesOf('image', MODEL)?.length === 3);
    const done = await generate(b, 'weighted a');
    assert.equal(done.status, 'completed');
    assert.deepEqual(sentFor('weighted a'), [SECOND]);

    // The heavy route down: the item fails over to the other route of its tier.
    fal.outage(SECOND, true);
    try {
      const moved = await generate(b, 'weighted b');
      assert.equal(moved.status, 'completed');
      assert.equal(sentFor('weighted b').at(-1), FIRST, 'the next untried route of the same tier');
    } finally {
      fal.outage(SECOND, false);
    }
    assert.equal((await admin('PUT', routesPath(), { routes: null })).status, 200, 'PUT null: the catalog again');
    await within(1000, () => b.app.deps.live.routesOf('image', MODEL) === undefined);
  });

  test('a worker-only process (ROLE=worker) holds the live routes and follows their changes', async () => {
    const set = await admin('PUT', routesPath('flux-1-dev'), {
      routes: [{ provider: 'fal', endpoint: 'fal-ai/flux-krea-lora', mapping: 'flux-lora' }],
    });
    assert.equal(set.status, 200, set.text);
    // A accepts (no worker of its own); the worker process runs the items.
    const accept = async (prompt: string) => {
      const created = await call<{ generation_id: string }>(a, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt, model: 'flux-1-dev' },
      });
      assert.equal(created.status, 200, created.text);
      return created.body.generation_id;
    };
    // B's worker stops taking jobs while the worker process is under test.
    await b.close();
    const worker = await startServiceProcess({
      role: 'worker',
      databaseUrl: a.databaseUrl,
      adminToken: a.adminToken,
      dataDir: a.dataDir,
      // fal's webhooks go to the API, as in a real deployment.
      env: { ...fal.env, PUBLIC_BASE_URL: a.url },
    });
    try {
      await worker.ready();
      const first = await waitForGeneration(a, team.key, await accept('worker a'), 15_000).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${worker.output().slice(-3000)}`);
      });
      assert.equal(first.status, 'completed');
      assert.deepEqual(sentFor('worker a'), ['fal-ai/flux-krea-lora'], 'the worker read the live list at start');

      assert.equal((await admin('DELETE', routesPath('flux-1-dev'))).status, 200);
      // The change reaches the worker by NOTIFY: items it runs soon after take the catalog's first route.
      let n = 0;
      const started = performance.now();
      for (;;) {
        const prompt = `worker b${n++}`;
        assert.equal((await waitForGeneration(a, team.key, await accept(prompt), 30_000)).status, 'completed');
        if (sentFor(prompt)[0] === 'fal-ai/flux-lora') break;
        assert.ok(performance.now() - started < 3000, 'the worker did not apply the change');
      }
    } finally {
      await worker.kill();
      b = await startTestServer({ env: fal.env, databaseUrl: a.databaseUrl, adminToken: a.adminToken });
    }
  });

  test('a request keeps the routes it was accepted with: a change or a DELETE while it waits applies to later ones', async () => {
    // Endpoints no other test sent to a failure (a route cooling down would make its items wait).
    const DEV = 'fal-ai/flux/dev';
    const KREA = 'fal-ai/flux-krea-lora';
    // flux-1-dev's first catalog route: its job is held at fal and fills the team's cap of one.
    const HELD = 'fal-ai/flux-lora';
    const accept = async (prompt: string, model = MODEL) => {
      const created = await call<{ generation_id: string }>(b, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt, model },
      });
      assert.equal(created.status, 200, created.text);
      return created.body.generation_id;
    };
    const firstOnB = () => b.app.deps.live.routesOf('image', MODEL)?.[0]?.endpoint;
    assert.equal((await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: 1 })).status, 200);
    fal.hold(true, 'IN_PROGRESS', HELD);
    try {
      const one = await admin('PUT', routesPath(), {
        routes: [{ provider: 'fal', endpoint: DEV, mapping: 'flux' }],
      });
      assert.equal(one.status, 200, one.text);
      await within(1000, () => firstOnB() === DEV);
      const blocker = await accept('snapshot blocker', 'flux-1-dev');
      await within(5000, () => fal.held() === 1);

      // Accepted while the team's one running item is at fal: it cannot start yet.
      const first = await accept('snapshot first');
      // The routes deleted: the catalog's again for what is accepted now.
      assert.equal((await admin('DELETE', routesPath())).status, 200);
      await within(1000, () => firstOnB() === undefined);
      const second = await accept('snapshot second');
      // Another list: for what is accepted from now on.
      const other = await admin('PUT', routesPath(), {
        routes: [{ provider: 'fal', endpoint: KREA, mapping: 'flux-lora' }],
      });
      assert.equal(other.status, 200, other.text);
      await within(1000, () => firstOnB() === KREA);
      const third = await accept('snapshot third');
      for (const prompt of ['snapshot first', 'snapshot second', 'snapshot third']) {
        assert.deepEqual(sentFor(prompt), [], `${prompt} waited for room`);
      }

      fal.hold(false);
      await fal.release();
      for (const id of [blocker, first, second, third]) {
        assert.equal((await waitForGeneration(b, team.key, id, 30_000)).status, 'completed');
      }
      assert.deepEqual(sentFor('snapshot first'), [DEV], 'the list in force when it was accepted, deleted since');
      assert.deepEqual(sentFor('snapshot second'), [FIRST], "the catalog's, though a list was set before it ran");
      assert.deepEqual(sentFor('snapshot third'), [KREA], 'the list set before it was accepted');
    } finally {
      fal.hold(false);
      await fal.release();
      await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: null });
      await admin('DELETE', routesPath());
      await within(1000, () => firstOnB() === undefined);
    }
  });

  test('a model gets a route it had none of', async () => {
    // flux-1-pro's only catalog route has no mapping: no vendor serves it here.
    const before = await admin<ModelRoutes>('GET', routesPath('flux-1-pro'));
    assert.deepEqual(
      before.body.routes.map((r) => r.mapping),
      [null],
    );
    const listed = async () => {
      const list = await call<{ data: Array<{ id: string; kind: string; available: boolean; simulator: boolean }> }>(
        b,
        'GET',
        '/api/v1/models?kind=image',
        { token: team.key },
      );
      const entry = list.body.data.find((m) => m.id === 'flux-1-pro');
      return [entry?.available, entry?.simulator];
    };
    assert.deepEqual(await listed(), [true, true], 'the simulator stands in for it');
    const set = await admin('PUT', routesPath('flux-1-pro'), {
      routes: [{ provider: 'fal', endpoint: 'fal-ai/flux-pro/v1.1', mapping: 'flux-pro' }],
    });
    assert.equal(set.status, 200, set.text);
    await within(1000, () => b.app.deps.live.routesOf('image', 'flux-1-pro') !== undefined);
    assert.deepEqual(await listed(), [true, false], 'the model list says a vendor makes it now');
    const done = await generate(b, 'added route', 'flux-1-pro');
    assert.equal(done.status, 'completed');
    assert.deepEqual(sentFor('added route'), ['fal-ai/flux-pro/v1.1']);
  });

  test("a route's fixed input fields (params) go to the vendor over its mapping's; the catalog's are shown, and kept by a list that names them", async () => {
    // The catalog's raw-mode route sends `raw: true` to a generic endpoint.
    const raw = await admin<ModelRoutes>('GET', routesPath('flux-1.1-pro-ultra-raw', 'face'));
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(
      raw.body.routes.map((r) => r.params),
      [{ raw: true }, { raw: true }],
    );
    assert.deepEqual(
      raw.body.catalog_routes.map((r) => r.params),
      [{ raw: true }, { raw: true }],
    );
    const plain = await admin<ModelRoutes>('GET', routesPath());
    assert.ok(
      plain.body.routes.every((r) => !('params' in r)),
      'a route without fixed fields shows none',
    );

    const params = { num_inference_steps: 2, enable_safety_checker: false, acceleration: 'high' };
    const set = await admin<ModelRoutes>('PUT', routesPath(), {
      routes: [{ provider: 'fal', endpoint: FIRST, mapping: 'flux', params }],
    });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.routes[0]?.params, params);
    await within(1000, () => b.app.deps.live.routesOf('image', MODEL)?.[0]?.params !== undefined);
    const done = await generate(b, 'fixed fields');
    assert.equal(done.status, 'completed');
    const sent = fal.submissions.find((x) => x.input.prompt === 'fixed fields');
    assert.equal(sent?.endpoint, FIRST);
    assert.equal(sent?.input.num_inference_steps, 2, "the route's value over the mapping's");
    assert.equal(sent?.input.enable_safety_checker, false);
    assert.equal(sent?.input.acceleration, 'high');
    assert.ok(typeof sent?.input.image_size === 'object', "the mapping's other fields are still sent");
    // The list as the API shows it is the list to give back: nothing is lost on the way.
    const shown = (await admin<ModelRoutes>('GET', routesPath())).body.routes;
    const again = await admin<ModelRoutes>('PUT', routesPath(), { routes: shown });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.routes, shown);
    assert.equal((await admin<ModelRoutes>('DELETE', routesPath())).status, 200);
    await within(1000, () => b.app.deps.live.routesOf('image', MODEL) === undefined);
  });

  test('a bad list is a 400 naming the entry, and nothing changes', async () => {
    const good = { provider: 'fal', endpoint: FIRST, mapping: 'flux' };
    const cases: Array<[unknown, string]> = [
      [{ routes: [good, { ...good, mapping: 'no-such-mapping' }] }, 'routes[1].mapping'],
      [{ routes: [{ ...good, provider: 'no-such-vendor' }] }, 'routes[0].provider'],
      [{ routes: [good, { ...good, tier: -1 }] }, 'routes[1].tier'],
      [{ routes: [good, { ...good, tier: 1.5 }] }, 'routes[1].tier'],
      [{ routes: [{ ...good, weight: 0 }] }, 'routes[0].weight'],
      [{ routes: [good, { ...good, colour: 'red' }] }, 'routes[1].colour'],
      // One vendor endpoint, one route (its circuit breaker and failover know it by that).
      [{ routes: [good, { ...good, params: { num_inference_steps: 2 } }] }, 'routes[1].endpoint'],
      [
        {
          routes: [
            { ...good, image_endpoint: 'fal-ai/flux/dev/image-to-image', image_mapping: 'flux' },
            {
              provider: 'fal',
              endpoint: SECOND,
              mapping: null,
              image_endpoint: 'fal-ai/flux/dev/image-to-image',
              image_mapping: 'flux',
            },
          ],
        },
        'routes[1].image_endpoint',
      ],
      [{ routes: [{ ...good, params: { steps: { deep: 1 } } }] }, 'routes[0].params.steps'],
      [{ routes: [{ ...good, params: ['raw'] }] }, 'routes[0].params'],
      [{ routes: [{ ...good, params: { 'bad name': 1 } }] }, 'routes[0].params'],
      [{ routes: [{ ...good, params: { long: 'x'.repeat(2001) } }] }, 'routes[0].params.long'],
      [
        { routes: [{ ...good, params: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`f${i}`, i])) }] },
        'routes[0].params',
      ],
    ];
    const auditBefore = (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data.length;
    for (const [body, field] of cases) {
      const reply = await admin<{ error: { code: string; details?: Array<{ field: string }> } }>(
        'PUT',
        routesPath('sdxl'),
        body,
      );
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.body.error.code, 'invalid_request');
      assert.ok(
        reply.body.error.details?.some((d) => d.field === field),
        `${field} named in ${reply.text}`,
      );
    }
    assert.equal((await admin<ModelRoutes>('GET', routesPath('sdxl'))).body.source, 'catalog');
    const auditAfter = (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data.length;
    assert.equal(auditAfter, auditBefore, 'no audit row for a refused change');
  });
});

describe('live video routes', () => {
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    replicate = await startFakeReplicate();
    server = await startTestServer({
      env: { ...fal.env, REPLICATE_API_TOKEN: replicate.token, REPLICATE_BASE_URL: replicate.url },
    });
    team = await createTeam(server, 1_000_000);
  });
  after(async () => {
    await server?.close();
    await fal?.close();
    await replicate?.close();
  });

  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, ...(body === undefined ? {} : { body }) });
  const setRoutes = async (model: string, routes: unknown[]) => {
    const set = await admin<ModelRoutes>('PUT', routesPath(model, 'video'), { routes });
    assert.equal(set.status, 200, set.text);
    // This process follows the change by its NOTIFY.
    const started = performance.now();
    const endpoints = (list: ReadonlyArray<{ endpoint: string }> | undefined) => list?.map((r) => r.endpoint).join();
    while (endpoints(server.app.deps.live.routesOf('video', model)) !== endpoints(set.body.routes)) {
      assert.ok(performance.now() - started < 3000, 'the change did not apply');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return set.body;
  };
  const video = async (body: Record<string, unknown>): Promise<StatusRecord> => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body,
    });
    assert.equal(created.status, 200, created.text);
    return waitForGeneration(server, team.key, created.body.generation_id, 30_000);
  };
  const falGot = (prompt: string) => fal.submissions.filter((s) => s.input.prompt === prompt);
  const replicateGot = (prompt: string) =>
    replicate.submissions.filter((s) => (s.body.input as { prompt?: unknown } | undefined)?.prompt === prompt);

  test("settings.provider keeps to that vendor's routes of the live list", async () => {
    await setRoutes('sora-2', [
      { provider: 'fal', endpoint: 'fal-ai/sora-2/text-to-video', mapping: 'veo', tier: 0 },
      { provider: 'replicate', endpoint: 'openai/sora-2', mapping: 'sora-2', tier: 1 },
    ]);
    await video({
      prompt: 'sora on replicate',
      model: 'sora-2',
      settings: { provider: 'replicate', remove_watermark: false },
    });
    assert.equal(replicateGot('sora on replicate').length, 1, 'the replicate route, of the second tier');
    assert.equal(falGot('sora on replicate').length, 0, "fal's first-tier route is not the provider asked for");

    const onFal = await video({ prompt: 'sora on fal', model: 'sora-2', settings: { provider: 'fal' } });
    assert.equal(onFal.status, 'completed', JSON.stringify(onFal.items));
    assert.deepEqual(
      falGot('sora on fal').map((s) => s.endpoint),
      ['fal-ai/sora-2/text-to-video'],
    );
    assert.equal(replicateGot('sora on fal').length, 0);
    assert.equal((await admin('DELETE', routesPath('sora-2', 'video'))).status, 200);
  });

  test("a live route's image endpoint serves a request with a first frame; it comes with its mapping", async () => {
    const MODEL_ID = 'kling-2.1-master';
    const T2V = 'fal-ai/kling-video/v2.5-turbo/pro/text-to-video';
    const I2V = 'fal-ai/kling-video/v2.5-turbo/pro/image-to-video';
    const shown = await setRoutes(MODEL_ID, [
      { provider: 'fal', endpoint: T2V, mapping: 'kling', image_endpoint: I2V, image_mapping: 'kling-i2v' },
    ]);
    assert.deepEqual(
      shown.routes.map((r) => [r.endpoint, r.image_endpoint, r.image_mapping]),
      [[T2V, I2V, 'kling-i2v']],
    );
    assert.equal(shown.catalog_routes[0]?.image_endpoint, 'fal-ai/kling-video/v2.1/master/image-to-video');

    // A first frame the simulator draws (flux-1-pro has no fal mapping), kept in our storage.
    const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a first frame', model: 'flux-1-pro' },
    });
    const imageUrl = (await waitForGeneration(server, team.key, image.body.generation_id)).items[0]?.url ?? '';
    const fromText = await video({ prompt: 'kling from words', model: MODEL_ID });
    assert.equal(fromText.status, 'completed');
    assert.deepEqual(
      falGot('kling from words').map((s) => s.endpoint),
      [T2V],
    );
    const fromImage = await video({ prompt: 'kling from a frame', model: MODEL_ID, first_frame_image: imageUrl });
    assert.equal(fromImage.status, 'completed');
    const sent = falGot('kling from a frame');
    assert.deepEqual(
      sent.map((s) => s.endpoint),
      [I2V],
    );
    assert.equal(sent[0]?.input.image_url, imageUrl);

    const good = { provider: 'fal', endpoint: T2V, mapping: 'kling' };
    const cases: Array<[unknown, string]> = [
      [{ ...good, image_endpoint: I2V }, 'routes[0].image_mapping'],
      [{ ...good, image_mapping: 'kling-i2v' }, 'routes[0].image_endpoint'],
      [{ ...good, image_endpoint: I2V, image_mapping: 'no-such-mapping' }, 'routes[0].image_mapping'],
    ];
    for (const [route, field] of cases) {
      const reply = await admin<{ error: { details?: Array<{ field: string }> } }>(
        'PUT',
        routesPath(MODEL_ID, 'video'),
        { routes: [route] },
      );
      assert.equal(reply.status, 400, reply.text);
      assert.ok(
        reply.body.error.details?.some((d) => d.field === field),
        `${field} named in ${reply.text}`,
      );
    }
    const kept = await admin<ModelRoutes>('GET', routesPath(MODEL_ID, 'video'));
    assert.equal(kept.body.routes[0]?.image_endpoint, I2V, 'a refused list changes nothing');
    assert.equal((await admin('DELETE', routesPath(MODEL_ID, 'video'))).status, 200);
  });

  test('a route for requests with images only (mapping null) is shown, given back unchanged, and serves only those', async () => {
    // The catalog has one: Tripo's fal route makes models from images only.
    const tripo = await admin<ModelRoutes>('GET', routesPath('tripo-2.5', 'model_3d'));
    assert.equal(tripo.status, 200, tripo.text);
    assert.deepEqual(
      tripo.body.routes.map((r) => [r.mapping, r.image_mapping]),
      [[null, 'tripo-image']],
    );
    const back = await admin<ModelRoutes>('PUT', routesPath('tripo-2.5', 'model_3d'), { routes: tripo.body.routes });
    assert.equal(back.status, 200, back.text);
    assert.deepEqual(back.body.routes, tripo.body.routes, 'what GET shows, PUT takes back as it was');
    assert.equal((await admin('DELETE', routesPath('tripo-2.5', 'model_3d'))).status, 200);

    const MODEL_ID = 'kling-2.1-master';
    const T2V = 'fal-ai/kling-video/v2.5-turbo/pro/text-to-video';
    const I2V = 'fal-ai/kling-video/v2.5-turbo/pro/image-to-video';
    const shown = await setRoutes(MODEL_ID, [
      { provider: 'fal', endpoint: I2V, mapping: null, image_endpoint: I2V, image_mapping: 'kling-i2v', tier: 0 },
      { provider: 'fal', endpoint: T2V, mapping: 'kling', tier: 1 },
    ]);
    assert.deepEqual(
      shown.routes.map((r) => [r.mapping, r.image_mapping ?? null]),
      [
        [null, 'kling-i2v'],
        ['kling', null],
      ],
    );
    const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'another first frame', model: 'flux-1-pro' },
    });
    const imageUrl = (await waitForGeneration(server, team.key, image.body.generation_id)).items[0]?.url ?? '';
    const fromImage = await video({ prompt: 'frames only', model: MODEL_ID, first_frame_image: imageUrl });
    assert.equal(fromImage.status, 'completed');
    assert.deepEqual(
      falGot('frames only').map((s) => s.endpoint),
      [I2V],
    );
    // Words alone pass the first tier's route by: it has nothing to send them with.
    const fromText = await video({ prompt: 'words only', model: MODEL_ID });
    assert.equal(fromText.status, 'completed');
    assert.deepEqual(
      falGot('words only').map((s) => s.endpoint),
      [T2V],
    );

    const refused = await admin<{ error: { details?: Array<{ field: string }> } }>(
      'PUT',
      routesPath(MODEL_ID, 'video'),
      { routes: [{ provider: 'fal', endpoint: T2V, mapping: null }] },
    );
    assert.equal(refused.status, 400, refused.text);
    assert.ok(
      refused.body.error.details?.some((d) => d.field === 'routes[0].mapping'),
      refused.text,
    );
    assert.equal((await admin('DELETE', routesPath(MODEL_ID, 'video'))).status, 200);
  });
});

describe('the configuration as a file', () => {
  let server: TestServer;
  let team: TeamFixture;
  let dir: string;

  before(async () => {
    server = await startTestServer({ worker: false });
    team = await createTeam(server, 100);
    dir = mkdtempSync(join(tmpdir(), 'live-config-file-'));
  });
  after(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, ...(body === undefined ? {} : { body }) });
  const cli = async (...args: string[]) => {
    const { stdout } = await exec(process.execPath, ['src/cli/admin.ts', ...args], {
      env: { ...process.env, GMS_URL: server.url, ADMIN_TOKEN: server.adminToken },
    });
    return JSON.parse(stdout) as unknown;
  };
  const auditCount = async () =>
    (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data.length;
  interface Applied {
    applied: boolean;
    changes: Array<{ target: string; before: unknown; after: unknown }>;
  }

  const documentOf = (teamId: string) => ({
    version: 1,
    models: {
      image: {
        'flux-1-dev': { price: { credits_per_image: 7 }, available: true },
        sdxl: {
          routes: [
            {
              provider: 'fal',
              endpoint: 'fal-ai/fast-sdxl',
              mapping: 'sd',
              image_endpoint: 'fal-ai/fast-sdxl/image-to-image',
              image_mapping: 'sd',
              params: { num_inference_steps: 30 },
              tier: 0,
              weight: 3,
            },
            { provider: 'replicate', endpoint: 'stability-ai/sdxl', mapping: 'sdxl', tier: 0, weight: 1 },
          ],
        },
      },
    },
    aliases: { 'house-style': { kind: 'image', model: 'flux-1-dev' } },
    teams: { [teamId]: { price_multiplier: 1.5, allowed_models: [], denied_models: ['image:flux-1-pro'] } },
  });

  test('export, apply with the CLI: a dry run changes nothing, the apply does, twice is a no-op, export gives it back', async () => {
    const empty = (await cli('config', 'export')) as { models: object; aliases: object };
    assert.deepEqual(empty.models, {});
    assert.deepEqual(empty.aliases, {});

    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(documentOf(team.id)));
    const audit = await auditCount();
    const dry = (await cli('config', 'apply', '--file', file, '--dry-run')) as Applied;
    assert.equal(dry.applied, false);
    assert.deepEqual(
      dry.changes.map((c) => c.target),
      ['model image:flux-1-dev', 'routes image:sdxl', 'alias house-style', `team ${team.id}`],
    );
    assert.equal(await auditCount(), audit, 'a dry run writes nothing');
    assert.equal((await admin<ModelRoutes>('GET', routesPath('sdxl'))).body.source, 'catalog');

    const applied = (await cli('config', 'apply', '--file', file)) as Applied;
    assert.equal(applied.applied, true);
    assert.equal(applied.changes.length, 4);
    assert.equal(await auditCount(), audit + 4, 'one audit row per change');
    const sdxl = await admin<ModelRoutes>('GET', routesPath('sdxl'));
    assert.equal(sdxl.body.source, 'override');
    assert.deepEqual(
      sdxl.body.routes.map((r) => [r.provider, r.weight, r.enabled, r.image_endpoint ?? null, r.params ?? null]),
      [
        ['fal', 3, true, 'fal-ai/fast-sdxl/image-to-image', { num_inference_steps: 30 }],
        ['replicate', 1, true, null, null],
      ],
    );

    const again = (await cli('config', 'apply', '--file', file)) as Applied;
    assert.deepEqual(again, { applied: false, changes: [] }, 'the same file twice changes nothing');
    assert.equal(await auditCount(), audit + 4);

    // What export writes applies as a no-op: the round trip.
    const exported = await cli('config', 'export');
    const exportedFile = join(dir, 'exported.json');
    writeFileSync(exportedFile, JSON.stringify(exported));
    assert.deepEqual(await cli('config', 'apply', '--file', exportedFile), { applied: false, changes: [] });
    const doc = exported as ReturnType<typeof documentOf>;
    assert.deepEqual(doc.aliases, { 'house-style': { kind: 'image', model: 'flux-1-dev' } });
    assert.deepEqual(doc.teams[team.id], documentOf(team.id).teams[team.id]);

    // A document without the routes gives sdxl the catalog's again.
    const fewer = documentOf(team.id);
    fewer.models.image = { 'flux-1-dev': fewer.models.image['flux-1-dev'] } as typeof fewer.models.image;
    const back = await admin<Applied>('POST', '/admin/v1/config/apply', { document: fewer });
    assert.equal(back.status, 200, back.text);
    assert.deepEqual(
      back.body.changes.map((c) => [c.target, c.after]),
      [['routes image:sdxl', null]],
    );
    assert.equal((await admin<ModelRoutes>('GET', routesPath('sdxl'))).body.source, 'catalog');
  });

  test('YAML: export writes the document as YAML, a YAML file with comments applies, a malformed one is refused naming the file', async () => {
    const setUp = await admin<Applied>('POST', '/admin/v1/config/apply', { document: documentOf(team.id) });
    assert.equal(setUp.status, 200, setUp.text);
    const live = (await admin('GET', '/admin/v1/config')).body;
    const run = (...args: string[]) =>
      exec(process.execPath, ['src/cli/admin.ts', ...args], {
        env: { ...process.env, GMS_URL: server.url, ADMIN_TOKEN: server.adminToken },
      });

    const { stdout: yamlText } = await run('config', 'export', '--format', 'yaml');
    assert.ok(!yamlText.trimStart().startsWith('{'), 'YAML, not JSON');
    assert.deepEqual(parseYaml(yamlText), live, 'the same document');
    const exported = join(dir, 'exported.yaml');
    writeFileSync(exported, yamlText);
    assert.deepEqual(await cli('config', 'apply', '--file', exported), { applied: false, changes: [] });

    // Kept in git, edited by hand: comments, and one price changed.
    assert.match(yamlText, /credits_per_image: 7\n/);
    const edited = join(dir, 'edited.yml');
    writeFileSync(
      edited,
      `# house prices\n${yamlText.replace('credits_per_image: 7\n', 'credits_per_image: 8 # was 7\n')}`,
    );
    const dry = (await cli('config', 'apply', '--file', edited, '--dry-run')) as Applied;
    assert.deepEqual(
      dry.changes.map((c) => [c.target, c.after]),
      [['model image:flux-1-dev', { price: { credits_per_image: 8 }, available: true }]],
    );
    // Standard input takes --format.
    const piped = run('config', 'apply', '--file', '-', '--format', 'yaml');
    piped.child.stdin?.end(readFileSync(edited));
    const applied = JSON.parse((await piped).stdout) as Applied;
    assert.deepEqual(
      applied.changes.map((c) => c.target),
      ['model image:flux-1-dev'],
    );
    const model = await admin<{ price: unknown }>('GET', '/admin/v1/models/image/flux-1-dev');
    assert.deepEqual(model.body.price, { credits_per_image: 8 });

    // A malformed file: exit 2, the file and the fault named, nothing applied.
    const audit = await auditCount();
    const duplicated = join(dir, 'duplicated.yaml');
    writeFileSync(duplicated, 'version: 1\nmodels: {}\nmodels: {}\n');
    const refusals: Array<[string[], RegExp]> = [
      [['--file', duplicated], /duplicated\.yaml is not YAML.*[Uu]nique/s],
      // `1` and `"1"` are one key once in JSON.
      [['--file', join(dir, 'numbered.yaml')], /numbered\.yaml is not YAML.*[Uu]nique/s],
      [['--file', join(dir, 'list.yaml'), '--format', 'yaml'], /must hold one YAML mapping/],
      [['--file', exported, '--format', 'toml'], /--format: unknown format .*toml.*json or yaml/],
      // Plain data only: no tags beyond the core schema's, no circular aliases, no alias bombs.
      [['--file', join(dir, 'tagged.yaml')], /tagged\.yaml is not YAML.*Unresolved tag/s],
      [['--file', join(dir, 'circular.yaml')], /circular\.yaml is not YAML.*circular document/s],
      [['--file', join(dir, 'bomb.yaml')], /bomb\.yaml is not YAML.*[Ee]xcessive alias count/s],
      // A number JSON cannot hold is refused, not read as null (a multiplier of null would be 1).
      [['--file', join(dir, 'infinite.yaml')], /infinite\.yaml is not YAML.*price_multiplier: Infinity/s],
    ];
    writeFileSync(
      join(dir, 'infinite.yaml'),
      `version: 1\nteams:\n  ${team.id}: { price_multiplier: .inf, allowed_models: [], denied_models: [] }\n`,
    );
    writeFileSync(join(dir, 'list.yaml'), '- version: 1\n');
    writeFileSync(join(dir, 'numbered.yaml'), 'version: 1\naliases: {}\nmodels:\n  1: {}\n  "1": {}\n');
    writeFileSync(join(dir, 'tagged.yaml'), 'version: 1\naliases: !!binary aGVsbG8=\n');
    writeFileSync(join(dir, 'circular.yaml'), 'version: 1\nmodels: &m { image: *m }\n');
    const level = (n: number) =>
      n === 0 ? '&l0 [x, x, x, x, x, x, x, x, x, x]' : `&l${n} [${`*l${n - 1}, `.repeat(9)}*l${n - 1}]`;
    writeFileSync(
      join(dir, 'bomb.yaml'),
      `version: 1\n${Array.from({ length: 7 }, (_, n) => `k${n}: ${level(n)}`).join('\n')}\n`,
    );
    for (const [args, message] of refusals) {
      await assert.rejects(run('config', 'apply', ...args), (err: { code?: number; stderr?: string }) => {
        assert.equal(err.code, 2, err.stderr);
        assert.match(err.stderr ?? '', message);
        return true;
      });
    }
    assert.equal(await auditCount(), audit, 'nothing was applied');
  });

  test('a bad document is refused whole with the path of the entry at fault', async () => {
    const exported = (await admin('GET', '/admin/v1/config')).body;
    const audit = await auditCount();
    const good = documentOf(team.id);
    const bad = (change: (doc: ReturnType<typeof documentOf>) => void) => {
      const doc = structuredClone(good);
      change(doc);
      return doc;
    };
    const cases: Array<[unknown, string]> = [
      [{ ...good, colour: 'red' }, 'document.colour'],
      [
        bad((d) => {
          (d.models.image.sdxl.routes[1] as { mapping: string }).mapping = 'nope';
        }),
        'document.models.image.sdxl.routes[1].mapping',
      ],
      [
        bad((d) => {
          (d.models.image.sdxl.routes[0] as { provider: string }).provider = 'nobody';
        }),
        'document.models.image.sdxl.routes[0].provider',
      ],
      [
        bad((d) => {
          (d.models.image['flux-1-dev'] as { price: unknown }).price = { credits_per_track: 3 };
        }),
        'document.models.image.flux-1-dev.price.credits_per_track',
      ],
      [
        bad((d) => {
          (d.models.image as Record<string, unknown>)['no-such-model'] = { available: false };
        }),
        'document.models.image.no-such-model',
      ],
      [
        bad((d) => {
          (d.models.image.sdxl as Record<string, unknown>).colour = 'red';
        }),
        'document.models.image.sdxl.colour',
      ],
      [
        bad((d) => {
          (d.models.image.sdxl.routes[0] as { params: unknown }).params = { steps: [30] };
        }),
        'document.models.image.sdxl.routes[0].params.steps',
      ],
      [
        bad((d) => {
          d.aliases['house-style'] = { kind: 'image', model: 'missing' };
        }),
        'document.aliases.house-style.model',
      ],
      [
        bad((d) => {
          d.teams = { team_missing: { price_multiplier: 1, allowed_models: [], denied_models: [] } };
        }),
        'document.teams.team_missing',
      ],
      // The limits PUT and PATCH keep hold here too: what apply writes, they take back.
      [
        bad((d) => {
          (d.models.image.sdxl.routes[1] as { endpoint: string }).endpoint = 'x'.repeat(301);
        }),
        'document.models.image.sdxl.routes[1].endpoint',
      ],
      [
        bad((d) => {
          d.models.image.sdxl.routes = Array.from(
            { length: 51 },
            () => d.models.image.sdxl.routes[1],
          ) as typeof d.models.image.sdxl.routes;
        }),
        'document.models.image.sdxl.routes',
      ],
      [
        bad((d) => {
          (d.teams[team.id] as { price_multiplier: number }).price_multiplier = 5000;
        }),
        `document.teams.${team.id}.price_multiplier`,
      ],
      [
        bad((d) => {
          (d.teams[team.id] as { denied_models: string[] }).denied_models = ['voice:My Voice'];
        }),
        `document.teams.${team.id}.denied_models.0`,
      ],
    ];
    for (const [document, field] of cases) {
      const reply = await admin<{ error: { code: string; details?: Array<{ field: string }> } }>(
        'POST',
        '/admin/v1/config/apply',
        { document },
      );
      assert.equal(reply.status, 400, reply.text);
      assert.ok(
        reply.body.error.details?.some((d) => d.field === field),
        `${field} named in ${reply.text}`,
      );
    }
    assert.equal(await auditCount(), audit, 'nothing was applied');
    assert.deepEqual((await admin('GET', '/admin/v1/config')).body, exported);
  });

  test('a team named with some of its rules keeps the others, as PATCH does', async () => {
    const set = await admin<Applied>('POST', '/admin/v1/config/apply', { document: documentOf(team.id) });
    assert.equal(set.status, 200, set.text);
    const exported = (await admin<{ teams: Record<string, unknown> }>('GET', '/admin/v1/config')).body;
    assert.deepEqual(exported.teams[team.id], documentOf(team.id).teams[team.id]);
    const partial = { ...exported, teams: { [team.id]: { denied_models: [] } } };
    const applied = await admin<Applied>('POST', '/admin/v1/config/apply', { document: partial });
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual(
      applied.body.changes.map((c) => [c.target, c.after]),
      [[`team ${team.id}`, { price_multiplier: 1.5, allowed_models: [], denied_models: [] }]],
      'only the list it named changed',
    );
  });

  test('CONFIG_FILE applies a file when the service starts; a bad one stops the start', async () => {
    /** Another API process on this database, started with `file` as its CONFIG_FILE. */
    const startWith = (file: string) =>
      startTestServer({
        databaseUrl: server.databaseUrl,
        adminToken: server.adminToken,
        worker: false,
        env: { CONFIG_FILE: file },
      });
    /** The price sdxl-lightning has on a process started with `file`. */
    const priceOnStart = async (file: string) => {
      const other = await startWith(file);
      try {
        const model = await call<{ price: unknown }>(other, 'GET', '/admin/v1/models/image/sdxl-lightning', {
          token: other.adminToken,
        });
        return model.body.price;
      } finally {
        await other.close();
      }
    };
    const file = join(dir, 'start.json');
    writeFileSync(
      file,
      JSON.stringify({ models: { image: { 'sdxl-lightning': { price: { credits_per_image: 9 } } } } }),
    );
    assert.deepEqual(await priceOnStart(file), { credits_per_image: 9 });
    // The same as YAML, by its name.
    const yamlFile = join(dir, 'start.yaml');
    writeFileSync(
      yamlFile,
      '# at start\nmodels:\n  image:\n    sdxl-lightning:\n      price: { credits_per_image: 11 }\n',
    );
    assert.deepEqual(await priceOnStart(yamlFile), { credits_per_image: 11 });
    writeFileSync(yamlFile, 'models:\n  image: {}\n  image: {}\n');
    await assert.rejects(startWith(yamlFile), /CONFIG_FILE .*start\.yaml: cannot be read as YAML/);
    writeFileSync(file, JSON.stringify({ models: { image: { 'sdxl-lightning': { prices: {} } } } }));
    await assert.rejects(startWith(file), /document\.models\.image\.sdxl-lightning\.prices/);
  });
});
