// A vendor that rate-limits a synchronous request (429 with Retry-After) is asked again after the
// delay while the request may still wait (SYNC_REQUEST_TIMEOUT_S), then the next route is tried,
// then the request fails and is refunded: text on an OpenAI-compatible server, speech on
// ElevenLabs then MiniMax on fal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type FakeElevenLabs, startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf } from './media-helpers.ts';

const SYNC_WAIT_S = 20;

async function ledger(server: TestServer, generationId: string): Promise<string[]> {
  const { rows } = await server.pool.query<{ kind: string }>(
    'select kind from credit_ledger where generation_id = $1 order by id',
    [generationId],
  );
  return rows.map((r) => r.kind);
}

async function generationOf(server: TestServer, teamId: string): Promise<string> {
  const { rows } = await server.pool.query<{ id: string }>(
    'select id from generations where team_id = $1 order by created_at desc limit 1',
    [teamId],
  );
  return rows[0]?.id ?? '';
}

describe('a rate-limited synchronous text request', () => {
  let chat: FakeOpenAiCompatible;
  let server: TestServer;
  let team: TeamFixture;
  const MODEL = 'openai/gpt-4o-mini';

  before(async () => {
    chat = await startFakeOpenAiCompatible({ apiKey: 'sk-local-1' });
    server = await startTestServer({
      env: {
        ...chat.env({ [MODEL]: 'llama3.2:3b' }),
        SYNC_REQUEST_TIMEOUT_S: String(SYNC_WAIT_S),
      },
    });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
    await chat.close();
  });

  const generate = (prompt: string) =>
    call<{ generation_id: string; text: string; credits_used: number }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt, model: MODEL, settings: { max_tokens: 200 } },
    });
  const sent = (prompt: string) =>
    chat.submissions.filter((s) => JSON.stringify(s.body.messages).includes(JSON.stringify(prompt).slice(1, -1)));

  test('is asked again after Retry-After and answers, charged once', async () => {
    const prompt = 'Name a colour [oai:429-once]';
    const before = await balanceOf(server, team.key);
    const answer = await generate(prompt);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.body.text, /Name a colour/);
    assert.equal(sent(prompt).length, 2, 'the 429, then the answer');
    assert.equal(await balanceOf(server, team.key), before - answer.body.credits_used);
    const kinds = await ledger(server, answer.body.generation_id);
    assert.equal(kinds.filter((k) => k === 'charge').length, 1, `charged once: ${kinds.join(', ')}`);
  });

  test('with a Retry-After beyond what the request may wait, fails at once and is refunded', async () => {
    const prompt = 'Name a shape [oai:429-later]';
    const before = await balanceOf(server, team.key);
    const started = Date.now();
    const answer = await generate(prompt);
    assert.equal(answer.status, 500, answer.text);
    assert.match(answer.text, /rate limiting/);
    assert.equal(sent(prompt).length, 1, 'not asked again');
    assert.ok(Date.now() - started < SYNC_WAIT_S * 1000, 'it did not wait out the request’s time');
    assert.equal(await balanceOf(server, team.key), before);
    assert.deepEqual(await ledger(server, await generationOf(server, team.id)), ['charge', 'refund']);
  });
});

describe('a rate-limited synchronous speech request', () => {
  let el: FakeElevenLabs;
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    el = await startFakeElevenLabs();
    fal = await startFakeFal();
    server = await startTestServer({
      env: {
        ELEVENLABS_API_KEY: el.apiKey,
        ELEVENLABS_BASE_URL: el.url,
        ELEVENLABS_VOICE_MAP: JSON.stringify({ Wise_Woman: 'JBFqnCBsd6RMkjVDRZzb' }),
        ...fal.env,
        ITEM_MAX_ATTEMPTS: '2',
        SYNC_REQUEST_TIMEOUT_S: String(SYNC_WAIT_S),
      },
    });
    team = await createTeam(server, 1_000_000);
  });
  after(async () => {
    await server.close();
    await el.close();
    await fal.close();
  });

  test('is asked again after Retry-After, then fails over to the next route, charged once', async () => {
    const text = 'The harbour is busy tonight [el:429]';
    const before = await balanceOf(server, team.key);
    const answer = await call<{ generation_id: string; credits_used: number }>(
      server,
      'POST',
      '/api/v2/text-to-speech',
      { token: team.key, body: { voice_id: 'Wise_Woman', text } },
    );
    assert.equal(answer.status, 200, answer.text);
    const asked = el.calls.filter((c) => c.path.startsWith('/v1/text-to-speech/') && c.body?.text === text);
    assert.equal(asked.length, 2, 'ElevenLabs twice (ITEM_MAX_ATTEMPTS), after its Retry-After');
    assert.equal(fal.submissions.filter((s) => s.input.text === text).length, 1, 'then MiniMax on fal');
    assert.equal(await balanceOf(server, team.key), before - answer.body.credits_used);
    const generationId = await generationOf(server, team.id);
    assert.deepEqual(await ledger(server, generationId), ['charge']);
  });
});
