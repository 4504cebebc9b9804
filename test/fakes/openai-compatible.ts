// A fake OpenAI-compatible chat server on 127.0.0.1, built from the public shapes of OpenAI's chat
// completions (openai-node's ChatCompletion: `choices[{index, message{role, content, refusal},
// finish_reason}]`, `usage{prompt_tokens, completion_tokens, total_tokens}`, errors as
// `{error{message, type, param, code}}`) and OpenRouter's additions (`gen-…` ids, `provider`,
// `native_finish_reason`, `usage.cost`, errors as `{error{code, message, metadata}}`). It serves
// `/v1/…` as Ollama, vLLM and llama.cpp's server do, and `/api/v1/…` as OpenRouter does (answers
// there are OpenRouter-shaped): `POST …/chat/completions`, `GET …/models` and OpenRouter's
// `GET /api/v1/key`. With a key it refuses other bearers (401); without one it takes any, as a
// local server does. Tests pick a behaviour with a tag in the user message:
// [oai:400] [oai:422] [oai:404] (vLLM's top-level error shape) [oai:429] [oai:429-once] (a 429
// with `Retry-After: 1` the first time a prompt is sent, then the answer) [oai:429-later] (a 429
// whose Retry-After is an HTTP date ten minutes ahead) [oai:quota] (OpenAI's 429 insufficient_quota) [oai:402] [oai:in-flight] (OpenRouter's 402 of its in-flight budget)
// [oai:moderation] (OpenRouter's 403 with reasons) [oai:408] [oai:500] [oai:503] [oai:502-html]
// (a proxy's page) [oai:upstream-429] (OpenRouter's "Provider returned error", Retry-After only in
// its metadata) [oai:error-200] (a 200 holding only `error`) [oai:content-filter] [oai:refusal]
// [oai:finish-error] [oai:empty-choices] [oai:null-content] [oai:reasoning-length] (all
// max_tokens spent thinking) [oai:no-usage] [oai:over-usage] (usage above max_tokens) [oai:parts]
// (content as a list of parts)
// [oai:malformed] (a 200 whose JSON is cut short) [oai:cut] (the request is read, then the
// connection is cut) [oai:hang] (never answered) [oai:held] (answered once `release()` is called;
// `untilHeld(n)` resolves when n such requests wait).
// It also answers as OpenAI does what a chat request asks beyond text: `tools` (a call of the first
// tool, finish reason tool_calls, unless the last message is a tool's result, which the answer then
// quotes), `response_format` (json_object: a JSON object; json_schema: an object of the schema's
// properties), `n` choices, `logprobs` (one entry a word), and `stream: true` (Server-Sent Events of
// chunks, a few words each with a turn between them; tool-call arguments in pieces; the usage in a
// last chunk when `stream_options.include_usage`; `data: [DONE]`). [oai:gate] holds a stream after
// its first content chunk until `openGate()` (`untilGated()` resolves when one waits there);
// `untilAborted()` resolves when a client closed a stream before its end (`aborted` counts them).
// [oai:stream-error] sends an error chunk after the first content chunk, and ends the stream.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate } from 'node:timers/promises';

export interface FakeChatSubmission {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/** What the fake answered a successful chat completion with (to compare the adapter's output to). */
export interface FakeChatAnswer {
  id: string;
  model: string;
  text: string;
  usage: Record<string, unknown> | undefined;
}

export interface FakeOpenAiCompatible {
  /** The server's origin (no path): `/v1` and `/api/v1` are under it. */
  url: string;
  /** The key it requires; undefined: it takes any (or none). */
  apiKey: string | undefined;
  /**
   * The settings that make the service send `models` (catalog id → the server's model name) to
   * this server, as an operator running Ollama or vLLM sets them (its key too, when it needs one).
   */
  env(models: Record<string, string>): Record<string, string>;
  submissions: FakeChatSubmission[];
  answers: FakeChatAnswer[];
  /** Every GET of the check routes, by path. */
  checks: Array<{ path: string; headers: IncomingHttpHeaders }>;
  /** Resolves once `count` requests tagged [oai:held] are waiting (the server is working on them). */
  untilHeld(count?: number): Promise<void>;
  /** Answers every [oai:held] request waiting, as if its work had just finished. */
  release(): void;
  /** Resolves once a stream tagged [oai:gate] has sent its first content chunk and waits. */
  untilGated(): Promise<void>;
  /** Lets every stream waiting at its gate go on. */
  openGate(): void;
  /** Streams waiting at their gate now. */
  readonly gated: number;
  /** Streams whose client closed the connection before their end. */
  readonly aborted: number;
  /** Resolves once `count` streams were closed by their client before their end. */
  untilAborted(count?: number): Promise<void>;
  close(): Promise<void>;
}

const TAG = /\[oai:([a-z0-9-]+)\]/;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** OpenAI's error shape (also Ollama's, llama.cpp's and newer vLLM's). */
function openAiError(res: ServerResponse, status: number, message: string, type: string, code: string | null): void {
  json(res, status, { error: { message, type, param: null, code } }, status === 429 ? { 'retry-after': '3' } : {});
}

