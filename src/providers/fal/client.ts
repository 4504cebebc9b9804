import { WorkError } from '../../lib/errors.ts';
import { asRecord } from '../../lib/records.ts';
import { dataUrlFile, noAnswerError } from '../http.ts';
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
} from '../types.ts';
import { describeDetail, falHttpError } from './errors.ts';
import { type JwksSource, verifyFalSignature } from './webhook.ts';

export interface FalSettings {
  key: string;
  /** `https://queue.fal.run`, or a fake's address in tests. */
  queueUrl: string;
  /** Sent as `x-fal-request-timeout`: fal stops a job that runs longer (seconds). */
  requestTimeoutS?: number;
  fetch: Fetch;
  /** Where fal's webhook signing keys are published (a cached source). */
  jwks: JwksSource;
  now?: () => number;
}

// How soon to ask again while fal says the job waits or runs.
const POLL_QUEUED_MS = 2000;
const POLL_RUNNING_MS = 1000;
// The longest a cancel waits for fal (a team's cancel request waits for it).
const CANCEL_TIMEOUT_MS = 10_000;

/**
 * The app part of an endpoint id, which status, result and cancel URLs are built on: `owner/app`,
 * or three segments under `workflows/` and `comfy/` (a subpath such as `/edit` is dropped).
 */
export function falAppId(endpoint: string): string {
  const parts = endpoint.split('/').filter((p) => p !== '');
  const keep = parts[0] === 'workflows' || parts[0] === 'comfy' ? 3 : 2;
  return parts.slice(0, keep).join('/');
}

function fileOf(value: unknown): OutputFile | undefined {
  const file = asRecord(value);
  if (!file || typeof file.url !== 'string') return undefined;
  // With sync_mode fal puts the file itself in the answer.
  const inline = dataUrlFile(file.url);
  if (inline) return inline;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  return {
    url: file.url,
    contentType: typeof file.content_type === 'string' ? file.content_type : undefined,
    fileName: typeof file.file_name === 'string' ? file.file_name : undefined,
    size: num(file.file_size),
    width: num(file.width),
    height: num(file.height),
  };
}

/**
 * The files of a fal output, in order: every top-level field that is a File (`{url, …}`) or a
 * list of them (`images`, `video`, `audio`, `model_mesh`, …); the rest is metadata.
 */
export function falOutput(payload: unknown): ProviderOutput {
  const record = asRecord(payload);
  if (!record) throw new ProviderError('fal.ai answered a result that is not a JSON object', true);
  const files: OutputFile[] = [];
  const metadata: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    const list = Array.isArray(value) ? value.map(fileOf) : [fileOf(value)];
    if (list.length > 0 && list.every((f) => f !== undefined)) files.push(...(list as OutputFile[]));
    else metadata[name] = value;
  }
  if (files.length === 0) throw new ProviderError('fal.ai answered a result with no file in it', false);
  return { files, metadata };
}

