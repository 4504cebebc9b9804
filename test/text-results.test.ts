// Text results are kept in their item's record, not in a file: the item's URL is the service's
// own /media/ route, which serves the text from the record (exactly, with HEAD and ranges) while
// the item is completed and its generation not purged (410 after); a tool-call answer serves its
// tool calls.
// Text made by a fake OpenAI-compatible server (OPENAI_COMPATIBLE_BASE_URL) with local storage.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sweepRetention } from '../src/engine/retention.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import type { StatusRecord } from './media-helpers.ts';

const DAY = 86_400_000;

describe('text results kept in their records', () => {
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
