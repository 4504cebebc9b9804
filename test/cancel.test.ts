// Cancelling a generation (POST /api/v1/generations/{id}/cancel): unfinished items end FAILED with
// `canceled` and are refunded once (what a vendor already runs is not: cancel-refund.test.ts),
// vendor jobs are cancelled at the vendor, a finished generation is 409, and a cancel racing the
// completion ends one way only with the money right.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

const refundsOf = async (server: TestServer, generationId: string) =>
  Number(
    (
      await server.app.deps.pool.query(
        `select count(*) from credit_ledger where generation_id = $1 and kind = 'refund'`,
        [generationId],
      )
    ).rows[0].count,
  );

describe('cancelling on the simulator', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    // Each simulated call takes 3 s: long enough to cancel while it runs.
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '3000', WORKER_CONCURRENCY: '2' } });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
  });

  const images = async (prompt: string, batch: number) => {
    const r = await call<{ generation_id: string; credits_used: number }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, batch },
    });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const cancel = (id: string, key = team.key) =>
    call<StatusRecord & { refunded_credits: number; message: string; error?: { code: string } }>(
      server,
      'POST',
      `/api/v1/generations/${id}/cancel`,
      {
        token: key,
      },
    );

  test('the unfinished items fail as canceled and are refunded once; a second cancel is 409', async () => {
    const before = await balanceOf(server, team.key);
    const created = await images('four portraits to cancel', 4);
    const canceled = await cancel(created.generation_id);
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'failed');
    assert.deepEqual(
      canceled.body.items.map((i) => [i.status, i.error]),
      Array.from({ length: 4 }, () => ['FAILED', 'canceled']),
    );
    assert.equal(canceled.body.credits_used, 0);
    // The simulator has no vendor to pay: everything is refunded, and the answer says so.
    assert.equal(canceled.body.refunded_credits, created.credits_used);
    assert.match(canceled.body.message, /^Cancelled 4 items; \d+ credits refunded\.$/);
    assert.equal(await balanceOf(server, team.key), before);
    assert.equal(await refundsOf(server, created.generation_id), 4, 'one refund per item');
    const again = await cancel(created.generation_id);
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error?.code, 'generation_finished');
    // The workers that were running them find them finished: nothing changes afterwards.
    await sleep(3500);
    const later = await waitForGeneration(server, team.key, created.generation_id);
    assert.deepEqual(
      later.items.map((i) => i.error),
      ['canceled', 'canceled', 'canceled', 'canceled'],
    );
    assert.equal(await balanceOf(server, team.key), before);
    assert.equal(await refundsOf(server, created.generation_id), 4);
  });

  test('a finished generation is 409; an unknown one, or another team’s, is 404', async () => {
    const quick = await startTestServer();
    try {
      const owner = await createTeam(quick, 1000);
      const r = await call<{ generation_id: string }>(quick, 'POST', '/api/v1/images/generate', {
        token: owner.key,
        body: { prompt: 'done already', batch: 1 },
      });
      await waitForGeneration(quick, owner.key, r.body.generation_id);
      const finished = await call<{ error: { code: string } }>(
        quick,
        'POST',
        `/api/v1/generations/${r.body.generation_id}/cancel`,
        { token: owner.key },
      );
      assert.equal(finished.status, 409, finished.text);
      const other = await createTeam(quick, 10);
      const foreign = await call(quick, 'POST', `/api/v1/generations/${r.body.generation_id}/cancel`, {
        token: other.key,
      });
      assert.equal(foreign.status, 404);
      assert.equal(
        (await call(quick, 'POST', '/api/v1/generations/gen_nope/cancel', { token: owner.key })).status,
        404,
      );
      assert.equal((await call(quick, 'POST', `/api/v1/generations/${r.body.generation_id}/cancel`)).status, 401);
    } finally {
      await quick.close();
    }
  });
});

