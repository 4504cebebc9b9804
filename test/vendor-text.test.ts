// text/generate on an OpenAI-compatible chat server through the whole service: a fake server
// (test/fakes/openai-compatible.ts) on 127.0.0.1, selected with OPENAI_COMPATIBLE_BASE_URL as an
// operator running Ollama or vLLM would. Text results are kept in their item's record, not in a
// file: the item's URL is the service's own /media/ route, which serves the text from the record
// (exactly, with HEAD and ranges) while the item is completed and its generation not purged (410
// after); a tool-call answer serves its tool calls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sweepRetention } from '../src/engine/retention.ts';
import { tokenCredits } from '../src/lib/tokens.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord } from './media-helpers.ts';

const DAY = 86_400_000;

interface TextAnswer {
  generation_id: string;
  text: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  credits_used: number;
}

describe('text through an OpenAI-compatible server', () => {
  let chat: FakeOpenAiCompatible;
  let server: TestServer;
  let team: TeamFixture;
  const MODEL = 'openai/gpt-4o-mini';

  before(async () => {
    chat = await startFakeOpenAiCompatible({ apiKey: 'sk-local-1' });
    server = await startTestServer({
      env: {
        ...chat.env({ [MODEL]: 'llama3.2:3b' }),
        MEDIA_RETENTION_DAYS: '7',
      },
    });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
    await chat.close();
  });

  const generate = (prompt: string, maxTokens = 400) =>
    call<TextAnswer>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt, model: MODEL, settings: { max_tokens: maxTokens, system_prompt: 'Answer in French.' } },
    });

  async function charges(generationId: string): Promise<Array<[string, number]>> {
    const { rows } = await server.pool.query<{ kind: string; amount: number }>(
      'select kind, amount from credit_ledger where generation_id = $1 order by id',
      [generationId],
    );
    return rows.map((r) => [r.kind, r.amount]);
  }

  test('the answer is the server’s, charged for the tokens it reports; the rest is refunded', async () => {
    const before = await balanceOf(server, team.key);
    // A bound of 16,000 tokens costs more than the short answer: the difference comes back.
    const answer = await generate('Describe a fox in one sentence.', 16_000);
    assert.equal(answer.status, 200, answer.text);
    const sent = chat.submissions.at(-1);
    assert.equal(sent?.body.model, 'llama3.2:3b', 'the catalog id, renamed for the server');
    assert.equal(sent?.headers.authorization, 'Bearer sk-local-1');
    assert.deepEqual(sent?.body.messages, [
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Describe a fox in one sentence.' },
    ]);
    assert.equal(sent?.body.max_tokens, 16_000);
    const reported = chat.answers.at(-1);
    assert.equal(answer.body.text, reported?.text);
    assert.deepEqual(answer.body.usage, reported?.usage);
    const model = server.app.deps.media.text.find((m) => m.id === MODEL);
    const cost = tokenCredits(
      answer.body.usage.prompt_tokens,
      answer.body.usage.completion_tokens,
      model?.price ?? { input_per_1k: 0, output_per_1k: 0 },
    );
    assert.equal(answer.body.credits_used, cost);
    assert.equal(await balanceOf(server, team.key), before - cost);
    const ledger = await charges(answer.body.generation_id);
    assert.equal(ledger[0]?.[0], 'charge');
    assert.deepEqual(
      ledger.map(([kind]) => kind),
      ['charge', 'refund'],
      'the unused part of the bound came back',
    );
    assert.ok(-(ledger[0]?.[1] ?? 0) > cost, 'the bound cost more than the answer');
  });

  test('usage above the charged bound is recorded but never charged beyond it', async () => {
    const before = await balanceOf(server, team.key);
    // The fake reports ten times the bound: 50,000 tokens cost a few credits more than 5,000.
    const answer = await generate('Count to ten. [oai:over-usage]', 5000);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.usage.completion_tokens, 50_000, 'what the server reported');
    const ledger = await charges(answer.body.generation_id);
    assert.deepEqual(
      ledger.map(([kind]) => kind),
      ['charge'],
      'nothing refunded, nothing more charged',
    );
    const charged = -(ledger[0]?.[1] ?? 0);
    assert.equal(answer.body.credits_used, charged);
    assert.equal(await balanceOf(server, team.key), before - charged);
    // What the reported usage would have cost beyond the charge is recorded in the item's result.
    const model = server.app.deps.media.text.find((m) => m.id === MODEL);
    const cost = tokenCredits(
      answer.body.usage.prompt_tokens,
      answer.body.usage.completion_tokens,
      model?.price ?? { input_per_1k: 0, output_per_1k: 0 },
    );
    assert.ok(cost > charged, `the usage costs ${cost}, more than the ${charged} charged`);
    const { rows } = await server.pool.query<{ result: { credits: number; uncharged_credits?: number } }>(
      'select result from generation_items where generation_id = $1',
      [answer.body.generation_id],
    );
    assert.equal(rows[0]?.result.credits, charged);
    assert.equal(rows[0]?.result.uncharged_credits, cost - charged);
  });

  test('a content filter is 400 with the server’s reason; a server error is 500; both refunded', async () => {
    const before = await balanceOf(server, team.key);
    const filtered = await generate('Something it will not say [oai:content-filter]');
    assert.equal(filtered.status, 400, filtered.text);
    assert.equal((filtered.body as unknown as { error: { code: string } }).error.code, 'invalid_request');
    const broken = await generate('Anything [oai:500]');
    assert.equal(broken.status, 500, broken.text);
    assert.equal((broken.body as unknown as { error: { code: string } }).error.code, 'generation_failed');
    assert.equal(await balanceOf(server, team.key), before);
  });

  test('the provider check reads the server with our key', async () => {
    const listed = await call<Array<{ id: string; check?: { reachable: boolean | null; detail: string } }>>(
      server,
      'GET',
      '/admin/v1/providers?check=true',
      { token: server.adminToken },
    );
    const check = listed.body.find((p) => p.id === 'openai-compatible')?.check;
    assert.equal(check?.reachable, true, check?.detail);
  });

  /** The URL of a generation's one item, as its status record names it. */
  async function itemUrl(generationId: string): Promise<string> {
    const status = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${generationId}/status`, {
      token: team.key,
    });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.items[0]?.status, 'COMPLETED');
    const url = status.body.items[0]?.url ?? '';
    assert.ok(url.startsWith(`${server.url}/media/${generationId}/`), url);
    assert.ok(url.endsWith('.txt'), url);
    assert.deepEqual(status.body.result_urls, [url]);
    return url;
  }

  const keyOf = (url: string) => url.slice(`${server.url}/media/`.length);

  test('the URL serves the text from the record: no file is stored; HEAD and ranges as for files', async () => {
    const answer = await call<{ generation_id: string; text: string }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Describe a fox in one sentence, with an accent: é.', model: MODEL },
    });
    assert.equal(answer.status, 200, answer.text);
    const url = await itemUrl(answer.body.generation_id);
    assert.equal(await server.app.deps.storage.get(keyOf(url)), undefined, 'no file in the storage');

    const got = await fetch(url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.match(got.headers.get('cache-control') ?? '', /immutable/);
    const etag = got.headers.get('etag') ?? '';
    const bytes = Buffer.from(await got.arrayBuffer());
    assert.equal(bytes.toString('utf8'), answer.body.text);
    assert.ok(answer.body.text.length > 0);

    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(bytes.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);

    const part = await fetch(url, { headers: { range: 'bytes=2-5' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 2-5/${bytes.length}`);
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(2, 6));
    const beyond = await fetch(url, { headers: { range: `bytes=${bytes.length}-` } });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), `bytes */${bytes.length}`);
    await beyond.arrayBuffer();

    const cached = await fetch(url, { headers: { 'if-none-match': etag } });
    assert.equal(cached.status, 304);

    // Another token, another item or generation of the same shape: nothing.
    const token = /-([0-9a-f]{32})\.txt$/.exec(url)?.[1] ?? '';
    const wrong = url.replace(
      token,
      token.replace(/^./, (c) => (c === '0' ? '1' : '0')),
    );
    const missing = await fetch(wrong);
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
  });

  test('a chat answered with tool calls serves them, as its file held them', async () => {
    const answer = await call<{ choices: Array<{ message: { tool_calls?: unknown[] } }> }>(
      server,
      'POST',
      '/v1/chat/completions',
      {
        token: team.key,
        body: {
          model: MODEL,
          messages: [{ role: 'user', content: 'What is the weather in Lyon?' }],
          tools: [
            {
              type: 'function',
              function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
            },
          ],
        },
      },
    );
    assert.equal(answer.status, 200, answer.text);
    const calls = answer.body.choices[0]?.message.tool_calls;
    assert.ok(Array.isArray(calls) && calls.length > 0, answer.text);
    const generationId = answer.headers.get('x-generation-id') ?? '';
    const got = await fetch(await itemUrl(generationId));
    assert.equal(got.status, 200);
    assert.deepEqual(JSON.parse(await got.text()), calls);
  });

  test('a purged generation answers 410', async () => {
    const answer = await call<{ generation_id: string }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Kept for a week.', model: MODEL },
    });
    assert.equal(answer.status, 200, answer.text);
    const url = await itemUrl(answer.body.generation_id);
    assert.equal((await fetch(url)).status, 200);
    await sweepRetention(server.app.deps.pool, server.app.deps.storage, {
      now: new Date(Date.now() + 8 * DAY),
      recordsRetentionDays: 30,
    });
    const gone = await fetch(url);
    assert.equal(gone.status, 410);
    assert.equal(((await gone.json()) as { error: { code: string } }).error.code, 'gone');
  });
});
