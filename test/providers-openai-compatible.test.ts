// The OpenAI-compatible chat adapter (OpenRouter by default; Ollama, vLLM, llama.cpp's server)
// against a fake server (test/fakes/openai-compatible.ts) built from the public shapes of OpenAI's
// chat completions and OpenRouter's additions: what it sends, how it reads every answer, and what
// its check says.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WorkError } from '../src/lib/errors.ts';
import { checkOpenAiCompatible, createOpenAiCompatibleProvider } from '../src/providers/openai-compatible/client.ts';
import { chatInput, OPENAI_COMPATIBLE_MAPPINGS } from '../src/providers/openai-compatible/mappings.ts';
import type {
  Fetch,
  Provider,
  ProviderError,
  ProviderOutput,
  SubmitResult,
  TextRequest,
  VendorRequest,
} from '../src/providers/types.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { closedPort, failure } from './provider-helpers.ts';

function doneOutput(result: SubmitResult): ProviderOutput {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return (result as Extract<SubmitResult, { kind: 'done' }>).output;
}

/** The bytes and type of an inline file. */
function inline(output: ProviderOutput): { text: string; contentType: string } {
  assert.equal(output.files.length, 1);
  const file = output.files[0];
  assert.ok(file && 'data' in file, 'the answer is an inline file');
  return { text: file.data.toString('utf8'), contentType: file.contentType };
}

/**
 * A fetch that sends every call to the fake instead, keeping the path: the default base URL
 * (OpenRouter's) is exercised without the internet. The URLs asked for are kept.
 */
function redirectedTo(fake: FakeOpenAiCompatible, asked: URL[]): Fetch {
  return (url, init) => {
    const target = new URL(url);
    asked.push(target);
    return fetch(`${fake.url}${target.pathname}${target.search}`, init);
  };
}

const request = (fields: Partial<TextRequest> = {}): TextRequest => ({
  kind: 'text',
  prompt: 'Name a fox.',
  system: null,
  temperature: 0.7,
  maxTokens: 256,
  ...fields,
});

describe('the chat mapping', () => {
  test('a system prompt goes first when there is one, then the prompt', () => {
    assert.deepEqual(chatInput(request({ system: 'You are terse.', temperature: 0.2, maxTokens: 64 })), {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Name a fox.' },
      ],
      temperature: 0.2,
      max_tokens: 64,
    });
  });

  test('no system message is sent without a system prompt, nor for a blank one', () => {
    for (const system of [null, '', '   ']) {
      assert.deepEqual(chatInput(request({ system })).messages, [{ role: 'user', content: 'Name a fox.' }]);
    }
  });

  test('the route mapping reads text requests and refuses any other kind', () => {
    const chat = OPENAI_COMPATIBLE_MAPPINGS.chat;
    assert.ok(chat);
    // 'text' joins VendorRequest in types.ts later; until then the request is passed as one.
    assert.deepEqual(chat(request() as unknown as VendorRequest), chatInput(request()));
    const image: VendorRequest = {
      kind: 'image',
      prompt: 'a fox',
      negativePrompt: null,
      size: null,
      aspectRatio: '1:1',
      steps: 20,
      seed: 1,
      references: [],
      lora: null,
    };
    assert.throws(
      () => chat(image),
      (err: unknown) => err instanceof WorkError && err.kind === 'internal' && !err.retryable,
    );
  });
});

