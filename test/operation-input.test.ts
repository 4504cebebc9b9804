import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

describe('the stored request of an item', () => {
  let api: TestServer;
  let team: TeamFixture;

  before(async () => {
    // No worker here: the generation waits while its stored request is changed under it.
    api = await startTestServer({ worker: false });
    team = await createTeam(api, 1000);
  });
  after(async () => {
    await api.close();
  });

  test('one its operation cannot read fails the item with the reason, refunded, and the worker runs on', async () => {
    const created = await call<{ generation_id: string }>(api, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse', batch: 2 },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.generation_id;
    const charged = await balanceOf(api, team.key);
    assert.ok(charged < 1000);
    await api.pool.query(`update generations set input = jsonb_set(input, '{prompt}', '3') where id = $1`, [id]);

    const worker = await startTestServer({ databaseUrl: api.databaseUrl, adminToken: api.adminToken });
    try {
      const status = await waitForGeneration(worker, team.key, id);
      assert.equal(status.status, 'failed');
      assert.equal(status.failed_items, 2);
      for (const item of status.items) {
        assert.match(
          item.error ?? '',
          /does not match operation image\.generate \(at \/prompt: .+\); its credits were refunded/,
        );
      }
      assert.equal(await balanceOf(worker, team.key), 1000);

      // The worker is not harmed by it: the next request is made as usual.
      const next = await call<{ generation_id: string }>(worker, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt: 'a lighthouse' },
      });
      assert.equal(next.status, 200, next.text);
      assert.equal((await waitForGeneration(worker, team.key, next.body.generation_id)).status, 'completed');
    } finally {
      await worker.close();
    }
  });
});
