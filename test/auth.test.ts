import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  call,
  concretePath,
  createTeam,
  sleep,
  startTestServer,
  type TeamFixture,
  type TestServer,
} from './helpers.ts';

const BAD_CREDENTIALS: Array<[string, Record<string, string>]> = [
  ['no Authorization header', {}],
  ['an empty bearer', { authorization: 'Bearer ' }],
  ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ['a malformed key', { authorization: 'Bearer not-a-key' }],
  ['an unknown key of the right shape', { authorization: `Bearer gms_${'A'.repeat(40)}` }],
];

describe('authentication', () => {
  let server: TestServer;
  let team: TeamFixture;
  let revoked: TeamFixture;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100);
    revoked = await createTeam(server, 100);
    const r = await call(server, 'DELETE', `/admin/v1/api-keys/${revoked.keyId}`, { token: server.adminToken });
    assert.equal(r.status, 204);
  });
  after(() => server.close());

  test('the route table has public and admin routes to sweep', () => {
    assert.ok(server.routes.filter((r) => r.auth === 'api-key').length >= 4);
    assert.ok(server.routes.filter((r) => r.auth === 'admin').length >= 10);
  });

  test('every /api route answers 401 without a valid key, with a revoked key and with the admin token', async () => {
    const apiRoutes = server.routes.filter((r) => r.url.startsWith('/api/'));
    for (const route of apiRoutes) {
      const path = concretePath(route.url);
      const credentials: Array<[string, Record<string, string>]> = [
        ...BAD_CREDENTIALS,
        ['a revoked key', { authorization: `Bearer ${revoked.key}` }],
        ['the admin token', { authorization: `Bearer ${server.adminToken}` }],
      ];
      for (const [label, headers] of credentials) {
        const r = await call<{ error: { code: string } }>(server, route.method, path, {
          headers,
          body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        });
        assert.equal(r.status, 401, `${route.method} ${route.url} with ${label}: ${r.text}`);
        assert.equal(r.body.error.code, 'unauthorized');
        assert.ok(r.headers.get('x-request-id'));
      }
    }
  });

  test('every /admin route answers 401 without the admin token and with an API key', async () => {
    const adminRoutes = server.routes.filter((r) => r.url.startsWith('/admin/'));
    // The admin token with its last character changed (never to itself: the token is random).
    const last = server.adminToken.slice(-1);
    const nearMiss = `${server.adminToken.slice(0, -1)}${last === 'x' ? 'y' : 'x'}`;
    assert.notEqual(nearMiss, server.adminToken);
    for (const route of adminRoutes) {
      const path = concretePath(route.url);
      for (const [label, headers] of [
        ...BAD_CREDENTIALS,
        ['a valid API key', { authorization: `Bearer ${team.key}` }],
        ['a near-miss admin token', { authorization: `Bearer ${nearMiss}` }],
      ] as Array<[string, Record<string, string>]>) {
        const r = await call<{ error: { code: string } }>(server, route.method, path, {
          headers,
          body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        });
        assert.equal(r.status, 401, `${route.method} ${route.url} with ${label}`);
        assert.equal(r.body.error.code, 'unauthorized');
      }
    }
  });

  test('a valid key is accepted, case-insensitive scheme included', async () => {
    const r = await call(server, 'GET', '/api/v1/billing/credits', {
      headers: { authorization: `bearer ${team.key}` },
    });
    assert.equal(r.status, 200);
    assert.equal(r.body, 100);
  });

  test('a revoked key stops working at once on this process and within one second on another', async () => {
    const victim = await createTeam(server, 5);
    const other = await startTestServer({ databaseUrl: server.databaseUrl, adminToken: server.adminToken });
    try {
      // Both processes have the key cached as valid.
      for (const s of [server, other]) {
        assert.equal((await call(s, 'GET', '/api/v1/billing/credits', { token: victim.key })).status, 200);
      }
      const r = await call(server, 'DELETE', `/admin/v1/api-keys/${victim.keyId}`, { token: server.adminToken });
      // The second counts from the answer: the key is revoked from the commit before it.
      const revokedAt = Date.now();
      assert.equal(r.status, 204);
      assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: victim.key })).status, 401);
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 3000) {
        status = (await call(other, 'GET', '/api/v1/billing/credits', { token: victim.key })).status;
        if (status === 200) await sleep(50);
      }
      const elapsed = Date.now() - revokedAt;
      assert.equal(status, 401);
      assert.ok(elapsed <= 1000, `the other process still accepted the key after ${elapsed} ms`);
    } finally {
      await other.close();
    }
  });

  test('a verified key is trusted past AUTH_CACHE_TTL_MS while revocations are heard (heartbeats prove it), and no longer once the listening connection is lost', async () => {
    const other = await startTestServer({
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      worker: false,
      env: { AUTH_CACHE_TTL_MS: '100', AUTH_KEY_TRUST_MS: '60000' },
    });
    const team = await createTeam(server, 7);
    const credits = () => call(other, 'GET', '/api/v1/billing/credits', { token: team.key });
    const { rows } = await server.pool.query<{ key_hash: Buffer }>('select key_hash from api_keys where id = $1', [
      team.keyId,
    ]);
    const hash = rows[0]?.key_hash;
    assert.ok(hash);
    try {
      assert.equal((await credits()).status, 200);
      // The database no longer knows the key by its hash (not a revocation: nothing is announced),
      // so only a process that trusts its verification still takes it.
      await server.pool.query(`update api_keys set key_hash = sha256(key_hash) where id = $1`, [team.keyId]);
      await sleep(300);
      assert.equal((await credits()).status, 200, 'trusted past AUTH_CACHE_TTL_MS');
      // Past two heartbeats and a second (5 s): the listening connection is proven alive meanwhile
      // (its heartbeat notices come back), so the trust holds.
      await sleep(5500);
      assert.equal((await credits()).status, 200, 'trusted while heartbeats are heard');
      // Its listening connection lost, the process cannot know what was revoked meanwhile: the key
      // is looked up again (and refused) once its verification is older than AUTH_CACHE_TTL_MS.
      const ended = await server.pool.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = 'genmedia-api-key-revocations' and datname = current_database()`,
      );
      assert.ok((ended.rowCount ?? 0) >= 2, 'both processes listen');
      let status = 200;
      const lostAt = Date.now();
      while (status === 200 && Date.now() - lostAt < 5000) {
        status = (await credits()).status;
        if (status === 200) await sleep(20);
      }
      assert.equal(status, 401);
    } finally {
      await server.pool.query('update api_keys set key_hash = $2 where id = $1', [team.keyId, hash]);
      await other.close();
    }
  });

  test('a key revoked with SQL, not through the API, stops working on every process as it is announced', async () => {
    const team = await createTeam(server, 3);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status, 200);
    const revokedAt = Date.now();
    await server.pool.query('update api_keys set revoked_at = now() where id = $1', [team.keyId]);
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 5000) {
      status = (await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status;
      if (status === 200) await sleep(20);
    }
    assert.equal(status, 401);
    // Heard, not expired: the server trusts a verified key for AUTH_KEY_TRUST_MS (60 s by default).
    assert.ok(Date.now() - revokedAt < 2000, `still accepted ${Date.now() - revokedAt} ms after`);
  });

  test('revoking twice is harmless and an unknown key id is 404', async () => {
    const again = await call(server, 'DELETE', `/admin/v1/api-keys/${revoked.keyId}`, { token: server.adminToken });
    assert.equal(again.status, 204);
    const missing = await call<{ error: { code: string } }>(server, 'DELETE', '/admin/v1/api-keys/key_nope', {
      token: server.adminToken,
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('the key list shows prefixes and revocation but never the key or its hash', async () => {
    const r = await call<Array<Record<string, unknown>>>(server, 'GET', `/admin/v1/teams/${revoked.id}/api-keys`, {
      token: server.adminToken,
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 1);
    const [key] = r.body;
    assert.equal(key?.id, revoked.keyId);
    assert.equal(key?.prefix, revoked.key.slice(0, 12));
    assert.ok(typeof key?.revoked_at === 'string');
    assert.ok(!r.text.includes(revoked.key));
    assert.deepEqual(Object.keys(key ?? {}).sort(), ['created_at', 'id', 'name', 'prefix', 'revoked_at', 'team_id']);
  });
});
