import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { freePort } from '../src/db/embedded.ts';
import { call, createTeam, startTestServer, type TestServer } from './helpers.ts';
import type { ErrorReply } from './media-helpers.ts';

const metricsToken = () => `mt_${randomBytes(24).toString('base64url')}`;

function assertUnauthorized(r: { status: number; body: unknown; headers: Headers; text: string }, message: RegExp) {
  assert.equal(r.status, 401, r.text);
  const body = r.body as ErrorReply;
  assert.equal(body.error.code, 'unauthorized');
  assert.match(body.error.message, message);
  assert.ok(r.headers.get('x-request-id'));
}

describe('METRICS_TOKEN', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    token = metricsToken();
    server = await startTestServer({
      worker: false,
      env: { METRICS_TOKEN: token, AUTH_FAILURES_PER_MINUTE: '6', AUTH_FAILURES_BURST: '3', TRUST_PROXY: '127.0.0.1' },
    });
  });
  after(() => server.close());

  test('GET /metrics takes the bearer token and refuses anything else with 401', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.40' };
    assertUnauthorized(await call(server, 'GET', '/metrics', { headers }), /Missing credential.*metrics token/);
    assertUnauthorized(await call(server, 'GET', '/metrics', { token: `${token}x`, headers }), /Invalid metrics token/);
    assertUnauthorized(
      await call(server, 'GET', '/metrics', { token: server.adminToken, headers }),
      /Invalid metrics token/,
    );
    const r = await call(server, 'GET', '/metrics', { token, headers });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
    assert.match(r.text, /http_requests_total\{method="GET",route="\/metrics",status="401"\} 3/);
  });

  test('wrong metrics tokens count as failed authentications of the address', async () => {
    const address = { 'x-forwarded-for': '203.0.113.50' };
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await call(server, 'GET', '/metrics', { token: metricsToken(), headers: address })).status, 401);
    }
    const refused = await call<ErrorReply>(server, 'GET', '/metrics', { token, headers: address });
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const other = await call(server, 'GET', '/metrics', { token, headers: { 'x-forwarded-for': '203.0.113.51' } });
    assert.equal(other.status, 200);
  });
});

describe('METRICS_PORT', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    token = metricsToken();
    server = await startTestServer({
      worker: false,
      env: { METRICS_PORT: String(await freePort()), METRICS_TOKEN: token },
    });
  });
  after(() => server.close());

  test('serves /metrics on its own port, counting the main port’s requests; the main port answers 404', async () => {
    const team = await createTeam(server, 2);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).status, 200);
    const main = await call<ErrorReply>(server, 'GET', '/metrics', { token });
    assert.equal(main.status, 404);
    assert.equal(main.body.error.code, 'not_found');
    assert.ok(server.metricsUrl);
    const metrics = { url: server.metricsUrl };
    const r = await call(metrics, 'GET', '/metrics', { token });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /http_requests_total\{method="GET",route="\/api\/v1\/billing\/credits",status="200"\} 1/);
    assert.match(r.text, /http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    assert.match(r.text, /process_cpu_user_seconds_total/);
    // The metrics port serves nothing else, and takes the token there too.
    assertUnauthorized(await call(metrics, 'GET', '/metrics'), /metrics token/);
    const other = await call<ErrorReply>(metrics, 'GET', '/healthz');
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, 'not_found');
  });
});

describe('metrics settings', () => {
  test('METRICS_PORT must differ from PORT, and METRICS_TOKEN must be long enough to resist guessing', () => {
    assert.throws(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' }), /METRICS_PORT must differ from PORT/);
    assert.equal(loadConfig({ PORT: '9000', METRICS_PORT: '9000', ROLE: 'worker' }).metrics.port, 9000);
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN/);
    assert.deepEqual(loadConfig({}).metrics, { token: undefined, port: undefined });
  });
});
