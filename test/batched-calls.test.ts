// accept_generation and finish_item calls made while an earlier one is under way go to the database
// together, one statement and one transaction (src/db/batched-calls.ts, migration 0044), and each
// call's outcome stays its own: a call that fails in a batch fails alone (the batch is undone and
// its other calls go again, so each counts once), a team that cannot pay is refused alone, the charges and refunds of the others are each a ledger row, and the balance is
// their sum. A lock on the team's row, held by this test, keeps the first call under way while the
// others wait, so the batch is made for certain rather than by timing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { BatchedCallError, BatchedCalls, callOnce, isUniqueViolation } from '../src/db/batched-calls.ts';
import { wakeTarget } from '../src/engine/create.ts';
import { finishItemPayload } from '../src/engine/sql/finish.ts';
import { acceptGenerationPayload, type ItemsStart } from '../src/engine/sql/generations.ts';
import { newId } from '../src/lib/ids.ts';
import { createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

const PRICE = 40;
const SPENT = 15;

/**
 * A generation of one text item, claimed at accept, as the engine accepts it (or at `price`, and
 * started as `start` says).
 */
function acceptance(
  teamId: string,
  generationId = newId('gen'),
  { price = PRICE, start = { claim: { leaseMs: 60_000, defaultCap: 1_000 } } as ItemsStart } = {},
) {
  const input = { prompt: 'batched', max_tokens: 10 };
  const itemId = newId('item');
  const payload = acceptGenerationPayload(
    {
      id: generationId,
      teamId,
      workspaceId: null,
      operation: 'text.generate',
      model: 'simulator-text',
      input,
      creditsCharged: price,
      totalItems: 1,
      estimatedSeconds: 1,
      webhookUrl: null,
      retentionDays: 0,
      inputKeys: [],
      items: [
        {
          id: itemId,
          position: 0,
          type: 'text',
          model: 'simulator-text',
          input,
          price,
          storageToken: 'batched',
          acceptedRoutes: 'catalog',
        },
      ],
    },
    { ledgerId: newId('led'), reason: 'text.generate' },
    start,
  );
  return { generationId, itemId, teamId, payload };
}

/** Its item completed, settled at SPENT credits, as the engine records it. */
function completion(accepted: ReturnType<typeof acceptance>) {
  return finishItemPayload({
    itemId: accepted.itemId,
    teamId: accepted.teamId,
    ledgerId: newId('led'),
    wake: wakeTarget(1_000),
    ok: true,
    url: `http://127.0.0.1/results/${accepted.itemId}.txt`,
    result: { text: 'done' },
    bytes: 4,
    actualCredits: SPENT,
  });
}

describe('calls made while others are under way are sent together, each with its own outcome', () => {
  let server: TestServer;
  let pool: pg.Pool;
  let locker: pg.Client;
  let rich: TeamFixture;
  let poor: TeamFixture;

  /** Holds the team's row locked until `release` is called. */
  const lockTeam = async (teamId: string) => {
    await locker.query('begin');
    await locker.query('select 1 from teams where id = $1 for update', [teamId]);
    return () => locker.query('commit');
  };
  /**
   * Resolves once a session waits for a lock (the first call is under way and held). Asked on a
   * connection of the pool: the locker's transaction would see one snapshot of the activity.
   */
  const untilWaiting = async () => {
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
      );
      if ((rows[0]?.n ?? 0) > 0) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  /** Resolves once `count` sessions wait for a lock of this kind (pg_stat_activity's wait_event). */
  const untilWaitingOn = async (event: string, count: number) => {
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and wait_event = $1 and datname = current_database()",
        [event],
      );
      if ((rows[0]?.n ?? 0) >= count) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const ledgerOf = async (teamId: string) =>
    (
      await pool.query<{ kind: string; amount: number; generation_id: string }>(
        'select kind, amount, generation_id from credit_ledger where team_id = $1 order by created_at, id',
        [teamId],
      )
    ).rows;
  const balanceOf = async (teamId: string) =>
    (await pool.query<{ credits: number }>('select credits from teams where id = $1', [teamId])).rows[0]?.credits;

  before(async () => {
    server = await startTestServer({ worker: false });
    rich = await createTeam(server, 1_000, 'rich');
    poor = await createTeam(server, PRICE - 1, 'poor');
    pool = new pg.Pool({ connectionString: server.databaseUrl, max: 4 });
    locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
  });
  after(async () => {
    await locker.end();
    await pool.end();
    await server.close();
  });

  test('accepts and finishes in batches: a failing call fails alone, its batch goes again without it, a short team is refused alone, the ledger exact', async () => {
    const calls = new BatchedCalls(pool, { inFlight: 1, maxBatch: 32 });
    const accept = <T>(payload: unknown, teamId: string) => calls.call<T>('accept_generation', payload, teamId);
    const finish = <T>(payload: unknown, teamId: string) => calls.call<T>('finish_item', payload, teamId);
    const ledgerBefore = await ledgerOf(rich.id);
    const balanceBefore = await balanceOf(rich.id);

    // The first call waits on the team's row; the rest wait for it, and then go as one batch.
    const release = await lockTeam(rich.id);
    const first = acceptance(rich.id);
    const firstAnswer = accept<Record<string, unknown>>(first.payload, rich.id);
    await untilWaiting();
    const batch = [acceptance(rich.id), acceptance(rich.id), acceptance(rich.id)];
    const twin = acceptance(rich.id, batch[0]?.generationId);
    const short = acceptance(poor.id);
    const answers = [...batch, twin, short].map(({ payload, teamId }) =>
      accept<Record<string, unknown>>(payload, teamId),
    );
    assert.deepEqual(calls.sent.statements, { alone: 1, batch: 0 });
    assert.deepEqual(calls.sent.calls.accept_generation, { alone: 1, batch: 0, again: 0 });
    await release();

    const settled = await Promise.allSettled([firstAnswer, ...answers]);
    // The five went as one batch; the twin raised, so that batch was undone and the other four went
    // again as a second batch.
    assert.deepEqual(calls.sent.statements, { alone: 1, batch: 2 });
    assert.deepEqual(calls.sent.calls.accept_generation, { alone: 1, batch: 9, again: 4 });
    const [firstOutcome, a, b, c, twinOutcome, shortOutcome] = settled;
    for (const outcome of [firstOutcome, a, b, c]) {
      assert.equal(outcome?.status, 'fulfilled');
      assert.equal(typeof (outcome as PromiseFulfilledResult<Record<string, unknown>>).value.created_at, 'string');
    }
    // The same generation twice: the second fails alone, with PostgreSQL's code.
    assert.equal(twinOutcome?.status, 'rejected');
    const err = (twinOutcome as PromiseRejectedResult).reason;
    assert.ok(err instanceof BatchedCallError);
    assert.equal(err.code, '23505');
    // Known for what it is, as the same error of a call alone is (sub-work started twice).
    assert.ok(isUniqueViolation(err));
    // A team that cannot pay is told so (its balance), and nothing of it is written.
    assert.deepEqual((shortOutcome as PromiseFulfilledResult<Record<string, unknown>>).value, { short: PRICE - 1 });
    assert.equal(await balanceOf(poor.id), PRICE - 1);
    assert.equal((await pool.query('select 1 from generations where team_id = $1', [poor.id])).rowCount, 0);

    // Four generations charged once each.
    const accepted = [first, ...batch];
    const charges = (await ledgerOf(rich.id)).slice(ledgerBefore.length);
    // (A batch's rows share their transaction's time: compared in the order of their generations.)
    const byGeneration = (a: unknown[], b: unknown[]) => String(a.at(-1)).localeCompare(String(b.at(-1)));
    assert.deepEqual(
      charges.map((row) => [row.kind, row.amount, row.generation_id]).sort(byGeneration),
      accepted.map((a) => ['charge', -PRICE, a.generationId]).sort(byGeneration),
    );
    assert.equal(await balanceOf(rich.id), (balanceBefore ?? 0) - 4 * PRICE);

    // Their finishes, batched the same way: each item completed once, its unspent credits refunded.
    const releaseAgain = await lockTeam(rich.id);
    const firstFinish = finish<Record<string, unknown>>(completion(first), rich.id);
    await untilWaiting();
    const finishes = batch.map((a) => finish<Record<string, unknown>>(completion(a), rich.id));
    // One of them twice: recorded once, the other call told it had finished.
    const again = finish<Record<string, unknown>>(completion(batch[0] as ReturnType<typeof acceptance>), rich.id);
    await releaseAgain();
    const finished = await Promise.all([firstFinish, ...finishes, again]);
    assert.deepEqual(calls.sent.statements, { alone: 2, batch: 3 });
    assert.deepEqual(calls.sent.calls.finish_item, { alone: 1, batch: 4, again: 0 });
    for (const answer of finished.slice(0, 4)) {
      assert.equal(answer.recorded, true);
      assert.equal(answer.status, 'completed');
      assert.equal(answer.refund, PRICE - SPENT);
    }
    assert.deepEqual(finished[4], { recorded: false });
    const rows = (await ledgerOf(rich.id)).slice(ledgerBefore.length);
    assert.deepEqual(
      rows
        .filter((row) => row.kind === 'refund')
        .map((row) => [row.amount, row.generation_id])
        .sort(byGeneration),
      accepted.map((a) => [PRICE - SPENT, a.generationId]).sort(byGeneration),
    );
    const sum = (await ledgerOf(rich.id)).reduce((total, row) => total + row.amount, 0);
    assert.equal(await balanceOf(rich.id), sum);
    assert.equal(await balanceOf(rich.id), (balanceBefore ?? 0) - 4 * SPENT);
  });

  test('accepts and settles that wait together go in one statement, each with its own outcome', async () => {
    const calls = new BatchedCalls(pool, { inFlight: 1, maxBatch: 32 });
    const ledgerBefore = await ledgerOf(rich.id);
    const balanceBefore = await balanceOf(rich.id);
    const [a1, a2, a3] = [acceptance(rich.id), acceptance(rich.id), acceptance(rich.id)] as const;
    await calls.call('accept_generation', a1.payload, rich.id);

    // The second accept is held on the team's row; a settle of the first and a third accept wait
    // behind it, and then go together.
    const release = await lockTeam(rich.id);
    const second = calls.call<Record<string, unknown>>('accept_generation', a2.payload, rich.id);
    await untilWaiting();
    const settle = calls.call<Record<string, unknown>>('finish_item', completion(a1), rich.id);
    const third = calls.call<Record<string, unknown>>('accept_generation', a3.payload, rich.id);
    await release();
    const [secondAnswer, settled, thirdAnswer] = await Promise.all([second, settle, third]);

    assert.deepEqual(calls.sent.statements, { alone: 2, batch: 1 });
    assert.deepEqual(calls.sent.calls, {
      accept_generation: { alone: 2, batch: 1, again: 0 },
      finish_item: { alone: 0, batch: 1, again: 0 },
    });
    assert.equal(typeof secondAnswer.created_at, 'string');
    assert.equal(typeof thirdAnswer.created_at, 'string');
    assert.equal(settled.recorded, true);
    assert.equal(settled.refund, PRICE - SPENT);
    // Three charges and one refund, each a ledger row; the balance is their sum.
    const rows = (await ledgerOf(rich.id)).slice(ledgerBefore.length);
    assert.deepEqual(
      rows.map((row) => [row.kind, row.amount, row.generation_id]).sort(),
      [
        ['charge', -PRICE, a1.generationId],
        ['charge', -PRICE, a2.generationId],
        ['charge', -PRICE, a3.generationId],
        ['refund', PRICE - SPENT, a1.generationId],
      ].sort(),
    );
    assert.equal(await balanceOf(rich.id), (balanceBefore ?? 0) - 2 * PRICE - SPENT);
    const { rows: items } = await pool.query<{ id: string; status: string }>(
      'select id, status from generation_items where id = any($1) order by id',
      [[a1.itemId, a2.itemId, a3.itemId]],
    );
    assert.deepEqual(
      items.map((item) => [item.id, item.status]),
      [
        [a1.itemId, 'COMPLETED'],
        [a2.itemId, 'PROCESSING'],
        [a3.itemId, 'PROCESSING'],
      ].sort(),
    );
  });

  test("a free accept's key-share lock on the team does not deadlock a batch that changes the team's row", async () => {
    // A batch of a charged accept queued for a job (it changes the team's row first) and a claimed
    // accept of the same team; a free accept of that team (its generation's foreign key takes a
    // key-share lock on the row, then its queued item changes the row) comes between the two. The
    // second accept is held there by its generation's own lock, which this test holds.
    const queued = { jobs: { task: 'generation_item', maxAttempts: 3 } } as ItemsStart;
    const calls = new BatchedCalls(pool, { inFlight: 1, maxBatch: 32 });
    const [first, charged, claimed] = [
      acceptance(rich.id),
      acceptance(rich.id, undefined, { start: queued }),
      acceptance(rich.id),
    ] as const;
    const free = acceptance(rich.id, undefined, { price: 0, start: queued });
    const generationLock = new pg.Client({ connectionString: server.databaseUrl });
    await generationLock.connect();
    const alone = new pg.Pool({ connectionString: server.databaseUrl, max: 1 });
    try {
      await generationLock.query("select pg_advisory_lock(hashtextextended('generation:' || $1::text, 0))", [
        claimed.generationId,
      ]);
      // The first call holds the batcher while the two wait, so that they go as one batch.
      const release = await lockTeam(rich.id);
      const answers = [first, charged, claimed].map((a) =>
        calls.call<Record<string, unknown>>('accept_generation', a.payload, rich.id),
      );
      await untilWaiting();
      await release();
      await untilWaitingOn('advisory', 1);
      const freeAnswer = callOnce<Record<string, unknown>>(alone, 'accept_generation', free.payload);
      // The free accept waits on the team's row (for the batch's transaction) before it is let go.
      await untilWaitingOn('transactionid', 1);
      await generationLock.query("select pg_advisory_unlock(hashtextextended('generation:' || $1::text, 0))", [
        claimed.generationId,
      ]);
      const outcomes = await Promise.allSettled([...answers, freeAnswer]);
      for (const outcome of outcomes) {
        assert.equal(outcome.status, 'fulfilled', outcome.status === 'rejected' ? String(outcome.reason) : '');
        assert.equal(typeof (outcome as PromiseFulfilledResult<Record<string, unknown>>).value?.created_at, 'string');
      }
      assert.deepEqual(calls.sent.statements, { alone: 1, batch: 1 });
      const { rows } = await pool.query<{ id: string }>('select id from generations where id = any($1) order by id', [
        [first, charged, claimed, free].map((a) => a.generationId),
      ]);
      assert.equal(rows.length, 4);
    } finally {
      await generationLock.end();
      await alone.end();
    }
  });

  test('a batch that fails as a whole fails each of its calls, and nothing of it is written', async () => {
    // Statements cancelled by their timeout while they wait on the team's row.
    const cancelling = new pg.Pool({ connectionString: server.databaseUrl, max: 2, statement_timeout: 2_000 });
    try {
      const calls = new BatchedCalls(cancelling, { inFlight: 1, maxBatch: 32 });
      const balanceBefore = await balanceOf(rich.id);
      const release = await lockTeam(rich.id);
      const accepts = [acceptance(rich.id), acceptance(rich.id), acceptance(rich.id)];
      const first = calls.call('accept_generation', accepts[0]?.payload, rich.id);
      await untilWaiting();
      const rest = accepts.slice(1).map((a) => calls.call('accept_generation', a.payload, rich.id));
      const outcomes = await Promise.allSettled([first, ...rest]);
      await release();
      assert.deepEqual(calls.sent.statements, { alone: 1, batch: 1 });
      assert.deepEqual(calls.sent.calls.accept_generation, { alone: 1, batch: 2, again: 0 });
      for (const outcome of outcomes) {
        assert.equal(outcome.status, 'rejected');
        assert.equal((outcome as PromiseRejectedResult).reason.code, '57014');
      }
      const ids = accepts.map((a) => a.generationId);
      assert.equal((await pool.query('select 1 from generations where id = any($1)', [ids])).rowCount, 0);
      assert.equal((await pool.query('select 1 from credit_ledger where generation_id = any($1)', [ids])).rowCount, 0);
      assert.equal(await balanceOf(rich.id), balanceBefore);
    } finally {
      await cancelling.end();
    }
  });
});
