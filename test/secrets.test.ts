// Webhook signing secrets are stored sealed: the database holds no secret in clear, the API still
// shows and signs with it, a secret stored before sealing is sealed at start without changing its
// date, and a wrong key is told, not guessed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { sealStoredSecrets } from '../src/modules/webhooks/service.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

describe('stored secrets', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100);
  });
  after(async () => {
    await server.close();
  });

  const stored = async (teamId: string) =>
    (
      await server.app.deps.pool.query<{ webhook_secret: string; webhook_secret_created_at: Date }>(
        'select webhook_secret, webhook_secret_created_at from teams where id = $1',
        [teamId],
      )
    ).rows[0];

  test('the database holds the signing secret sealed; the API shows it in clear', async () => {
    const shown = await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key });
    assert.match(shown.body.secret, /^whsec_/);
    const row = await stored(team.id);
    assert.match(row?.webhook_secret ?? '', /^enc:v1:/);
    assert.ok(!row?.webhook_secret.includes(shown.body.secret.slice(6)), 'no part of the secret in clear');
    const rotated = await call<{ secret: string }>(server, 'POST', '/api/v1/webhooks/secret/rotate', {
      token: team.key,
    });
    assert.notEqual(rotated.body.secret, shown.body.secret);
    assert.match((await stored(team.id))?.webhook_secret ?? '', /^enc:v1:/);
    const admin = await call<{ secret: string }>(server, 'GET', `/admin/v1/teams/${team.id}/webhook-secret`, {
      token: server.adminToken,
    });
    assert.equal(admin.body.secret, rotated.body.secret, 'the admin API reads the same secret');
  });

  test('a secret stored in clear before sealing is sealed at start, and keeps its date', async () => {
    const other = await createTeam(server, 0);
    const plain = 'whsec_QWxhZGRpbjpvcGVuIHNlc2FtZQ==';
    const pool = server.app.deps.pool;
    await pool.query(`update teams set webhook_secret = $2 where id = $1`, [other.id, plain]);
    await pool.query(`update teams set webhook_secret_created_at = '2026-01-01T00:00:00Z' where id = $1`, [other.id]);
    assert.ok((await sealStoredSecrets(pool, server.app.deps.secrets)) >= 1);
    const row = await stored(other.id);
    assert.match(row?.webhook_secret ?? '', /^enc:v1:/);
    assert.equal(row?.webhook_secret_created_at.toISOString(), '2026-01-01T00:00:00.000Z');
    const shown = await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: other.key });
    assert.equal(shown.body.secret, plain);
    assert.equal(await sealStoredSecrets(pool, server.app.deps.secrets), 0, 'nothing left in clear');
  });

  test('a box opens what it sealed; another key is refused clearly, and tampering is detected', () => {
    const box = createSecretBox('one key material of some length');
    const sealed = box.seal('whsec_abc');
    assert.equal(box.open(sealed), 'whsec_abc');
    assert.notEqual(box.seal('whsec_abc'), sealed, 'a fresh IV each time');
    assert.throws(() => createSecretBox('another key material, as long').open(sealed), /SECRETS_KEY/);
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    assert.throws(() => box.open(tampered), /cannot be decrypted/);
    assert.equal(box.open('whsec_plain'), 'whsec_plain', 'a value stored before sealing reads as it is');
  });
});