describe('the OpenAI-compatible adapter on a local server', () => {
  let server: FakeOpenAiCompatible;
  let keyed: FakeOpenAiCompatible;
  let provider: Provider;

  before(async () => {
    server = await startFakeOpenAiCompatible();
    keyed = await startFakeOpenAiCompatible({ apiKey: 'sk-local-test' });
    provider = createOpenAiCompatibleProvider({
      baseUrl: server.url,
      modelNames: { 'llama-3.1-8b': 'llama3.1:8b' },
      fetch,
    });
  });
  after(async () => {
    await server.close();
    await keyed.close();
  });

  const submit = (prompt: string, endpoint = 'llama-3.1-8b', target: Provider = provider) =>
    target.submit({
      endpoint,
      input: chatInput(request({ prompt })),
      idempotencyKey: 'item_1-attempt_1',
    });

  test('posts the chat completion to {base}/v1, with the server’s model name and no key', async () => {
    await submit('Name a fox.');
    const sent = server.submissions.at(-1);
    assert.equal(sent?.path, '/v1/chat/completions');
    assert.deepEqual(sent?.body, {
      model: 'llama3.1:8b',
      messages: [{ role: 'user', content: 'Name a fox.' }],
      temperature: 0.7,
      max_tokens: 256,
      stream: false,
    });
    assert.equal(sent?.headers.authorization, undefined, 'no key is set: none is sent');
    assert.equal(sent?.headers['content-type'], 'application/json');
    assert.equal(sent?.headers['http-referer'], undefined);
    assert.equal(sent?.headers['x-title'], undefined);
    assert.equal(provider.id, 'openai-compatible');
    assert.equal(provider.idempotentSubmit, false);
  });

  test('an endpoint missing from the model names is sent as it is, with the system prompt first', async () => {
    await provider.submit({
      endpoint: 'qwen2.5:7b',
      input: chatInput(request({ system: 'Answer in French.' })),
      idempotencyKey: 'i',
    });
    const sent = server.submissions.at(-1);
    assert.equal(sent?.body.model, 'qwen2.5:7b');
    assert.deepEqual(sent?.body.messages, [
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Name a fox.' },
    ]);
    // Names inherited from Object are no model names.
    await submit('x', 'constructor');
    assert.equal(server.submissions.at(-1)?.body.model, 'constructor');
  });

  test('a base that already ends in /v1 is used as it is', async () => {
    const v1 = createOpenAiCompatibleProvider({ baseUrl: `${server.url}/v1/`, modelNames: {}, fetch });
    await submit('x', 'llama3.1:8b', v1);
    assert.equal(server.submissions.at(-1)?.path, '/v1/chat/completions');
  });

  test('a key is sent as a bearer token, with the attribution headers when an app is named', async () => {
    const withKey = createOpenAiCompatibleProvider({
      baseUrl: `${keyed.url}/v1`,
      apiKey: 'sk-local-test',
      modelNames: {},
      appName: 'Genmedia tests',
      appUrl: 'https://genmedia.example.com',
      fetch,
    });
    doneOutput(await submit('Name a fox.', 'llama3.1:8b', withKey));
    const sent = keyed.submissions.at(-1);
    assert.equal(sent?.headers.authorization, 'Bearer sk-local-test');
    assert.equal(sent?.headers['http-referer'], 'https://genmedia.example.com');
    assert.equal(sent?.headers['x-openrouter-title'], 'Genmedia tests');
    assert.equal(sent?.headers['x-title'], 'Genmedia tests');
  });

  test('the answer is an inline UTF-8 text file, with its usage, finish reason, model and id', async () => {
    const output = doneOutput(await submit('Name a fox. [oai:ok]'));
    const answer = server.answers.at(-1);
    assert.ok(answer);
    const file = inline(output);
    assert.equal(file.text, answer.text);
    assert.match(file.text, /« vif » — réponse/);
    assert.equal(file.contentType, 'text/plain; charset=utf-8');
    assert.deepEqual(output.metadata, {
      text: answer.text,
      usage: answer.usage,
      finish_reason: 'stop',
      model: 'llama3.1:8b',
      id: answer.id,
    });
    assert.equal(output.vendorCost, undefined, 'a local server reports no cost');
  });

  test('content given as a list of text parts is joined; an answer without usage has usage null', async () => {
    assert.equal(inline(doneOutput(await submit('x [oai:parts]'))).text, 'Un renard roux.');
    const output = doneOutput(await submit('x [oai:no-usage]'));
    assert.equal(output.metadata.usage, null);
  });

  test('a streamed answer whose characters arrive split between reads is decoded whole', async () => {
    // The server's bytes as a network may deliver them: one byte per read, so every character of
    // more than one byte (é, «, the whale) is cut between reads.
    const words = ['Bonjour ', '« vif » ', '🐋 — ', 'réponse'];
    const events = [
      ...words.map((content) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
      {
        choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      },
    ];
    const bytes = Buffer.from(
      `${events.map((e) => `data: ${JSON.stringify({ id: 'chatcmpl-split', model: 'm', ...e })}\n\n`).join('')}data: [DONE]\n\n`,
    );
    let at = 0;
    const byteByByte: Fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (at < bytes.length) controller.enqueue(bytes.subarray(at, ++at));
            else controller.close();
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } },
      );
    const split = createOpenAiCompatibleProvider({ baseUrl: server.url, modelNames: {}, fetch: byteByByte });
    const pieces: string[] = [];
    const output = doneOutput(
      await split.submit({
        endpoint: 'm',
        input: chatInput(request()),
        idempotencyKey: 'item_1-attempt_1',
        stream: {
          gone: new AbortController().signal,
          chunk: (chunk) => {
            for (const choice of chunk.choices) {
              const content = (choice.delta as { content?: unknown } | undefined)?.content;
              if (typeof content === 'string') pieces.push(content);
            }
          },
        },
      }),
    );
    assert.deepEqual(pieces, words);
    assert.equal(inline(output).text, words.join(''));
  });

  test('a wrong key is auth, not retried here (another route may serve)', async () => {
    const wrong = createOpenAiCompatibleProvider({ baseUrl: keyed.url, apiKey: 'sk-wrong', modelNames: {}, fetch });
    const err = await failure(() => submit('x', 'llama3.1:8b', wrong));
    assert.equal(err.kind, 'auth');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, true);
    assert.match(err.message, /^the OpenAI-compatible server refused our credentials: Incorrect API key/);
    const none = createOpenAiCompatibleProvider({ baseUrl: keyed.url, modelNames: {}, fetch });
    assert.equal((await failure(() => submit('x', 'llama3.1:8b', none))).kind, 'auth');
  });

  test('400 and 422 are the input, in the server’s own words', async () => {
    const tooLong = await failure(() => submit('x [oai:400]'));
    assert.equal(tooLong.kind, 'invalid_input');
    assert.equal(tooLong.retryable, false);
    assert.match(tooLong.message, /maximum context length is 8192 tokens/);
    assert.equal(tooLong.vendorCode, '400 context_length_exceeded');
    const invalid = await failure(() => submit('x [oai:422]'));
    assert.equal(invalid.kind, 'invalid_input');
    assert.match(invalid.message, /temperature: Input should be less than or equal to 2/);
  });

  test('a model the server does not serve is final here but may fail over (vLLM’s error shape)', async () => {
    const err = await failure(() => submit('x [oai:404]'));
    assert.equal(err.kind, 'internal');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, true);
    assert.match(err.message, /The model `llama3.1:8b` does not exist/);
  });

  test('a rate limit is retryable after its Retry-After; an exhausted quota on a 429 is not', async () => {
    const limited = await failure(() => submit('x [oai:429]'));
    assert.equal(limited.kind, 'rate_limited');
    assert.equal(limited.retryable, true);
    assert.equal(limited.retryAfterMs, 3000);
    const quota = await failure(() => submit('x [oai:quota]'));
    assert.equal(quota.kind, 'quota');
    assert.equal(quota.retryable, false);
    assert.equal(quota.failover, true);
    assert.equal(quota.vendorCode, '429 insufficient_quota');
    assert.match(quota.message, /exceeded your current quota/);
  });

  test('5xx and a proxy’s HTML page are retryable unavailable', async () => {
    const down = await failure(() => submit('x [oai:500]'));
    assert.equal(down.kind, 'unavailable');
    assert.equal(down.retryable, true);
    assert.equal(down.maybeAccepted, false);
    const proxy = await failure(() => submit('x [oai:502-html]'));
    assert.equal(proxy.kind, 'unavailable');
    assert.doesNotMatch(proxy.message, /<html>/);
  });

  test('a content_filter finish and a refusal are content policy, never retried', async () => {
    const filtered = await failure(() => submit('x [oai:content-filter]'));
    assert.equal(filtered.kind, 'content_policy');
    assert.equal(filtered.retryable, false);
    assert.equal(filtered.failover, false);
    assert.equal(filtered.vendorCode, '200 content_filter');
    const refused = await failure(() => submit('x [oai:refusal]'));
    assert.equal(refused.kind, 'content_policy');
    assert.match(refused.message, /can't help with that/);
  });

  test('no choices, or a choice without content, is retryable unavailable', async () => {
    for (const tag of ['empty-choices', 'null-content', 'finish-error']) {
      const err = await failure(() => submit(`x [oai:${tag}]`));
      assert.equal(err.kind, 'unavailable', tag);
      assert.equal(err.retryable, true, tag);
      assert.equal(err.maybeAccepted, false, tag);
      if (tag === 'finish-error') assert.match(err.message, /failed while answering: Upstream stopped mid-answer$/);
    }
  });

  test('an answer cut at max_tokens before any text is final: more tokens are needed', async () => {
    const err = await failure(() => submit('x [oai:reasoning-length]'));
    assert.equal(err.kind, 'invalid_input');
    assert.equal(err.retryable, false);
    assert.match(err.message, /max_tokens/);
  });

  test('a 200 whose JSON is cut short may have been billed: retryable but not sent again', async () => {
    const err = await failure(() => submit('x [oai:malformed]'));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.maybeAccepted, true);
  });

  test('a refused connection was never sent; a cut one may have been', async () => {
    const gone = createOpenAiCompatibleProvider({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      modelNames: {},
      fetch,
    });
    const refused = await failure(() => submit('x', 'llama3.1:8b', gone));
    assert.equal(refused.kind, 'unavailable');
    assert.equal(refused.retryable, true);
    assert.equal(refused.maybeAccepted, false);
    assert.match(refused.message, /^the OpenAI-compatible server could not be reached/);
    const cut = await failure(() => submit('x [oai:cut]'));
    assert.equal(cut.kind, 'unavailable');
    assert.equal(cut.retryable, true);
    assert.equal(cut.maybeAccepted, true);
  });

  test('a submit canceled by its signal is canceled, not retried', async () => {
    const controller = new AbortController();
    const pending = provider.submit({
      endpoint: 'llama-3.1-8b',
      input: chatInput(request({ prompt: 'x [oai:hang]' })),
      idempotencyKey: 'i',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const err = await failure(() => pending);
    assert.equal(err.kind, 'canceled');
    assert.equal(err.retryable, false);
  });

  test('there is nothing to poll: a poll fails, final and internal', async () => {
    const result = await provider.poll({ anything: 'x' });
    assert.equal(result.kind, 'failed');
    const error = (result as { error: ProviderError }).error;
    assert.equal(error.kind, 'internal');
    assert.equal(error.retryable, false);
    assert.match(error.message, /synchronous vendor: nothing to poll/);
  });
});

