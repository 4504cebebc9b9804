// Counting a prompt's tokens is linear in its length: a long run with no break (one repeated
// character, a base64 blob, a run of one CJK character) is quoted as fast as prose, and a normal
// prompt's count is the exact o200k_base count it always was.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeChat } from 'gpt-tokenizer/model/gpt-4o';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

interface QuoteBody {
  credits: number;
  balance: number;
  items: number;
}

/**
 * The CPU time this process (server and client both run in it) spends on one call. CPU time,
 * not wall time, so other processes on a busy machine do not count against the budget; the
 * quadratic tokenizer needed seconds of CPU for each of these prompts.
 */
async function cpuMsOf<T>(work: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const start = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(start);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

/** 150,000 bytes of pseudo-random data as one 200,000-character base64 run. */
function base64Run(): string {
  const bytes = Buffer.alloc(150_000);
  let x = 2463534242;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes.toString('base64');
}

describe('token counting', () => {
  let server: TestServer;
  let team: TeamFixture;
  // A model whose context window holds 200,000 tokens plus the reply, so every quote prices.
  const model = 'openai/gpt-4.1';

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
  });

  const quote = (prompt: string) =>
    call<QuoteBody>(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: { endpoint: '/api/v1/text/generate', body: { prompt, model, settings: { max_tokens: 100 } } },
    });

  test('a normal prompt is counted exactly as the chat API counts it', async () => {
    const system = 'You are a careful editor. Answer in plain English.';
    const prompt = [
      'Summarize this note for the team, and keep the link: https://example.com/reports/2026/q3?id=42#summary.',
      'The committee reviewed the budget on 2026-03-14 and found issues with line items 12, 47 and 103.',
      '日本語のテキストも少し含まれています。',
      'function add(a, b) { return a + b; } // "quoted", it\'s fine',
      '____ ==== ---- ****',
    ]
      .join('\n')
      .repeat(40);
    const expected = encodeChat([
      { role: 'system', content: system },
      { role: 'user', content: prompt },
    ]).length;
    const made = await call<{ usage: { prompt_tokens: number } }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt, model, settings: { system_prompt: system, max_tokens: 50 } },
    });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.usage.prompt_tokens, expected);
  });

  for (const [name, prompt] of [
    ['200,000 underscores', '_'.repeat(200_000)],
    ['200,000 of one letter', 'a'.repeat(200_000)],
    ['a 200,000-character base64 run', base64Run()],
    ['200,000 of one CJK character', '中'.repeat(200_000)],
    ['200,000 spaces between two words', `a${' '.repeat(199_998)}b`],
  ] as const) {
    // The quadratic tokenizer took from seconds to minutes per quote; a linear one takes tens of ms
    // idle. CPU time still grows on a machine the suite keeps busy (a shared core's caches, the
    // in-process worker's timers): the budget of 1 s tells the two apart without flaking there.
    test(`${name} are quoted in under 1 s of CPU`, async () => {
      // Warm up the path (JIT, the encoder's tables) with a short prompt first.
      assert.equal((await quote('hello')).status, 200);
      const { result, cpuMs } = await cpuMsOf(() => quote(prompt));
      assert.equal(result.status, 200, result.text);
      assert.ok(result.body.credits >= 1);
      assert.ok(cpuMs < 1000, `the quote took ${cpuMs.toFixed(0)} ms of CPU`);
    });
  }
});
