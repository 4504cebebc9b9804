// Suno through a sunoapi.org-compatible API (sunoapi.org; kie.ai serves the same routes and shapes):
// `POST /api/v1/generate` starts a task of two songs, `GET /api/v1/generate/record-info` reads it,
// and the API posts its progress to the task's `callBackUrl` (required on every task).
//
// CALLBACKS: sunoapi.org does not sign its callbacks, and echoes nothing of ours but the URL we
// gave. So the adapter adds `key` (the attempt's idempotency key) and `token`
// (base64url HMAC-SHA256 of the key under `callbackToken`) to the callback URL it sends, and
// `verifyWebhook` checks them. It only gets headers and body, so THE SERVICE MUST PASS THE QUERY
// STRING OF THE CALLBACK REQUEST'S URL AS THE HEADER `x-callback-query` (raw, with or without `?`);
// a callback without it, or with a wrong token, is refused (WebhookRejectedError).
// Why an HMAC of the key rather than the secret itself: the URL is seen by the vendor, its logs and
// any proxy; a leaked URL then speaks for one attempt's callbacks only, and the secret never leaves.
//
// Docs read: docs.sunoapi.org/suno-api/{generate-music, get-music-generation-details,
// generate-music-callbacks, get-remaining-credits}; docs.kie.ai/suno-api/* (same record-info shape).

import { createHmac, timingSafeEqual } from 'node:crypto';
import { WorkError } from '../../lib/errors.ts';
import { asRecord, parseObject } from '../../lib/records.ts';
import { noAnswerError, retryAfterMs, statusError } from '../http.ts';
import {
  type Fetch,
  type OutputFile,
  type PollResult,
  type Provider,
  type ProviderCheck,
  ProviderError,
  type ProviderOutput,
  type SubmitRequest,
  type SubmitResult,
  type VendorHandle,
  type WebhookEvent,
  WebhookRejectedError,
} from '../types.ts';

/** sunoapi.org's API, the default base URL. */
export const SUNO_BASE_URL = 'https://api.sunoapi.org';
/** The header the service puts the callback request's raw query string in. */
export const CALLBACK_QUERY_HEADER = 'x-callback-query';
/** The query parameters the adapter adds to the callback URL. */
export const CALLBACK_KEY_PARAM = 'key';
export const CALLBACK_TOKEN_PARAM = 'token';

export interface SunoSettings {
  /** The API key, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Default SUNO_BASE_URL; kie.ai's, or a fake's address in tests. */
  baseUrl?: string;
  fetch: Fetch;
  /** The secret the callback tokens are made with (never sent anywhere itself). */
  callbackToken: string;
  /**
   * Where the vendor may post when a submit asks for no webhook: the vendor requires a callback URL
   * on every task, so a placeholder goes there and the task is polled.
   */
  fallbackCallbackUrl?: string;
  /** The remaining-credits route `check` reads: `/api/v1/generate/credit` (kie.ai: `/api/v1/chat/credit`). */
  creditPath?: string;
}

const VENDOR = 'Suno';
const DEFAULT_CREDIT_PATH = '/api/v1/generate/credit';
// A song takes 2-3 minutes (its stream URL 30-40 s) and the docs ask for polls about every 30 s:
// 10 s keeps the added latency small without hammering a task that callbacks usually report.
const POLL_MS = 10_000;
// The documented limit is 20 submits per 10 s: without a Retry-After, wait for the window to pass.
const RATE_WINDOW_MS = 10_000;
const CHECK_TIMEOUT_MS = 10_000;
// Models are V4, V4_5, V4_5PLUS, V4_5ALL, V5, V5_5...: anything else is a catalog mistake.
const MODEL = /^V\d+(?:_\d+)?(?:PLUS|ALL)?$/;
// How far a task got, by the stage the record or a callback reports (lyrics, first song, both).
const PROGRESS: Record<string, number> = { PENDING: 0, TEXT_SUCCESS: 1 / 3, FIRST_SUCCESS: 2 / 3 };
const CALLBACK_PROGRESS: Record<string, number> = { text: 1 / 3, first: 2 / 3 };
// What Suno and the API say when they refuse the content (banned words, copyrighted lyrics, a real
// artist's name, an upload matching a published work).
const CONTENT_POLICY =
  /sensitive|prohibited|forbidden word|violat|copyright|moderation|content policy|artist name|existing work/i;