describe('the OpenAI-compatible adapter on OpenRouter (the default base URL)', () => {
  let fake: FakeOpenAiCompatible;
  let provider: Provider;
  const asked: URL[] = [];

  before(async () => {
    fake = await startFakeOpenAiCompatible({ apiKey: 'sk-or-v1-test' });
    provider = createOpenAiCompatibleProvider({
      apiKey: 'sk-or-v1-test',
      modelNames: { 'gpt-4o': 'openai/gpt-4o' },
      fetch: redirectedTo(fake, asked),
    });
  });
  after(() => fake.close());

  const submit = (prompt: string) =>
    provider.submit({ endpoint: 'gpt-4o', input: chatInput(request({ prompt })), idempotencyKey: 'i' });

  test('posts to /api/v1/chat/completions over HTTPS with the key', async () => {
    doneOutput(await submit('Name a fox.'));
    const url = asked.at(-1);
    assert.equal(url?.protocol, 'https:');
    assert.equal(url?.pathname, '/api/v1/chat/completions');
    const sent = fake.submissions.at(-1);
    assert.equal(sent?.body.model, 'openai/gpt-4o');
    assert.equal(sent?.headers.authorization, 'Bearer sk-or-v1-test');
  });

  test('the reported usage.cost is the vendor cost; the model is the one that served', async () => {
    const output = doneOutput(await submit('Name a fox.'));
    const answer = fake.answers.at(-1);
    assert.ok(answer?.usage);
    assert.equal(typeof answer.usage.cost, 'number');
    assert.equal(output.vendorCost, answer.usage.cost);
    assert.deepEqual(output.metadata.usage, {
      prompt_tokens: answer.usage.prompt_tokens,
      completion_tokens: answer.usage.completion_tokens,
      total_tokens: answer.usage.total_tokens,
    });
    assert.equal(output.metadata.model, 'openai/gpt-4o-2025-01-01');
    assert.match(String(output.metadata.id), /^gen-/);
  });

  test('no credit is quota; a full in-flight budget waits and retries', async () => {
    const broke = await failure(() => submit('x [oai:402]'));
    assert.equal(broke.kind, 'quota');
    assert.equal(broke.retryable, false);
    assert.match(broke.message, /^OpenRouter says the account has no credit left: Insufficient credits/);
    const busy = await failure(() => submit('x [oai:in-flight]'));
    assert.equal(busy.kind, 'rate_limited');
    assert.equal(busy.retryable, true);
    assert.equal(busy.retryAfterMs, 4000);
  });

  test('a moderation flag (403 with reasons) is content policy, not our credentials', async () => {
    const err = await failure(() => submit('x [oai:moderation]'));
    assert.equal(err.kind, 'content_policy');
    assert.equal(err.retryable, false);
    assert.match(err.message, /flagged: violence, harassment/);
  });

  test('an upstream rate limit gives the upstream’s words and the Retry-After of its metadata', async () => {
    const err = await failure(() => submit('x [oai:upstream-429]'));
    assert.equal(err.kind, 'rate_limited');
    assert.equal(err.retryAfterMs, 7000);
    assert.match(err.message, /Provider returned error: openai\/gpt-4o is temporarily rate-limited upstream/);
  });

  test('408 is a retryable timeout; 503 (no provider) is retryable unavailable', async () => {
    const late = await failure(() => submit('x [oai:408]'));
    assert.equal(late.kind, 'timeout');
    assert.equal(late.retryable, true);
    const none = await failure(() => submit('x [oai:503]'));
    assert.equal(none.kind, 'unavailable');
    assert.equal(none.retryable, true);
  });

  test('a 200 holding only an error is read as the error it carries', async () => {
    const err = await failure(() => submit('x [oai:error-200]'));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.match(err.message, /^OpenRouter is unavailable: Provider returned error: overloaded/);
  });

  test('a wrong key is auth, named as OpenRouter', async () => {
    const wrong = createOpenAiCompatibleProvider({
      apiKey: 'sk-or-v1-wrong',
      modelNames: {},
      fetch: redirectedTo(fake, []),
    });
    const err = await failure(() =>
      wrong.submit({ endpoint: 'openai/gpt-4o', input: chatInput(request()), idempotencyKey: 'i' }),
    );
    assert.equal(err.kind, 'auth');
    assert.match(err.message, /^OpenRouter refused our credentials: User not found/);
  });
});

