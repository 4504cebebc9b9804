// What the service does with each answer fal can give, through the whole service and the fake
// fal queue: results it must not fetch or keep, webhooks delivered twice, and a worker killed
// with a hundred vendor jobs in flight.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServiceProcess, startServiceProcess } from './chaos/service.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

const generate = (server: TestServer, team: TeamFixture, prompt: string, batch = 1) =>
  call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
    token: team.key,
    body: { prompt, model: 'flux-1-dev', batch },
  });

async function ledgerKinds(server: TestServer, generationId: string): Promise<string[]> {
  const { rows } = await server.pool.query<{ kind: string }>(
    'select kind from credit_ledger where generation_id = $1 order by id',
    [generationId],
  );
  return rows.map((r) => r.kind);
}

describe('fal results the service must refuse (private URLs not allowed)', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    // No private URLs: fal's own (loopback) origin is trusted for results, nothing else is.
    server = await startTestServer({
      env: { ...fal.env, ALLOW_PRIVATE_URLS: 'false' },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('a result URL on a private address that is not fal’s own is not fetched: failed, refunded once', async () => {
    const balance = await balanceOf(server, team.key);
    const created = await generate(server, team, 'elsewhere [fal:private-url]');
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    assert.match(done.items[0]?.error ?? '', /could not be used.*(private|not allowed|loopback)/i);
    assert.equal(done.items[0]?.url, null);
    assert.equal(await balanceOf(server, team.key), balance);
    assert.deepEqual(await ledgerKinds(server, created.body.generation_id), ['charge', 'refund']);
    assert.equal(fal.submissions.filter((s) => s.input.prompt === 'elsewhere [fal:private-url]').length, 1);
  });

  test('a result of the wrong content type fails the item with the reason, refunded once', async () => {
    const balance = await balanceOf(server, team.key);
    const created = await generate(server, team, 'a page [fal:wrong-type]');
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    assert.match(done.items[0]?.error ?? '', /text\/html, not image/);
    assert.equal(await balanceOf(server, team.key), balance);
    assert.deepEqual(await ledgerKinds(server, created.body.generation_id), ['charge', 'refund']);
    const { rows } = await server.pool.query<{ outcome: string; error_kind: string }>(
      'select outcome, error_kind from item_attempts where generation_id = $1',
      [created.body.generation_id],
    );
    assert.deepEqual(rows, [{ outcome: 'failed', error_kind: 'internal' }], 'one attempt: the copy is not resubmitted');
  });
});

describe('fal results private URLs allowed', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      env: {
        ...fal.env,
        ALLOW_PRIVATE_URLS: 'true',
        VENDOR_HTTP_TIMEOUT_MS: '1000',
      },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('with ALLOW_PRIVATE_URLS the same private result is copied in', async () => {
    const created = await generate(server, team, 'elsewhere too [fal:private-url]');
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    assert.ok(done.items[0]?.url?.startsWith(`${server.url}/media/`));
  });

  test('a result fal gives inline (a data URL) is stored as our own file', async () => {
    const created = await generate(server, team, 'inline [fal:data-uri]');
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const url = done.items[0]?.url ?? '';
    assert.ok(url.startsWith(`${server.url}/media/`), url);
    const file = await fetch(url);
    assert.equal(file.headers.get('content-type'), 'image/png');
    assert.deepEqual([...Buffer.from(await file.arrayBuffer()).subarray(1, 4)], [...Buffer.from('PNG')]);
  });

  for (const [tag, what] of [
    ['cut', 'a submit whose connection is cut before fal answers'],
    ['hang', 'a submit fal never answers (VENDOR_HTTP_TIMEOUT_MS)'],
  ] as const) {
    test(`${what} is never sent again: failed and refunded once`, async () => {
      const balance = await balanceOf(server, team.key);
      const prompt = `lost [fal:${tag}]`;
      const created = await generate(server, team, prompt);
      const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
      assert.equal(done.status, 'failed');
      assert.match(done.items[0]?.error ?? '', /could not be confirmed/);
      assert.equal(await balanceOf(server, team.key), balance);
      assert.deepEqual(await ledgerKinds(server, created.body.generation_id), ['charge', 'refund']);
      await sleep(300);
      assert.equal(fal.submissions.filter((s) => s.input.prompt === prompt).length, 1, 'sent once');
      const { rows } = await server.pool.query<{ outcome: string }>(
        'select outcome from item_attempts where generation_id = $1',
        [created.body.generation_id],
      );
      assert.deepEqual(rows, [{ outcome: 'unknown' }]);
    });
  }

  test('a webhook delivered again, before or after completion, changes nothing', async () => {
    const balance = await balanceOf(server, team.key);
    fal.hold(true);
    const created = await generate(server, team, 'twice');
    const id = created.body.generation_id;
    for (const deadline = Date.now() + 10_000; fal.held() < 1; await sleep(20)) {
      if (Date.now() > deadline) throw new Error('the job never reached fal');
    }
    fal.hold(false);
    await fal.release();
    const done = await waitForGeneration(server, team.key, id, 30_000);
    assert.equal(done.status, 'completed');
    const sent = fal.webhooks.at(-1);
    assert.ok(sent);
    // Delivered again to the URL fal was given (the one bound to the item).
    const given = new URL(fal.submissions.find((s) => s.input.prompt === 'twice')?.webhookUrl ?? '');
    const sentTo = `${given.pathname}${given.search}`;
    const state = async () =>
      (
        await server.pool.query(
          `select i.status, i.url, i.updated_at, g.completed_items, g.credits_refunded,
                  (select count(*)::int from item_attempts a where a.generation_id = g.id) as attempts,
                  (select count(*)::int from credit_ledger l where l.generation_id = g.id) as ledger
           from generation_items i join generations g on g.id = i.generation_id where g.id = $1`,
          [id],
        )
      ).rows;
    const settled = await state();
    for (let i = 0; i < 3; i++) {
      const replay: { status: number; text: string } = await call<unknown>(server, 'POST', sentTo, {
        raw: sent.body,
        headers: sent.headers,
      });
      assert.equal(replay.status, 200, replay.text);
    }
    await sleep(300);
    assert.deepEqual(await state(), settled);
    assert.equal(await balanceOf(server, team.key), balance - done.credits_used);
  });
});

