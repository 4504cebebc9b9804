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
      const revokedAt = Date.now();
      const r = await call(server, 'DELETE', `/admin/v1/api-keys/${victim.keyId}`, { token: server.adminToken });
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
