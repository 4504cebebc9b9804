import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { AuthFailureThrottle, addressKey } from '../src/lib/rate-limiter.ts';
import { call, createTeam, type Reply, sleep, startTestServer, type TestServer } from './helpers.ts';
import type { ErrorReply } from './media-helpers.ts';

/** A key of the right shape that no team holds. */
const wrongKey = () => `gms_${randomBytes(30).toString('base64url')}`;

let addresses = 0;
/** A client address of its own (documentation range), named through the trusted proxy. */
const newAddress = () => {
  addresses += 1;
  return `203.0.113.${addresses}`;
};
const from = (address: string) => ({ 'x-forwarded-for': address });

const CREDITS = '/api/v1/billing/credits';

function assertThrottled(r: Reply): number {
  assert.equal(r.status, 429, r.text);
  const body = r.body as ErrorReply;
  assert.equal(body.error.code, 'rate_limited');
  assert.match(body.error.message, /Too many failed authentication attempts from this address/);
  const retryAfter = Number(r.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${r.headers.get('retry-after')}`);
  assert.ok(r.headers.get('x-request-id'));
  return retryAfter;
}

/** Spends the address's whole burst (3) on wrong keys, each answered 401. */
async function exhaust(server: TestServer, address: string): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    const r = await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(address) });
    assert.equal(r.status, 401, `wrong key #${i}: ${r.text}`);
  }
}

/** Whether `pending` settles within `ms`. */
async function settlesWithin(pending: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([pending.then(() => true), sleep(ms).then(() => false)]);
}

/**
 * Holds an exclusive lock on the key table while `fn` runs: every key lookup waits for it, so a
 * request answered meanwhile was answered without one.
 */
async function withKeysLocked<T>(server: TestServer, fn: () => Promise<T>): Promise<T> {
  const client: pg.PoolClient = await server.pool.connect();
  try {
    await client.query('begin');
    await client.query('lock table api_keys in access exclusive mode');
    return await fn();
  } finally {
    await client.query('rollback');
    client.release();
  }
}

