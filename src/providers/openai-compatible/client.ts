// Any server that speaks OpenAI's chat completions: OpenRouter by default, or a self-hosted Ollama,
// vLLM or llama.cpp server (all serve `POST /v1/chat/completions`). One synchronous call per item;
// the answer's text comes back as an inline text file, with the token usage beside it.

import { asRecord, parseObject } from '../../lib/records.ts';
import { noAnswerError, statusError } from '../http.ts';
import {
  type Fetch,
  type PollResult,
  type Provider,
  ProviderError,
  type ProviderOutput,
  type StreamSink,
  type SubmitRequest,
  type SubmitResult,
} from '../types.ts';
import { readChatStream } from './stream.ts';

/** OpenRouter's API, the default base URL. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

export interface OpenAiCompatibleSettings {
  /**
   * The API's base, default OpenRouter's. A base that ends in a version (`/v1`) is used as it is;
   * `/v1` is added to one that does not (`http://localhost:11434` for Ollama).
   */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer` when set; local servers usually need none. */
  apiKey?: string;
  /** Catalog model id (a route's endpoint) → the server's own model name; others are sent as they are. */
  modelNames: Record<string, string>;
  /** The app's display name, for OpenRouter's app attribution (`X-OpenRouter-Title`). */
  appName?: string;
  /** The app's URL, sent as `HTTP-Referer`: OpenRouter attributes usage to the app by it. */
  appUrl?: string;
  fetch: Fetch;
}

const TEXT_TYPE = 'text/plain; charset=utf-8';
// What is kept of a vendor's own words in an error message.
const MAX_SAID = 500;

/**
 * The API base a setting names (OpenRouter's when it is absent or blank): its trailing slashes
 * dropped, `/v1` added when it has no version.
 */
export function apiBaseUrl(baseUrl?: string): string {
  const base = (baseUrl?.trim() || OPENROUTER_BASE_URL).replace(/\/+$/, '');
  return /\/v\d+$/.test(base) ? base : `${base}/v1`;
}

/** Whether a base is OpenRouter's: its name in messages, and its own key check. */
function isOpenRouter(base: string): boolean {
  try {
    return new URL(base).hostname === 'openrouter.ai';
  } catch {
    return false;
  }
}

function vendorName(base: string): string {
  return isOpenRouter(base) ? 'OpenRouter' : 'the OpenAI-compatible server';
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function capped(text: string): string {
  return text.length > MAX_SAID ? `${text.slice(0, MAX_SAID)}…` : text;
}

/** The headers of every call: JSON, the key when there is one, OpenRouter's attribution when set. */
function headersFor(settings: OpenAiCompatibleSettings, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json) headers['content-type'] = 'application/json';
  const key = settings.apiKey?.trim();
  if (key) headers.authorization = `Bearer ${key}`;
  if (settings.appUrl) headers['http-referer'] = settings.appUrl;
  if (settings.appName) {
    // OpenRouter's current name for it, and the older one other OpenAI-compatible gateways still read.
    headers['x-openrouter-title'] = settings.appName;
    headers['x-title'] = settings.appName;
  }
  return headers;
}

/** What an error body says, in the shapes these servers use. */
interface ErrorSaid {
  message: string | undefined;
  /** The most specific code it gives (OpenAI's `code`, OpenRouter's `metadata.error_type`, the `type`). */
  code: string | undefined;
  /** OpenRouter's `error.code`: the HTTP status it means (also when the answer itself is a 200). */
  status: number | undefined;
  metadata: Record<string, unknown> | undefined;
}

/**
 * Reads `{error: {message, type, code, param}}` (OpenAI, Ollama, llama.cpp, newer vLLM),
 * `{error: {code: <status>, message, metadata}}` (OpenRouter), `{object: 'error', message, type,
 * code}` (older vLLM) and `{error: '…'}`.
 */
function readError(body: Record<string, unknown> | undefined): ErrorSaid {
  const nested = body?.error;
  const error =
    asRecord(nested) ??
    (typeof nested === 'string' ? { message: nested } : body && 'message' in body ? body : undefined);
  const metadata = asRecord(error?.metadata);
  const code = error?.code;
  return {
    message: typeof error?.message === 'string' ? nonEmpty(error.message) : nonEmpty(JSON.stringify(error?.message)),
    code:
      nonEmpty(typeof code === 'string' ? code : undefined) ?? nonEmpty(metadata?.error_type) ?? nonEmpty(error?.type),
    status: typeof code === 'number' && code >= 400 && code <= 599 ? code : undefined,
    metadata,
  };
}

// Codes that say the model or a filter refused the content: Azure OpenAI's `content_filter`,
// OpenRouter's `content_policy_violation` and `refusal` error types.
const POLICY_CODES = new Set(['content_filter', 'content_policy_violation', 'refusal']);

/**
 * The ProviderError of an answer that is not a success. Handled before the common mapping: an
 * exhausted OpenAI quota (429 `insufficient_quota`: no retry will help), OpenRouter's moderation
 * (403 with `metadata.reasons`) and content-policy codes, a 402 of OpenRouter's in-flight budget
 * (wait and retry), a 404 (this server does not serve the model: another route may) and a 408.
 */
function errorAnswer(vendor: string, status: number, headers: Headers, bodyText: string): ProviderError {
  const body = parseObject(bodyText);
  const error = readError(body);
  const metadata = error.metadata;
  // OpenRouter's upstream failures say only "Provider returned error"; the upstream's own words are in `raw`.
  const raw = nonEmpty(metadata?.raw);
  const plain = body ? undefined : nonEmpty(bodyText);
  let said =
    error.message && raw && error.message !== raw
      ? `${error.message}: ${raw}`
      : (error.message ?? raw ?? (plain && !plain.startsWith('<') ? plain : undefined));
  said = said === undefined ? undefined : capped(said);
  const vendorCode = error.code ? `${status} ${error.code}` : String(status);
  const where = (what: string) => `${vendor} ${what}${said ? `: ${said}` : ''} (HTTP ${status})`;

  if (error.code === 'insufficient_quota') {
    return new ProviderError(where('says the account has no quota left'), false, { kind: 'quota', vendorCode });
  }
  const reasons = Array.isArray(metadata?.reasons)
    ? metadata.reasons.filter((r): r is string => typeof r === 'string')
    : [];
  if ((status === 403 && reasons.length > 0) || (error.code && POLICY_CODES.has(error.code))) {
    const flagged = reasons.length > 0 ? ` (flagged: ${reasons.join(', ')})` : '';
    return new ProviderError(`${where('refused the content')}${flagged}`, false, {
      kind: 'content_policy',
      vendorCode,
    });
  }
  // A Retry-After may come in OpenRouter's metadata only (its header is not always sent).
  const retryAfterSeconds = finite(metadata?.retry_after_seconds);
  const answerHeaders = new Headers(headers);
  if (!answerHeaders.has('retry-after') && retryAfterSeconds !== undefined) {
    answerHeaders.set('retry-after', String(retryAfterSeconds));
  }
  if (status === 402 && metadata?.limit_source === 'openrouter_in_flight_budget') {
    // The balance is there, but held by requests still running: this one fits once they finish.
    return statusError({ vendor, status: 429, headers: answerHeaders, said, vendorCode });
  }
  if (status === 404) {
    return new ProviderError(where('does not serve the model'), false, {
      kind: 'internal',
      failover: true,
      vendorCode,
    });
  }
  if (status === 408) {
    return new ProviderError(where('timed out'), true, { kind: 'timeout', vendorCode });
  }
  return statusError({ vendor, status, headers: answerHeaders, said, vendorCode });
}

/** The text of a message's `content`: a string, or the text parts of a list of parts. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const parts = content
    .map((part) => asRecord(part))
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => String(part?.text));
  return parts.length > 0 ? parts.join('') : undefined;
}

/** The token counts of an answer's `usage`, or null when it gives none. */
function usageOf(usage: Record<string, unknown> | undefined): Record<string, number> | null {
  const prompt = finite(usage?.prompt_tokens);
  const completion = finite(usage?.completion_tokens);
  if (prompt === undefined || completion === undefined) return null;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: finite(usage?.total_tokens) ?? prompt + completion,
  };
}

/**
 * The output of a chat completion that answered 2xx: its first choice's text as an inline file,
 * with the usage, the finish reason, the model as the server named it and the completion's id. A
 * refusal (finish reason `content_filter`, or a `refusal` message) is final; an answer without text
 * is retryable, unless the whole max_tokens went before any text (a reasoning model's thinking).
 */
function chatOutput(
  vendor: string,
  response: { status: number; headers: Headers },
  body: Record<string, unknown>,
  model: string,
): ProviderOutput {
  const { status } = response;
  const choices = Array.isArray(body.choices) ? body.choices : [];
  if (choices.length === 0 && body.error !== undefined) {
    // OpenRouter answers 200 with only `error` when the upstream failed after its headers were sent.
    throw errorAnswer(vendor, readError(body).status ?? 502, response.headers, JSON.stringify(body));
  }
  const choice = asRecord(choices[0]);
  if (!choice) {
    throw new ProviderError(`${vendor} answered no choices (HTTP ${status})`, true, {
      kind: 'unavailable',
      vendorCode: String(status),
    });
  }
  const finishReason = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  const message = asRecord(choice.message);
  const refusal = nonEmpty(message?.refusal);
  if (finishReason === 'content_filter' || refusal) {
    throw new ProviderError(`${vendor} refused the content${refusal ? `: ${capped(refusal)}` : ''}`, false, {
      kind: 'content_policy',
      vendorCode: `${status} ${finishReason === 'content_filter' ? 'content_filter' : 'refusal'}`,
    });
  }
  if (finishReason === 'error') {
    throw failedWhileAnswering(vendor, status, body, choice);
  }
  const text = contentText(message?.content);
  if (text === undefined || text === '') {
    if (finishReason === 'length') {
      throw new ProviderError(
        `${vendor} used the whole max_tokens before answering (a reasoning model spends tokens thinking): ask for more`,
        false,
        { kind: 'invalid_input', vendorCode: `${status} length` },
      );
    }
    throw new ProviderError(`${vendor} answered no text (HTTP ${status})`, true, {
      kind: 'unavailable',
      vendorCode: String(status),
    });
  }
  return completionOutput(body, model, text, text, finishReason);
}

/** OpenRouter's upstream failed mid-answer; what it said is beside the choices (or on the choice). */
function failedWhileAnswering(
  vendor: string,
  status: number,
  body: Record<string, unknown>,
  choice: Record<string, unknown> | undefined,
): ProviderError {
  const said = nonEmpty(asRecord(body.error)?.message) ?? nonEmpty(asRecord(choice?.error)?.message);
  return new ProviderError(`${vendor} failed while answering${said ? `: ${capped(said)}` : ''}`, true, {
    kind: 'unavailable',
    vendorCode: `${status} error`,
  });
}

/**
 * What a completion comes to: its item's file (`file`), the metadata every answer records (the
 * first choice's text, the usage, the finish reason, the model, the id, and `extra`), and
 * OpenRouter's `usage.cost`, in its credits (one credit is one US dollar).
 */
function completionOutput(
  body: Record<string, unknown>,
  model: string,
  file: string,
  text: string,
  finishReason: unknown,
  extra: Record<string, unknown> = {},
): ProviderOutput {
  const usage = asRecord(body.usage);
  const cost = finite(usage?.cost);
  const output: ProviderOutput = {
    files: [{ data: Buffer.from(file, 'utf8'), contentType: TEXT_TYPE }],
    metadata: {
      text,
      usage: usageOf(usage),
      finish_reason: finishReason,
      model: nonEmpty(body.model) ?? model,
      id: nonEmpty(body.id) ?? null,
      ...extra,
    },
  };
  if (cost !== undefined && cost >= 0) output.vendorCost = cost;
  return output;
}

/**
 * The output of a chat request's completion (the door's passthrough) or of a stream that was cut:
 * its choices as the server gave them (tool calls, refusals, log probabilities, several choices)
 * beside the first choice's text, the usage, the finish reason and the model. What the server
 * refused is an answer here, not an error; a completion without choices is one, unless the one
 * waiting left (then it is what there was: nothing, charged as the server reports or at its bound).
 */
function passthroughOutput(
  vendor: string,
  response: { status: number; headers: Headers },
  body: Record<string, unknown>,
  model: string,
  cut: boolean,
): ProviderOutput {
  const choices = (Array.isArray(body.choices) ? body.choices : [])
    .map((choice) => asRecord(choice))
    .filter((choice) => choice !== undefined);
  if (!cut && choices.length === 0) {
    if (body.error !== undefined) {
      throw errorAnswer(vendor, readError(body).status ?? 502, response.headers, JSON.stringify(body));
    }
    throw new ProviderError(`${vendor} answered no choices (HTTP ${response.status})`, true, {
      kind: 'unavailable',
      vendorCode: String(response.status),
    });
  }
  const first = choices[0];
  const message = asRecord(first?.message);
  const finishReason = typeof first?.finish_reason === 'string' ? first.finish_reason : null;
  if (!cut && finishReason === 'error') {
    throw failedWhileAnswering(vendor, response.status, body, first);
  }
  const text = contentText(message?.content) ?? '';
  const toolCalls = Array.isArray(message?.tool_calls) && message.tool_calls.length > 0 ? message.tool_calls : null;
  const refusal = nonEmpty(message?.refusal);
  // The file of the item: the text, or what the answer is instead of text (its tool calls, a refusal).
  const file = text !== '' ? text : toolCalls ? JSON.stringify(toolCalls) : (refusal ?? '');
  return completionOutput(body, model, file, text, finishReason, { choices, ...(cut ? { cut: true } : {}) });
}

/**
 * A streamed call's answer: each chunk handed to `stream` as it arrives, then the completion they
 * make as the output (the plain text request's rules for a text request, the passthrough's for a
 * chat request or a stream cut short). A server that answers JSON in place of a stream is taken as
 * it is, its answer handed on as one chunk.
 */
async function streamedOutput(
  vendor: string,
  response: Response,
  stream: StreamSink,
  model: string,
  chat: boolean,
): Promise<ProviderOutput> {
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const body = parseObject(await response.text());
    if (!body) {
      throw new ProviderError(
        `${vendor} answered something that is not a JSON object (HTTP ${response.status})`,
        true,
        {
          kind: 'unavailable',
          vendorCode: String(response.status),
          maybeAccepted: true,
        },
      );
    }
    const output = chat
      ? passthroughOutput(vendor, response, body, model, false)
      : chatOutput(vendor, response, body, model);
    const choices = (Array.isArray(body.choices) ? body.choices : []).map((c) => asRecord(c) ?? {});
    stream.chunk({
      choices: choices.map((c, index) => ({
        index: typeof c.index === 'number' ? c.index : index,
        delta: asRecord(c.message) ?? {},
        logprobs: c.logprobs ?? null,
        finish_reason: typeof c.finish_reason === 'string' ? c.finish_reason : null,
      })),
      usage: asRecord(body.usage) ?? null,
    });
    return output;
  }
  let streamed: Awaited<ReturnType<typeof readChatStream>>;
  try {
    streamed = await readChatStream(response, stream);
  } catch (err) {
    // Cut mid-answer: what was handed on cannot be taken back, so no other route tries again.
    throw new ProviderError(`${vendor} stopped streaming: ${err instanceof Error ? err.message : String(err)}`, false, {
      kind: 'unavailable',
      failover: false,
      vendorCode: String(response.status),
    });
  }
  if (streamed.error) {
    const error = JSON.stringify({ error: streamed.error });
    const failure = errorAnswer(vendor, readError({ error: streamed.error }).status ?? 502, response.headers, error);
    if (streamed.chunks === 0) throw failure;
    throw new ProviderError(failure.message, false, {
      kind: failure.kind,
      failover: false,
      vendorCode: failure.vendorCode,
    });
  }
  if (chat || streamed.cut) return passthroughOutput(vendor, response, streamed.body, model, streamed.cut);
  return chatOutput(vendor, response, streamed.body, model);
}

/** An OpenAI-compatible chat server (OpenRouter by default): synchronous chat completions. */
export function createOpenAiCompatibleProvider(settings: OpenAiCompatibleSettings): Provider {
  const base = apiBaseUrl(settings.baseUrl);
  const vendor = vendorName(base);

  const provider: Provider = {
    id: 'openai-compatible',
    // None of these servers takes an idempotency key: a submit whose outcome is unknown is not sent again.
    idempotentSubmit: false,

    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const model = Object.hasOwn(settings.modelNames, request.endpoint)
        ? (settings.modelNames[request.endpoint] ?? request.endpoint)
        : request.endpoint;
      const chat = request.request?.kind === 'text' && request.request.chat !== undefined;
      const { stream } = request;
      let response: Response;
      let text: string;
      try {
        response = await settings.fetch(`${base}/chat/completions`, {
          method: 'POST',
          headers: headersFor(settings, true),
          body: JSON.stringify({
            ...request.input,
            model,
            // Streamed, the usage comes in a last chunk when asked for.
            ...(stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
          }),
          signal: stream
            ? AbortSignal.any([request.signal, stream.gone].filter((s) => s !== undefined))
            : request.signal,
        });
        if (stream && response.ok)
          return { kind: 'done', output: await streamedOutput(vendor, response, stream, model, chat) };
        text = await response.text();
      } catch (err) {
        // The one waiting left before the server answered: the call is stopped, nothing came.
        if (stream?.gone.aborted && !request.signal?.aborted) {
          if (err instanceof ProviderError) throw err;
          return {
            kind: 'done',
            output: passthroughOutput(vendor, { status: 0, headers: new Headers() }, {}, model, true),
          };
        }
        if (err instanceof ProviderError) throw err;
        throw noAnswerError(vendor, err, request.signal);
      }
      if (!response.ok) throw errorAnswer(vendor, response.status, response.headers, text);
      const body = parseObject(text);
      if (!body) {
        // The server did the work (and may have billed it) but its answer is lost: not sent again.
        throw new ProviderError(
          `${vendor} answered something that is not a JSON object (HTTP ${response.status})`,
          true,
          { kind: 'unavailable', vendorCode: String(response.status), maybeAccepted: true },
        );
      }
      return {
        kind: 'done',
        output: chat
          ? passthroughOutput(vendor, response, body, model, false)
          : chatOutput(vendor, response, body, model),
      };
    },

    async poll(): Promise<PollResult> {
      // Every submit answers with its result: no job of this vendor is ever left to poll.
      return {
        kind: 'failed',
        error: new ProviderError('synchronous vendor: nothing to poll', false, { kind: 'internal' }),
      };
    },
  };
  return provider;
}

/** How long the check waits for an answer. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Whether the server answers an authenticated call that costs nothing: OpenRouter's `GET /key`
 * (its model list is public, so it would not test the key), another server's `GET /models`.
 */
export async function checkOpenAiCompatible(
  settings: OpenAiCompatibleSettings,
  timeoutMs: number = CHECK_TIMEOUT_MS,
): Promise<{ reachable: boolean | null; detail: string }> {
  const base = apiBaseUrl(settings.baseUrl);
  const vendor = vendorName(base);
  const openRouter = isOpenRouter(base);
  if (openRouter && !settings.apiKey?.trim()) {
    return { reachable: null, detail: 'No API key is set: OpenRouter needs one' };
  }
  const url = `${base}/${openRouter ? 'key' : 'models'}`;
  let response: Response;
  let text: string;
  try {
    response = await settings.fetch(url, {
      headers: headersFor(settings, false),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (err) {
    const failure = noAnswerError(vendor, err);
    if (failure.vendorCode === 'ECONNREFUSED') {
      return { reachable: false, detail: `${url}: connection refused (is the server running?)` };
    }
    if (failure.kind === 'timeout') return { reachable: false, detail: `${url}: no answer within ${timeoutMs} ms` };
    return { reachable: false, detail: `${url}: ${failure.message}` };
  }
  if (response.status === 401 || response.status === 403) {
    return {
      reachable: false,
      detail: `${vendor} refuses the key (HTTP ${response.status}): ${settings.apiKey ? 'check it' : 'set one'}`,
    };
  }
  if (!response.ok) {
    const said = readError(parseObject(text)).message;
    return { reachable: false, detail: `${url} answered HTTP ${response.status}${said ? `: ${capped(said)}` : ''}` };
  }
  const body = parseObject(text);
  if (openRouter) return { reachable: true, detail: 'OpenRouter accepts the key' };
  const models = Array.isArray(body?.data) ? body.data.length : undefined;
  return {
    reachable: true,
    detail: `${url} answered${models === undefined ? '' : ` (${models} model${models === 1 ? '' : 's'})`}`,
  };
}
