import { WorkError } from '../../lib/errors.ts';
import { asRecord } from '../../lib/records.ts';
import { checkByGet, dataUrlFile, noAnswerError } from '../http.ts';
import {
  type CancelAnswer,
  type Fetch,
  type OutputFile,
  type PollResult,
  type Provider,
  ProviderError,
  type ProviderOutput,
  type SubmitRequest,
  type SubmitResult,
  type VendorHandle,
  type WebhookEvent,
  WebhookRejectedError,
} from '../types.ts';
import {
  abortedPredictionError,
  canceledPredictionError,
  failedPredictionError,
  replicateHttpError,
} from './errors.ts';
import { cachedSecret, fixedSecret, type SigningSecretSource, verifyReplicateSignature } from './webhook.ts';

/** Replicate's API, the default base URL. */
export const REPLICATE_BASE_URL = 'https://api.replicate.com';

export interface ReplicateSettings {
  /** The API token (REPLICATE_API_TOKEN), sent as `Authorization: Bearer`. */
  token: string;
  /** `https://api.replicate.com`, or a fake's address in tests (without `/v1`). */
  baseUrl: string;
  /** REPLICATE_WEBHOOK_SECRET (`whsec_…`); when absent the account's default secret is fetched. */
  webhookSecret?: string;
  fetch: Fetch;
  now?: () => number;
  /**
   * What a second of predict time costs in US dollars, by model (`owner/name`): the price of the
   * hardware the operator says it runs on. A model not here: its predictions' cost is unknown.
   */
  usdPerSecondByModel?: Readonly<Record<string, number>>;
}

// How soon to ask again: `starting` is often a cold boot (seconds to minutes), `processing` runs.
const POLL_STARTING_MS = 2000;
const POLL_PROCESSING_MS = 1000;
// Replicate holds a `Prefer: wait` submit for at most 60 s.
const MAX_HOLD_S = 60;
// The longest a cancel waits for Replicate (a team's cancel request waits for it).
const CANCEL_TIMEOUT_MS = 10_000;

/** A route's endpoint: `owner/name` (an official model) or `owner/name:version`. */
export interface ModelReference {
  owner: string;
  name: string;
  version: string | undefined;
}

/** Reads `owner/name` or `owner/name:version`; throws a non-retryable ProviderError otherwise. */
export function parseModelReference(endpoint: string): ModelReference {
  const match = /^([^/:\s]+)\/([^/:\s]+)(?::([^/:\s]+))?$/.exec(endpoint.trim().replace(/^\/+|\/+$/g, ''));
  if (!match?.[1] || !match[2]) {
    throw new ProviderError(
      `The Replicate endpoint ${JSON.stringify(endpoint)} is not owner/name or owner/name:version`,
      false,
      { kind: 'internal' },
    );
  }
  return { owner: match[1], name: match[2], version: match[3] };
}

// A tqdm progress line: `76%|███████▋  | 7568/10000 [00:33<00:10, 229.00it/s]`.
const TQDM_LINE = /^\s*(\d{1,3})%\s*\|[^|]*\|\s*\d+\/\d+/;

/**
 * The progress (0-1) of the last tqdm bar in a prediction's logs, as Replicate's clients read it;
 * undefined when the logs show none. Carriage returns count as line ends (tqdm redraws with them).
 */
export function progressFromLogs(logs: unknown): number | undefined {
  if (typeof logs !== 'string' || logs === '') return undefined;
  const lines = logs.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = TQDM_LINE.exec(lines[i] ?? '');
    if (match?.[1]) return Math.min(1, Number(match[1]) / 100);
  }
  return undefined;
}

function fileOf(value: unknown): OutputFile | undefined {
  if (typeof value !== 'string') return undefined;
  // Small outputs come inline (sync mode, or models that return data URLs).
  const inline = dataUrlFile(value);
  if (inline) return inline;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const fileName = decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
  return { url: value, fileName: fileName || undefined };
}

/** The files of a value: a URL, a list of URLs; undefined when it is something else. */
function filesOf(value: unknown): OutputFile[] | undefined {
  const list = Array.isArray(value) ? value.map(fileOf) : [fileOf(value)];
  return list.length > 0 && list.every((f) => f !== undefined) ? (list as OutputFile[]) : undefined;
}

/**
 * The files of a succeeded prediction's `output`, in order: a URL, a list of URLs, or the URL
 * fields of an object output (3D and video models name theirs); the rest goes to metadata with
 * `predict_time`. An output without a file is a non-retryable ProviderError.
 */