describe('failed authentications per client address', () => {
  let server: TestServer;
  before(async () => {
    // 30 failures a minute (one token every 2 s) after a burst of 3; X-Forwarded-For names the
    // client, so each test is its own address.
    server = await startTestServer({
      worker: false,
      env: {
        AUTH_FAILURES_PER_MINUTE: '30',
        AUTH_FAILURES_BURST: '3',
        TRUST_PROXY: '127.0.0.1',
        AUTH_CACHE_TTL_MS: '1000',
        // A verified key is trusted for AUTH_CACHE_TTL_MS only (not longer while revocations are heard).
        AUTH_KEY_TRUST_MS: '0',
      },
    });
  });
  after(() => server.close());

  test('a burst of wrong keys, then 429 before the key is looked up; another address is unaffected', async () => {
    const attacker = newAddress();
    const neighbour = newAddress();
    const team = await createTeam(server, 7);
    await exhaust(server, attacker);
    assertThrottled(await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(attacker) }));
    // A valid key this process has never seen is refused too: it is not even looked up.
    assertThrottled(await call(server, 'GET', CREDITS, { token: team.key, headers: from(attacker) }));
    const fine = await call(server, 'GET', CREDITS, { token: team.key, headers: from(neighbour) });
    assert.equal(fine.status, 200);
    assert.equal(fine.body, 7);
    // A wrong key from the other address is still checked and answered 401.
    assert.equal((await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(neighbour) })).status, 401);
  });

  test('a throttled address is answered without asking the database', async () => {
    const attacker = newAddress();
    await exhaust(server, attacker);
    const { checked } = await withKeysLocked(server, async () => {
      const refused = call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(attacker) });
      assert.ok(await settlesWithin(refused, 2000), 'the throttled request waited for the key table');
      assertThrottled(await refused);
      // The same request from an address with attempts left waits for its lookup.
      const lookedUp = call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(newAddress()) });
      assert.equal(await settlesWithin(lookedUp, 500), false, 'a new key was refused without a lookup');
      return { checked: lookedUp };
    });
    assert.equal((await checked).status, 401);
  });

  test('a wrong key sent again is refused without asking the database again', async () => {
    const key = wrongKey();
    assert.equal((await call(server, 'GET', CREDITS, { token: key, headers: from(newAddress()) })).status, 401);
    await withKeysLocked(server, async () => {
      const again = call(server, 'GET', CREDITS, { token: key, headers: from(newAddress()) });
      assert.ok(await settlesWithin(again, 2000), 'the known wrong key was looked up again');
      const r = await again;
      assert.equal(r.status, 401);
      assert.equal((r.body as ErrorReply).error.code, 'unauthorized');
    });
  });

  test('after Retry-After seconds one more attempt is checked', async () => {
    const address = newAddress();
    const team = await createTeam(server, 3);
    await exhaust(server, address);
    const wait = assertThrottled(await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(address) }));
    assert.equal(wait, 2, 'one token comes back every 2 s at 30 a minute');
    await sleep(wait * 1000 + 50);
    // A valid key costs nothing; the next wrong one takes the token that came back.
    assert.equal((await call(server, 'GET', CREDITS, { token: team.key, headers: from(address) })).status, 200);
    assert.equal((await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(address) })).status, 401);
    assertThrottled(await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(address) }));
  });

  test('wrong admin tokens are throttled the same way, and count against API keys too', async () => {
    const address = newAddress();
    const team = await createTeam(server, 1);
    const nearMiss = `${server.adminToken}x`;
    for (let i = 0; i < 3; i += 1) {
      const r = await call(server, 'GET', '/admin/v1/teams', { token: nearMiss, headers: from(address) });
      assert.equal(r.status, 401, r.text);
    }
    assertThrottled(await call(server, 'GET', '/admin/v1/teams', { token: nearMiss, headers: from(address) }));
    // The right token is not compared either while the address waits, and API keys share the bucket.
    assertThrottled(await call(server, 'GET', '/admin/v1/teams', { token: server.adminToken, headers: from(address) }));
    assertThrottled(await call(server, 'GET', CREDITS, { token: team.key, headers: from(address) }));
    const other = await call(server, 'GET', '/admin/v1/teams', {
      token: server.adminToken,
      headers: from(newAddress()),
    });
    assert.equal(other.status, 200);
  });

  test('a key verified moments ago still passes while its address is throttled', async () => {
    const address = newAddress();
    const team = await createTeam(server, 5);
    assert.equal((await call(server, 'GET', CREDITS, { token: team.key, headers: from(address) })).status, 200);
    await exhaust(server, address);
    assertThrottled(await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(address) }));
    const cached = await call(server, 'GET', CREDITS, { token: team.key, headers: from(address) });
    assert.equal(cached.status, 200);
    assert.equal(cached.body, 5);
    // Once the verification is older than AUTH_CACHE_TTL_MS (1 s) the key needs a lookup again,
    // and the address (about half a token back) is still refused.
    await sleep(1100);
    assertThrottled(await call(server, 'GET', CREDITS, { token: team.key, headers: from(address) }));
  });

  test('requests without a credential are neither counted nor refused 429', async () => {
    const address = newAddress();
    for (let i = 0; i < 10; i += 1) {
      const r = await call(server, 'GET', CREDITS, { headers: from(address) });
      assert.equal(r.status, 401);
      const admin = await call(server, 'GET', '/admin/v1/teams', { headers: from(address) });
      assert.equal(admin.status, 401);
    }
    await exhaust(server, address);
    assertThrottled(await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(address) }));
    assert.equal((await call(server, 'GET', CREDITS, { headers: from(address) })).status, 401);
  });
});

describe('failed authentications without a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      worker: false,
      env: { AUTH_FAILURES_PER_MINUTE: '30', AUTH_FAILURES_BURST: '3' },
    });
  });
  after(() => server.close());

  test('X-Forwarded-For does not give a client a fresh address', async () => {
    for (let i = 0; i < 3; i += 1) {
      const r = await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(newAddress()) });
      assert.equal(r.status, 401);
    }
    assertThrottled(await call(server, 'GET', CREDITS, { token: wrongKey(), headers: from(newAddress()) }));
  });
});