// kie.ai answers 429 for a rate limit where sunoapi.org means insufficient credits.
const RATE_WORDS = /rate limit|too many|frequen|too fast/i;
const CREDIT_WORDS = /credit|balance|insufficient|top up|recharge/i;
const AUDIO_TYPES: Record<string, string> = { mp3: 'audio/mpeg', wav: 'audio/wav', m4a: 'audio/mp4' };

/** A code the API gives as a number or a numeric string; undefined otherwise. */
function codeOf(value: unknown): number | undefined {
  const code = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * The ProviderError of a code sunoapi.org gives in its answers' `code` (the HTTP status is often
 * 200 around it), a callback's `code` or a record's `errorCode`: 400/413/422 the input (or the
 * content, when the message says so), 401/403 our key, 402/429 the account's credit (429 is a rate
 * limit when the message says so: kie.ai), 404 a path this API does not have, 405/430 a rate limit,
 * 408 a timeout, 451 a download the API could not make, 455 maintenance, 505 a disabled feature,
 * 5xx the API's own failure (531: failed and refunded); anything else unexpected.
 */
export function sunoCodeError(
  code: number,
  said?: string,
  headers?: Headers,
  vendorCode = String(code),
): ProviderError {
  const message = (what: string) => `${VENDOR} ${what}${said ? `: ${said}` : ''} (code ${code})`;
  const policy = said !== undefined && CONTENT_POLICY.test(said);
  const wait = () => retryAfterMs(headers?.get('retry-after') ?? null) ?? RATE_WINDOW_MS;
  switch (code) {
    case 400:
    case 413:
    case 422:
      return new ProviderError(message(policy ? 'refused the content' : 'refused the input'), false, {
        kind: policy ? 'content_policy' : 'invalid_input',
        vendorCode,
      });
    case 401:
    case 403:
      return new ProviderError(message('refused our API key'), false, { kind: 'auth', vendorCode });
    case 429:
      if (said && RATE_WORDS.test(said) && !CREDIT_WORDS.test(said)) {
        return new ProviderError(message('is rate limiting us'), true, {
          kind: 'rate_limited',
          retryAfterMs: wait(),
          vendorCode,
        });
      }
      return new ProviderError(message('says the account has no credit left'), false, { kind: 'quota', vendorCode });
    case 402:
      return new ProviderError(message('says the account has no credit left'), false, { kind: 'quota', vendorCode });
    case 404:
      // Our path or method is wrong for this API: this route cannot serve, another may.
      return new ProviderError(
        message('does not have this route (is the base URL a sunoapi.org-compatible API?)'),
        false,
        {
          kind: 'internal',
          failover: true,
          vendorCode,
        },
      );
    case 405:
    case 430:
      return new ProviderError(message('is rate limiting us'), true, {
        kind: 'rate_limited',
        retryAfterMs: wait(),
        vendorCode,
      });
    case 408:
      return new ProviderError(message('timed out'), true, { kind: 'timeout', vendorCode });
    case 451:
      return new ProviderError(message('could not download a file it needed'), true, {
        kind: 'unavailable',
        vendorCode,
      });
    case 455:
      return new ProviderError(message('is under maintenance'), true, {
        kind: 'unavailable',
        retryAfterMs: retryAfterMs(headers?.get('retry-after') ?? null),
        vendorCode,
      });
    case 505:
      return new ProviderError(message('has this feature disabled'), false, {
        kind: 'internal',
        failover: true,
        vendorCode,
      });
  }
  if (code >= 500) return new ProviderError(message('failed'), true, { kind: 'unavailable', vendorCode });
  return new ProviderError(message('answered unexpectedly'), false, { kind: 'internal', vendorCode });
}

