import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TeamRateLimiter } from '../src/lib/rate-limiter.ts';
import { call, createTeam, type Reply, sleep, startTestServer, type TestServer } from './helpers.ts';
import type { ErrorReply } from './media-helpers.ts';

function assertLimited(r: Reply, limit: RegExp): void {
  assert.equal(r.status, 429, r.text);
  const body = r.body as ErrorReply;
  assert.equal(body.error.code, 'rate_limited');
  assert.match(body.error.message, limit);
  const retryAfter = Number(r.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${r.headers.get('retry-after')}`);
  assert.ok(r.headers.get('x-request-id'));
}

describe('rate limits', () => {
  let server: TestServer;
  before(async () => {
    // 60 requests a minute: a burst of 10, then one a second. 12 writes a minute: a burst of 2.
    server = await startTestServer({
      worker: false,
      env: { RATE_LIMIT_PER_MINUTE: '60', RATE_LIMIT_WRITES_PER_MINUTE: '12' },
    });
  });
  after(() => server.close());

  test('a team gets its burst, then 429 rate_limited with Retry-After; other teams are not affected', async () => {
    const busy = await createTeam(server, 0, 'busy');
    const quiet = await createTeam(server, 0, 'quiet');
    const second = await call<{ key: string }>(server, 'POST', `/admin/v1/teams/${busy.id}/api-keys`, {
      token: server.adminToken,
      body: { name: 'second' },
    });
    for (let i = 0; i < 10; i += 1) {
      assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: busy.key })).status, 200, `#${i}`);
    }
    const refused = await call(server, 'GET', '/api/v1/billing/credits', { token: busy.key });
    assertLimited(refused, /60 API requests per minute/);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: quiet.key })).status, 200);
    // Every key of a team shares the team's bucket.
    assert.equal((await call(server, 'GET', '/api/v1/workspaces', { token: second.body.key })).status, 429);
    // The bucket refills at the steady rate: after Retry-After seconds a request passes again.
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: busy.key })).status, 200);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: busy.key })).status, 429);
  });

  test('writes have their own, smaller limit; a refused write writes and charges nothing', async () => {
    const team = await createTeam(server, 1000, 'writer');
    for (const name of ['one', 'two']) {
      assert.equal((await call(server, 'POST', '/api/v1/workspaces', { token: team.key, body: { name } })).status, 201);
    }
    assertLimited(
      await call(server, 'POST', '/api/v1/workspaces', { token: team.key, body: { name: 'three' } }),
      /12 write requests \(POST, PUT, PATCH, DELETE\) per minute/,
    );
    const generate = await call(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dusk', model: 'flux-1-schnell' },
    });
    assertLimited(generate, /write requests/);
    // Reads still pass while writes wait.
    const workspaces = await call<Array<{ name: string }>>(server, 'GET', '/api/v1/workspaces', { token: team.key });
    assert.equal(workspaces.status, 200);
    assert.deepEqual(workspaces.body.map((w) => w.name).sort(), ['one', 'two']);
    const read = await call<{ credits: number }>(server, 'GET', `/admin/v1/teams/${team.id}`, {
      token: server.adminToken,
    });
    assert.equal(read.body.credits, 1000, 'nothing was charged');
  });

  test('the key is checked first, and the admin API and health checks are not limited', async () => {
    const team = await createTeam(server, 0, 'drained');
    for (let i = 0; i < 10; i += 1) await call(server, 'GET', '/api/v1/billing/credits', { token: team.key });
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status, 429);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: 'gm_not_a_key' })).status, 401);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits')).status, 401);
    for (let i = 0; i < 30; i += 1) {
      assert.equal((await call(server, 'GET', `/admin/v1/teams/${team.id}`, { token: server.adminToken })).status, 200);
      assert.equal((await call(server, 'GET', '/healthz')).status, 200);
    }
  });

  test('concurrent requests never pass more than the burst', async () => {
    const team = await createTeam(server, 0, 'crowd');
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from(
        { length: 40 },
        async () => (await call(server, 'GET', '/api/v1/workspaces', { token: team.key })).status,
      ),
    );
    // The burst is 10, plus what refilled (one a second) while the 40 were answered.
    const refilled = Math.floor((performance.now() - started) / 1000);
    const passed = statuses.filter((s) => s === 200).length;
    assert.ok(passed >= 10 && passed <= 10 + refilled, `${passed} passed in ${refilled} s`);
    assert.equal(statuses.filter((s) => s === 429).length, 40 - passed);
  });
});

describe('TeamRateLimiter', () => {
  test('refills at the steady rate up to the burst, and says how long to wait', () => {
    const limiter = new TeamRateLimiter({ requestsPerMinute: 600, writesPerMinute: 0 });
    // 600 a minute: 10 a second, a burst of 100.
    for (let i = 0; i < 100; i += 1) assert.equal(limiter.take('t', 'GET', 0), undefined);
    assert.deepEqual(limiter.take('t', 'GET', 0), { limit: 'requests', perMinute: 600, retryAfterSeconds: 1 });
    assert.equal(limiter.take('t', 'GET', 100), undefined, 'one token back after 100 ms');
    assert.ok(limiter.take('t', 'GET', 150));
    // An hour idle refills to the burst, not beyond.
    for (let i = 0; i < 100; i += 1) assert.equal(limiter.take('t', 'GET', 3_600_000), undefined);
    assert.ok(limiter.take('t', 'GET', 3_600_000));
    // Writes off (0): POSTs count only as requests.
    assert.equal(limiter.take('u', 'POST', 0), undefined);
  });

  test('a slow limit asks for a long wait; a refused request takes no token', () => {
    const limiter = new TeamRateLimiter({ requestsPerMinute: 0, writesPerMinute: 1 });
    assert.equal(limiter.take('t', 'POST', 0), undefined);
    assert.deepEqual(limiter.take('t', 'DELETE', 0), { limit: 'writes', perMinute: 1, retryAfterSeconds: 60 });
    assert.deepEqual(limiter.take('t', 'PUT', 30_000), { limit: 'writes', perMinute: 1, retryAfterSeconds: 30 });
    assert.equal(limiter.take('t', 'GET', 30_000), undefined, 'reads are not writes; requests are off');
    assert.equal(limiter.take('t', 'PATCH', 60_000), undefined);
  });

  test('both limits off lets everything through', () => {
    const limiter = new TeamRateLimiter({ requestsPerMinute: 0, writesPerMinute: 0 });
    for (let i = 0; i < 10_000; i += 1) assert.equal(limiter.take('t', 'POST', 0), undefined);
  });
});
