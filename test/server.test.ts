// The service as a user runs it: `npm start` with no configuration, signals, restarts, roles.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../src/db/embedded.ts';
import { call, createTestDatabase, sleep } from './helpers.ts';

interface Running {
  child: ChildProcess;
  output: () => string;
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

function launch(command: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  // 'close' waits for every holder of the output pipes (npm's child too) to be gone.
  const exited = new Promise<number | null>((resolveExit) => child.on('close', (code) => resolveExit(code)));
  running.add(child);
  exited.then(() => running.delete(child));
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<void>((resolveWait, reject) => {
      const check = () => {
        if (pattern.test(output)) {
          listeners.delete(check);
          clearTimeout(timer);
          resolveWait();
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output}`));
      }, timeoutMs);
      listeners.add(check);
      exited.then(() => {
        if (!pattern.test(output)) {
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`process exited before ${pattern}; output:\n${output}`));
        }
      });
      check();
    });
  return { child, output: () => output, waitFor, exited };
}

const node = (env: Record<string, string>) => launch(process.execPath, ['src/server.ts'], env);

describe('running the service', () => {
  let dataDir: string;
  let port: number;
  let base: string;
  let apiKey: string;
  let workspaceId: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'genmedia-start-'));
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    for (const child of running) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = () => ({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });

  test('npm start with no configuration starts everything and prints a working key once', async () => {
    const run = launch('npm', ['start'], env());
    run.child.unref();
    try {
      await run.waitFor(/Server listening/);
      const out = run.output();
      const key = /API key:\s+(gms_\S+)/.exec(out)?.[1];
      const admin = /Admin token:\s+(gma_\S+)/.exec(out)?.[1];
      assert.ok(key && admin, out);
      apiKey = key;
      assert.equal(out.split(key).length - 1, 2, 'the key is printed in the banner and its curl example only');

      const file = join(dataDir, 'credentials.json');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      const saved = JSON.parse(await readFile(file, 'utf8')) as { api_key: string; admin_token: string };
      assert.equal(saved.api_key, key);
      assert.equal(saved.admin_token, admin);

      const server = { url: base };
      assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: key })).body, 10000);
      assert.equal((await call(server, 'GET', '/admin/v1/teams', { token: admin })).status, 200);
      assert.equal((await call(server, 'GET', '/readyz')).status, 200);
      const ws = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
        token: key,
        body: { name: 'kept' },
      });
      workspaceId = ws.body.id;
    } finally {
      // npm passes the signal on to the service; the service's own exit is what counts.
      run.child.kill('SIGTERM');
      await run.exited;
      assert.match(run.output(), /stopped cleanly/);
    }
  });

  test('SIGTERM lets an in-flight request finish, then stops the database cleanly', async () => {
    const run = node(env());
    await run.waitFor(/Server listening/);
    const body = JSON.stringify({ name: 'in flight' });
    const answer = new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
      const req = request(
        `${base}/api/v1/workspaces`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // Half the body now; the rest after the signal.
      req.write(body.slice(0, 5));
      setTimeout(() => {
        run.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    const reply = await answer;
    assert.equal(reply.status, 201, reply.body);
    assert.equal(await run.exited, 0);
    assert.match(run.output(), /stopped cleanly/);
    assert.ok(!existsSync(join(dataDir, 'postgres', 'postmaster.pid')), 'the database is still running');
  });

  test('a second start reuses the data and prints no secrets', async () => {
    const run = node(env());
    try {
      await run.waitFor(/Server listening/);
      assert.ok(!/gms_|gma_/.test(run.output()), 'a secret was printed again');
      const server = { url: base };
      assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: apiKey })).body, 10000);
      const ws = await call<Array<{ id: string; name: string }>>(server, 'GET', '/api/v1/workspaces', {
        token: apiKey,
      });
      assert.ok(ws.body.some((w) => w.id === workspaceId));
      assert.ok(ws.body.some((w) => w.name === 'in flight'));
    } finally {
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0);
    }
  });

  test('a start after a crash takes over the database the dead process left running', async () => {
    const crashed = node(env());
    await crashed.waitFor(/Server listening/);
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    const run = node(env());
    try {
      await run.waitFor(/Server listening/);
      assert.equal((await call({ url: base }, 'GET', '/api/v1/billing/credits', { token: apiKey })).body, 10000);
    } finally {
      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0);
    }
  });

  describe('with DATABASE_URL', () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    before(async () => {
      database = await createTestDatabase();
    });
    after(() => database.drop());
    // A deployment on its own database names its payment provider; these start the test checkout.
    const production = (env: Record<string, string>) => node({ PAYMENT_PROVIDER: 'builtin', ...env });

    test('refuses to start without PAYMENT_PROVIDER: the test checkout is never its default', async () => {
      const adminToken = `gma_${'x'.repeat(40)}`;
      const run = node({ DATABASE_URL: database.url, ADMIN_TOKEN: adminToken, PORT: String(port) });
      if (
        await run.waitFor(/Server listening/).then(
          () => true,
          () => false,
        )
      ) {
        run.child.kill('SIGTERM');
        await run.exited;
        assert.fail('it started with the test checkout as its payment provider');
      }
      assert.notEqual(await run.exited, 0);
      assert.match(run.output(), /PAYMENT_PROVIDER is required when DATABASE_URL is set/);
      assert.match(run.output(), /builtin for a test checkout that adds credits with no payment/);
    });

    test('refuses to start the API without ADMIN_TOKEN', async () => {
      const run = production({ DATABASE_URL: database.url, PORT: String(port) });
      assert.notEqual(await run.exited, 0);
      assert.match(run.output(), /ADMIN_TOKEN must be set/);
    });

    test('uses that server, creates no default team and prints no secrets', async () => {
      const adminToken = `gma_${'x'.repeat(40)}`;
      const run = production({
        DATABASE_URL: database.url,
        ADMIN_TOKEN: adminToken,
        PORT: String(port),
        LOG_LEVEL: 'info',
      });
      try {
        await run.waitFor(/Server listening/);
        assert.ok(!/gms_|gma_/.test(run.output()));
        const teams = await call<unknown[]>({ url: base }, 'GET', '/admin/v1/teams', { token: adminToken });
        assert.deepEqual(teams.body, []);
      } finally {
        run.child.kill('SIGTERM');
        assert.equal(await run.exited, 0);
      }
    });

    test('ROLE=worker runs without serving HTTP; ROLE=api serves without a worker', async () => {
      // A worker signs webhooks: without SECRETS_KEY (or ADMIN_TOKEN) it refuses to start.
      const keyless = production({ DATABASE_URL: database.url, ROLE: 'worker', PORT: String(port), LOG_LEVEL: 'info' });
      assert.notEqual(await keyless.exited, 0);
      assert.match(keyless.output(), /SECRETS_KEY \(or ADMIN_TOKEN\) must be set/);
      const worker = production({
        DATABASE_URL: database.url,
        ROLE: 'worker',
        PORT: String(port),
        LOG_LEVEL: 'info',
        SECRETS_KEY: `sk_${'s'.repeat(40)}`,
      });
      try {
        await worker.waitFor(/worker started/);
        await sleep(300);
        await assert.rejects(fetch(`${base}/healthz`));
      } finally {
        worker.child.kill('SIGTERM');
        assert.equal(await worker.exited, 0);
      }
      const api = production({
        DATABASE_URL: database.url,
        ADMIN_TOKEN: `gma_${'y'.repeat(40)}`,
        ROLE: 'api',
        PORT: String(port),
        LOG_LEVEL: 'info',
      });
      try {
        await api.waitFor(/Server listening/);
        assert.ok(!/worker started/.test(api.output()));
        assert.equal((await call({ url: base }, 'GET', '/healthz')).status, 200);
      } finally {
        api.child.kill('SIGTERM');
        assert.equal(await api.exited, 0);
      }
    });

    test('METRICS_PORT gives a worker process a metrics listener, closed on SIGTERM', async () => {
      const metricsPort = await freePort();
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      const worker = production({
        DATABASE_URL: database.url,
        ROLE: 'worker',
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'info',
        SECRETS_KEY: `sk_${'s'.repeat(40)}`,
      });
      try {
        await worker.waitFor(/worker started/);
        await worker.waitFor(/Server listening/);
        const r = await fetch(metricsUrl);
        assert.equal(r.status, 200);
        assert.match(await r.text(), /process_resident_memory_bytes \d+/);
        await assert.rejects(fetch(`${base}/healthz`), 'a worker serves no API');
      } finally {
        worker.child.kill('SIGTERM');
        assert.equal(await worker.exited, 0);
      }
      assert.match(worker.output(), /stopped cleanly/);
      await assert.rejects(fetch(metricsUrl), 'the metrics listener was closed');
    });

    test('a bad setting stops the start with the reason', async () => {
      const run = node({ DATABASE_URL: database.url, PORT: 'eighty', ROLE: 'both' });
      assert.notEqual(await run.exited, 0);
      assert.match(run.output(), /PORT: must be integer/);
      assert.match(run.output(), /ROLE: must be equal to one of the allowed values/);
    });
  });
});
