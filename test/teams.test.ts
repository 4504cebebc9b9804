import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

interface Workspace {
  id: string;
  name: string;
  created_at: string;
}

describe('team isolation and workspaces', () => {
  let server: TestServer;
  let a: TeamFixture;
  let b: TeamFixture;
  before(async () => {
    server = await startTestServer();
    a = await createTeam(server, 300, 'a');
    b = await createTeam(server, 700, 'b');
  });
  after(() => server.close());

  test('each key sees its own team balance', async () => {
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: a.key })).body, 300);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: b.key })).body, 700);
  });

  test('a team creates and lists only its own workspaces', async () => {
    const created = await call<Workspace>(server, 'POST', '/api/v1/workspaces', {
      token: a.key,
      body: { name: 'Campaign' },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.id, /^ws_[0-9a-z]{26}$/);
    assert.equal(created.body.name, 'Campaign');
    assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'id', 'name']);

    const mine = await call<Workspace[]>(server, 'GET', '/api/v1/workspaces', { token: a.key });
    assert.deepEqual(mine.body, [created.body]);
    const theirs = await call<Workspace[]>(server, 'GET', '/api/v1/workspaces', { token: b.key });
    assert.deepEqual(theirs.body, []);
  });

  test("another team's workspace is 403 and an unknown one 404", async () => {
    const ws = await call<Workspace>(server, 'POST', '/api/v1/workspaces', { token: a.key, body: { name: 'Private' } });
    const own = await call<Workspace>(server, 'GET', `/api/v1/workspaces/${ws.body.id}`, { token: a.key });
    assert.equal(own.status, 200);
    assert.deepEqual(own.body, ws.body);

    const foreign = await call<{ error: { code: string } }>(server, 'GET', `/api/v1/workspaces/${ws.body.id}`, {
      token: b.key,
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.code, 'forbidden');

    const missing = await call<{ error: { code: string; message: string } }>(
      server,
      'GET',
      '/api/v1/workspaces/ws_00000000000000000000000000',
      { token: a.key },
    );
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    assert.match(missing.body.error.message, /Workspace/);
  });

  test('plans are the same for every team and have exactly the spec shape', async () => {
    const r = await call<Array<Record<string, unknown>>>(server, 'GET', '/api/v1/billing/plans', { token: a.key });
    assert.equal(r.status, 200);
    assert.ok(r.body.length >= 3);
    for (const plan of r.body) {
      assert.deepEqual(Object.keys(plan).sort(), ['description', 'id', 'name', 'storeId', 'variants']);
      const variants = plan.variants as Array<Record<string, unknown>>;
      assert.ok(variants.length >= 1);
      for (const v of variants) {
        assert.deepEqual(Object.keys(v).sort(), ['active', 'currency', 'id', 'interval', 'interval_count', 'price']);
        assert.equal(v.interval, 'one_time');
        assert.equal(typeof v.price, 'number');
        assert.equal(typeof v.active, 'boolean');
        assert.ok(Number.isInteger(v.interval_count));
      }
    }
    const other = await call(server, 'GET', '/api/v1/billing/plans', { token: b.key });
    assert.deepEqual(other.body, r.body);
  });

  test('the balance is a bare JSON number', async () => {
    const r = await call(server, 'GET', '/api/v1/billing/credits', { token: a.key });
    assert.equal(r.text, '300');
    assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  });
});

describe('credit ledger', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { DATABASE_POOL_SIZE: '20' } });
  });
  after(() => server.close());

  const grant = (teamId: string, amount: number) =>
    call<{ balance: number }>(server, 'POST', `/admin/v1/teams/${teamId}/credits`, {
      token: server.adminToken,
      body: { amount, reason: `change ${amount}` },
    });

  test('a correction beyond the balance is a 402 that changes nothing', async () => {
    const team = await createTeam(server, 40);
    const r = await call<{ error: { code: string; message: string } }>(
      server,
      'POST',
      `/admin/v1/teams/${team.id}/credits`,
      { token: server.adminToken, body: { amount: -41, reason: 'too much' } },
    );
    assert.equal(r.status, 402);
    assert.equal(r.body.error.code, 'insufficient_credits');
    assert.match(r.body.error.message, /41/);
    assert.match(r.body.error.message, /40/);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).body, 40);
    const ledger = await call<unknown[]>(server, 'GET', `/admin/v1/teams/${team.id}/ledger`, {
      token: server.adminToken,
    });
    assert.equal(ledger.body.length, 1);
  });

  test('concurrent debits never overspend and the ledger always sums to the balance', async () => {
    const team = await createTeam(server, 100);
    // 40 debits of 7 against 100 credits: exactly 14 fit.
    const results = await Promise.all(Array.from({ length: 40 }, () => grant(team.id, -7)));
    const accepted = results.filter((r) => r.status === 201).length;
    const refused = results.filter((r) => r.status === 402).length;
    assert.equal(accepted, 14);
    assert.equal(refused, 26);

    // Mixed concurrent grants and debits.
    await Promise.all(Array.from({ length: 30 }, (_, i) => grant(team.id, i % 2 === 0 ? 11 : -5)));

    const balance = (await call<number>(server, 'GET', '/api/v1/billing/credits', { token: team.key })).body;
    const ledger = await call<Array<{ amount: number; balance_after: number }>>(
      server,
      'GET',
      `/admin/v1/teams/${team.id}/ledger?limit=500`,
      { token: server.adminToken },
    );
    const sum = ledger.body.reduce((total, e) => total + e.amount, 0);
    assert.equal(sum, balance);
    assert.ok(ledger.body.every((e) => e.balance_after >= 0));
    // Newest first: each entry's balance_after is the previous one plus its amount.
    const chronological = [...ledger.body].reverse();
    let running = 0;
    for (const e of chronological) {
      running += e.amount;
      assert.equal(e.balance_after, running);
    }
  });

  test('the ledger is append-only in the database itself', async () => {
    const team = await createTeam(server, 10);
    await assert.rejects(
      server.pool.query('update credit_ledger set amount = 1000 where team_id = $1', [team.id]),
      /append-only/,
    );
    await assert.rejects(server.pool.query('delete from credit_ledger where team_id = $1', [team.id]), /append-only/);
    await assert.rejects(server.pool.query('update teams set credits = -1 where id = $1', [team.id]), /check/);
  });
});
