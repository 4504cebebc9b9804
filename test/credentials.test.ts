// Several credentials per vendor: the environment's key listed read-only beside the ones added
// through the admin API; picked by weight at each submit; a key the vendor refuses disabled and
// never tried again while another serves; a credential added on one process used by the next
// request another process runs within a second; the secret never shown, logged or stored in clear.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { CredentialAnswer } from '../src/modules/credentials/service.ts';
import { pickWeighted } from '../src/providers/credentials.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { type FakeSuno, startFakeSuno } from './fakes/suno.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

type Credential = CredentialAnswer;
interface AuditEntry {
  actor: string;
  action: string;
  target: string;
  after: unknown;
}

describe('picking a credential by weight', () => {
  test('1,000 picks follow the weights within 5 %', () => {
    const list = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 3 },
      { id: 'c', weight: 6 },
      { id: 'off', weight: 0 },
    ];
    const shares = (draws: number, random?: (i: number) => number) => {
      const counts = new Map<string, number>();
      for (let i = 0; i < draws; i++) {
        const picked = pickWeighted(list, random && (() => random(i)));
        assert.ok(picked);
        counts.set(picked.id, (counts.get(picked.id) ?? 0) + 1);
      }
      assert.equal(counts.get('off'), undefined);
      for (const c of list) {
        const share = (counts.get(c.id) ?? 0) / draws;
        assert.ok(Math.abs(share - c.weight / 10) <= 0.05, `${c.id}: ${share} for weight ${c.weight}`);
      }
    };
    // 1,000 picks with a fixed sequence spread evenly over [0, 1) standing for the random draws (the
    // same every run: 1,000 truly random picks miss 5 % about once in 300 runs), then Math.random
    // over enough picks that missing 5 % is out of reach.
    shares(1000, (i) => (i * 0.618_033_988_75) % 1);
    shares(20_000);
    assert.equal(pickWeighted([{ weight: 0 }]), undefined);
    assert.equal(pickWeighted([]), undefined);
  });
});