describe('a worker killed with 100 vendor jobs in flight', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;
  const workers: ServiceProcess[] = [];

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      worker: false,
      env: fal.env,
    });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    for (const w of workers.splice(0)) await w.kill();
    await server.close();
    await fal.close();
  });

  const startWorker = async () => {
    const worker = await startServiceProcess({
      role: 'worker',
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      dataDir: server.dataDir,
      env: {
        WORKER_DEAD_AFTER_MS: '1000',
        WORKER_CONCURRENCY: '8',
        ...fal.env,
        // Webhooks come to the API process, as behind a load balancer.
        PUBLIC_BASE_URL: server.url,
        VENDOR_POLL_MIN_MS: '30000',
      },
    });
    workers.push(worker);
    await worker.ready();
    return worker;
  };

  test('every job completes, none is submitted twice, charged once and never refunded', async () => {
    const balance = await balanceOf(server, team.key);
    fal.hold(true);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await generate(server, team, `in flight ${i}`, 4);
      assert.equal(r.status, 200, r.text);
      ids.push(r.body.generation_id);
    }
    const first = await startWorker();
    // Every job accepted by fal and recorded as such; then the worker dies without warning.
    const accepted = async () =>
      (
        await server.pool.query<{ n: number }>(
          `select count(*)::int as n from generation_items where generation_id = any($1) and vendor_state = 'accepted'`,
          [ids],
        )
      ).rows[0]?.n ?? 0;
    for (const deadline = Date.now() + 60_000; fal.held() < 100 || (await accepted()) < 100; await sleep(50)) {
      if (Date.now() > deadline) throw new Error(`only ${fal.held()} jobs reached fal`);
    }
    await first.kill();
    await startWorker();
    fal.hold(false);
    await fal.release();

    const finals = [];
    for (const id of ids) finals.push(await waitForGeneration(server, team.key, id, 60_000));
    assert.ok(finals.every((f) => f.status === 'completed' && f.completed_items === 4));

    const sent = fal.submissions.filter((s) => String(s.input.prompt).startsWith('in flight '));
    assert.equal(sent.length, 100, 'each item submitted exactly once');
    const { rows: items } = await server.pool.query<{ n: number; distinct_requests: number }>(
      `select count(*)::int as n, count(distinct vendor_request_id)::int as distinct_requests
       from generation_items where generation_id = any($1)`,
      [ids],
    );
    assert.deepEqual(items[0], { n: 100, distinct_requests: 100 });
    const { rows: attempts } = await server.pool.query<{ n: number }>(
      'select count(*)::int as n from item_attempts where generation_id = any($1)',
      [ids],
    );
    assert.equal(attempts[0]?.n, 100, 'one attempt per item');
    const { rows: ledger } = await server.pool.query<{ kind: string; n: number }>(
      'select kind, count(*)::int as n from credit_ledger where generation_id = any($1) group by kind',
      [ids],
    );
    assert.deepEqual(ledger, [{ kind: 'charge', n: 25 }]);
    const used = finals.reduce((sum, f) => sum + f.credits_used, 0);
    assert.equal(await balanceOf(server, team.key), balance - used);
  });
});

describe('a fal job that is accepted and never answers', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      env: {
        ...fal.env,
        ITEM_DEADLINE_S: 'image=2',
        SWEEP_INTERVAL_MS: '200',
      },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
  });

  test('fails at the deadline of its kind (ITEM_DEADLINE_S), refunded once, and fal is asked to cancel it', async () => {
    const balance = await balanceOf(server, team.key);
    fal.hold(true);
    const created = await generate(server, team, 'never answered');
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'failed');
    assert.match(done.items[0]?.error ?? '', /^Timed out: not finished within 2 seconds/);
    assert.equal(await balanceOf(server, team.key), balance);
    assert.deepEqual(await ledgerKinds(server, created.body.generation_id), ['charge', 'refund']);
    const { rows } = await server.pool.query<{ vendor_request_id: string }>(
      'select vendor_request_id from generation_items where generation_id = $1',
      [created.body.generation_id],
    );
    const requestId = rows[0]?.vendor_request_id ?? '';
    assert.ok(requestId);
    for (const deadline = Date.now() + 5000; !fal.cancels.includes(requestId); ) {
      if (Date.now() > deadline) assert.fail('fal was never asked to cancel the job');
      await sleep(50);
    }
    // The job finishing after all changes nothing: the item stays failed, refunded once.
    await fal.release();
    await sleep(500);
    assert.deepEqual(await ledgerKinds(server, created.body.generation_id), ['charge', 'refund']);
    fal.hold(false);
  });
});
