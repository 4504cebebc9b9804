// Per-team concurrency: a team runs at most its cap of items at once; the rest wait in `queued`
// with their queue_position, start in the order they came as room frees, and are never refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

describe('per-team concurrency', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    // Plenty of workers: only the team's cap holds the work back.
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '1000', WORKER_CONCURRENCY: '8' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    call<Record<string, unknown> & { error?: { code: string } }>(server, method, path, {
      token: server.adminToken,
      body,
    });
  const submit = async (prompt: string) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, batch: 1 },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.generation_id;
  };
  const running = async () =>
    Number(
      (
        await server.app.deps.pool.query(
          `select count(*) from generation_items i join generations g on g.id = i.generation_id
           where g.team_id = $1 and i.status = 'PROCESSING'`,
          [team.id],
        )
      ).rows[0].count,
    );

  test('with a cap of 2, ten generations run two at a time, in order, queue positions shown', async () => {
    const patched = await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: 2 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.max_concurrent_items, 2);

    const ids: string[] = [];
    for (let n = 0; n < 10; n++) ids.push(await submit(`capped ${n}`));
    // Soon two run and eight wait, each with its place.
    let positions: Array<number | null> = [];
    for (const deadline = Date.now() + 5000; ; await sleep(25)) {
      // One read of them all (the history answers in one statement): positions read one by one can
      // straddle an item starting, and see a place twice.
      const page = await call<{ data: StatusRecord[] }>(server, 'GET', '/api/v1/generations?limit=100', {
        token: team.key,
      });
      assert.equal(page.status, 200, page.text);
      const records = ids.map((id) => {
        const record = page.body.data.find((r) => r.generation_id === id);
        assert.ok(record, `${id} is in the history`);
        return record;
      });
      positions = records.map((r) => r.items[0]?.queue_position ?? null);
      const waiting = positions.filter((p) => p !== null);
      if (waiting.length >= 6) {
        assert.deepEqual(
          records.filter((r) => r.items[0]?.queue_position !== null).map((r) => r.status),
          Array(waiting.length).fill('queued'),
        );
        assert.deepEqual(
          waiting,
          waiting.map((_, n) => n + 1),
          'the waiting ones, in the order they came',
        );
        break;
      }
      if (Date.now() > deadline) assert.fail(`positions never settled: ${positions.join(',')}`);
    }
    let most = 0;
    const sampling = (async () => {
      for (let done = false; !done; await sleep(20)) {
        most = Math.max(most, await running());
        const { rows } = await server.app.deps.pool.query(
          `select count(*) from generations where id = any($1) and status in ('queued', 'processing')`,
          [ids],
        );
        done = Number(rows[0].count) === 0;
      }
    })();
    for (const id of ids) assert.equal((await waitForGeneration(server, team.key, id, 30_000)).status, 'completed');
    await sampling;
    assert.equal(most, 2, 'never more than two at once, and two while work waited');
    const { rows } = await server.app.deps.pool.query(
      `select g.id from generation_items i join generations g on g.id = i.generation_id
       where g.id = any($1) order by i.started_at, g.created_at`,
      [ids],
    );
    // Room that frees for two at once (two items settled in one batch) wakes the two oldest
    // waiting ones together; their jobs then claim them in either order. So each started within one
    // place of its place in the queue (cap - 1), and none jumped further ahead.
    const started = rows.map((r: { id: string }) => r.id);
    assert.deepEqual([...started].sort(), [...ids].sort());
    for (const [place, id] of ids.entries()) {
      assert.ok(
        Math.abs(started.indexOf(id) - place) <= 1,
        `started in the order they came (cap 2): ${id} came ${place + 1}th, started ${started.indexOf(id) + 1}th: ${started.join(', ')}`,
      );
    }
  });

  /** Waits until `condition` holds (checked every 20 ms, for at most 10 s). */
  const until = async (condition: () => Promise<boolean>, what: string) => {
    for (const deadline = Date.now() + 10_000; !(await condition()); await sleep(20)) {
      if (Date.now() > deadline) assert.fail(`never: ${what}`);
    }
  };

  test('raising the cap starts waiting work at once; cancelling a waiting generation refunds it', async () => {
    await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: 1 });
    const ids: string[] = [];
    for (let n = 0; n < 4; n++) ids.push(await submit(`raised ${n}`));
    await until(async () => (await running()) === 1, 'one runs');
    const before = await balanceOf(server, team.key);
    const last = ids.at(-1) as string;
    const canceled = await call<StatusRecord>(server, 'POST', `/api/v1/generations/${last}/cancel`, {
      token: team.key,
    });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.items[0]?.error, 'canceled');
    assert.ok((await balanceOf(server, team.key)) > before, 'refunded');
    const raised = await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: 10 });
    assert.equal(raised.status, 200);
    for (const id of ids.slice(0, 3)) {
      assert.equal((await waitForGeneration(server, team.key, id)).status, 'completed');
    }
    // The first takes a second (SIMULATOR_DELAY_MS): the two that were waiting started before it ended.
    const { rows } = await server.app.deps.pool.query<{ generation_id: string; started_at: Date; updated_at: Date }>(
      'select generation_id, started_at, updated_at from generation_items where generation_id = any($1)',
      [ids.slice(0, 3)],
    );
    const row = (id: string | undefined) => rows.find((r) => r.generation_id === id) as (typeof rows)[number];
    const firstEnded = row(ids[0]).updated_at.getTime();
    for (const id of ids.slice(1, 3)) {
      assert.ok(row(id).started_at.getTime() < firstEnded, 'started without waiting for the first to end');
    }
  });

  test('the cap is checked: 0 is 400, null is the default, an unknown team 404', async () => {
    assert.equal((await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: 0 })).status, 400);
    assert.equal((await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: 'x' })).status, 400);
    const reset = await admin('PATCH', `/admin/v1/teams/${team.id}`, { max_concurrent_items: null });
    assert.equal(reset.status, 200);
    assert.equal(reset.body.max_concurrent_items, null);
    assert.equal((await admin('PATCH', '/admin/v1/teams/team_nope', { max_concurrent_items: 3 })).status, 404);
    assert.equal(
      (
        await call(server, 'PATCH', `/admin/v1/teams/${team.id}`, {
          token: team.key,
          body: { max_concurrent_items: 5 },
        })
      ).status,
      401,
    );
  });
});