export function replicateOutput(
  prediction: Record<string, unknown>,
  usdPerSecond?: (model: string) => number | undefined,
): ProviderOutput {
  const output = prediction.output;
  const files: OutputFile[] = [];
  const metadata: Record<string, unknown> = {};
  if (typeof prediction.id === 'string') metadata.prediction_id = prediction.id;
  const predictTime = asRecord(prediction.metrics)?.predict_time;
  if (typeof predictTime === 'number' && Number.isFinite(predictTime)) metadata.predict_time = predictTime;
  const object = asRecord(output);
  if (object) {
    const rest: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(object)) {
      const found = filesOf(value);
      if (found) files.push(...found);
      else rest[name] = value;
    }
    if (Object.keys(rest).length > 0) metadata.output = rest;
  } else {
    const found = output === null || output === undefined ? undefined : filesOf(output);
    if (found) files.push(...found);
    else if (output !== null && output !== undefined) metadata.output = output;
  }
  if (files.length === 0) {
    const removed = prediction.data_removed === true ? ' (its data was removed)' : '';
    throw new ProviderError(`Replicate answered a prediction with no file in its output${removed}`, false, {
      kind: 'internal',
      vendorCode: 'succeeded',
    });
  }
  const result: ProviderOutput = { files, metadata };
  // Billed by the second of predict time on the model's hardware, which the prediction does not
  // name: the operator's REPLICATE_MODEL_HARDWARE does (unknown without it, or without the time).
  const price = typeof prediction.model === 'string' ? usdPerSecond?.(prediction.model) : undefined;
  if (price !== undefined && typeof metadata.predict_time === 'number')
    result.vendorCost = metadata.predict_time * price;
  return result;
}

/** Where a prediction stands, in the terms of a poll (the body of a poll, a webhook, a held submit). */
export function predictionResult(
  prediction: Record<string, unknown>,
  usdPerSecond?: (model: string) => number | undefined,
): PollResult {
  switch (prediction.status) {
    case 'starting':
    case 'processing': {
      const progress = progressFromLogs(prediction.logs);
      const pollAfterMs = prediction.status === 'starting' ? POLL_STARTING_MS : POLL_PROCESSING_MS;
      return progress === undefined ? { kind: 'pending', pollAfterMs } : { kind: 'pending', progress, pollAfterMs };
    }
    case 'succeeded':
      try {
        return { kind: 'done', output: replicateOutput(prediction, usdPerSecond) };
      } catch (err) {
        if (err instanceof WorkError) return { kind: 'failed', error: err };
        throw err;
      }
    case 'failed':
      return { kind: 'failed', error: failedPredictionError(prediction.error) };
    case 'canceled':
      return { kind: 'failed', error: canceledPredictionError() };
    case 'aborted':
      return { kind: 'failed', error: abortedPredictionError() };
    default:
      throw new ProviderError(`Replicate answered an unknown status ${JSON.stringify(prediction.status)}`, true, {
        kind: 'unavailable',
      });
  }
}