describe('vendor credentials through the whole service', () => {
  let fal: FakeFal;
  let second: FakeFal;
  let a: TestServer;
  let b: TestServer;
  let team: TeamFixture;
  const logs: string[] = [];
  const answers: string[] = [];
  const metricsToken = `mt_${randomBytes(24).toString('base64url')}`;
  const BAD_SECRET = `bad-${randomBytes(12).toString('hex')}-9x7q`;
  const SECOND_SECRET = `second-${randomBytes(12).toString('hex')}-k3y5`;

  before(async () => {
    fal = await startFakeFal();
    second = await startFakeFal(SECOND_SECRET);
    const logStream = { write: (line: string) => void logs.push(line) };
    // A takes the admin's changes and runs no work; B runs the work.
    a = await startTestServer({ env: { ...fal.env, LOG_LEVEL: 'debug' }, worker: false, logStream });
    b = await startTestServer({
      databaseUrl: a.databaseUrl,
      adminToken: a.adminToken,
      // The second account's fake signs its webhooks with a key of its own: its jobs are polled.
      env: {
        ...fal.env,
        LOG_LEVEL: 'debug',
        METRICS_TOKEN: metricsToken,
        VENDOR_POLL_MAX_MS: '1000',
        CREDENTIAL_COOLDOWN_AFTER: '2',
        // Long enough to see it cooling after an item served elsewhere on a busy machine.
        CREDENTIAL_COOLDOWN_S: '3',
      },
      logStream,
    });
    team = await createTeam(a, 10_000);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await fal?.close();
    await second?.close();
  });

  const admin = async <T = unknown>(method: string, path: string, body?: unknown) => {
    const reply = await call<T>(a, method, path, { token: a.adminToken, ...(body === undefined ? {} : { body }) });
    answers.push(reply.text);
    return reply;
  };
  const credentials = async () =>
    (await admin<{ data: Credential[] }>('GET', '/admin/v1/credentials?provider=fal')).body.data;
  /** One image made on B, to its end. */
  const image = async () => {
    const reply = await call<{ generation_id: string }>(b, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dusk', model: 'flux-1-dev' },
    });
    assert.equal(reply.status, 200, reply.text);
    const status = await waitForGeneration(b, team.key, reply.body.generation_id);
    answers.push(JSON.stringify(status));
    return status;
  };

  test('the key of the environment is listed read-only, its secret shown by its last four characters only', async () => {
    const list = await credentials();
    assert.equal(list.length, 1);
    const env = list[0] as Credential;
    assert.equal(env.id, 'env:fal');
    assert.equal(env.source, 'env');
    assert.equal(env.state, 'active');
    assert.equal(env.secret_last4, fal.key.slice(-4));
    const patch = await admin<{ error: { code: string; message: string } }>('PATCH', '/admin/v1/credentials/env:fal', {
      weight: 5,
    });
    assert.equal(patch.status, 409, patch.text);
    assert.equal(patch.body.error.code, 'read_only');
    assert.match(patch.body.error.message, /environment/);
    const del = await admin('DELETE', '/admin/v1/credentials/env:fal');
    assert.equal(del.status, 409, del.text);
    assert.equal((await admin('DELETE', '/admin/v1/credentials/env:replicate')).status, 404);
  });

  test('bad input is refused and writes nothing', async () => {
    const cases = [
      { provider: 'nobody', name: 'x', secret: 'long-enough-secret' },
      { provider: 'fal', name: 'x', secret: 'short' },
      { provider: 'fal', name: 'x', secret: 'long-enough-secret', base_url: 'ftp://example.com' },
      { provider: 'fal', name: 'x', secret: 'long-enough-secret', weight: -1 },
    ];
    for (const body of cases) {
      const reply = await admin<{ error: { code: string } }>('POST', '/admin/v1/credentials', body);
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.body.error.code, 'invalid_request');
    }
    assert.equal((await credentials()).length, 1);
  });

  test('a credential added on one process is used by the next request the other runs, within a second', async () => {
    const added = await admin<Credential>('POST', '/admin/v1/credentials', {
      provider: 'fal',
      name: 'second account',
      secret: SECOND_SECRET,
      base_url: second.url,
      weight: 1_000_000,
    });
    // The second counts from the answer: the credential exists from the commit before it.
    const started = performance.now();
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.source, 'api');
    assert.equal(added.body.secret_last4, 'k3y5');
    assert.equal(added.body.state, 'active');
    // B hears the change (LISTEN/NOTIFY) and reloads.
    while (!b.app.deps.providers.credentials('fal').some((c) => c.id === added.body.id)) {
      assert.ok(performance.now() - started < 1000, 'B did not load the credential within a second');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const status = await image();
    assert.equal(status.status, 'completed');
    assert.equal(second.submissions.length, 1, 'the job went to the new credential');
    assert.equal(second.submissions[0]?.headers.authorization, `Key ${SECOND_SECRET}`);

    const removed = await admin('DELETE', `/admin/v1/credentials/${added.body.id}`);
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await credentials()).length, 1);
  });

  test('a credential the vendor refuses (401) is disabled with its reason and never tried again; the other serves', async () => {
    const bad = await admin<Credential>('POST', '/admin/v1/credentials', {
      provider: 'fal',
      name: 'revoked',
      secret: BAD_SECRET,
      weight: 1000,
    });
    assert.equal(bad.status, 201, bad.text);
    const id = bad.body.id;
    while (!b.app.deps.providers.credentials('fal').some((c) => c.id === id)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Weighted 1000 to 1, the refused key is tried first (almost surely at once); every image completes.
    for (let i = 0; i < 10 && fal.refused.length === 0; i++) assert.equal((await image()).status, 'completed');
    assert.deepEqual(fal.refused, [`Key ${BAD_SECRET}`]);
    const listed = (await credentials()).find((c) => c.id === id);
    assert.equal(listed?.state, 'disabled');
    assert.match(listed?.reason ?? '', /^auth: /);
    for (let i = 0; i < 3; i++) assert.equal((await image()).status, 'completed');
    assert.equal(fal.refused.length, 1, 'the disabled credential was tried again');

    const audit = (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data;
    const disabled = audit.find((e) => e.action === 'credential.disable' && e.target === `credential:${id}`);
    assert.equal(disabled?.actor, 'system');
    assert.ok(audit.some((e) => e.action === 'credential.create' && e.actor === 'admin'));
    const metrics = await call(b, 'GET', '/metrics', { token: metricsToken });
    assert.match(metrics.text, /genmedia_credential_events_total\{provider="fal",event="disabled"\} 1/);

    // Enabled again by the operator: active (and picked) again.
    const enabled = await admin<Credential>('PATCH', `/admin/v1/credentials/${id}`, { enabled: true, weight: 0 });
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.body.state, 'active');
    assert.equal(enabled.body.weight, 0);
  });

  test('a credential unavailable twice in a row cools down, another serves, and its check after the cool-down enables it again', async () => {
    const flaky = await admin<Credential>('POST', '/admin/v1/credentials', {
      provider: 'fal',
      name: 'flaky',
      secret: SECOND_SECRET,
      base_url: second.url,
      weight: 1_000_000,
    });
    assert.equal(flaky.status, 201, flaky.text);
    const id = flaky.body.id;
    while (!b.app.deps.providers.credentials('fal').some((c) => c.id === id)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const served = second.submissions.length;
    const endpoint = 'fal-ai/flux-lora';
    second.outage(endpoint, true);
    // Its first 503 is retried (with it, almost surely); the second cools it down and the environment's key serves.
    assert.equal((await image()).status, 'completed');
    const cooling = (await credentials()).find((c) => c.id === id);
    assert.equal(cooling?.state, 'cooling');
    assert.match(cooling?.reason ?? '', /unavailable 2 times in a row/);
    second.outage(endpoint, false);
    // Once the cool-down has run out, the next pick has it checked (fal has no call that proves a key:
    // it is given its chance again) and it serves again.
    const started = Date.now();
    while ((await credentials()).find((c) => c.id === id)?.state !== 'active') {
      assert.ok(Date.now() - started < 15_000, 'the credential was not enabled again');
      assert.equal((await image()).status, 'completed');
    }
    for (let i = 0; i < 5 && second.submissions.length === served; i++) {
      assert.equal((await image()).status, 'completed');
    }
    assert.ok(second.submissions.length > served, 'the credential did not serve again');

    const audit = (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data;
    const mine = audit.filter((e) => e.target === `credential:${id}` && e.actor === 'system').map((e) => e.action);
    assert.deepEqual(mine.sort(), ['credential.cool', 'credential.enable']);
    const metrics = await call(b, 'GET', '/metrics', { token: metricsToken });
    assert.match(metrics.text, /genmedia_credential_events_total\{provider="fal",event="cooling"\} 1/);
    assert.match(metrics.text, /genmedia_credential_events_total\{provider="fal",event="enabled"\} 1/);
    assert.equal((await admin('DELETE', `/admin/v1/credentials/${id}`)).status, 204);
  });

  test('a job whose credential was deleted meanwhile is polled with another active credential of its vendor', async () => {
    // Another queue of the same account (its key, so the environment's credential may read its jobs);
    // its webhooks are signed with a key of its own and refused, so only polls tell the outcome.
    const queue = await startFakeFal(fal.key);
    try {
      const same = await admin<Credential>('POST', '/admin/v1/credentials', {
        provider: 'fal',
        name: 'same account',
        secret: fal.key,
        base_url: queue.url,
        weight: 1_000_000,
      });
      assert.equal(same.status, 201, same.text);
      const id = same.body.id;
      while (!b.app.deps.providers.credentials('fal').some((c) => c.id === id)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      queue.hold(true);
      const reply = await call<{ generation_id: string }>(b, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt: 'a lighthouse at dusk', model: 'flux-1-dev' },
      });
      assert.equal(reply.status, 200, reply.text);
      const itemOf = async () =>
        (
          await a.pool.query<{ credential_id: string | null; vendor_state: string | null; vendor_request_id: string }>(
            'select credential_id, vendor_state, vendor_request_id from generation_items where generation_id = $1::text',
            [reply.body.generation_id],
          )
        ).rows[0];
      while ((await itemOf())?.vendor_state !== 'accepted') await new Promise((resolve) => setTimeout(resolve, 20));
      const item = await itemOf();
      assert.equal(item?.credential_id, id);
      assert.equal((await admin('DELETE', `/admin/v1/credentials/${id}`)).status, 204);
      while (b.app.deps.providers.credentials('fal').some((c) => c.id === id)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const pollsBefore = queue.polls(item?.vendor_request_id ?? '');
      queue.hold(false);
      await queue.release();
      const status = await waitForGeneration(b, team.key, reply.body.generation_id);
      assert.equal(status.status, 'completed');
      assert.ok(queue.polls(item?.vendor_request_id ?? '') > pollsBefore, 'the job was not polled after the delete');
    } finally {
      await queue.close();
    }
  });

  test('the admin CLI lists, adds, changes and deletes credentials, the secret read from the environment', async () => {
    const CLI_SECRET = `cli-${randomBytes(12).toString('hex')}-c1i9`;
    const cli = async (args: string[], env: Record<string, string> = {}) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['src/cli/admin.ts', ...args], {
        env: { ...process.env, GMS_URL: a.url, ADMIN_TOKEN: a.adminToken, ...env },
      });
      answers.push(stdout.replaceAll(CLI_SECRET, '[the CLI secret]'));
      assert.ok(!stdout.includes(CLI_SECRET), 'the CLI printed the secret');
      return stdout === '' ? {} : (JSON.parse(stdout) as Record<string, unknown>);
    };
    const added = await cli(['credentials', 'add', '--provider', 'fal', '--name', ' from the cli ', '--weight', '0'], {
      CREDENTIAL_SECRET: CLI_SECRET,
    });
    assert.equal(added.secret_last4, 'c1i9');
    assert.equal(added.weight, 0);
    const id = String(added.id);
    const listed = (await cli(['credentials', 'list', '--provider', 'fal'])) as { data?: Credential[] };
    assert.ok(listed.data?.some((c) => c.id === id && c.name === 'from the cli'));
    assert.equal((await cli(['credentials', 'set', id, '--enabled', 'false'])).state, 'disabled');
    // A name is kept without the spaces around it, as the console's form sends it.
    assert.equal((await cli(['credentials', 'set', id, '--name', '  renamed  '])).name, 'renamed');
    await cli(['credentials', 'delete', id]);
    assert.ok(!(await credentials()).some((c) => c.id === id));
  });

  test('the secret never appears in an answer, a log line or the database in clear', async () => {
    for (const secret of [BAD_SECRET, SECOND_SECRET]) {
      for (const text of answers) assert.ok(!text.includes(secret), 'a secret in an answer');
      for (const line of logs) assert.ok(!line.includes(secret), 'a secret in a log line');
    }
    assert.ok(logs.length > 0, 'nothing was logged');
    const { rows } = await a.pool.query<{ secret: string }>('select secret from vendor_credentials');
    assert.ok(rows.length > 0);
    for (const row of rows) assert.match(row.secret, /^enc:v1:/);
    for (const table of [
      'vendor_credentials',
      'credential_health',
      'admin_audit',
      'generation_items',
      'item_attempts',
    ]) {
      const dump = await a.pool.query<{ t: string }>(`select row_to_json(x)::text as t from ${table} x`);
      for (const { t } of dump.rows) {
        assert.ok(!t.includes(BAD_SECRET) && !t.includes(SECOND_SECRET), `a secret in ${table} in clear`);
      }
    }
  });
});