/**
 * The ProviderError of a task that ended in failure (`status` of its record, or `callback` for an
 * error callback): a refusal of its words is final (`content_policy`); a code the API gives maps as
 * sunoCodeError does; anything else is taken as Suno's own failure, worth another try.
 */
export function taskError(status: string, code: number | undefined, said: string | undefined): ProviderError {
  if (status === 'SENSITIVE_WORD_ERROR') {
    return new ProviderError(`${VENDOR} refused the words of the song${said ? `: ${said}` : ''}`, false, {
      kind: 'content_policy',
      vendorCode: status,
    });
  }
  if (code !== undefined && code !== 200) return sunoCodeError(code, said, undefined, `${status}/${code}`);
  if (said && CONTENT_POLICY.test(said)) {
    return new ProviderError(`${VENDOR} refused the content: ${said}`, false, {
      kind: 'content_policy',
      vendorCode: status,
    });
  }
  return new ProviderError(`${VENDOR} failed the song (${status})${said ? `: ${said}` : ''}`, true, {
    kind: 'unavailable',
    vendorCode: status,
  });
}

/** One song of a task, read from either result shape (camelCase records, snake_case callbacks). */
export interface SunoSong {
  id?: string;
  audioUrl?: string;
  streamAudioUrl?: string;
  imageUrl?: string;
  title?: string;
  tags?: string;
  duration?: number;
  modelName?: string;
  lyrics?: string;
}

function songOf(value: unknown): SunoSong | undefined {
  const item = asRecord(value);
  if (!item) return undefined;
  const pick = (camel: string, snake: string) => textOf(item[camel]) ?? textOf(item[snake]);
  const duration = item.duration;
  return {
    id: textOf(item.id),
    audioUrl: pick('audioUrl', 'audio_url'),
    streamAudioUrl: pick('streamAudioUrl', 'stream_audio_url'),
    imageUrl: pick('imageUrl', 'image_url'),
    title: textOf(item.title),
    tags: textOf(item.tags),
    duration: typeof duration === 'number' && Number.isFinite(duration) ? duration : undefined,
    modelName: pick('modelName', 'model_name'),
    lyrics: textOf(item.prompt),
  };
}

function songsOf(list: unknown): SunoSong[] {
  return Array.isArray(list) ? list.map(songOf).filter((s): s is SunoSong => s !== undefined) : [];
}

/** The songs of a record: `response.sunoData` (documented) or `response.data` (older samples). */
function recordSongs(record: Record<string, unknown>): SunoSong[] {
  const response = asRecord(record.response);
  return songsOf(response?.sunoData ?? response?.data);
}

function audioFile(url: string | undefined): OutputFile | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  const fileName = decodeURIComponent(parsed.pathname.split('/').at(-1) ?? '');
  const contentType = AUDIO_TYPES[fileName.split('.').at(-1)?.toLowerCase() ?? ''];
  return { url, ...(fileName ? { fileName } : {}), ...(contentType ? { contentType } : {}) };
}

/** Every song has its audio file: the task's output is whole. */
function complete(songs: SunoSong[]): boolean {
  return songs.length > 0 && songs.every((song) => audioFile(song.audioUrl) !== undefined);
}

/**
 * The output of a finished task: each song's audio file in the vendor's order (the first is the
 * request's track), and what Suno says of each song in `metadata.songs`. A task with no audio is a
 * non-retryable ProviderError.
 */
