// The web console over HTTP (its browser tests are in console-browser.test.ts): signing in with an
// API key or the admin token, the session cookie's attributes, CSRF on every form, sign-out and
// expiry, the Content-Security-Policy and assets served from here, and that a team sees only its
// own pages and generations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser } from './console-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

describe('the console over HTTP', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ env: { CONSOLE_SESSION_IDLE_MINUTES: '1' } });
    team = await createTeam(server, 1000, 'console team');
  });
  after(async () => {
    await server.close();
  });

  test('a team signs in with its key: an HttpOnly, SameSite=Strict session cookie that holds no key', async () => {
    const browser = new Browser(server);
    const signedIn = await browser.signIn(team.key);
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.location, '/console');
    const session = browser.lastSetCookies.find((c) => c.startsWith('gm_console='));
    assert.ok(session, browser.lastSetCookies.join('\n'));
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Strict/);
    assert.match(session, /Path=\/console/);
    assert.doesNotMatch(session, /Secure/, 'plain HTTP here: Secure only over HTTPS');
    assert.ok(!session.includes(team.key) && !session.includes(team.key.slice(4, 20)), 'the cookie is not the key');
    const stored = await server.pool.query('select sealed_key, token_hash from console_sessions where team_id = $1', [
      team.id,
    ]);
    assert.equal(stored.rows.length, 1);
    assert.ok(!JSON.stringify(stored.rows).includes(team.key), 'the key is stored sealed');
    const overview = await browser.request('GET', '/console');
    assert.equal(overview.status, 200);
    assert.match(overview.text, /1000 credits/);
  });

  test('a wrong credential is refused and counted; a form without its CSRF token is refused', async () => {
    const browser = new Browser(server);
    const wrong = await browser.signIn('gms_not-a-real-key');
    assert.equal(wrong.status, 303);
    assert.equal(wrong.location, '/console/login?failed');
    assert.equal(browser.cookies.has('gm_console'), false);
    const forged = await new Browser(server).request('POST', '/console/login', {
      _csrf: 'guess',
      credential: team.key,
    });
    assert.equal(forged.status, 403);
    const other = await new Browser(server).request('GET', '/console');
    assert.equal(other.status, 303);
    assert.equal(other.location, '/console/login');
  });

  test('every POST needs the session CSRF token and our Origin; sign-out ends the session', async () => {
    const browser = new Browser(server);
    await browser.signIn(team.key);
    const csrf = await browser.csrf();
    assert.ok(csrf.length > 20);
    const noToken = await browser.request('POST', '/console/logout', {});
    assert.equal(noToken.status, 303, 'sign-out without a token only clears the cookie');
    // The cookie is gone from this browser, but the session itself was not ended: sign in again.
    const again = new Browser(server);
    await again.signIn(team.key);
    const token = await again.csrf();
    const foreign = await again.request(
      'POST',
      '/console/logout',
      { _csrf: token },
      { origin: 'https://evil.example' },
    );
    assert.equal(foreign.status, 303);
    assert.equal(
      (await server.pool.query('select count(*)::int as n from console_sessions where team_id = $1', [team.id])).rows[0]
        .n >= 2,
      true,
    );
    const out = await again.request('POST', '/console/logout', { _csrf: token });
    assert.equal(out.status, 303);
    assert.equal(out.location, '/console/login');
    const after = await again.request('GET', '/console');
    assert.equal(after.location, '/console/login');
  });

  test('pages send a strict CSP; assets come from this server', async () => {
    const browser = new Browser(server);
    await browser.signIn(team.key);
    const overview = await browser.request('GET', '/console');
    const csp = overview.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(
      overview.text,
      /<script>|<script [^>]*>[^<]+<\/script>| on[a-z]+="/,
      'no inline script or handler',
    );
    for (const src of overview.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
      const asset = await fetch(`${server.url}${src[1]}`);
      assert.equal(asset.status, 200, src[1]);
      assert.ok((await asset.arrayBuffer()).byteLength > 100, src[1]);
    }
    assert.doesNotMatch(overview.text, /https?:\/\/(?!127\.0\.0\.1)/, 'nothing from another host');
  });

  test("a team sees its own generations and not another team's; operator pages are not for it", async () => {
    const mine = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a console lighthouse', batch: 1 },
    });
    await waitForGeneration(server, team.key, mine.body.generation_id);
    const other = await createTeam(server, 100, 'other');
    const theirs = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: other.key,
      body: { prompt: 'not yours', batch: 1 },
    });
    const browser = new Browser(server);
    await browser.signIn(team.key);
    const list = await browser.request('GET', '/console/generations');
    assert.match(list.text, new RegExp(mine.body.generation_id));
    assert.doesNotMatch(list.text, new RegExp(theirs.body.generation_id));
    const detail = await browser.request('GET', `/console/generations/${mine.body.generation_id}`);
    assert.equal(detail.status, 200);
    assert.match(detail.text, /<img src="[^"]+\.png"/);
    const foreign = await browser.request('GET', `/console/generations/${theirs.body.generation_id}`);
    assert.equal(foreign.status, 404);
    const operator = await browser.request('GET', '/console/operator/teams');
    assert.ok(operator.status === 403 || operator.status === 404, `status ${operator.status}`);
  });

  test('an operator signs in with the admin token; a revoked key ends its sessions', async () => {
    const admin = new Browser(server);
    const signed = await admin.signIn(server.adminToken);
    assert.equal(signed.status, 303);
    const stored = await server.pool.query(`select sealed_key from console_sessions where kind = 'operator'`);
    assert.ok(
      stored.rows.every((r: { sealed_key: string | null }) => r.sealed_key === null),
      'no secret kept for operators',
    );

    const key = await call<{ id: string; key: string }>(server, 'POST', `/admin/v1/teams/${team.id}/api-keys`, {
      token: server.adminToken,
      body: { name: 'to revoke' },
    });
    const browser = new Browser(server);
    await browser.signIn(key.body.key);
    assert.equal((await browser.request('GET', '/console')).status, 200);
    await call(server, 'DELETE', `/admin/v1/api-keys/${key.body.id}`, { token: server.adminToken });
    const after = await browser.request('GET', '/console');
    assert.equal(after.status, 303);
    assert.equal(after.location, '/console/login');
  });

  test('a session ends after its idle time', async () => {
    const browser = new Browser(server);
    await browser.signIn(team.key);
    assert.equal((await browser.request('GET', '/console')).status, 200);
    await server.pool.query(`update console_sessions set expires_at = now() - interval '1 second' where team_id = $1`, [
      team.id,
    ]);
    const expired = await browser.request('GET', '/console');
    assert.equal(expired.location, '/console/login');
  });
});
