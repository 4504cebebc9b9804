// An asynchronous request's items are run at once by the worker of the process that accepted them:
// claimed in the transaction that accepts them (no job to be picked up) while that worker has room,
// queued as jobs otherwise; a process killed mid-run leaves an item whose lease lapses, which the
// recovery sweep queues again for another process to finish, charged once. Real service processes
// (`node src/server.ts`, ROLE=all) on one database, with the simulator.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServiceProcess, startServiceProcess } from './chaos/service.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer, whenGeneration } from './helpers.ts';

interface ItemRow {
  status: string;
  in_request: boolean;
  attempts: number;
  /** The item was claimed in the transaction that accepted its generation. */
  claimed_at_accept: boolean;
  url: string | null;
}

describe("an asynchronous request's items run at once in the process that accepted them", () => {
  let server: TestServer;
  let team: TeamFixture;
  const processes: ServiceProcess[] = [];
  const start = async (env: Record<string, string>) => {
    const service = await startServiceProcess({
      role: 'all',
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      dataDir: server.dataDir,
      env,
    });
    processes.push(service);
    await service.ready();
    return service;
  };

  before(async () => {
    // No worker here: whatever runs an item, or sweeps, is one of the processes started below.
    server = await startTestServer({ worker: false });
    team = await createTeam(server, 1_000_000);
  });
  after(async () => {
    for (const service of processes) await service.kill();
    await server.close();
  });

  const generate = async (service: ServiceProcess, prompt: string) => {
    const answer = await call<{ generation_id: string }>(service, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt },
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.generation_id;
  };
  const item = async (generationId: string): Promise<ItemRow> => {
    const { rows } = await server.pool.query<ItemRow>(
      `select i.status, i.in_request, i.attempts, i.started_at = g.created_at as claimed_at_accept, i.url
       from generation_items i join generations g on g.id = i.generation_id where g.id = $1`,
      [generationId],
    );
    assert.equal(rows.length, 1);
    return rows[0] as ItemRow;
  };
  const completed = (generationId: string) =>
    whenGeneration(server.databaseUrl, generationId, async () => {
      const row = await item(generationId);
      assert.notEqual(row.status, 'FAILED', JSON.stringify(row));
      return row.status === 'COMPLETED' ? row : undefined;
    });
  const ledger = async (generationId: string) => {
    const { rows } = await server.pool.query<{ kind: string }>(
      'select kind from credit_ledger where generation_id = $1 order by id',
      [generationId],
    );
    return rows.map((r) => r.kind);
  };

  test('with room in its worker, an item is claimed as it is accepted, and run and charged once', async () => {
    const all = await start({});
    const generationId = await generate(all, 'a lighthouse at dawn');
    const row = await completed(generationId);
    assert.equal(row.claimed_at_accept, true, 'claimed in the accepting transaction');
    assert.equal(row.in_request, false);
    assert.equal(row.attempts, 1);
    assert.deepEqual(await ledger(generationId), ['charge']);
    const file = await fetch(row.url as string);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    await all.kill();
  });

  test('with no room in its worker, an item is queued as a job instead', async () => {
    // One slot, held by the first item (its rendering waits 2 s) while the second is accepted.
    const all = await start({ WORKER_CONCURRENCY: '1', SIMULATOR_DELAY_MS: '2000' });
    const first = await generate(all, 'a lighthouse at noon');
    const second = await generate(all, 'a lighthouse at dusk');
    const [a, b] = await Promise.all([completed(first), completed(second)]);
    assert.equal(a.claimed_at_accept, true, 'the first was claimed at accept');
    assert.equal(b.claimed_at_accept, false, 'the second was claimed later, by its job');
    assert.deepEqual(await ledger(first), ['charge']);
    assert.deepEqual(await ledger(second), ['charge']);
    await all.kill();
  });

  test('killed mid-run, its item is queued again by the sweep of another process and finished once', async () => {
    // Its rendering waits a minute: it is still running when its process is killed.
    const first = await start({ SIMULATOR_DELAY_MS: '60000', ITEM_LEASE_MS: '1000' });
    const generationId = await generate(first, 'a lighthouse at night');
    const running = await item(generationId);
    assert.equal(running.status, 'PROCESSING');
    assert.equal(running.claimed_at_accept, true);
    await first.kill();

    // Another process, whose sweep judges leases after one lease and looks every 100 ms.
    const other = await start({ ITEM_LEASE_MS: '1000', SWEEP_INTERVAL_MS: '100' });
    const row = await completed(generationId);
    assert.equal(row.attempts, 2, 'claimed again once');
    assert.deepEqual(await ledger(generationId), ['charge'], 'charged once, nothing refunded');
    const status = await call<{ status: string; result_urls: string[] }>(
      other,
      'GET',
      `/api/v1/generations/${generationId}/status`,
      { token: team.key },
    );
    assert.equal(status.body.status, 'completed');
    assert.equal((await fetch(status.body.result_urls[0] as string)).status, 200);
    await other.kill();
  });
});
