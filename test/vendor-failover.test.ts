// The failure policy across routes, through the whole service and a fake fal queue: failover to
// a model's next route, the per-route circuit breaker shared through the database, the
// operator's view of both (admin API and CLI), and what a failed item tells the user.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

const exec = promisify(execFile);
const FIRST = 'fal-ai/flux/schnell';
const SECOND = 'fal-ai/flux-1/schnell';
// Long enough for the two items after the breaker opens and the summary's look on a busy machine;
// the test waits it out once.
const COOLDOWN_S = 8;

interface ProviderSummary {
  id: string;
  configured: boolean;
  success_rate: number | null;
  routes: Array<{ kind: string; model: string; endpoint: string; position: number; cooling_until: string | null }>;
}

interface Attempt {
  item_id: string;
  provider: string;
  endpoint: string;
  vendor_request_id: string | null;
  started_at: string;
  finished_at: string | null;
  answered_at: string | null;
  outcome: string | null;
  error: string | null;
  error_kind: string | null;
  cost: number | null;
}

describe('failover between routes and the circuit breaker', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      env: {
        ...fal.env,
        ITEM_MAX_ATTEMPTS: '2',
        ROUTE_COOLDOWN_AFTER: '3',
        ROUTE_COOLDOWN_S: String(COOLDOWN_S),
      },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  const generate = async (prompt: string): Promise<StatusRecord> => {
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, model: 'flux-1-schnell' },
    });
    assert.equal(created.status, 200, created.text);
    return waitForGeneration(server, team.key, created.body.generation_id, 30_000);
  };
  const sentFor = (prompt: string) => fal.submissions.filter((s) => s.input.prompt === prompt).map((s) => s.endpoint);
  const admin = <T>(path: string) => call<T>(server, 'GET', path, { token: server.adminToken });
  const cli = async (...args: string[]) => {
    const { stdout } = await exec(process.execPath, ['src/cli/admin.ts', ...args], {
      env: { ...process.env, GMS_URL: server.url, ADMIN_TOKEN: server.adminToken },
    });
    return JSON.parse(stdout) as unknown;
  };

  test('an outage on the first route: retried, then served by the second; the route cools after 3 failures in a row', async () => {
    const balance = await balanceOf(server, team.key);
    fal.outage(FIRST, true);

    const a = await generate('failover a');
    assert.equal(a.status, 'completed');
    assert.deepEqual(sentFor('failover a'), [FIRST, FIRST, SECOND], 'ITEM_MAX_ATTEMPTS on the first, then the next');

    // The third failure in a row opens the breaker: this item moves on at once.
    const b = await generate('failover b');
    assert.equal(b.status, 'completed');
    assert.deepEqual(sentFor('failover b'), [FIRST, SECOND]);

    // While it cools, items go straight to the second route: the first is not even tried.
    const c = await generate('failover c');
    assert.equal(c.status, 'completed');
    assert.deepEqual(sentFor('failover c'), [SECOND]);

    // Each generation was charged once and nothing was refunded: the work was done.
    assert.equal(await balanceOf(server, team.key), balance - a.credits_used - b.credits_used - c.credits_used);
    const refunds = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from credit_ledger where kind = 'refund' and generation_id = any($1::text[])`,
      [[a.generation_id, b.generation_id, c.generation_id]],
    );
    assert.equal(refunds.rows[0]?.n, 0);

    const providers = await admin<ProviderSummary[]>('/admin/v1/providers');
    assert.equal(providers.status, 200, providers.text);
    const falSummary = providers.body.find((p) => p.id === 'fal');
    assert.ok(falSummary);
    assert.equal(falSummary.configured, true);
    assert.equal(falSummary.success_rate, 3 / 6, 'three completed of six finished attempts');
    const routes = falSummary.routes.filter((r) => r.kind === 'image' && r.model === 'flux-1-schnell');
    assert.deepEqual(
      routes.map((r) => [r.endpoint, r.position]),
      [
        [FIRST, 0],
        [SECOND, 1],
      ],
    );
    const until = Date.parse(routes[0]?.cooling_until ?? '');
    assert.ok(
      until > Date.now() && until <= Date.now() + COOLDOWN_S * 1000,
      `cooling until ${routes[0]?.cooling_until}`,
    );
    assert.equal(routes[1]?.cooling_until, null);
    const simulator = providers.body.find((p) => p.id === 'simulator');
    assert.equal(simulator?.configured, true);
    assert.ok(
      simulator?.routes.some((r) => r.kind === 'image' && r.model === 'flux-1-pro'),
      'no fal mapping yet',
    );
    assert.ok(!simulator?.routes.some((r) => r.model === 'flux-1-schnell' && r.kind === 'image'));
    assert.ok(
      providers.body.some((p) => p.id === 'openai' && !p.configured),
      'catalog providers without a key',
    );
    assert.ok(
      falSummary.routes.some((r) => r.kind === 'video' && r.endpoint.startsWith('fal-ai/kling-video/')),
      "the media catalogs' routes are listed too",
    );
    assert.ok(
      providers.body.find((p) => p.id === 'suno')?.routes.some((r) => r.kind === 'music'),
      'music models name their vendor',
    );

    const attempts = await admin<Attempt[]>(`/admin/v1/generations/${a.generation_id}/attempts`);
    assert.equal(attempts.status, 200, attempts.text);
    assert.deepEqual(
      attempts.body.map((x) => [x.endpoint, x.outcome, x.error_kind]),
      [
        [FIRST, 'submit_failed', 'unavailable'],
        [FIRST, 'submit_failed', 'unavailable'],
        [SECOND, 'completed', null],
      ],
    );
    for (const attempt of attempts.body) {
      assert.equal(attempt.item_id, a.items[0]?.id);
      assert.equal(attempt.provider, 'fal');
      assert.ok(attempt.finished_at && Date.parse(attempt.finished_at) >= Date.parse(attempt.started_at));
    }
    // Only the attempt that completed was answered with a result.
    assert.deepEqual(
      attempts.body.map((x) => x.answered_at !== null),
      [false, false, true],
    );
    const answered = attempts.body[2];
    assert.ok(
      answered?.answered_at &&
        answered.finished_at &&
        Date.parse(answered.started_at) <= Date.parse(answered.answered_at) &&
        Date.parse(answered.answered_at) <= Date.parse(answered.finished_at),
      JSON.stringify(answered),
    );
    assert.match(attempts.body[0]?.error ?? '', /No runner available/);
    assert.ok(attempts.body[2]?.vendor_request_id, 'the accepted job has its vendor request id');

    // The same through the admin CLI.
    const listed = (await cli('providers', 'list')) as ProviderSummary[];
    assert.equal(listed.find((p) => p.id === 'fal')?.success_rate, 0.5);
    const cliAttempts = (await cli('generations', 'attempts', a.generation_id)) as Attempt[];
    assert.equal(cliAttempts.length, 3);

    // Once the route has cooled and the outage is over, the first route serves again.
    fal.outage(FIRST, false);
    await sleep(Math.max(0, until - Date.now()) + 100);
    const d = await generate('failover d');
    assert.equal(d.status, 'completed');
    assert.deepEqual(sentFor('failover d'), [FIRST]);
    const after = await admin<ProviderSummary[]>('/admin/v1/providers');
    const first = after.body.find((p) => p.id === 'fal')?.routes.find((r) => r.endpoint === FIRST);
    assert.equal(first?.cooling_until, null);
  });

  test('a refusal of the input is never failed over: one attempt, the vendor’s words, one refund', async () => {
    const balance = await balanceOf(server, team.key);
    const done = await generate('refused [fal:422]');
    assert.equal(done.status, 'failed');
    assert.deepEqual(sentFor('refused [fal:422]'), [FIRST]);
    assert.match(done.items[0]?.error ?? '', /image_size: unexpected value/);
    assert.equal(done.items[0]?.progress, 0);
    assert.equal(done.items[0]?.queue_position, null);
    assert.equal(await balanceOf(server, team.key), balance);
  });

  test('a vendor error that quotes our key is recorded without it', async () => {
    const done = await generate('leaky [fal:echo-key]');
    assert.equal(done.status, 'failed');
    const error = done.items[0]?.error ?? '';
    assert.match(error, /input refused for Key \[redacted\]/);
    assert.ok(!error.includes(fal.key));
    const attempts = await admin<Attempt[]>(`/admin/v1/generations/${done.generation_id}/attempts`);
    assert.ok(attempts.body.every((x) => !x.error?.includes(fal.key)));
    const { rows } = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from generation_items where error like '%' || $1::text || '%'`,
      [fal.key],
    );
    assert.equal(rows[0]?.n, 0);
  });

  test('a completed item says progress 1, no queue position and no error', async () => {
    const done = await generate('plain fox');
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.items[0]?.progress, done.items[0]?.queue_position, done.items[0]?.error], [1, null, null]);
  });

  test('attempts of an unknown generation are 404; the lists are in the OpenAPI document', async () => {
    const missing = await admin('/admin/v1/generations/gen_nope/attempts');
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { error: { code: string } }).error.code, 'not_found');
    assert.equal((await call(server, 'GET', '/admin/v1/providers', { token: team.key })).status, 401);
    const doc = (
      await call<{ paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } }>(
        server,
        'GET',
        '/openapi.json',
      )
    ).body;
    assert.ok(doc.paths['/admin/v1/providers']);
    assert.ok(doc.paths['/admin/v1/generations/{generation_id}/attempts']);
    const status = JSON.stringify(doc.components.schemas.GenerationStatus);
    for (const field of ['"error"', '"progress"', '"queue_position"']) assert.ok(status.includes(field), field);
  });
});
