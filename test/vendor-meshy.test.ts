// 3D on Meshy's own API through the whole service: a fake Meshy (test/fakes/meshy.ts) on 127.0.0.1,
// selected with MESHY_BASE_URL. A full model is a preview task then a refine task, chained in polls;
// a worker killed between starting the refine and recording it must not pay for a second one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NodeIO } from '@gltf-transform/core';
import { type ServiceProcess, startServiceProcess } from './chaos/service.ts';
import { type FakeMeshy, startFakeMeshy } from './fakes/meshy.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

describe('3D on Meshy', () => {
  let meshy: FakeMeshy;
  let server: TestServer;
  let team: TeamFixture;
  const workers: ServiceProcess[] = [];

  before(async () => {
    meshy = await startFakeMeshy();
    server = await startTestServer({
      worker: false,
      env: { MESHY_API_KEY: meshy.apiKey, MESHY_BASE_URL: meshy.url },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    for (const w of workers.splice(0)) await w.kill();
    await server.close();
    await meshy.close();
  });

  const startWorker = async () => {
    const worker = await startServiceProcess({
      role: 'worker',
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      dataDir: server.dataDir,
      env: {
        WORKER_DEAD_AFTER_MS: '1000',
        // Result URLs are the API's, as behind a load balancer.
        PUBLIC_BASE_URL: server.url,
        MESHY_API_KEY: meshy.apiKey,
        MESHY_BASE_URL: meshy.url,
        VENDOR_POLL_MIN_MS: '100',
        VENDOR_POLL_MAX_MS: '1000',
      },
    });
    workers.push(worker);
    await worker.ready();
    return worker;
  };

  const refines = () => meshy.posts.filter((p) => p.body.mode === 'refine').length;

  test('a full model: preview, then one refine, the GLB copied in; a worker killed mid-chain pays for no second refine', async () => {
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/models-3d/generate', {
      token: team.key,
      body: {
        prompt: 'a brass lantern [meshy:refine-unanswered]',
        model: 'meshy-5',
        settings: { mode: 'full', topology: 'quad', target_polycount: 20_000, enable_pbr: true },
      },
    });
    assert.equal(created.status, 200, created.text);
    const first = await startWorker();
    // The worker has sent the refine and waits for an answer that never comes: it dies there.
    for (const deadline = Date.now() + 30_000; refines() < 1; await sleep(50)) {
      if (Date.now() > deadline) assert.fail('the refine was never sent');
    }
    await first.kill();
    await startWorker();
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 60_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    assert.equal(refines(), 1, 'the refine the dead worker started was found again, not sent twice');
    const preview = meshy.posts.find((p) => p.body.mode === 'preview');
    assert.equal(preview?.body.ai_model, 'meshy-5');
    assert.equal(preview?.body.topology, 'quad');
    assert.equal(preview?.body.target_polycount, 20_000);
    assert.equal(meshy.posts.find((p) => p.body.mode === 'refine')?.body.enable_pbr, true);
    const file = await fetch(done.items[0]?.url ?? '');
    assert.equal(file.headers.get('content-type'), 'model/gltf-binary');
    const doc = await new NodeIO().readBinary(new Uint8Array(await file.arrayBuffer()));
    assert.ok(doc.getRoot().listMeshes().length > 0);
    assert.equal(await balanceOf(server, team.key), before - done.credits_used);
  });
});