/** The fal.ai queue: submit, poll, cancel, and its signed webhooks. HTTP mapping only. */
export function createFalProvider(settings: FalSettings): Provider {
  const base = settings.queueUrl.replace(/\/+$/, '');
  const headers = (json: boolean): Record<string, string> => ({
    authorization: `Key ${settings.key}`,
    accept: 'application/json',
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(settings.requestTimeoutS ? { 'x-fal-request-timeout': String(settings.requestTimeoutS) } : {}),
  });

  /** One call to fal: the JSON of a 2xx answer, or the ProviderError the answer means. */
  const call = async (url: string, init: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> => {
    let response: Response;
    try {
      response = await settings.fetch(url, init);
    } catch (err) {
      throw noAnswerError('fal.ai', err, init.signal);
    }
    const text = await response.text();
    if (!response.ok) throw falHttpError(response.status, response.headers, text);
    let body: Record<string, unknown> | undefined;
    try {
      body = asRecord(JSON.parse(text));
    } catch {
      body = undefined;
    }
    if (!body) {
      throw new ProviderError(`fal.ai answered something that is not a JSON object (HTTP ${response.status})`, true, {
        kind: 'unavailable',
        vendorCode: String(response.status),
      });
    }
    return { status: response.status, body };
  };

  const handleString = (handle: VendorHandle, name: string): string => {
    const value = handle[name];
    if (typeof value !== 'string' || value === '') throw new ProviderError(`The fal.ai handle has no ${name}`, false);
    return value;
  };

  /** What a finished job (its status said COMPLETED, or its webhook said OK) gave. */
  const fetchResult = async (handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> => {
    try {
      const { body } = await call(handleString(handle, 'response_url'), { headers: headers(false), signal });
      return { kind: 'done', output: falOutput(body) };
    } catch (err) {
      if (err instanceof WorkError) return { kind: 'failed', error: err };
      throw err;
    }
  };

  const provider: Provider = {
    id: 'fal',

    /** fal's queue has no call that proves a key without running work. */
    check: async () => ({ reachable: null, detail: 'fal.ai has no harmless call that proves a key' }),

    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const endpoint = request.endpoint.replace(/^\/+|\/+$/g, '');
      const query = request.webhookUrl ? `?fal_webhook=${encodeURIComponent(request.webhookUrl)}` : '';
      const { body } = await call(`${base}/${endpoint}${query}`, {
        method: 'POST',
        headers: headers(true),
        body: JSON.stringify(request.input),
        signal: request.signal,
      });
      const requestId = body.request_id;
      if (typeof requestId !== 'string' || requestId === '') {
        throw new ProviderError('fal.ai accepted the job without a request_id', true, { kind: 'unavailable' });
      }
      // Use the URLs fal returns; build them only when it leaves one out.
      const app = `${base}/${falAppId(endpoint)}/requests/${encodeURIComponent(requestId)}`;
      const url = (name: string, fallback: string) =>
        typeof body[name] === 'string' ? (body[name] as string) : fallback;
      return {
        kind: 'accepted',
        vendorRequestId: requestId,
        handle: {
          endpoint,
          request_id: requestId,
          status_url: url('status_url', `${app}/status`),
          response_url: url('response_url', app),
          cancel_url: url('cancel_url', `${app}/cancel`),
        },
      };
    },

    async poll(handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> {
      let body: Record<string, unknown>;
      try {
        ({ body } = await call(handleString(handle, 'status_url'), { headers: headers(false), signal }));
      } catch (err) {
        if (err instanceof WorkError && !err.retryable) return { kind: 'failed', error: err };
        throw err;
      }
      switch (body.status) {
        case 'IN_QUEUE': {
          const position = typeof body.queue_position === 'number' ? body.queue_position : undefined;
          return { kind: 'pending', progress: 0, queuePosition: position, pollAfterMs: POLL_QUEUED_MS };
        }
        case 'IN_PROGRESS':
          return { kind: 'pending', pollAfterMs: POLL_RUNNING_MS };
        case 'COMPLETED': {
          const completed =
            typeof body.response_url === 'string' ? { ...handle, response_url: body.response_url } : handle;
          // A job that failed may still say COMPLETED, with its error beside it.
          if (body.error !== undefined && body.error !== null) {
            const errorType = typeof body.error_type === 'string' ? body.error_type : undefined;
            const reported = completedWithError(String(body.error), errorType);
            if (reported.kind !== 'unavailable') return { kind: 'failed', error: reported };
            // The status says only that it failed; the result says why. A final answer there (a 422
            // with a validation detail: the input) is the caller's, not fal's infrastructure.
            const result = await fetchResult(completed, signal);
            return result.kind === 'failed' && !result.error.retryable ? result : { kind: 'failed', error: reported };
          }
          return fetchResult(completed, signal);
        }
        default:
          throw new ProviderError(`fal.ai answered an unknown status ${JSON.stringify(body.status)}`, true, {
            kind: 'unavailable',
          });
      }
    },

    async cancel(handle: VendorHandle): Promise<CancelAnswer> {
      // fal answers a cancel alike whether the job waited in its queue (removed, never run) or ran
      // (a signal to its runner): the status read just before tells which. A job that starts in
      // between is taken for one that had not.
      const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
      const { body: status } = await call(handleString(handle, 'status_url'), { headers: headers(false), signal });
      if (status.status === 'COMPLETED') return 'finished';
      let response: Response;
      try {
        response = await settings.fetch(handleString(handle, 'cancel_url'), {
          method: 'PUT',
          headers: headers(false),
          signal,
        });
      } catch (err) {
        throw noAnswerError('fal.ai', err, signal);
      }
      const text = await response.text();
      if (response.ok) return status.status === 'IN_QUEUE' ? 'not_started' : 'running';
      let said: unknown;
      try {
        said = asRecord(JSON.parse(text))?.status;
      } catch {
        said = undefined;
      }
      if (said === 'ALREADY_COMPLETED') return 'finished';
      throw falHttpError(response.status, response.headers, text);
    },

    async verifyWebhook(
      requestHeaders: Record<string, string | string[] | undefined>,
      rawBody: Buffer,
    ): Promise<WebhookEvent> {
      const requestId = await verifyFalSignature(
        requestHeaders,
        rawBody,
        settings.jwks,
        settings.now?.() ?? Date.now(),
      );
      const body = asRecord(parseBody(rawBody));
      const vendorRequestId = typeof body?.request_id === 'string' ? body.request_id : requestId;
      if (!body) return { vendorRequestId, result: { kind: 'pending', pollAfterMs: 0 } };
      if (body.status === 'ERROR') {
        const detail = describeDetail(asRecord(body.payload)?.detail);
        const error = typeof body.error === 'string' ? body.error : 'the job failed';
        return {
          vendorRequestId,
          result: {
            kind: 'failed',
            error: detail
              ? new ProviderError(`fal.ai refused the input: ${detail}`, false, { kind: 'invalid_input' })
              : completedWithError(error, undefined),
          },
        };
      }
      // `payload` may be null (with `payload_error`) when fal could not include it: fetch it.
      if (body.payload === null || body.payload === undefined) {
        return { vendorRequestId, result: { kind: 'pending', pollAfterMs: 0 } };
      }
      try {
        return { vendorRequestId, result: { kind: 'done', output: falOutput(body.payload) } };
      } catch (err) {
        if (err instanceof WorkError) return { vendorRequestId, result: { kind: 'failed', error: err } };
        throw err;
      }
    },
  };
  return provider;
}

function parseBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A job that ended in an error on fal's side: retryable unless fal says it was the input or a timeout we set. */
function completedWithError(message: string, errorType: string | undefined): ProviderError {
  if (errorType === 'content_policy_violation') {
    return new ProviderError(`fal.ai refused the content: ${message}`, false, {
      kind: 'content_policy',
      vendorCode: errorType,
    });
  }
  if (errorType === 'request_timeout') {
    return new ProviderError(`fal.ai timed out: ${message}`, true, { kind: 'timeout', vendorCode: errorType });
  }
  return new ProviderError(`fal.ai failed the job: ${message}`, true, { kind: 'unavailable', vendorCode: errorType });
}
