// The OpenAI-compatible door as an LLM gateway, driven by the official `openai` client against the
// service in front of an OpenAI-compatible server (test/fakes/openai-compatible.ts): tools, JSON
// modes and n passed through and answered in OpenAI's shapes, tokens streamed as the server sends
// them, a client that leaves mid-stream stopping the server's call, and every charge in the ledger.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

// A pricey model, so that a bound is many credits and a multiple of it shows.
const MODEL = 'anthropic/claude-opus-4.1';

const WEATHER_TOOL: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};

describe('OpenAI door in front of an OpenAI-compatible server', () => {
  let upstream: FakeOpenAiCompatible;
  let server: TestServer;
  let team: TeamFixture;
  let client: OpenAI;

  before(async () => {
    upstream = await startFakeOpenAiCompatible({ apiKey: 'sk-local-1' });
    server = await startTestServer({
      env: {
        ...upstream.env({ [MODEL]: 'llama3.1:8b' }),
      },
    });
    team = await createTeam(server, 1_000_000);
    client = new OpenAI({ apiKey: team.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await server.close();
    await upstream.close();
  });

  /** The ledger rows of a generation, in order. */
  async function ledger(generationId: string): Promise<Array<{ kind: string; amount: number }>> {
    const { rows } = await server.pool.query<{ kind: string; amount: number }>(
      'select kind, amount from credit_ledger where generation_id = $1 order by id',
      [generationId],
    );
    return rows;
  }

  /** What a generation took: the balance's change equals its ledger rows' sum, and its net charge. */
  async function assertLedgerExact(generationId: string, balanceBefore: number): Promise<number> {
    const rows = await ledger(generationId);
    const net = 0 - rows.reduce((sum, r) => sum + r.amount, 0);
    assert.equal(await balanceOf(server, team.key), balanceBefore - net, JSON.stringify(rows));
    const status = await call<{ credits_used: number }>(server, 'GET', `/api/v1/generations/${generationId}/status`, {
      token: team.key,
    });
    assert.equal(status.body.credits_used, net);
    return net;
  }

  const generationOf = (id: string) => id.replace(/^chatcmpl-/, '');

  test('tools go to the server as they are, and its tool call comes back; the tool’s result goes back as a tool message', async () => {
    const before = await balanceOf(server, team.key);
    const first = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      seed: 7,
      top_p: 0.5,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
    });
    const sent = upstream.submissions.at(-1)?.body;
    assert.deepEqual(sent?.tools, [WEATHER_TOOL]);
    assert.equal(sent?.tool_choice, 'auto');
    assert.equal(sent?.parallel_tool_calls, false);
    assert.equal(sent?.seed, 7);
    assert.equal(sent?.top_p, 0.5);
    assert.equal(sent?.frequency_penalty, 0.1);
    assert.equal(sent?.presence_penalty, 0.2);
    const choice = first.choices[0];
    assert.equal(choice?.finish_reason, 'tool_calls');
    assert.equal(choice?.message.content, null);
    const call0 = choice?.message.tool_calls?.[0];
    assert.ok(call0 && call0.type === 'function');
    assert.equal(call0.function.name, 'get_weather');
    assert.equal(JSON.parse(call0.function.arguments).city, 'Paris');
    await assertLedgerExact(generationOf(first.id), before);

    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: choice?.message.tool_calls },
      { role: 'tool', tool_call_id: call0.id, content: '18 degrees, sunny' },
    ];
    const second = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] });
    assert.deepEqual(upstream.submissions.at(-1)?.body.messages, messages, 'the messages as they are');
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    assert.match(second.choices[0]?.message.content ?? '', /18 degrees, sunny/);
  });

  test('a refusal comes back as the message’s refusal, charged as the server reports', async () => {
    const before = await balanceOf(server, team.key);
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Something it will not do [oai:refusal]' }],
    });
    const message = completion.choices[0]?.message;
    assert.equal(message?.content, null);
    assert.equal(message?.refusal, "I'm sorry, I can't help with that.");
    await assertLedgerExact(generationOf(completion.id), before);
  });

  test('streamed tool calls come as OpenAI’s deltas, their arguments in pieces', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris, streamed' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const pieces: string[] = [];
    let name = '';
    let id = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const c of chunk.choices) {
        for (const call of c.delta.tool_calls ?? []) {
          assert.equal(call.index, 0);
          if (call.id) id = call.id;
          name += call.function?.name ?? '';
          if (call.function?.arguments) pieces.push(call.function.arguments);
        }
        finish = c.finish_reason ?? finish;
      }
    }
    assert.ok(pieces.length > 1, 'the arguments came in several deltas');
    assert.equal(name, 'get_weather');
    assert.match(id, /^call_/);
    assert.deepEqual(JSON.parse(pieces.join('')), { city: 'Paris', unit: 'celsius', choice: 0 });
    assert.equal(finish, 'tool_calls');
    assert.equal(upstream.submissions.at(-1)?.body.stream, true);
    assert.deepEqual(upstream.submissions.at(-1)?.body.stream_options, { include_usage: true });
  });

  test('JSON mode and a JSON schema are passed on and answered as JSON', async () => {
    const object = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'A fox, as JSON' }],
      response_format: { type: 'json_object' },
    });
    assert.deepEqual(upstream.submissions.at(-1)?.body.response_format, { type: 'json_object' });
    assert.equal(typeof JSON.parse(object.choices[0]?.message.content ?? '').answer, 'string');

    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, legs: { type: 'integer' } },
      required: ['name', 'legs'],
      additionalProperties: false,
    };
    const format = { type: 'json_schema' as const, json_schema: { name: 'animal', strict: true, schema } };
    const shaped = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'A fox, in the schema' }],
      response_format: format,
    });
    assert.deepEqual(upstream.submissions.at(-1)?.body.response_format, format);
    assert.deepEqual(JSON.parse(shaped.choices[0]?.message.content ?? ''), { name: 'renard', legs: 4 });
  });

  test('n=2 answers two choices, its bound charged per choice, settled on the reported usage', async () => {
    const request = {
      model: MODEL,
      messages: [{ role: 'user' as const, content: 'Name a colour' }],
      max_tokens: 2000,
    };
    const before = await balanceOf(server, team.key);
    const one = await client.chat.completions.create(request);
    await assertLedgerExact(generationOf(one.id), before);
    const middle = await balanceOf(server, team.key);
    const two = await client.chat.completions.create({ ...request, n: 2, logprobs: true, top_logprobs: 2 });
    assert.equal(upstream.submissions.at(-1)?.body.n, 2);
    assert.equal(two.choices.length, 2);
    assert.deepEqual(
      two.choices.map((c) => c.index),
      [0, 1],
    );
    assert.match(two.choices[1]?.message.content ?? '', /choice 2/);
    assert.ok((two.choices[0]?.logprobs?.content?.length ?? 0) > 0, 'the log probabilities come back');
    const charged = async (id: string) =>
      (await ledger(generationOf(id))).filter((r) => r.kind === 'charge').map((r) => -r.amount);
    const [boundOne] = await charged(one.id);
    const [boundTwo] = await charged(two.id);
    assert.ok(boundOne && boundOne > 1, `bound ${boundOne}`);
    assert.equal(boundTwo, 2 * (boundOne ?? 0), 'the bound is n times one choice’s');
    const net = await assertLedgerExact(generationOf(two.id), middle);
    const model = server.app.deps.media.text.find((m) => m.id === MODEL);
    const usage = two.usage;
    assert.ok(model && usage);
    const cost = Math.ceil(
      (usage.prompt_tokens * model.price.input_per_1k + usage.completion_tokens * model.price.output_per_1k) / 1000,
    );
    assert.equal(net, Math.max(1, Math.min(cost, boundTwo ?? 0)), 'settled on the usage the server reported');
  });

  test('a stream forwards the first tokens before the server has finished', async () => {
    const before = await balanceOf(server, team.key);
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Tell me about foxes [oai:gate]' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    let content = '';
    for await (const chunk of stream) {
      chunks.push(chunk);
      const piece = chunk.choices[0]?.delta.content ?? '';
      if (piece !== '' && content === '') {
        // The first token is here while the server still holds the rest of its answer.
        assert.equal(upstream.gated, 1, 'the server has not finished');
        upstream.openGate();
      }
      content += piece;
    }
    assert.equal(content, upstream.answers.at(-1)?.text);
    assert.ok(chunks.filter((c) => c.choices[0]?.delta.content).length > 2, 'the text came in several chunks');
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    assert.deepEqual(last?.usage, upstream.answers.at(-1)?.usage);
    await assertLedgerExact(generationOf(chunks[0]?.id ?? ''), before);
  });

  test('a client that leaves mid-stream stops the server’s call and is charged the bound; the item completes with the text so far', async () => {
    const before = await balanceOf(server, team.key);
    const aborted = upstream.aborted;
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'A long story about foxes [oai:gate]' }],
      max_tokens: 3000,
      stream: true,
    });
    let id = '';
    let first = '';
    for await (const chunk of stream) {
      id = chunk.id;
      first += chunk.choices[0]?.delta.content ?? '';
      if (first !== '') break;
    }
    // Leaving the loop closes the connection; the server sees its call stopped.
    stream.controller.abort();
    await upstream.untilAborted(aborted + 1);
    upstream.openGate();
    const generationId = generationOf(id);
    const status = await waitForGeneration(server, team.key, generationId);
    assert.equal(status.status, 'completed');
    const rows = await ledger(generationId);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['charge'],
      'nothing reported: the bound stays charged',
    );
    const net = await assertLedgerExact(generationId, before);
    assert.equal(net, -(rows[0]?.amount ?? 0));
    const history = await call<{ data: Array<{ generation_id: string; status: string }> }>(
      server,
      'GET',
      '/api/v1/generations',
      { token: team.key },
    );
    assert.ok(history.body.data.some((g) => g.generation_id === generationId && g.status === 'completed'));
    const { rows: items } = await server.pool.query<{ result: { text: string; cut?: boolean } }>(
      'select result from generation_items where generation_id = $1',
      [generationId],
    );
    assert.equal(items[0]?.result.text, first, 'the text that came before the client left');
    assert.equal(items[0]?.result.cut, true);
  });

  test('a client that leaves before the first token stops the call and is charged the bound; the item completes empty', async () => {
    const before = await balanceOf(server, team.key);
    const controller = new AbortController();
    const streaming = client.chat.completions.create(
      { model: MODEL, messages: [{ role: 'user', content: 'Slow to start [oai:held]' }], stream: true },
      { signal: controller.signal },
    );
    await upstream.untilHeld();
    controller.abort();
    await assert.rejects(streaming, OpenAI.APIUserAbortError);
    const history = await call<{ data: Array<{ generation_id: string }> }>(server, 'GET', '/api/v1/generations', {
      token: team.key,
    });
    const generationId = history.body.data[0]?.generation_id ?? '';
    assert.equal((await waitForGeneration(server, team.key, generationId)).status, 'completed');
    upstream.release();
    const rows = await ledger(generationId);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ['charge'],
    );
    assert.equal(await assertLedgerExact(generationId, before), -(rows[0]?.amount ?? 0));
  });

  test('a server that fails mid-stream ends the stream with an error event; the item fails and is refunded', async () => {
    const before = await balanceOf(server, team.key);
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Tell me [oai:stream-error]' }],
      stream: true,
    });
    let id = '';
    let content = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) {
          id = chunk.id;
          content += chunk.choices[0]?.delta.content ?? '';
        }
      })(),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.APIError, String(err));
        assert.match(err.message, /Upstream stopped mid-answer/);
        return true;
      },
    );
    assert.ok(content !== '', 'the first tokens came before the failure');
    const generationId = generationOf(id);
    assert.equal((await waitForGeneration(server, team.key, generationId)).status, 'failed');
    assert.deepEqual(
      (await ledger(generationId)).map((r) => r.kind),
      ['charge', 'refund'],
    );
    assert.equal(await assertLedgerExact(generationId, before), 0);
  });

  test('the native endpoint streams with stream: true: delta events, then done with its usual answer', async () => {
    const before = await balanceOf(server, team.key);
    const response = await fetch(`${server.url}/api/v1/text/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Describe a fox', model: MODEL, stream: true }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const generationId = response.headers.get('x-generation-id') ?? '';
    const text = await response.text();
    const events = text
      .trim()
      .split('\n\n')
      .map((block) => {
        const [eventLine, dataLine] = block.split('\n');
        return { event: eventLine?.replace('event: ', ''), data: JSON.parse(dataLine?.replace('data: ', '') ?? '') };
      });
    const deltas = events.filter((e) => e.event === 'delta');
    assert.ok(deltas.length > 2);
    const done = events.at(-1);
    assert.equal(done?.event, 'done');
    assert.equal(done?.data.generation_id, generationId);
    assert.equal(deltas.map((d) => d.data.text).join(''), done?.data.text);
    assert.equal(done?.data.text, upstream.answers.at(-1)?.text);
    assert.equal(await assertLedgerExact(generationId, before), done?.data.credits_used);
  });

  test('with an Idempotency-Key, a stream is charged once: the native replay answers JSON, the door’s replays the chunks', async () => {
    const before = await balanceOf(server, team.key);
    const key = `stream-${Date.now()}`;
    const native = () =>
      fetch(`${server.url}/api/v1/text/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${team.key}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ prompt: 'Describe a fox, once', model: MODEL, stream: true }),
      });
    const first = await native();
    const streamed = await first.text();
    const done = JSON.parse(streamed.trim().split('\n').at(-1)?.replace('data: ', '') ?? '');
    const replay = await native();
    assert.equal(replay.status, 200);
    assert.deepEqual(await replay.json(), done);
    await assertLedgerExact(done.generation_id, before);

    const middle = await balanceOf(server, team.key);
    const door = async () => {
      const stream = await client.chat.completions.create(
        { model: MODEL, messages: [{ role: 'user', content: 'A fox, once more' }], stream: true },
        { headers: { 'idempotency-key': `${key}-door` } },
      );
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      return chunks;
    };
    const once = await door();
    const again = await door();
    const text = (chunks: OpenAI.ChatCompletionChunk[]) =>
      chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.equal(text(again), text(once));
    assert.equal(again[0]?.id, once[0]?.id);
    await assertLedgerExact(generationOf(once[0]?.id ?? ''), middle);
  });
});