export function songsOutput(taskId: string, songs: SunoSong[]): ProviderOutput {
  const files = songs.map((song) => audioFile(song.audioUrl)).filter((f): f is OutputFile => f !== undefined);
  if (files.length === 0) {
    throw new ProviderError(`${VENDOR} finished task ${taskId} without any audio`, false, {
      kind: 'internal',
      vendorCode: 'SUCCESS',
    });
  }
  const described = songs
    .filter((song) => audioFile(song.audioUrl) !== undefined)
    .map((song) =>
      Object.fromEntries(
        Object.entries({
          id: song.id,
          title: song.title,
          tags: song.tags,
          duration: song.duration,
          image_url: song.imageUrl,
          stream_audio_url: song.streamAudioUrl,
          model_name: song.modelName,
          lyrics: song.lyrics,
        }).filter(([, value]) => value !== undefined),
      ),
    );
  return { files, metadata: { task_id: taskId, songs: described } };
}

function doneOrFailed(taskId: string, songs: SunoSong[]): PollResult {
  try {
    return { kind: 'done', output: songsOutput(taskId, songs) };
  } catch (err) {
    if (err instanceof WorkError) return { kind: 'failed', error: err };
    throw err;
  }
}

/** Where a task stands, from its record (`data` of record-info). */
export function recordResult(taskId: string, record: Record<string, unknown>): PollResult {
  const status = typeof record.status === 'string' ? record.status : '';
  const failure = () => taskError(status, codeOf(record.errorCode), textOf(record.errorMessage));
  const progress = PROGRESS[status];
  if (progress !== undefined) return { kind: 'pending', progress, pollAfterMs: POLL_MS };
  switch (status) {
    // Older samples of the API say GENERATING for a task under way.
    case 'GENERATING':
      return { kind: 'pending', pollAfterMs: POLL_MS };
    case 'SUCCESS':
      return doneOrFailed(taskId, recordSongs(record));
    case 'CALLBACK_EXCEPTION': {
      // Only the delivery to our callback URL failed (always so with a placeholder URL): songs that
      // were all made are the result.
      const songs = recordSongs(record);
      return complete(songs) ? doneOrFailed(taskId, songs) : { kind: 'failed', error: failure() };
    }
    case 'CREATE_TASK_FAILED':
    case 'GENERATE_AUDIO_FAILED':
    case 'SENSITIVE_WORD_ERROR':
      return { kind: 'failed', error: failure() };
  }
  if (/FAIL|ERROR/.test(status)) return { kind: 'failed', error: failure() };
  throw new ProviderError(`${VENDOR} answered an unknown status ${JSON.stringify(record.status)}`, true, {
    kind: 'unavailable',
  });
}

/** What a callback body (`{code, msg, data: {callbackType, task_id, data}}`) says of its task. */
export function callbackResult(taskId: string, body: Record<string, unknown>): PollResult {
  const data = asRecord(body.data) ?? {};
  const type = data.callbackType;
  const code = codeOf(body.code);
  if (type === 'error' || (code !== undefined && code !== 200)) {
    return { kind: 'failed', error: taskError('callback', code, textOf(body.msg)) };
  }
  if (type === 'complete') return doneOrFailed(taskId, songsOf(data.data));
  const progress = typeof type === 'string' ? CALLBACK_PROGRESS[type] : undefined;
  // A stage this adapter does not know yet: the poll it triggers will tell.
  return progress === undefined
    ? { kind: 'pending', pollAfterMs: 0 }
    : { kind: 'pending', progress, pollAfterMs: POLL_MS };
}

/** The callback token of an attempt: base64url HMAC-SHA256 of its idempotency key under the secret. */
export function callbackTokenFor(secret: string, key: string): string {
  // The prefix keeps these MACs apart from anything else the same secret might sign.
  return createHmac('sha256', secret).update(`suno-callback\n${key}`).digest('base64url');
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const one = Array.isArray(value) ? value[0] : value;
    if (typeof one === 'string') return one;
  }
  return undefined;
}