/** Resolves once `condition` holds (checked every 10 ms); fails after `ms`. */
async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("a vendor credential's caps, counted in the database", () => {
  let capped: FakeFal;
  let other: FakeFal;
  let server: TestServer;
  let peer: TestServer;
  let team: TeamFixture;
  let cappedId = '';
  const metricsToken = `mt_${randomBytes(24).toString('base64url')}`;
  const CAPPED_SECRET = `capped-${randomBytes(12).toString('hex')}`;
  const OTHER_SECRET = `other-${randomBytes(12).toString('hex')}`;
  const WINDOW_S = 3;

  before(async () => {
    capped = await startFakeFal(CAPPED_SECRET);
    other = await startFakeFal(OTHER_SECRET);
    // fal has no key in the environment: only the credentials added here serve it. The capped
    // account's webhooks verify (its signing key is the one published); the other's are polled.
    server = await startTestServer({
      env: {
        FAL_JWKS_URL: capped.jwksUrl,
        METRICS_TOKEN: metricsToken,
        VENDOR_POLL_MAX_MS: '1000',
        // rpm counted over 3 s instead of a minute, so the window frees within the test.
        CREDENTIAL_RPM_WINDOW_S: String(WINDOW_S),
        CREDENTIAL_CAP_RETRY_MS: '200',
      },
    });
    // A second process on the same database runs work too: the caps hold across both.
    peer = await startTestServer({
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      env: {
        FAL_JWKS_URL: capped.jwksUrl,
        METRICS_TOKEN: metricsToken,
        VENDOR_POLL_MAX_MS: '1000',
        CREDENTIAL_RPM_WINDOW_S: String(WINDOW_S),
        CREDENTIAL_CAP_RETRY_MS: '200',
      },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await peer?.close();
    await server?.close();
    await capped?.close();
    await other?.close();
  });

  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, ...(body === undefined ? {} : { body }) });
  /** The credential as both processes hold it (undefined unless they agree). */
  const listed = (id: string) => {
    const [mine, theirs] = [server, peer].map((s) => s.app.deps.providers.credentials('fal').find((c) => c.id === id));
    return JSON.stringify(mine) === JSON.stringify(theirs) ? mine : undefined;
  };
  const request = async () => {
    const reply = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dusk', model: 'flux-1-dev' },
    });
    assert.equal(reply.status, 200, reply.text);
    return reply.body.generation_id;
  };
  /** The cap's hits counted by both processes (either may have run the item). */
  const capHits = async (cap: string, outcome: string): Promise<number> => {
    const line = new RegExp(
      `genmedia_credential_cap_hits_total\\{provider="fal",cap="${cap}",outcome="${outcome}"\\} (\\d+)`,
    );
    const counts = await Promise.all(
      [server, peer].map(async (s) => {
        const metrics = await call(s, 'GET', '/metrics', { token: metricsToken });
        return Number(line.exec(metrics.text)?.[1] ?? 0);
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  };

  test('max_in_flight 1: three requests run by two processes, never more than one job at the vendor at once, all complete', async () => {
    const added = await admin<Credential>('POST', '/admin/v1/credentials', {
      provider: 'fal',
      name: 'capped',
      secret: CAPPED_SECRET,
      base_url: capped.url,
      weight: 1_000_000,
      max_in_flight: 1,
    });
    assert.equal(added.status, 201, added.text);
    cappedId = added.body.id;
    await until('the credential to load', () => listed(cappedId)?.maxInFlight === 1);
    capped.hold(true);
    const ids = await Promise.all([request(), request(), request()]);
    // One job at the vendor; the two others wait (their submits met the cap and were put off).
    // (The first job's submit may still be on its way to the vendor when the second is put off: the
    // loop below waits for it, and fails if a second job reaches the vendor while it is held.)
    await until('a submit put off by the cap', async () => (await capHits('max_in_flight', 'deferred')) >= 1);
    // Each release finishes the job at the vendor; the next waiting item goes then.
    for (let sent = 1; sent <= 3; sent++) {
      await until(`job ${sent} at the vendor`, () => capped.submissions.length === sent && capped.held() === 1);
      await capped.release();
    }
    capped.hold(false);
    for (const id of ids) assert.equal((await waitForGeneration(server, team.key, id)).status, 'completed');
    assert.equal(capped.submissions.length, 3);
    assert.equal(capped.peakInFlight(), 1, 'more than one job at the vendor at once');
    // Each item charged once, and none refunded.
    const { rows } = await server.pool.query<{ kind: string; n: number }>(
      `select kind, count(*)::int as n from credit_ledger
       where generation_id = any($1::text[]) group by kind order by kind`,
      [ids],
    );
    assert.deepEqual(rows, [{ kind: 'charge', n: 3 }]);
  });

  test('two credentials, one at its cap: the other serves meanwhile', async () => {
    const second = await admin<Credential>('POST', '/admin/v1/credentials', {
      provider: 'fal',
      name: 'other',
      secret: OTHER_SECRET,
      base_url: other.url,
      weight: 1,
    });
    assert.equal(second.status, 201, second.text);
    await until('the credential to load', () => listed(second.body.id) !== undefined);
    capped.hold(true);
    const first = await request();
    await until('the first job at the capped account', () => capped.held() === 1);
    const skipped = await capHits('max_in_flight', 'skipped');
    // Weighted a million to one, the capped credential is picked, found full, and passed over.
    const next = await request();
    assert.equal((await waitForGeneration(server, team.key, next)).status, 'completed');
    assert.equal(other.submissions.length, 1, 'the other credential served');
    assert.equal(other.submissions[0]?.headers.authorization, `Key ${OTHER_SECRET}`);
    assert.equal(capped.held(), 1);
    assert.ok((await capHits('max_in_flight', 'skipped')) > skipped);
    capped.hold(false);
    await capped.release();
    assert.equal((await waitForGeneration(server, team.key, first)).status, 'completed');
    assert.equal((await admin('DELETE', `/admin/v1/credentials/${second.body.id}`)).status, 204);
    await until('the credential to go', () =>
      [server, peer].every((p) => !p.app.deps.providers.credentials('fal').some((c) => c.id === second.body.id)),
    );
  });

  test('rpm 2: the third submit in the window waits until the oldest leaves it, then goes', async () => {
    const changed = await admin<Credential>('PATCH', `/admin/v1/credentials/${cappedId}`, {
      max_in_flight: null,
      rpm: 2,
    });
    assert.equal(changed.status, 200, changed.text);
    await until('the change to load', () => listed(cappedId)?.rpm === 2 && listed(cappedId)?.maxInFlight === null);
    // Past the window of the earlier tests' submits.
    const sentBefore = capped.submissions.length;
    await until('an empty window', async () => {
      const { rows } = await server.pool.query<{ n: number }>(
        `select count(*)::int as n from item_attempts
         where credential_id = $1::text and started_at > clock_timestamp() - make_interval(secs => $2::int)`,
        [cappedId, WINDOW_S],
      );
      return rows[0]?.n === 0;
    });
    capped.hold(true);
    const deferred = await capHits('rpm', 'deferred');
    const ids = await Promise.all([request(), request(), request()]);
    // The third is put off while the first two are in the window, and goes once the oldest leaves it.
    // (Judged by what happened, not by catching the moment between: a busy machine can make that short.)
    await until('the third submit, once the window allows', () => capped.submissions.length === sentBefore + 3);
    assert.ok((await capHits('rpm', 'deferred')) > deferred, 'the third submit was never put off');
    capped.hold(false);
    await capped.release();
    for (const id of ids) assert.equal((await waitForGeneration(server, team.key, id)).status, 'completed');
    const { rows } = await server.pool.query<{ spread_ms: number }>(
      `select extract(epoch from max(started_at) - min(started_at)) * 1000 as spread_ms
       from (select started_at from item_attempts where credential_id = $1::text order by started_at desc limit 3) a`,
      [cappedId],
    );
    assert.ok(
      Number(rows[0]?.spread_ms) >= WINDOW_S * 1000,
      `three submits within ${rows[0]?.spread_ms} ms, under the ${WINDOW_S} s window`,
    );
  });
});

describe('webhooks verified with the credential the job was submitted with', () => {
  let suno: FakeSuno;
  let replicate: FakeReplicate;
  let server: TestServer;
  let team: TeamFixture;
  const SUNO_KEY = `suno-${randomBytes(12).toString('hex')}`;
  const REPLICATE_TOKEN = `r8_${randomBytes(12).toString('hex')}`;

  before(async () => {
    suno = await startFakeSuno(SUNO_KEY);
    replicate = await startFakeReplicate(REPLICATE_TOKEN);
    // The environment's keys are ones the vendors refuse (revoked): the first job of each vendor
    // disables them. The environment's Replicate signing secret is its own account's.
    server = await startTestServer({
      env: {
        SUNO_API_KEY: `suno-revoked-${randomBytes(6).toString('hex')}`,
        SUNO_BASE_URL: suno.url,
        REPLICATE_API_TOKEN: `r8_revoked_${randomBytes(6).toString('hex')}`,
        REPLICATE_BASE_URL: replicate.url,
        REPLICATE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server?.close();
    await suno?.close();
    await replicate?.close();
  });

  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, ...(body === undefined ? {} : { body }) });
  const generate = async (path: string, body: Record<string, unknown>) => {
    const reply = await call<{ generation_id: string }>(server, 'POST', path, { token: team.key, body });
    assert.equal(reply.status, 200, reply.text);
    // Polls come a minute apart (VENDOR_POLL_MAX_MS) while a webhook is awaited: only the webhook
    // finishes a job within this wait.
    return waitForGeneration(server, team.key, reply.body.generation_id, 20_000);
  };
  /** Disables the environment's credential (the vendor refuses it), then adds the good key through the admin API. */
  const switchKeys = async (provider: string, run: () => Promise<{ status: string }>, secret: string, url: string) => {
    assert.equal((await run()).status, 'failed');
    const env = server.app.deps.providers.credentials(provider).find((c) => c.source === 'env');
    assert.equal(env?.state, 'disabled');
    const added = await admin<Credential>('POST', '/admin/v1/credentials', {
      provider,
      name: 'added',
      secret,
      base_url: url,
    });
    assert.equal(added.status, 201, added.text);
    await until('the credential to load', () =>
      server.app.deps.providers.credentials(provider).some((c) => c.id === added.body.id && c.state === 'active'),
    );
    return added.body.id;
  };

  test("Suno: a job submitted with an added credential completes by its callbacks, checked with that credential's token", async () => {
    const song = () =>
      generate('/api/v1/music/generate', {
        title: 'Harbour Lights',
        style: 'warm indie folk',
        lyrics: '[Verse]\nThe boats come home at dusk',
        model: 'V4_5PLUS',
      });
    const id = await switchKeys('suno', song, SUNO_KEY, suno.url);
    const done = await song();
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const { rows } = await server.pool.query<{ credential_id: string }>(
      'select credential_id from generation_items where generation_id = $1::text',
      [done.generation_id],
    );
    assert.equal(rows[0]?.credential_id, id);
    const taskId = suno.submissions.at(-1)?.taskId ?? '';
    const posted = suno.callbacks.filter((c) => c.taskId === taskId);
    assert.ok(posted.length > 0, 'no callback was posted');
    await until('the callbacks answered', () => posted.every((c) => c.status !== undefined));
    assert.deepEqual(
      posted.map((c) => c.status),
      posted.map(() => 200),
    );
  });

  test("Replicate: a job submitted with an added credential completes by its webhook, signed with that account's secret", async () => {
    const image = () => generate('/api/v1/images/generate', { prompt: 'a lighthouse at dusk', model: 'flux-1-dev' });
    await switchKeys('replicate', image, REPLICATE_TOKEN, replicate.url);
    const done = await image();
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(replicate.submissions.at(-1)?.headers.authorization, `Bearer ${REPLICATE_TOKEN}`);
    const webhook = replicate.webhooks.at(-1);
    assert.ok(webhook, 'no webhook was sent');
    await until('the webhook answered', () => webhook.status !== undefined);
    assert.equal(webhook.status, 200, 'the webhook was refused');
    // A webhook that came before the submit's answer was recorded (a busy machine) is verified and
    // marks the item; recording the answer then polls the job once, at once. Otherwise nothing polls.
    const { rows } = await server.pool.query<{ early: boolean }>(
      'select vendor_webhook_at is not null as early from generation_items where generation_id = $1::text',
      [done.generation_id],
    );
    assert.equal(
      replicate.polls(webhook.id),
      rows[0]?.early ? 1 : 0,
      'the job was finished by a poll, not its webhook',
    );
  });
});