describe('per-team concurrency by default, and synchronous requests behind the cap', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      env: {
        SIMULATOR_DELAY_MS: '3000',
        WORKER_CONCURRENCY: '8',
        TEAM_MAX_CONCURRENT_ITEMS: '1',
        SYNC_REQUEST_TIMEOUT_S: '1',
      },
    });
  });
  after(async () => {
    await server.close();
  });

  test('TEAM_MAX_CONCURRENT_ITEMS caps a team without a cap of its own', async () => {
    const team = await createTeam(server, 1000);
    const ids: string[] = [];
    for (const prompt of ['first', 'second']) {
      const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt, batch: 1 },
      });
      assert.equal(r.status, 200, r.text);
      ids.push(r.body.generation_id);
    }
    let second: StatusRecord | undefined;
    for (const deadline = Date.now() + 2000; Date.now() < deadline; await sleep(50)) {
      const first = (
        await call<StatusRecord>(server, 'GET', `/api/v1/generations/${ids[0]}/status`, { token: team.key })
      ).body;
      second = (await call<StatusRecord>(server, 'GET', `/api/v1/generations/${ids[1]}/status`, { token: team.key }))
        .body;
      if (first.status === 'processing' && second.items[0]?.queue_position != null) break;
    }
    assert.equal(second?.status, 'queued', JSON.stringify(second));
    assert.equal(second?.items[0]?.queue_position, 1);
    for (const id of ids) assert.equal((await waitForGeneration(server, team.key, id)).status, 'completed');
  });

  test('a synchronous request still waiting when SYNC_REQUEST_TIMEOUT_S ends is failed and refunded', async () => {
    const team = await createTeam(server, 1000);
    const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'holds the room', batch: 1 },
    });
    assert.equal(image.status, 200, image.text);
    const afterImage = await balanceOf(server, team.key);
    const text = await call<{ error: { code: string; message: string } }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Waits behind the image.' },
    });
    assert.equal(text.status, 500, text.text);
    assert.equal(text.body.error.code, 'generation_failed');
    assert.match(text.body.error.message, /refunded/);
    assert.equal(await balanceOf(server, team.key), afterImage, 'the text was refunded');
    const id = /Generation (gen_\w+)/.exec(text.body.error.message)?.[1] as string;
    const record = (await call<StatusRecord>(server, 'GET', `/api/v1/generations/${id}/status`, { token: team.key }))
      .body;
    assert.equal(record.status, 'failed');
    assert.match(record.items[0]?.error ?? '', /SYNC_REQUEST_TIMEOUT_S/);
    // The image finishes; the text item, failed, is not run after all.
    assert.equal((await waitForGeneration(server, team.key, image.body.generation_id)).status, 'completed');
    await sleep(500);
    assert.equal(await balanceOf(server, team.key), afterImage);
    assert.equal(
      (await call<StatusRecord>(server, 'GET', `/api/v1/generations/${id}/status`, { token: team.key })).body.status,
      'failed',
    );
  });
});