describe('AuthFailureThrottle', () => {
  test('a burst of failures, then refusals that say how long to wait; refills at the steady rate', () => {
    // 60 a minute: one a second, after a burst of 5.
    const throttle = new AuthFailureThrottle({ perMinute: 60, burst: 5 });
    for (let i = 0; i < 5; i += 1) {
      assert.equal(throttle.check('192.0.2.1', 0), undefined, `attempt #${i}`);
      throttle.fail('192.0.2.1', 0);
    }
    assert.deepEqual(throttle.check('192.0.2.1', 0), { limit: 'failed-auth', perMinute: 60, retryAfterSeconds: 1 });
    assert.equal(throttle.check('192.0.2.2', 0), undefined, 'another address');
    assert.ok(throttle.check('192.0.2.1', 900));
    assert.equal(throttle.check('192.0.2.1', 1000), undefined, 'a token back after one second');
    // An hour idle refills to the burst, not beyond.
    for (let i = 0; i < 5; i += 1) throttle.fail('192.0.2.1', 3_600_000);
    assert.ok(throttle.check('192.0.2.1', 3_600_000));
  });

  test('failures checked at once all count: the debt lengthens the wait', () => {
    const throttle = new AuthFailureThrottle({ perMinute: 60, burst: 2 });
    // Ten attempts passed the check together; all ten failed.
    for (let i = 0; i < 10; i += 1) throttle.fail('192.0.2.1', 0);
    assert.deepEqual(throttle.check('192.0.2.1', 0), { limit: 'failed-auth', perMinute: 60, retryAfterSeconds: 9 });
    assert.ok(throttle.check('192.0.2.1', 8_500));
    assert.equal(throttle.check('192.0.2.1', 9_000), undefined);
  });

  test('0 a minute turns it off', () => {
    const throttle = new AuthFailureThrottle({ perMinute: 0, burst: 1 });
    for (let i = 0; i < 1000; i += 1) throttle.fail('192.0.2.1', 0);
    assert.equal(throttle.check('192.0.2.1', 0), undefined);
  });

  test('remembers at most maxAddresses addresses, forgetting the oldest first', () => {
    const throttle = new AuthFailureThrottle({ perMinute: 1, burst: 1, maxAddresses: 10 });
    const address = (i: number) => `198.51.100.${i}`;
    for (let i = 0; i < 10; i += 1) throttle.fail(address(i), 0);
    for (let i = 0; i < 10; i += 1) assert.ok(throttle.check(address(i), 0), `address ${i} is throttled`);
    // An eleventh address makes room: the oldest tenth is forgotten, the rest are kept.
    throttle.fail(address(10), 0);
    assert.equal(throttle.check(address(0), 0), undefined, 'the oldest address was forgotten');
    for (let i = 1; i <= 10; i += 1) assert.ok(throttle.check(address(i), 0), `address ${i} is still throttled`);
  });

  test('full buckets are dropped before busy ones when room is needed', () => {
    // One token every 10 s.
    const throttle = new AuthFailureThrottle({ perMinute: 6, burst: 1, maxAddresses: 10 });
    const address = (i: number) => `198.51.100.${i}`;
    for (let i = 0; i < 3; i += 1) throttle.fail(address(0), 0);
    throttle.fail(address(1), 0);
    for (let i = 2; i < 10; i += 1) throttle.fail(address(i), 10_000);
    // At 12 s address 1 is full again (the same as no bucket): dropping it makes room, so the
    // oldest, address 0, still in debt, is kept.
    throttle.fail(address(10), 12_000);
    for (const i of [0, ...Array.from({ length: 9 }, (_, j) => j + 2)]) {
      assert.ok(throttle.check(address(i), 12_000), `address ${i} is still throttled`);
    }
  });

  test('IPv6 clients are counted by their /64, IPv4 ones by their address', () => {
    assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('2001:db8:1:2::1.2.3.4'), '2001:db8:1:2::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    assert.notEqual(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'));
    const throttle = new AuthFailureThrottle({ perMinute: 1, burst: 1 });
    throttle.fail('2001:db8:1:2::1', 0);
    assert.ok(throttle.check('2001:db8:1:2::ffff', 0), 'the same /64');
    assert.equal(throttle.check('2001:db8:1:3::1', 0), undefined, 'another /64');
  });

  test('TRUST_PROXY takes addresses, ranges and range names, and refuses anything else', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,2001:db8::1' }).trustProxy, [
      '10.0.0.0/8',
      'loopback',
      '2001:db8::1',
    ]);
    assert.throws(() => loadConfig({ TRUST_PROXY: 'true' }), /TRUST_PROXY: 'true' is not an address/);
    assert.throws(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }), /TRUST_PROXY/);
    assert.throws(() => loadConfig({ TRUST_PROXY: '2' }), /TRUST_PROXY/);
  });
});
