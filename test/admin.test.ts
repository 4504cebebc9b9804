import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { call, createTeam, startTestServer, type TestServer } from './helpers.ts';

const exec = promisify(execFile);

interface Team {
  id: string;
  name: string;
  credits: number;
  created_at: string;
}

describe('admin API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const admin = <T>(method: string, path: string, body?: unknown) =>
    call<T>(server, method, path, { token: server.adminToken, body });

  test('creates, reads and lists teams with ids, credits and timestamps', async () => {
    const created = await admin<Team>('POST', '/admin/v1/teams', { name: 'acme', credits: 500 });
    assert.equal(created.status, 201);
    assert.match(created.body.id, /^team_[0-9a-z]{26}$/);
    assert.equal(created.body.name, 'acme');
    assert.equal(created.body.credits, 500);
    assert.match(created.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await admin<Team>('GET', `/admin/v1/teams/${created.body.id}`);
    assert.deepEqual(read.body, created.body);

    const second = await admin<Team>('POST', '/admin/v1/teams', { name: 'globex' });
    assert.equal(second.body.credits, 0);
    const list = await admin<Team[]>('GET', '/admin/v1/teams?limit=1');
    assert.deepEqual(
      list.body.map((t) => t.id),
      [second.body.id],
    );
    const next = await admin<Team[]>('GET', `/admin/v1/teams?limit=1&before=${second.body.id}`);
    assert.deepEqual(
      next.body.map((t) => t.id),
      [created.body.id],
    );
  });

  test('rejects a bad team body with one detail per field and writes nothing', async () => {
    const before = await admin<Team[]>('GET', '/admin/v1/teams?limit=500');
    const r = await admin<{ error: { code: string; details: Array<{ field: string }> } }>('POST', '/admin/v1/teams', {
      name: '',
      credits: -5,
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.deepEqual(r.body.error.details.map((d) => d.field).sort(), ['credits', 'name']);
    const afterList = await admin<Team[]>('GET', '/admin/v1/teams?limit=500');
    assert.equal(afterList.body.length, before.body.length);
  });

  test('an unknown team is 404 for every team-scoped call', async () => {
    const id = 'team_00000000000000000000000000';
    for (const [method, path, body] of [
      ['GET', `/admin/v1/teams/${id}`],
      ['POST', `/admin/v1/teams/${id}/api-keys`, {}],
      ['GET', `/admin/v1/teams/${id}/api-keys`],
      ['POST', `/admin/v1/teams/${id}/credits`, { amount: 5, reason: 'x' }],
      ['GET', `/admin/v1/teams/${id}/ledger`],
      ['POST', `/admin/v1/teams/${id}/workspaces`, { name: 'w' }],
      ['GET', `/admin/v1/teams/${id}/workspaces`],
      ['GET', `/admin/v1/teams/${id}/webhook-secret`],
      ['POST', `/admin/v1/teams/${id}/webhook-secret`],
    ] as Array<[string, string, unknown?]>) {
      const r = await admin<{ error: { code: string; message: string } }>(method, path, body);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal(r.body.error.code, 'not_found');
      assert.match(r.body.error.message, /Team/);
    }
  });

  test('issues a key that works at once and is shown only once', async () => {
    const team = await admin<Team>('POST', '/admin/v1/teams', { name: 'keys', credits: 42 });
    const key = await admin<{ id: string; key: string; prefix: string; name: string }>(
      'POST',
      `/admin/v1/teams/${team.body.id}/api-keys`,
      { name: 'ci' },
    );
    assert.equal(key.status, 201);
    assert.match(key.body.key, /^gms_[A-Za-z0-9_-]{40}$/);
    assert.equal(key.body.prefix, key.body.key.slice(0, 12));
    assert.equal(key.body.name, 'ci');
    const balance = await call(server, 'GET', '/api/v1/billing/credits', { token: key.body.key });
    assert.equal(balance.body, 42);
    const list = await admin('GET', `/admin/v1/teams/${team.body.id}/api-keys`);
    assert.ok(!list.text.includes(key.body.key));
  });

  test('grants and corrections move the balance and appear in the ledger newest first', async () => {
    const team = await createTeam(server, 100);
    const grant = await admin<{ balance: number; entry: { kind: string; amount: number } }>(
      'POST',
      `/admin/v1/teams/${team.id}/credits`,
      { amount: 50, reason: 'promo' },
    );
    assert.equal(grant.status, 201);
    assert.equal(grant.body.balance, 150);
    assert.equal(grant.body.entry.kind, 'grant');
    const correction = await admin<{ balance: number; entry: { kind: string } }>(
      'POST',
      `/admin/v1/teams/${team.id}/credits`,
      { amount: -30, reason: 'duplicate promo' },
    );
    assert.equal(correction.body.balance, 120);
    assert.equal(correction.body.entry.kind, 'correction');
    const ledger = await admin<Array<{ amount: number; reason: string; balance_after: number }>>(
      'GET',
      `/admin/v1/teams/${team.id}/ledger`,
    );
    assert.deepEqual(
      ledger.body.map((e) => [e.amount, e.balance_after, e.reason]),
      [
        [-30, 120, 'duplicate promo'],
        [50, 150, 'promo'],
        [100, 100, 'Starting credits'],
      ],
    );
  });

  test('a zero grant or a reason-less grant is refused', async () => {
    const team = await createTeam(server, 1);
    const zero = await admin<{ error: { details: Array<{ field: string }> } }>(
      'POST',
      `/admin/v1/teams/${team.id}/credits`,
      { amount: 0, reason: 'x' },
    );
    assert.equal(zero.status, 400);
    assert.equal(zero.body.error.details[0]?.field, 'amount');
    const noReason = await admin('POST', `/admin/v1/teams/${team.id}/credits`, { amount: 5 });
    assert.equal(noReason.status, 400);
  });

  test('workspaces created by the admin belong to that team only', async () => {
    const a = await createTeam(server, 0);
    const ws = await admin<{ id: string; name: string }>('POST', `/admin/v1/teams/${a.id}/workspaces`, { name: 'x' });
    assert.equal(ws.status, 201);
    assert.match(ws.body.id, /^ws_/);
    const own = await call<Array<{ id: string }>>(server, 'GET', '/api/v1/workspaces', { token: a.key });
    assert.deepEqual(
      own.body.map((w) => w.id),
      [ws.body.id],
    );
    const listed = await admin<Array<{ id: string }>>('GET', `/admin/v1/teams/${a.id}/workspaces`);
    assert.deepEqual(
      listed.body.map((w) => w.id),
      [ws.body.id],
    );
  });

  test('the webhook secret can be read and rotated', async () => {
    const team = await createTeam(server, 0);
    const first = await admin<{ secret: string }>('GET', `/admin/v1/teams/${team.id}/webhook-secret`);
    assert.match(first.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = await admin<{ secret: string }>('POST', `/admin/v1/teams/${team.id}/webhook-secret`);
    assert.equal(rotated.status, 201);
    assert.notEqual(rotated.body.secret, first.body.secret);
    const again = await admin<{ secret: string }>('GET', `/admin/v1/teams/${team.id}/webhook-secret`);
    assert.equal(again.body.secret, rotated.body.secret);
  });

  describe('CLI', () => {
    const cli = async (...args: string[]) => {
      try {
        const { stdout } = await exec(process.execPath, ['src/cli/admin.ts', ...args], {
          env: { ...process.env, GMS_URL: server.url, ADMIN_TOKEN: server.adminToken },
        });
        return { code: 0, json: JSON.parse(stdout) as Record<string, unknown> & Array<Record<string, unknown>> };
      } catch (err) {
        const e = err as { code: number; stderr: string };
        // API errors are the JSON body; usage errors are one JSON line followed by the usage text.
        const body = e.stderr.trim().startsWith('{\n') ? e.stderr : (e.stderr.split('\n')[0] ?? '{}');
        return { code: e.code, json: JSON.parse(body) };
      }
    };

    test('runs the whole account workflow and prints JSON', async () => {
      const team = await cli('teams', 'create', '--name', 'acme', '--credits', '500');
      assert.equal(team.code, 0);
      assert.equal(team.json.credits, 500);
      const teamId = String(team.json.id);

      const key = await cli('keys', 'create', '--team', teamId, '--name', 'cli');
      assert.equal(key.code, 0);
      const rawKey = String(key.json.key);
      assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: rawKey })).body, 500);

      const grant = await cli('credits', 'grant', '--team', teamId, '--amount', '100', '--reason', 'welcome');
      assert.equal(grant.json.balance, 600);
      const correction = await cli('credits', 'grant', '--team', teamId, '--amount=-25', '--reason', 'fix');
      assert.equal(correction.json.balance, 575);

      const ws = await cli('workspaces', 'create', '--team', teamId, '--name', 'x');
      assert.equal(ws.code, 0);
      assert.match(String(ws.json.id), /^ws_/);

      const ledger = await cli('ledger', '--team', teamId);
      assert.equal(ledger.json.length, 3);
      assert.equal((await cli('teams', 'get', teamId)).json.credits, 575);
      assert.equal((await cli('keys', 'list', '--team', teamId)).json.length, 1);
      assert.match(String((await cli('webhook-secret', 'rotate', '--team', teamId)).json.secret), /^whsec_/);

      const revoke = await cli('keys', 'revoke', String(key.json.id));
      assert.equal(revoke.code, 0);
      assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: rawKey })).status, 401);
    });

    test('imports a storyboard project from a JSON file', async () => {
      const team = await cli('teams', 'create', '--name', 'studio');
      const teamId = String(team.json.id);
      const dir = await mkdtemp(join(tmpdir(), 'cli-storyboard-'));
      try {
        const file = join(dir, 'project.json');
        await writeFile(
          file,
          JSON.stringify({
            name: 'Pilot',
            scenes: [
              {
                title: 'Opening',
                shots: [{ frames: [{ image_versions: [{ url: 'https://cdn.example.com/a.png' }] }] }],
              },
            ],
          }),
        );
        const imported = await cli('storyboards', 'import', '--team', teamId, '--file', file);
        assert.equal(imported.code, 0);
        assert.equal(imported.json.name, 'Pilot');
        assert.match(String(imported.json.id), /^sb_/);
        assert.equal((imported.json.scenes as unknown[]).length, 1);

        const missing = await cli('storyboards', 'import', '--team', teamId, '--file', join(dir, 'nope.json'));
        assert.equal(missing.code, 2);
        assert.match(String((missing.json as { error: { message: string } }).error.message), /cannot read .*ENOENT/);
        await writeFile(file, '[1, 2]');
        const notObject = await cli('storyboards', 'import', '--team', teamId, '--file', file);
        assert.equal(notObject.code, 2);
        assert.match(String((notObject.json as { error: { message: string } }).error.message), /one JSON object/);
        await writeFile(file, JSON.stringify({ scenes: [] }));
        const invalid = await cli('storyboards', 'import', '--team', teamId, '--file', file);
        assert.equal(invalid.code, 1);
        assert.equal((invalid.json as { error: { code: string } }).error.code, 'invalid_request');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('reports API errors on stderr with a non-zero exit', async () => {
      const r = await cli('teams', 'get', 'team_missing');
      assert.equal(r.code, 1);
      assert.equal((r.json as { error: { code: string } }).error.code, 'not_found');
      const usage = await cli('keys', 'create');
      assert.equal(usage.code, 2);
      assert.match(String((usage.json as { error: { message: string } }).error.message), /--team is required/);
    });
  });
});