/** OpenAI's rate limit, with the Retry-After given (seconds or an HTTP date). */
function rateLimited(res: ServerResponse, retryAfter: string): void {
  json(
    res,
    429,
    {
      error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    },
    { 'retry-after': retryAfter },
  );
}

/** OpenRouter's error shape: the status again as `code`, details in `metadata`. */
function openRouterError(
  res: ServerResponse,
  status: number,
  message: string,
  metadata?: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  json(res, status, { error: { code: status, message, ...(metadata ? { metadata } : {}) } }, headers);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A value of a JSON schema's type, for an answer in that schema. */
function schemaValue(schema: Record<string, unknown> | undefined): unknown {
  switch (schema?.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, schemaValue(s)]));
    }
    case 'array':
      return [schemaValue(schema.items as Record<string, unknown> | undefined)];
    case 'integer':
    case 'number':
      return 4;
    case 'boolean':
      return true;
    default:
      return 'renard';
  }
}

/** What one choice of a chat answer says. */
interface ComposedChoice {
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
}

/** Whether a request asks for what only the composed answers serve (tools, JSON, choices, logprobs, a stream). */
function asksBeyondText(body: Record<string, unknown>): boolean {
  const format = (body.response_format as { type?: string } | undefined)?.type;
  return (
    body.stream === true ||
    (Array.isArray(body.tools) && body.tools.length > 0) ||
    (format !== undefined && format !== 'text') ||
    Number(body.n ?? 1) > 1 ||
    body.logprobs === true
  );
}

/** The choices of an answer to a chat request that asks beyond text. */
function composeChoices(body: Record<string, unknown>, text: string): ComposedChoice[] {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  const last = messages.at(-1);
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ function?: { name?: string } }>) : [];
  const format = body.response_format as
    | { type?: string; json_schema?: { schema?: Record<string, unknown> } }
    | undefined;
  const n = Math.max(1, Number(body.n ?? 1));
  return Array.from({ length: n }, (_, i) => {
    if (tools.length > 0 && last?.role !== 'tool') {
      return {
        content: null,
        toolCalls: [
          {
            id: `call_${randomBytes(6).toString('hex')}`,
            name: tools[0]?.function?.name ?? 'tool',
            arguments: JSON.stringify({ city: 'Paris', unit: 'celsius', choice: i }),
          },
        ],
        finishReason: 'tool_calls',
      };
    }
    let content = last?.role === 'tool' ? `The tool said: ${String(last.content)}` : text;
    if (format?.type === 'json_object') content = JSON.stringify({ answer: content, choice: i });
    if (format?.type === 'json_schema') content = JSON.stringify(schemaValue(format.json_schema?.schema));
    if (n > 1 && !format) content = `${content} (choice ${i + 1})`;
    return { content, toolCalls: [], finishReason: 'stop' };
  });
}

/** One logprobs entry a word of `text`. */
function logprobsOf(text: string): { content: unknown[]; refusal: null } {
  return {
    content: (text.match(/\S+\s*/g) ?? []).map((token, i) => ({
      token,
      logprob: -0.01 * (i + 1),
      bytes: [...Buffer.from(token)],
      top_logprobs: [],
    })),
    refusal: null,
  };
}