describe('a synchronous request behind the cap waits for room in its own process', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      env: { SIMULATOR_DELAY_MS: '1500', TEAM_MAX_CONCURRENT_ITEMS: '1', SYNC_REQUEST_TIMEOUT_S: '60' },
    });
  });
  after(async () => {
    await server.close();
  });

  test('it is told when the running item finishes, then runs and answers, charged once', async () => {
    const team = await createTeam(server, 1000);
    const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'holds the room', batch: 1 },
    });
    assert.equal(image.status, 200, image.text);
    const text = await call<{ generation_id: string; text: string }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Waits behind the image.' },
    });
    assert.equal(text.status, 200, text.text);
    assert.ok(text.body.text.length > 0);
    const { rows } = await server.pool.query<{ generation_id: string; started_at: Date; updated_at: Date }>(
      'select generation_id, started_at, updated_at from generation_items where generation_id = any($1::text[])',
      [[image.body.generation_id, text.body.generation_id]],
    );
    const imageItem = rows.find((r) => r.generation_id === image.body.generation_id);
    const textItem = rows.find((r) => r.generation_id === text.body.generation_id);
    assert.ok(imageItem && textItem);
    assert.ok(textItem.started_at >= imageItem.updated_at, 'the text started once the image had finished');
    const { rows: ledger } = await server.pool.query<{ kind: string }>(
      'select kind from credit_ledger where generation_id = $1',
      [text.body.generation_id],
    );
    // Charged once (the unused part of the bound charged for max_tokens may come back).
    assert.equal(ledger.filter((r) => r.kind === 'charge').length, 1, JSON.stringify(ledger));
  });
});

describe('synchronous requests waiting behind the cap are woken one by one', () => {
  const METRICS_TOKEN = 'metrics-token-for-room-waits-0123456789';
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      env: {
        SIMULATOR_DELAY_MS: '300',
        TEAM_MAX_CONCURRENT_ITEMS: '1',
        SYNC_REQUEST_TIMEOUT_S: '60',
        METRICS_TOKEN,
      },
    });
  });
  after(async () => {
    await server.close();
  });

  test('each tries its claim when it starts waiting and when its own item is given room, not at every finish', async () => {
    const WAITING = 5;
    const team = await createTeam(server, 10_000);
    const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'holds the room', batch: 1 },
    });
    assert.equal(image.status, 200, image.text);
    const texts = await Promise.all(
      Array.from({ length: WAITING }, (_, i) =>
        call<{ text: string }>(server, 'POST', '/api/v1/text/generate', {
          token: team.key,
          body: { prompt: `Waits its turn, number ${i}.` },
        }),
      ),
    );
    for (const text of texts) assert.equal(text.status, 200, text.text);
    const metrics = await call(server, 'GET', '/metrics', { token: METRICS_TOKEN });
    const tries = Number(/^genmedia_room_wait_claims_total (\d+)/m.exec(metrics.text)?.[1] ?? Number.NaN);
    // Each request tried at least once; woken at every finish, they would have tried 5 + 15 times.
    assert.ok(tries >= WAITING && tries <= 2 * WAITING + 2, `${tries} claims tried by ${WAITING} waiting requests`);
  });
});