/** Refuses a callback whose query (the `x-callback-query` header) lacks the right key and token. */
export function verifyCallbackQuery(headers: Record<string, string | string[] | undefined>, secret: string): void {
  const raw = headerValue(headers, CALLBACK_QUERY_HEADER);
  if (raw === undefined) {
    throw new WebhookRejectedError(
      `The Suno callback came without its query: the service must pass it in the ${CALLBACK_QUERY_HEADER} header`,
    );
  }
  const query = new URLSearchParams(raw.startsWith('?') ? raw.slice(1) : raw);
  const keys = query.getAll(CALLBACK_KEY_PARAM);
  const tokens = query.getAll(CALLBACK_TOKEN_PARAM);
  const key = keys[0];
  const token = tokens[0];
  if (keys.length !== 1 || tokens.length !== 1 || !key || !token) {
    throw new WebhookRejectedError('The Suno callback URL does not carry one key and one token');
  }
  const expected = Buffer.from(callbackTokenFor(secret, key));
  const presented = Buffer.from(token);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new WebhookRejectedError('The Suno callback token does not match');
  }
}

/** The callback URL of an attempt: the webhook URL with its key and token added. */
function taggedCallbackUrl(webhookUrl: string, key: string, secret: string): string {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new ProviderError(`The webhook URL ${JSON.stringify(webhookUrl)} is not a URL`, false, { kind: 'internal' });
  }
  // Replacing a parameter of the service's own would break its routing without a word: refuse.
  if (url.searchParams.has(CALLBACK_KEY_PARAM) || url.searchParams.has(CALLBACK_TOKEN_PARAM)) {
    throw new ProviderError(
      `The webhook URL already has a ${CALLBACK_KEY_PARAM} or ${CALLBACK_TOKEN_PARAM} parameter, which the Suno adapter adds`,
      false,
      { kind: 'internal' },
    );
  }
  url.searchParams.set(CALLBACK_KEY_PARAM, key);
  url.searchParams.set(CALLBACK_TOKEN_PARAM, callbackTokenFor(secret, key));
  return url.toString();
}

function baseOf(settings: Pick<SunoSettings, 'baseUrl'>): string {
  return (settings.baseUrl ?? SUNO_BASE_URL).replace(/\/+$/, '');
}

function authHeaders(apiKey: string, json: boolean): Record<string, string> {
  return {
    authorization: `Bearer ${apiKey}`,
    accept: 'application/json',
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}

/**
 * One call to the API: its answer's JSON object when its `code` is 200, or the ProviderError the
 * answer means. A submit whose answer cannot be read may have started the task: `maybeAccepted`.
 */
async function call(fetch: Fetch, url: string, init: RequestInit, submit = false): Promise<Record<string, unknown>> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, init);
    text = await response.text();
  } catch (err) {
    throw noAnswerError(VENDOR, err, init.signal);
  }
  const body = parseObject(text);
  const code = codeOf(body?.code);
  const said = textOf(body?.msg);
  // The API speaks through its body's `code`; an error status without one is a proxy's or gateway's.
  if (code !== undefined && code !== 200) throw sunoCodeError(code, said, response.headers);
  if (!response.ok) throw statusError({ vendor: VENDOR, status: response.status, headers: response.headers, said });
  if (!body || code === undefined) {
    throw new ProviderError(
      `${VENDOR} answered something that is not its JSON answer (HTTP ${response.status})`,
      true,
      {
        kind: 'unavailable',
        vendorCode: String(response.status),
        maybeAccepted: submit,
      },
    );
  }
  return body;
}

/**
 * One harmless authenticated call, the account's remaining credits: reachable true with the
 * balance, false with why (our key refused, an error, no answer). Never starts any work.
 */