describe('checking an OpenAI-compatible server', () => {
  let server: FakeOpenAiCompatible;
  let keyed: FakeOpenAiCompatible;

  before(async () => {
    server = await startFakeOpenAiCompatible();
    keyed = await startFakeOpenAiCompatible({ apiKey: 'sk-local-test' });
  });
  after(async () => {
    await server.close();
    await keyed.close();
  });

  test('a server that answers its model list is reachable (and nothing is generated)', async () => {
    const result = await checkOpenAiCompatible({ baseUrl: server.url, modelNames: {}, fetch });
    assert.deepEqual(result, { reachable: true, detail: `${server.url}/v1/models answered (2 models)` });
    assert.equal(server.checks.at(-1)?.path, '/v1/models');
    assert.equal(server.submissions.length, 0);
  });

  test('a key the server refuses is said so', async () => {
    const ok = await checkOpenAiCompatible({ baseUrl: keyed.url, apiKey: 'sk-local-test', modelNames: {}, fetch });
    assert.equal(ok.reachable, true);
    assert.equal(keyed.checks.at(-1)?.headers.authorization, 'Bearer sk-local-test');
    const refused = await checkOpenAiCompatible({ baseUrl: keyed.url, apiKey: 'sk-wrong', modelNames: {}, fetch });
    assert.equal(refused.reachable, false);
    assert.match(refused.detail, /refuses the key \(HTTP 401\)/);
  });

  test('a server that is not running is unreachable: connection refused', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const result = await checkOpenAiCompatible({ baseUrl, modelNames: {}, fetch });
    assert.equal(result.reachable, false);
    assert.match(result.detail, /connection refused/);
  });

  test('a server that never answers is unreachable: timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const result = await checkOpenAiCompatible({ baseUrl, modelNames: {}, fetch }, 100);
      assert.equal(result.reachable, false);
      assert.match(result.detail, /no answer within 100 ms/);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  test('OpenRouter is checked with GET /key (its model list would take any key); without a key, not at all', async () => {
    const asked: URL[] = [];
    const ok = await checkOpenAiCompatible({
      apiKey: 'sk-local-test',
      modelNames: {},
      fetch: redirectedTo(keyed, asked),
    });
    assert.deepEqual(ok, { reachable: true, detail: 'OpenRouter accepts the key' });
    assert.equal(asked.at(-1)?.pathname, '/api/v1/key');
    const refused = await checkOpenAiCompatible({
      apiKey: 'sk-or-v1-wrong',
      modelNames: {},
      fetch: redirectedTo(keyed, asked),
    });
    assert.equal(refused.reachable, false);
    assert.match(refused.detail, /^OpenRouter refuses the key \(HTTP 401\)/);
    const calls = asked.length;
    const unset = await checkOpenAiCompatible({ modelNames: {}, fetch: redirectedTo(keyed, asked) });
    assert.equal(unset.reachable, null);
    assert.match(unset.detail, /No API key/);
    assert.equal(asked.length, calls, 'nothing was asked');
  });
});