describe('cancelling racing the completion', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '150', WORKER_CONCURRENCY: '4' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
  });

  test('a result is marked as being stored only where its URL was handed out at accept; the attempt records when it was answered', async () => {
    const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lamp', batch: 1 },
    });
    assert.equal(image.status, 200, image.text);
    const model = await call<{ generation_id: string; model_url: string }>(
      server,
      'POST',
      '/api/v1/models-3d/generate',
      { token: team.key, body: { prompt: 'a lamp' } },
    );
    assert.equal(model.status, 200, model.text);
    for (const id of [image.body.generation_id, model.body.generation_id]) {
      assert.equal((await waitForGeneration(server, team.key, id)).status, 'completed');
    }
    const { rows } = await server.pool.query<{
      generation_id: string;
      marked: boolean;
      answered: boolean;
      route_ms: number;
    }>(
      `select i.generation_id, i.storing_result_at is not null as marked,
              a.started_at <= a.answered_at and a.answered_at <= a.finished_at as answered,
              extract(epoch from (a.answered_at - a.started_at)) * 1000 as route_ms
       from generation_items i join item_attempts a on a.item_id = i.id
       where i.generation_id = any($1::text[])`,
      [[image.body.generation_id, model.body.generation_id]],
    );
    const of = (id: string) => rows.find((r) => r.generation_id === id);
    // An image's URL reaches its client with the completion only: a cancel until then refunds it.
    assert.equal(of(image.body.generation_id)?.marked, false);
    // A 3D model's URL was in the answer that accepted it: from its storing on, a cancel cannot refund it.
    assert.equal(of(model.body.generation_id)?.marked, true);
    for (const row of rows) {
      assert.equal(row.answered, true, JSON.stringify(row));
      // The simulator answers after SIMULATOR_DELAY_MS (150 ms).
      assert.ok(Number(row.route_ms) >= 140, JSON.stringify(row));
    }
  });

  test('each generation ends one way only, and the balance is what the completed items cost', async () => {
    const before = await balanceOf(server, team.key);
    const created = await Promise.all(
      Array.from({ length: 20 }, async (_, n) => {
        const r = await call<{ generation_id: string; credits_used: number }>(
          server,
          'POST',
          '/api/v1/images/generate',
          { token: team.key, body: { prompt: `race ${n}`, batch: 2 } },
        );
        assert.equal(r.status, 200, r.text);
        return r.body;
      }),
    );
    // Cancels land before, during and after the work: the first three only once they finished.
    const answers = await Promise.all(
      created.map(async (c, n) => {
        if (n < 3) await waitForGeneration(server, team.key, c.generation_id);
        else await sleep(((n * 7) % 20) * 60);
        return (await call(server, 'POST', `/api/v1/generations/${c.generation_id}/cancel`, { token: team.key }))
          .status;
      }),
    );
    assert.ok(
      answers.every((s) => s === 200 || s === 409),
      answers.join(','),
    );
    let kept = 0;
    for (const c of created) {
      const done = await waitForGeneration(server, team.key, c.generation_id);
      for (const item of done.items) {
        assert.ok(item.status === 'COMPLETED' || item.error === 'canceled', JSON.stringify(item));
      }
      const canceledItems = done.items.filter((i) => i.status === 'FAILED').length;
      assert.equal(await refundsOf(server, c.generation_id), canceledItems, 'one refund per cancelled item');
      assert.equal(done.credits_used, (c.credits_used / 2) * (2 - canceledItems));
      kept += done.credits_used;
    }
    assert.equal(await balanceOf(server, team.key), before - kept);
    assert.ok(answers.includes(200), 'some were cancelled in time');
    assert.ok(kept > 0, 'and some items finished first');
  });
});

describe('cancelling a vendor job', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({
      env: fal.env,
    });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    fal.hold(false);
    await fal.release();
    await server.close();
    await fal.close();
  });

  test('a job waiting in fal’s queue is cancelled there, and the item refunded', async () => {
    fal.hold(true, 'IN_QUEUE');
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'held at the vendor', model: 'flux-1-schnell', batch: 1 },
    });
    assert.equal(created.status, 200, created.text);
    for (const deadline = Date.now() + 10_000; fal.submissions.length === 0; await sleep(50)) {
      if (Date.now() > deadline) assert.fail('the job never reached fal');
    }
    // Accepted at fal: the item waits there.
    for (const deadline = Date.now() + 10_000; ; await sleep(50)) {
      const row = await server.app.deps.pool.query(
        `select vendor_state from generation_items where generation_id = $1`,
        [created.body.generation_id],
      );
      if (row.rows[0]?.vendor_state === 'accepted') break;
      if (Date.now() > deadline) assert.fail('never accepted');
    }
    const canceled = await call<StatusRecord>(
      server,
      'POST',
      `/api/v1/generations/${created.body.generation_id}/cancel`,
      {
        token: team.key,
      },
    );
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.items[0]?.error, 'canceled');
    assert.equal(fal.cancels.length, 1, 'fal was asked to cancel the job');
    assert.equal(await balanceOf(server, team.key), before);
  });
});