export async function checkSuno(
  settings: Pick<SunoSettings, 'apiKey' | 'baseUrl' | 'fetch' | 'creditPath'>,
): Promise<ProviderCheck> {
  const url = `${baseOf(settings)}${settings.creditPath ?? DEFAULT_CREDIT_PATH}`;
  try {
    const body = await call(settings.fetch, url, {
      headers: authHeaders(settings.apiKey, false),
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    const credits = typeof body.data === 'number' ? body.data : undefined;
    if (credits === undefined) return { reachable: true, detail: `${VENDOR} answered with our API key` };
    const warning = credits <= 0 ? ': songs will fail until the account is topped up' : '';
    return { reachable: true, detail: `${VENDOR} answered with our API key: ${credits} credits left${warning}` };
  } catch (err) {
    return { reachable: false, detail: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Suno's song tasks on a sunoapi.org-compatible API: submit (with a tokened callback URL), poll the
 * task's record, verify callbacks by their token (see the top of this file), check the credits.
 */
export function createSunoProvider(settings: SunoSettings): Provider {
  if (settings.callbackToken === '') {
    // An empty secret makes every token guessable: callbacks could not be told from forgeries.
    throw new Error('The Suno adapter needs a callback token (a secret) to verify its callbacks');
  }
  const base = baseOf(settings);

  const handleTask = (handle: VendorHandle): string => {
    const value = handle.task_id;
    if (typeof value !== 'string' || value === '') throw new ProviderError('The Suno handle has no task_id', false);
    return value;
  };

  const callbackUrl = (request: SubmitRequest): string => {
    if (request.webhookUrl)
      return taggedCallbackUrl(request.webhookUrl, request.idempotencyKey, settings.callbackToken);
    // No webhook asked for: the placeholder gets no token, since nothing posted there is believed.
    if (settings.fallbackCallbackUrl) return settings.fallbackCallbackUrl;
    throw new ProviderError(
      `${VENDOR} needs a callback URL on every task: give the adapter a fallback callback URL to run without webhooks`,
      false,
      { kind: 'internal', failover: true },
    );
  };

  return {
    id: 'suno',
    // The API takes no idempotency key: a submit whose outcome is unknown is not sent again.
    idempotentSubmit: false,

    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const model = request.endpoint.trim();
      if (!MODEL.test(model)) {
        throw new ProviderError(
          `The Suno endpoint ${JSON.stringify(request.endpoint)} is not a model (V4, V4_5...)`,
          false,
          {
            kind: 'internal',
          },
        );
      }
      // The route's model and our callback URL win over anything of the same name in the input.
      const payload = { ...request.input, model, callBackUrl: callbackUrl(request) };
      const body = await call(
        settings.fetch,
        `${base}/api/v1/generate`,
        {
          method: 'POST',
          headers: authHeaders(settings.apiKey, true),
          body: JSON.stringify(payload),
          signal: request.signal,
        },
        true,
      );
      const taskId = textOf(asRecord(body.data)?.taskId);
      if (!taskId) {
        throw new ProviderError(`${VENDOR} accepted the task without a taskId`, true, {
          kind: 'unavailable',
          maybeAccepted: true,
        });
      }
      return { kind: 'accepted', vendorRequestId: taskId, handle: { task_id: taskId } };
    },

    async poll(handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> {
      const taskId = handleTask(handle);
      let body: Record<string, unknown>;
      try {
        body = await call(settings.fetch, `${base}/api/v1/generate/record-info?taskId=${encodeURIComponent(taskId)}`, {
          headers: authHeaders(settings.apiKey, false),
          signal,
        });
      } catch (err) {
        // A refusal is the task's end (our key, our credit); a canceled poll learnt nothing of it.
        if (err instanceof WorkError && !err.retryable && err.kind !== 'canceled')
          return { kind: 'failed', error: err };
        throw err;
      }
      const record = asRecord(body.data);
      if (!record) {
        throw new ProviderError(`${VENDOR} answered no record for task ${taskId}`, true, { kind: 'unavailable' });
      }
      return recordResult(taskId, record);
    },

    check: () => checkSuno(settings),

    async verifyWebhook(
      requestHeaders: Record<string, string | string[] | undefined>,
      rawBody: Buffer,
    ): Promise<WebhookEvent> {
      verifyCallbackQuery(requestHeaders, settings.callbackToken);
      const body = parseObject(rawBody.toString('utf8'));
      const taskId = textOf(asRecord(body?.data)?.task_id);
      if (!body || !taskId) throw new WebhookRejectedError('The callback body is not a Suno task callback');
      return { vendorRequestId: taskId, result: callbackResult(taskId, body) };
    },
  };
}
