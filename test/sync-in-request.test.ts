// Synchronous requests run their item in the API process that took them: no job is queued, and an
// API process killed mid-call leaves an item whose lease lapses, which the recovery sweep of
// another process fails and refunds exactly once. Real service processes (`node src/server.ts`)
// in front of a fake OpenAI-compatible server that holds the call until the test lets it go.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServiceProcess, startServiceProcess } from './chaos/service.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer, whenGeneration } from './helpers.ts';
import { balanceOf } from './media-helpers.ts';

const MODEL = 'openai/gpt-4o-mini';

describe('a synchronous request runs its item in the API process that took it', () => {
  let chat: FakeOpenAiCompatible;
  let server: TestServer;
  let team: TeamFixture;
  const processes: ServiceProcess[] = [];
  const vendorEnv = () => chat.env({ [MODEL]: 'llama3.2:3b' });
  const start = async (role: 'api' | 'all', env: Record<string, string>) => {
    const service = await startServiceProcess({
      role,
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      dataDir: server.dataDir,
      env: { ...vendorEnv(), ...env },
    });
    processes.push(service);
    await service.ready();
    return service;
  };

  before(async () => {
    chat = await startFakeOpenAiCompatible({ apiKey: 'sk-local-1' });
    // No worker here: whatever runs an item, or sweeps, is one of the processes started below.
    server = await startTestServer({ worker: false, env: vendorEnv() });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    chat.release();
    for (const service of processes) await service.kill();
    await server.close();
    await chat.close();
  });

  const body = (prompt: string) => ({ prompt, model: MODEL, settings: { max_tokens: 200 } });
  const ledger = async (generationId: string) => {
    const { rows } = await server.pool.query<{ kind: string; amount: number }>(
      'select kind, amount from credit_ledger where generation_id = $1 order by id',
      [generationId],
    );
    return rows.map((r) => [r.kind, r.amount] as const);
  };
  const jobs = async () => {
    const { rows } = await server.pool.query<{ n: number }>(
      'select count(*)::int as n from graphile_worker._private_jobs',
    );
    return rows[0]?.n;
  };

  test('it answers with no graphile-worker job queued, and its item is marked as run in the request', async () => {
    const api = await start('api', {});
    const answer = await call<{ generation_id: string; text: string }>(api, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: body('Name a colour.'),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.text, chat.answers.at(-1)?.text);
    // No worker runs here: a job added for the item would still be in the table.
    assert.equal(await jobs(), 0, 'no job was queued');
    const { rows } = await server.pool.query<{ status: string; in_request: boolean; attempts: number }>(
      'select status, in_request, attempts from generation_items where generation_id = $1',
      [answer.body.generation_id],
    );
    assert.deepEqual(rows, [{ status: 'COMPLETED', in_request: true, attempts: 1 }]);
    const entries = await ledger(answer.body.generation_id);
    assert.equal(entries[0]?.[0], 'charge');
    await api.kill();
  });

  test('killed mid-call, its item is failed and refunded once by the sweep of another process', async () => {
    const balance = await balanceOf(server, team.key);
    // A short lease (renewed at a third of it while the call lasts): the sweep finds it soon.
    const api = await start('api', { ITEM_LEASE_MS: '1000' });
    const request = call(api, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: body('[oai:held] Wait for me.'),
    }).catch(() => undefined);
    await chat.untilHeld(1);
    const { rows } = await server.pool.query<{ generation_id: string; status: string }>(
      `select i.generation_id, i.status from generation_items i join generations g on g.id = i.generation_id
       where g.team_id = $1 and i.status = 'PROCESSING'`,
      [team.id],
    );
    assert.equal(rows.length, 1, 'one item runs');
    const generationId = rows[0]?.generation_id as string;
    assert.ok(balance > (await balanceOf(server, team.key)), 'charged');
    await api.kill();
    await request;
    assert.equal(await jobs(), 0, 'no job was queued for it');

    // Another process, whose sweep judges leases after one lease and looks every 100 ms.
    const other = await start('all', { ITEM_LEASE_MS: '1000', SWEEP_INTERVAL_MS: '100' });
    const readyAt = Date.now();
    const failed = await whenGeneration(server.databaseUrl, generationId, async () => {
      const { rows } = await server.pool.query<{ status: string; error: string; error_kind: string }>(
        'select status, error, error_kind from generation_items where generation_id = $1',
        [generationId],
      );
      return rows[0]?.status === 'FAILED' ? rows[0] : undefined;
    });
    const took = Date.now() - readyAt;
    assert.equal(failed.error_kind, 'interrupted');
    assert.match(failed.error, /stopped before it finished/);
    // The lease (1 s), a lease of reachability before judging (1 s), a sweep: well under 10 s.
    assert.ok(took < 10_000, `failed ${took} ms after the other process started`);
    const entries = await ledger(generationId);
    assert.equal(entries.length, 2, JSON.stringify(entries));
    assert.equal(entries[0]?.[0], 'charge');
    assert.deepEqual(entries[1], ['refund', -(entries[0]?.[1] ?? 0)]);
    assert.equal(await balanceOf(server, team.key), balance, 'refunded in full');
    const status = await call<{ status: string; credits_refunded: number }>(
      server,
      'GET',
      `/api/v1/generations/${generationId}/status`,
      { token: team.key },
    );
    assert.equal(status.body.status, 'failed');
    // The answer the vendor gives now is not wanted: the item stays failed, refunded once.
    chat.release();
    assert.equal(await jobs(), 0);
    assert.equal((await ledger(generationId)).length, 2);
    await other.kill();
  });
});
