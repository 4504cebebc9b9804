// GET /admin/v1/providers?check=true through the whole service for ElevenLabs, Suno and Meshy: one
// server holding the keys their fakes (test/fakes/) accept, one holding wrong keys. Each vendor is
// asked one harmless question with our key; the answer says whether it was accepted, never the key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeElevenLabs, startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { type FakeMeshy, startFakeMeshy } from './fakes/meshy.ts';
import { type FakeSuno, startFakeSuno } from './fakes/suno.ts';
import { call, startTestServer, type TestServer } from './helpers.ts';

interface Listed {
  id: string;
  configured: boolean;
  check?: { reachable: boolean | null; detail: string };
}

const VENDORS = ['elevenlabs', 'suno', 'meshy'] as const;
const WRONG = { elevenlabs: 'xi-wrong-key-4711', suno: 'suno_wrong_key_4711', meshy: 'msy_wrong_key_4711' };

describe('provider check of ElevenLabs, Suno and Meshy', () => {
  let el: FakeElevenLabs;
  let suno: FakeSuno;
  let meshy: FakeMeshy;
  let good: TestServer;
  let wrong: TestServer;

  const env = (keys: { elevenlabs: string; suno: string; meshy: string }) => ({
    ELEVENLABS_API_KEY: keys.elevenlabs,
    ELEVENLABS_BASE_URL: el.url,
    SUNO_API_KEY: keys.suno,
    SUNO_BASE_URL: suno.url,
    MESHY_API_KEY: keys.meshy,
    MESHY_BASE_URL: meshy.url,
  });

  before(async () => {
    [el, suno, meshy] = await Promise.all([startFakeElevenLabs(), startFakeSuno(), startFakeMeshy()]);
    good = await startTestServer({
      worker: false,
      env: env({ elevenlabs: el.apiKey, suno: suno.apiKey, meshy: meshy.apiKey }),
    });
    wrong = await startTestServer({ worker: false, env: env(WRONG) });
  });
  after(async () => {
    await good?.close();
    await wrong?.close();
    await Promise.all([el?.close(), suno?.close(), meshy?.close()]);
  });

  const check = async (server: TestServer) => {
    const listed = await call<Listed[]>(server, 'GET', '/admin/v1/providers?check=true', {
      token: server.adminToken,
    });
    assert.equal(listed.status, 200, listed.text);
    return listed;
  };

  test('with the keys the vendors accept, each answers reachable, and the answer holds no key', async () => {
    const listed = await check(good);
    for (const id of VENDORS) {
      const provider = listed.body.find((p) => p.id === id);
      assert.equal(provider?.configured, true, id);
      assert.equal(provider?.check?.reachable, true, `${id}: ${provider?.check?.detail}`);
      assert.ok(provider?.check?.detail, `${id} says what it asked`);
    }
    assert.match(listed.body.find((p) => p.id === 'suno')?.check?.detail ?? '', /100 credits left/);
    for (const key of [el.apiKey, suno.apiKey, meshy.apiKey]) assert.ok(!listed.text.includes(key), key);
    // Each was asked with our key, and nothing was started.
    assert.equal(el.calls.find((c) => c.path === '/v1/user')?.headers['xi-api-key'], el.apiKey);
    assert.equal(suno.submissions.length, 0);
    assert.equal(meshy.posts.length, 0);
  });

  test('with wrong keys, each answers unreachable with why, and the answer holds no key', async () => {
    const listed = await check(wrong);
    for (const id of VENDORS) {
      const provider = listed.body.find((p) => p.id === id);
      assert.equal(provider?.configured, true, id);
      assert.equal(provider?.check?.reachable, false, `${id}: ${provider?.check?.detail}`);
    }
    const detail = (id: string) => listed.body.find((p) => p.id === id)?.check?.detail ?? '';
    assert.match(detail('elevenlabs'), /ElevenLabs refused our credentials \(HTTP 401\)/);
    assert.match(detail('meshy'), /Meshy refused our credentials \(HTTP 401\)/);
    assert.match(detail('suno'), /^Suno refused our API key: .*\(code 401\)$/);
    for (const key of [...Object.values(WRONG), el.apiKey, suno.apiKey, meshy.apiKey]) {
      assert.ok(!listed.text.includes(key), key);
    }
    assert.ok(
      el.calls.some((c) => c.path === '/v1/user' && c.headers['xi-api-key'] === WRONG.elevenlabs),
      'ElevenLabs was asked with the wrong key',
    );
  });
});
