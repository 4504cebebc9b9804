// A hung database (every PostgreSQL process stopped by SIGSTOP): once the process knows, requests
// that need the database are refused at once with 503 and Retry-After instead of waiting on it,
// and the process recovers by itself once the database answers again. A real service process
// (`node src/server.ts`, API and worker) on a PostgreSQL of its own, with the default timeouts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { StandaloneDatabase } from './chaos/database.ts';
import { type ServiceProcess, startServiceProcess } from './chaos/service.ts';
import { call, createTeam, type Reply, sleep, type TeamFixture } from './helpers.ts';
import { balanceOf, type StatusRecord } from './media-helpers.ts';

/** The longest a request that needs a hung database may take to be refused, once the process knows. */
const FAIL_FAST_MS = 2000;

async function timed(fn: () => Promise<Reply>): Promise<{ reply: Reply; ms: number }> {
  const started = Date.now();
  const reply = await fn();
  return { reply, ms: Date.now() - started };
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function assertRefusedFast(answer: { reply: Reply; ms: number }, what: string): void {
  const { reply, ms } = answer;
  assert.equal(reply.status, 503, `${what}: ${reply.status} ${reply.text}`);
  assert.equal((reply.body as { error: { code: string } }).error.code, 'service_unavailable', what);
  assert.match(reply.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.ok(ms < FAIL_FAST_MS, `${what} answered in ${ms} ms`);
}

describe('a hung database', () => {
  let dir: string;
  let database: StandaloneDatabase;
  let databaseUrl: string;
  let service: ServiceProcess;
  let adminToken: string;
  let team: TeamFixture;

  async function finished(generationId: string): Promise<StatusRecord> {
    return waitFor(
      async () => {
        const r = await call<StatusRecord>(service, 'GET', `/api/v1/generations/${generationId}/status`, {
          token: team.key,
        });
        return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : undefined;
      },
      30_000,
      'the generation to end',
    );
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genmedia-hang-'));
    await chmod(dir, 0o755);
    database = new StandaloneDatabase(join(dir, 'db'));
    const db = await database.start();
    databaseUrl = db.url;
    adminToken = `gma_${randomBytes(30).toString('base64url')}`;
    service = await startServiceProcess({
      role: 'all',
      databaseUrl: db.url,
      adminToken,
      dataDir: join(dir, 'data'),
      env: { SIMULATOR_DELAY_MS: '200' },
    });
    await service.ready();
    team = await createTeam({ url: service.url, adminToken }, 1000);
  });
  after(async () => {
    await service?.kill();
    await database?.signal('SIGCONT').catch(() => undefined);
    await database?.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  test('the check connection closed by the server is no outage: the process answers and serves', async () => {
    // A proxy, idle_session_timeout, a failover or an operator may close the process's check
    // connection; the database itself answers, so nothing may be refused.
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round += 1) {
        assert.equal((await call(service, 'GET', '/readyz')).status, 200, 'the check connection is open');
        const { rows } = await admin.query<{ pid: number }>(
          // This service's only: other test files share the PostgreSQL server.
          `select pid from pg_stat_activity where application_name = 'genmedia-health' and datname = current_database()`,
        );
        assert.ok(rows.length > 0, 'the check connection was found');
        await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [rows.map((r) => r.pid)]);
        const ready = await call(service, 'GET', '/readyz');
        assert.equal(ready.status, 200, `round ${round}: /readyz ${ready.status} ${ready.text}`);
        const credits = await call(service, 'GET', '/api/v1/billing/credits', { token: team.key });
        assert.equal(credits.status, 200, `round ${round}: ${credits.status} ${credits.text}`);
      }
    } finally {
      await admin.end();
    }
  });

  test('once the process knows, every request that needs it is a 503 with Retry-After within 2 s; it recovers by itself', async () => {
    const requests: Array<[string, () => Promise<Reply>]> = [
      ['GET credits', () => call(service, 'GET', '/api/v1/billing/credits', { token: team.key })],
      ['GET generations', () => call(service, 'GET', '/api/v1/generations', { token: team.key })],
      [
        'POST image',
        () => call(service, 'POST', '/api/v1/images/generate', { token: team.key, body: { prompt: 'while hung' } }),
      ],
      [
        'POST image with a key',
        () =>
          call(service, 'POST', '/api/v1/images/generate', {
            token: team.key,
            body: { prompt: 'while hung, with a key' },
            headers: { 'idempotency-key': `hung-${randomBytes(6).toString('hex')}` },
          }),
      ],
      ['GET teams (admin)', () => call(service, 'GET', '/admin/v1/teams', { token: adminToken })],
      ['an unknown API key', () => call(service, 'GET', '/api/v1/billing/credits', { token: 'gms_unknown' })],
    ];

    // A stored result, to be fetched while the database hangs.
    const stored = await call<{ generation_id: string }>(service, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'before the hang' },
    });
    assert.equal(stored.status, 200, stored.text);
    const storedStatus = await finished(stored.body.generation_id);
    assert.equal(storedStatus.status, 'completed');
    const mediaPath = new URL(storedStatus.result_urls[0] as string).pathname;
    const before = await balanceOf(service, team.key);

    await database.signal('SIGSTOP');
    try {
      // A request already waiting on the database when it hangs is not left waiting either.
      const inFlight = await timed(requests[0]?.[1] as () => Promise<Reply>);
      assert.equal(inFlight.reply.status, 503, inFlight.reply.text);
      assert.ok(inFlight.ms < 2 * FAIL_FAST_MS, `the request in flight answered in ${inFlight.ms} ms`);

      const ready = await timed(() => call(service, 'GET', '/readyz'));
      assertRefusedFast(ready, '/readyz');
      // Many at once, each kind twice: none waits on the database.
      const answers = await Promise.all(
        [...requests, ...requests].map(async ([what, send]) => ({ what, answer: await timed(send) })),
      );
      for (const { what, answer } of answers) assertRefusedFast(answer, what);
      // Stored files are served from storage; only a missing one needs the database (410 or 404).
      const media = await timed(() => call(service, 'GET', mediaPath));
      assert.equal(media.reply.status, 200, `a stored file while hung: ${media.reply.status} ${media.reply.text}`);
      assertRefusedFast(
        await timed(() => call(service, 'GET', `${mediaPath.slice(0, mediaPath.lastIndexOf('/'))}/missing.png`)),
        'a missing file while hung',
      );
      assert.equal((await call(service, 'GET', '/healthz')).status, 200, 'the process itself is alive');
    } finally {
      await database.signal('SIGCONT');
    }

    // No restart: the process finds the database again by itself, and the worker runs again.
    await waitFor(
      async () => ((await call(service, 'GET', '/readyz')).status === 200 ? true : undefined),
      20_000,
      '/readyz 200',
    );
    const credits = await waitFor(
      async () => {
        const r = await call(service, 'GET', '/api/v1/billing/credits', { token: team.key });
        return r.status === 503 ? undefined : r;
      },
      20_000,
      'a request to succeed',
    );
    assert.equal(credits.status, 200, credits.text);
    assert.equal(await balanceOf(service, team.key), before, 'nothing was charged while hung');
    const created = await call<{ generation_id: string }>(service, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'after the hang' },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal((await finished(created.body.generation_id)).status, 'completed');
    assert.ok(service.alive(), `the process exited:\n${service.output()}`);
  });
});