/** Replicate's predictions: create (held with `Prefer: wait` when asked), poll, cancel, signed webhooks. */
export function createReplicateProvider(settings: ReplicateSettings): Provider {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const usdPerSecond = (model: string) => settings.usdPerSecondByModel?.[model];
  const now = settings.now ?? Date.now;
  const headers = (json: boolean, extra: Record<string, string> = {}): Record<string, string> => ({
    authorization: `Bearer ${settings.token}`,
    accept: 'application/json',
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...extra,
  });

  /**
   * One call to Replicate: the JSON object of a 2xx answer, or the ProviderError the answer means.
   * A submit whose 2xx answer cannot be read may have created the prediction: `maybeAccepted`.
   */
  const call = async (url: string, init: RequestInit, submit = false): Promise<Record<string, unknown>> => {
    let response: Response;
    let text: string;
    try {
      response = await settings.fetch(url, init);
      text = await response.text();
    } catch (err) {
      throw noAnswerError('Replicate', err, init.signal);
    }
    if (!response.ok) throw replicateHttpError(response.status, response.headers, text);
    let body: Record<string, unknown> | undefined;
    try {
      body = asRecord(JSON.parse(text));
    } catch {
      body = undefined;
    }
    if (!body) {
      throw new ProviderError(
        `Replicate answered something that is not a JSON object (HTTP ${response.status})`,
        true,
        {
          kind: 'unavailable',
          vendorCode: String(response.status),
          maybeAccepted: submit,
        },
      );
    }
    return body;
  };

  const handleString = (handle: VendorHandle, name: string): string => {
    const value = handle[name];
    if (typeof value !== 'string' || value === '')
      throw new ProviderError(`The Replicate handle has no ${name}`, false);
    return value;
  };

  /** A URL of the prediction as Replicate gave it, when it is on Replicate's API (our token goes with it). */
  const ownUrl = (value: unknown, fallback: string): string => {
    if (typeof value !== 'string') return fallback;
    try {
      return new URL(value).origin === origin ? value : fallback;
    } catch {
      return fallback;
    }
  };

  const secrets: SigningSecretSource = settings.webhookSecret
    ? fixedSecret(settings.webhookSecret)
    : cachedSecret(async () => {
        const body = await call(`${base}/v1/webhooks/default/secret`, { headers: headers(false) });
        if (typeof body.key !== 'string' || body.key === '') throw new Error('Replicate answered no key');
        return body.key;
      }, now);

  const provider: Provider = {
    id: 'replicate',
    // Replicate takes no idempotency key: a submit whose outcome is unknown is not sent again.
    idempotentSubmit: false,

    /** Reads the account the token belongs to (`GET /v1/account`): nothing is run or paid. */
    check: () => checkByGet('Replicate', settings.fetch, `${base}/v1/account`, headers(false)),

    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const model = parseModelReference(request.endpoint);
      const webhook = request.webhookUrl
        ? { webhook: request.webhookUrl, webhook_events_filter: ['completed'] }
        : undefined;
      const hold = request.holdS && request.holdS > 0 ? Math.min(MAX_HOLD_S, Math.ceil(request.holdS)) : 0;
      const url = model.version
        ? `${base}/v1/predictions`
        : `${base}/v1/models/${encodeURIComponent(model.owner)}/${encodeURIComponent(model.name)}/predictions`;
      const payload = model.version
        ? { version: model.version, input: request.input, ...webhook }
        : { input: request.input, ...webhook };
      const prediction = await call(
        url,
        {
          method: 'POST',
          headers: headers(true, hold > 0 ? { prefer: `wait=${hold}` } : {}),
          body: JSON.stringify(payload),
          signal: request.signal,
        },
        true,
      );
      const id = prediction.id;
      if (typeof id !== 'string' || id === '') {
        throw new ProviderError('Replicate created the prediction without an id', true, {
          kind: 'unavailable',
          maybeAccepted: true,
        });
      }
      // A held submit may come back finished: its output saves a poll.
      if (prediction.status === 'succeeded') {
        const result = predictionResult(prediction, usdPerSecond);
        if (result.kind === 'done') return result;
      }
      const links = asRecord(prediction.urls);
      const getUrl = `${base}/v1/predictions/${encodeURIComponent(id)}`;
      return {
        kind: 'accepted',
        vendorRequestId: id,
        handle: {
          prediction_id: id,
          get_url: ownUrl(links?.get, getUrl),
          cancel_url: ownUrl(links?.cancel, `${getUrl}/cancel`),
        },
      };
    },

    async poll(handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> {
      let prediction: Record<string, unknown>;
      try {
        prediction = await call(handleString(handle, 'get_url'), { headers: headers(false), signal });
      } catch (err) {
        if (err instanceof WorkError && !err.retryable) return { kind: 'failed', error: err };
        throw err;
      }
      return predictionResult(prediction, usdPerSecond);
    },

    async cancel(handle: VendorHandle): Promise<CancelAnswer> {
      // Replicate answers with the prediction: one cancelled before it started (`started_at` still
      // null) or aborted never ran, and is not billed.
      const prediction = await call(handleString(handle, 'cancel_url'), {
        method: 'POST',
        headers: headers(false),
        signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
      });
      switch (prediction.status) {
        case 'succeeded':
        case 'failed':
          return 'finished';
        case 'aborted':
          return 'not_started';
        case 'starting':
        case 'canceled':
          return prediction.started_at === null ? 'not_started' : 'running';
        default:
          return 'running';
      }
    },

    async verifyWebhook(
      requestHeaders: Record<string, string | string[] | undefined>,
      rawBody: Buffer,
    ): Promise<WebhookEvent> {
      await verifyReplicateSignature(requestHeaders, rawBody, secrets, now());
      let prediction: Record<string, unknown> | undefined;
      try {
        prediction = asRecord(JSON.parse(rawBody.toString('utf8')));
      } catch {
        prediction = undefined;
      }
      if (!prediction || typeof prediction.id !== 'string' || prediction.id === '') {
        throw new WebhookRejectedError('The webhook body is not a Replicate prediction');
      }
      let result: PollResult;
      try {
        result = predictionResult(prediction, usdPerSecond);
      } catch (err) {
        // A status this adapter does not know yet: the poll it triggers will tell.
        if (!(err instanceof WorkError)) throw err;
        result = { kind: 'pending', pollAfterMs: 0 };
      }
      return { vendorRequestId: prediction.id, result };
    },
  };
  return provider;
}