function words(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

/** Starts the fake; with `apiKey` it refuses any other bearer, as a server started with a key does. */
export async function startFakeOpenAiCompatible(options: { apiKey?: string } = {}): Promise<FakeOpenAiCompatible> {
  const { apiKey } = options;
  const submissions: FakeChatSubmission[] = [];
  const answers: FakeChatAnswer[] = [];
  const checks: FakeOpenAiCompatible['checks'] = [];

  // Prompts already answered once with [oai:429-once]'s 429.
  const limitedOnce = new Set<string>();
  // [oai:held] requests waiting for release(), and who waits for them to arrive.
  const held: Array<() => void> = [];
  const heldWaiters: Array<{ count: number; resolve: () => void }> = [];
  const notifyHeld = () => {
    for (const waiter of [...heldWaiters]) {
      if (held.length >= waiter.count) {
        heldWaiters.splice(heldWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  // Streams held at their gate ([oai:gate]), streams closed by their client, and who waits for either.
  const gate: Array<() => void> = [];
  const gateWaiters: Array<() => void> = [];
  const notifyGated = () => {
    for (const resolve of gateWaiters.splice(0)) resolve();
  };
  let abortCount = 0;
  const abortWaiters: Array<{ count: number; resolve: () => void }> = [];
  const notifyAborted = () => {
    for (const waiter of [...abortWaiters]) {
      if (abortCount >= waiter.count) {
        abortWaiters.splice(abortWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const refusedKey = (req: IncomingMessage): boolean =>
    apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`;

  const chat = async (req: IncomingMessage, res: ServerResponse, path: string, openRouter: boolean) => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      openAiError(res, 400, 'The request body is not valid JSON', 'invalid_request_error', null);
      return;
    }
    submissions.push({ path, body, headers: req.headers });
    if (refusedKey(req)) {
      if (openRouter) openRouterError(res, 401, 'User not found.');
      else openAiError(res, 401, 'Incorrect API key provided', 'invalid_request_error', 'invalid_api_key');
      return;
    }
    const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
    const prompt = String(messages.at(-1)?.content ?? '');
    const model = typeof body.model === 'string' ? body.model : '';
    switch (TAG.exec(prompt)?.[1]) {
      case '400':
        openAiError(
          res,
          400,
          "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
          'invalid_request_error',
          'context_length_exceeded',
        );
        return;
      case '422':
        openAiError(res, 422, 'temperature: Input should be less than or equal to 2', 'BadRequestError', null);
        return;
      case '404':
        json(res, 404, {
          object: 'error',
          message: `The model \`${model}\` does not exist.`,
          type: 'NotFoundError',
          param: null,
          code: 404,
        });
        return;
      case '429':
        openAiError(res, 429, 'Rate limit reached for requests', 'requests', 'rate_limit_exceeded');
        return;
      case '429-once':
        if (!limitedOnce.has(prompt)) {
          limitedOnce.add(prompt);
          rateLimited(res, '1');
          return;
        }
        break;
      case '429-later':
        rateLimited(res, new Date(Date.now() + 600_000).toUTCString());
        return;
      case 'quota':
        openAiError(
          res,
          429,
          'You exceeded your current quota, please check your plan and billing details.',
          'insufficient_quota',
          'insufficient_quota',
        );
        return;
      case '402':
        openRouterError(res, 402, 'Insufficient credits. Add more using https://example.test/credits', {
          limit_source: 'openrouter_credits',
        });
        return;
      case 'in-flight':
        openRouterError(
          res,
          402,
          'Requests in flight hold your remaining credits',
          { limit_source: 'openrouter_in_flight_budget', reason: 'in_flight_budget_exhausted' },
          { 'retry-after': '4' },
        );
        return;
      case 'moderation':
        openRouterError(
          res,
          403,
          'openai/gpt-4o requires moderation on OpenAI. Your input was flagged for "violence"',
          {
            reasons: ['violence', 'harassment'],
            flagged_input: prompt.slice(0, 100),
            provider_name: 'OpenAI',
            model_slug: model,
          },
        );
        return;
      case '408':
        openRouterError(res, 408, 'Request timed out');
        return;
      case '500':
        openAiError(res, 500, 'The server had an error while processing your request.', 'server_error', null);
        return;
      case '503':
        openRouterError(res, 503, 'No allowed providers are available for the selected model.');
        return;
      case '502-html':
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        return;
      case 'upstream-429':
        openRouterError(res, 429, 'Provider returned error', {
          raw: `${model} is temporarily rate-limited upstream. Please retry shortly.`,
          provider_name: 'Upstream',
          limit_source: 'upstream_provider_shared_pool',
          retry_after_seconds: 7,
        });
        return;
      case 'error-200':
        json(res, 200, { error: { code: 502, message: 'Provider returned error', metadata: { raw: 'overloaded' } } });
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "chatcmpl-1", "choices": [');
        return;
      case 'cut':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'held':
        held.push(() => answer(res, body, prompt, model, openRouter));
        notifyHeld();
        return;
    }
    if (asksBeyondText(body)) {
      await composedAnswer(res, body, prompt, model);
      return;
    }
    answer(res, body, prompt, model, openRouter);
  };

  /** Answers a request that asks beyond text: as one chat.completion, or streamed. */
  const composedAnswer = async (
    res: ServerResponse,
    body: Record<string, unknown>,
    prompt: string,
    model: string,
  ): Promise<void> => {
    const id = `chatcmpl-${randomBytes(8).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const text = `Un renard roux, « vif » — réponse à : ${prompt.replace(TAG, '').trim()}`;
    const choices = composeChoices(body, text);
    const promptTokens = words(JSON.stringify([body.messages ?? [], body.tools ?? []]));
    const completionTokens = choices.reduce(
      (sum, c) => sum + words(c.content ?? '') + c.toolCalls.reduce((s, t) => s + words(t.arguments), 0),
      0,
    );
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const withLogprobs = body.logprobs === true;
    const first = choices[0];
    if (first?.content) answers.push({ id, model, text: first.content, usage });
    if (body.stream !== true) {
      json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        system_fingerprint: 'fp_fake',
        choices: choices.map((c, index) => ({
          index,
          message: {
            role: 'assistant',
            content: c.content,
            refusal: null,
            ...(c.toolCalls.length > 0
              ? {
                  tool_calls: c.toolCalls.map((t) => ({
                    id: t.id,
                    type: 'function',
                    function: { name: t.name, arguments: t.arguments },
                  })),
                }
              : {}),
          },
          logprobs: withLogprobs && c.content ? logprobsOf(c.content) : null,
          finish_reason: c.finishReason,
        })),
        usage,
      });
      return;
    }
    const gated = TAG.exec(prompt)?.[1] === 'gate';
    let closed = false;
    res.on('close', () => {
      if (res.writableFinished) return;
      closed = true;
      abortCount += 1;
      notifyAborted();
    });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const send = (chunkChoices: unknown[], chunkUsage?: unknown) => {
      if (closed) return;
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: chunkChoices, ...(chunkUsage === undefined ? {} : { usage: chunkUsage }) })}\n\n`,
      );
    };
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const extra = includeUsage ? { usage: null } : {};
    const piece = (
      index: number,
      delta: Record<string, unknown>,
      finish: string | null = null,
      logprobs: unknown = null,
    ) => ({ index, delta, logprobs, finish_reason: finish, ...extra });
    let gatePassed = false;
    for (const [index, c] of choices.entries()) {
      send([piece(index, { role: 'assistant', content: c.toolCalls.length > 0 ? null : '', refusal: null })]);
      for (const part of c.content?.match(/\S+\s*(\S+\s*)?(\S+\s*)?/g) ?? []) {
        await setImmediate();
        if (closed) return;
        send([piece(index, { content: part }, null, withLogprobs ? logprobsOf(part) : null)]);
        if (TAG.exec(prompt)?.[1] === 'stream-error') {
          // OpenRouter's way when its upstream fails after the headers went: an error chunk, then the end.
          res.end(`data: ${JSON.stringify({ error: { code: 502, message: 'Upstream stopped mid-answer' } })}\n\n`);
          return;
        }
        if (gated && !gatePassed) {
          gatePassed = true;
          await new Promise<void>((resolve) => {
            gate.push(resolve);
            notifyGated();
          });
          if (closed) return;
        }
      }
      for (const [at, call] of c.toolCalls.entries()) {
        send([
          piece(index, {
            tool_calls: [{ index: at, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
          }),
        ]);
        for (let i = 0; i < call.arguments.length; i += 8) {
          await setImmediate();
          if (closed) return;
          send([
            piece(index, { tool_calls: [{ index: at, function: { arguments: call.arguments.slice(i, i + 8) } }] }),
          ]);
        }
      }
      send([piece(index, {}, c.finishReason)]);
    }
    if (includeUsage) send([], usage);
    if (!closed) res.end('data: [DONE]\n\n');
  };

  const answer = (
    res: ServerResponse,
    body: Record<string, unknown>,
    prompt: string,
    model: string,
    openRouter: boolean,
  ): void => {
    const tag = TAG.exec(prompt)?.[1];
    const id = `${openRouter ? 'gen-' : 'chatcmpl-'}${randomBytes(8).toString('hex')}`;
    // The model as the server names it: OpenRouter answers the dated version it routed to.
    const served = openRouter ? `${model}-2025-01-01` : model;
    const text = `Un renard roux, « vif » — réponse à : ${prompt.replace(TAG, '').trim()}`;
    const promptTokens = words(JSON.stringify(body.messages ?? []));
    // [oai:over-usage]: a server that reports more than it was allowed (a miscounting proxy).
    const completionTokens = tag === 'over-usage' ? Number(body.max_tokens ?? 0) * 10 : words(text);
    const usage: Record<string, unknown> | undefined =
      tag === 'no-usage'
        ? undefined
        : {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
            ...(openRouter
              ? {
                  cost: Number((promptTokens * 0.000001 + completionTokens * 0.000004).toFixed(9)),
                  is_byok: false,
                  cost_details: { upstream_inference_cost: null },
                  prompt_tokens_details: { cached_tokens: 0 },
                  completion_tokens_details: { reasoning_tokens: tag === 'reasoning-length' ? completionTokens : 0 },
                }
              : {}),
          };
    const message: Record<string, unknown> = { role: 'assistant', content: text, refusal: null };
    let finishReason: string | null = 'stop';
    let choices: unknown[] | undefined;
    switch (tag) {
      case 'content-filter':
        message.content = null;
        finishReason = 'content_filter';
        break;
      case 'refusal':
        message.content = null;
        message.refusal = "I'm sorry, I can't help with that.";
        break;
      case 'finish-error':
        message.content = '';
        finishReason = 'error';
        break;
      case 'empty-choices':
        choices = [];
        break;
      case 'null-content':
        message.content = null;
        break;
      case 'reasoning-length':
        message.content = '';
        message.reasoning = 'Let me think about this carefully. First, ';
        finishReason = 'length';
        break;
      case 'parts':
        message.content = [
          { type: 'text', text: 'Un renard ' },
          { type: 'text', text: 'roux.' },
        ];
        break;
    }
    const choice = {
      index: 0,
      message,
      logprobs: null,
      finish_reason: finishReason,
      ...(openRouter ? { native_finish_reason: finishReason } : {}),
    };
    if (typeof message.content === 'string' && message.content !== '') {
      answers.push({ id, model: served, text: message.content, usage });
    }
    json(res, 200, {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: served,
      ...(openRouter ? { provider: 'Upstream' } : { system_fingerprint: 'fp_fake' }),
      choices: choices ?? [choice],
      ...(tag === 'finish-error' ? { error: { code: 502, message: 'Upstream stopped mid-answer' } } : {}),
      ...(usage ? { usage } : {}),
    });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const openRouter = path.startsWith('/api/v1/');
      const route = path.replace(/^\/api\/v1\//, '/v1/');
      if (req.method === 'POST' && route === '/v1/chat/completions') {
        await chat(req, res, path, openRouter);
        return;
      }
      if (req.method === 'GET' && (route === '/v1/models' || path === '/api/v1/key')) {
        checks.push({ path, headers: req.headers });
        if (refusedKey(req)) {
          if (openRouter) openRouterError(res, 401, 'User not found.');
          else openAiError(res, 401, 'Incorrect API key provided', 'invalid_request_error', 'invalid_api_key');
          return;
        }
        if (path === '/api/v1/key') {
          json(res, 200, { data: { label: 'sk-or-v1-fak...key', limit: null, usage: 0.25, is_free_tier: false } });
          return;
        }
        json(res, 200, {
          object: 'list',
          data: ['llama3.1:8b', 'qwen2.5:7b'].map((id) => ({ id, object: 'model', created: 0, owned_by: 'library' })),
        });
        return;
      }
      openAiError(res, 404, `${req.method} ${path} is not served here`, 'invalid_request_error', null);
    })().catch((err: unknown) => {
      if (!res.headersSent) openAiError(res, 500, String(err), 'server_error', null);
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiKey,
    env(models) {
      return {
        OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`,
        ...(apiKey === undefined ? {} : { OPENAI_COMPATIBLE_API_KEY: apiKey }),
        OPENAI_COMPATIBLE_MODELS: JSON.stringify(models),
      };
    },
    submissions,
    answers,
    checks,
    untilHeld: (count = 1) =>
      new Promise<void>((resolve) => {
        heldWaiters.push({ count, resolve });
        notifyHeld();
      }),
    release: () => {
      for (const send of held.splice(0)) send();
    },
    untilGated: () =>
      new Promise<void>((resolve) => {
        if (gate.length > 0) resolve();
        else gateWaiters.push(resolve);
      }),
    openGate: () => {
      for (const go of gate.splice(0)) go();
    },
    get gated() {
      return gate.length;
    },
    get aborted() {
      return abortCount;
    },
    untilAborted: (count = 1) =>
      new Promise<void>((resolve) => {
        abortWaiters.push({ count, resolve });
        notifyAborted();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
