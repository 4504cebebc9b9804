// A ComfyUI server of the operator's own (or a proxy in front of it): workflows are queued with
// POST /prompt, followed through GET /history/{id} and GET /queue, stopped with POST /queue
// {delete} or POST /interrupt, and their files read from /view. ComfyUI has no webhooks and no
// progress outside its websocket: polling finishes the work. Shapes as ComfyUI's server.py and
// execution.py (PromptQueue, PromptExecutor) give them. POST /prompt takes our prompt_id since
// July 2025 (ComfyUI #8189): an older server picks its own id, which then becomes the handle, but a
// submit sent again cannot find its first prompt there.

import { createHash, randomUUID } from 'node:crypto';
import { WorkError } from '../../lib/errors.ts';
import { contentTypeForFileName } from '../../lib/media-types.ts';
import { asRecord } from '../../lib/records.ts';
import { checkByGet, noAnswerError, statusError } from '../http.ts';
import {
  type CancelAnswer,
  type Fetch,
  type OutputFile,
  type PollResult,
  type Provider,
  ProviderError,
  type SubmitRequest,
  type SubmitResult,
  type VendorHandle,
} from '../types.ts';
import { fillWorkflow, type Workflow } from './workflows.ts';

/** What the ComfyUI adapter is given: where the server is, what to send it, and its workflows. */
export interface ComfySettings {
  /** The ComfyUI server, or the proxy in front of it (`http://gpu-1:8188`). */
  baseUrl: string;
  /** Sent on every call and with every result URL: a proxy's auth (COMFYUI_HEADERS). */
  headers: Record<string, string>;
  fetch: Fetch;
  /** Workflow templates by name: a route's endpoint names one. */
  workflows: Record<string, Workflow>;
  /** Fetches an input image under the service's outbound policy, to be uploaded to ComfyUI. */
  fetchInput: (url: string) => Promise<{ data: Buffer; contentType: string }>;
}

const VENDOR = 'ComfyUI';
// How soon to ask again while the prompt waits or runs.
const POLL_QUEUED_MS = 2000;
const POLL_RUNNING_MS = 1000;
const MAX_MESSAGE = 1000;

const IMAGE_EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const capped = (message: string) => (message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message);

/** One reason of a node's refusal; the list of files the server has is left out of what users see. */
function describeReason(value: unknown): string {
  const reason = asRecord(value);
  const message = text(reason?.message) ?? 'is invalid';
  const extra = asRecord(reason?.extra_info);
  if (reason?.type === 'value_not_in_list' && text(extra?.input_name)) {
    return `${message}: ${extra?.input_name} '${String(extra?.received_value)}'`;
  }
  const details = text(reason?.details);
  return details ? `${message}: ${details}` : message;
}

/**
 * A 400 of POST /prompt (`{error, node_errors}`): the input, naming each node and what it said;
 * but a workflow ComfyUI cannot run at all (a node class it lacks, no output node) is the
 * template's or the server's fault, which another route may not share.
 */
function refusal(body: Record<string, unknown>, workflow: Workflow | undefined): ProviderError {
  const error = asRecord(body.error);
  const type = text(error?.type);
  const nodes = Object.entries(asRecord(body.node_errors) ?? {}).map(([id, value]) => {
    const nodeError = asRecord(value);
    const title = workflow?.[id]?._meta?.title;
    const reasons = Array.isArray(nodeError?.errors) ? nodeError.errors.map(describeReason) : [];
    const what = text(nodeError?.class_type) ?? workflow?.[id]?.class_type ?? 'node';
    return `node ${id}${title ? ` "${title}"` : ''} (${what}): ${reasons.join('; ') || 'is invalid'}`;
  });
  const headline = text(error?.message) ?? 'the workflow is invalid';
  const details = nodes.length > 0 ? nodes.join('; ') : text(error?.details);
  const said = capped(`${headline}${details ? ` (${details})` : ''}`);
  if (type === 'invalid_prompt' || type === 'prompt_no_outputs' || type === 'no_prompt') {
    return new ProviderError(`${VENDOR} cannot run the workflow: ${said}`, false, {
      kind: 'internal',
      failover: true,
      vendorCode: type,
    });
  }
  return new ProviderError(`${VENDOR} refused the workflow: ${said}`, false, {
    kind: 'invalid_input',
    vendorCode: type ?? '400',
  });
}

/** The ProviderError of an answer that is not a success (a proxy's answers included). */
function comfyHttpError(status: number, headers: Headers, bodyText: string, workflow?: Workflow): ProviderError {
  const body = asRecord(parseJson(bodyText));
  const vendorCode = String(status);
  if (status === 400 && body && ('error' in body || 'node_errors' in body)) return refusal(body, workflow);
  if (status === 400 || status === 401 || status === 403 || status === 413 || status === 429 || status >= 500) {
    // A proxy before it may be the one refusing our credentials.
    return statusError({
      vendor: status === 401 || status === 403 ? `${VENDOR} (or the proxy before it)` : VENDOR,
      status,
      headers,
    });
  }
  // A 404 on our own routes: the address is not a ComfyUI server (or not a recent one).
  return new ProviderError(`${VENDOR} answered unexpectedly (HTTP ${status})`, false, {
    kind: 'internal',
    failover: true,
    vendorCode,
  });
}

/** The error of a failed prompt, from its `execution_error` message. */
function executionError(data: Record<string, unknown> | undefined): ProviderError {
  const type = text(data?.exception_type);
  const message = (text(data?.exception_message) ?? 'the prompt failed').trim();
  const node = text(data?.node_id);
  const where = node ? ` in node ${node}${text(data?.node_type) ? ` (${data?.node_type})` : ''}` : '';
  const said = capped(`${message}${where}`);
  // Out of memory is this GPU at this moment (ComfyUI unloads its models after one): try again.
  if (/OutOfMemory/i.test(type ?? '') || /out of memory|Allocation on device/i.test(message)) {
    return new ProviderError(`${VENDOR} ran out of GPU memory: ${said}`, true, {
      kind: 'unavailable',
      vendorCode: type,
    });
  }
  return new ProviderError(`${VENDOR} failed the prompt: ${said}`, false, { kind: 'internal', vendorCode: type });
}

/** A prompt id as ComfyUI keeps it. */
function promptIdOf(handle: VendorHandle): string {
  const id = handle.prompt_id;
  if (typeof id !== 'string' || id === '') throw new ProviderError('The ComfyUI handle has no prompt_id', false);
  return id;
}

/** Turns a failure of the service's input fetcher into the error of the submit. */
function inputError(err: unknown): ProviderError {
  if (err instanceof WorkError) return err;
  // The outbound fetcher says whether trying later may succeed; its refusals are the input's.
  const retryable = asRecord(err)?.retryable === true;
  const reason = err instanceof Error ? err.message : String(err);
  return new ProviderError(`The input image could not be fetched: ${reason}`, retryable, {
    kind: retryable ? 'unavailable' : 'invalid_input',
    failover: false,
  });
}

interface CallInit {
  method?: string;
  /** A JSON body. */
  json?: unknown;
  /** A multipart body (an upload). */
  body?: FormData;
  signal?: AbortSignal;
}

interface QueueEntry {
  number: number;
  id: string;
}

/** `[number, prompt_id, prompt, extra_data, outputs_to_execute]` entries, reduced to what we read. */
function queueEntries(value: unknown): QueueEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) =>
    Array.isArray(entry) && typeof entry[1] === 'string'
      ? [{ number: typeof entry[0] === 'number' ? entry[0] : Number.POSITIVE_INFINITY, id: entry[1] }]
      : [],
  );
}

/** ComfyUI on the operator's own GPUs: submit, poll and cancel of workflow templates. HTTP mapping only. */
export function createComfyProvider(settings: ComfySettings): Provider {
  const base = settings.baseUrl.replace(/\/+$/, '');
  // One client id per process: ComfyUI only uses it to address websocket messages, which we do not read.
  const clientId = `genmedia-${randomUUID()}`;
  const fileHeaders = Object.keys(settings.headers).length > 0 ? { ...settings.headers } : undefined;

  /** One call: the text of a 2xx answer, or the ProviderError the answer (or its absence) means. */
  const call = async (path: string, init: CallInit, workflow?: Workflow): Promise<string> => {
    let response: Response;
    let body: string;
    try {
      response = await settings.fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          ...settings.headers,
          accept: 'application/json',
          ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.json === undefined ? init.body : JSON.stringify(init.json),
        signal: init.signal,
      });
      body = await response.text();
    } catch (err) {
      throw noAnswerError(VENDOR, err, init.signal);
    }
    if (!response.ok) throw comfyHttpError(response.status, response.headers, body, workflow);
    return body;
  };

  const callJson = async (path: string, init: CallInit = {}, workflow?: Workflow): Promise<Record<string, unknown>> => {
    const body = asRecord(parseJson(await call(path, init, workflow)));
    if (!body) {
      const route = path.split('?')[0];
      throw new ProviderError(`${VENDOR} answered ${route} with something that is not JSON`, true, {
        kind: 'unavailable',
      });
    }
    return body;
  };

  const readHistory = async (id: string, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> =>
    asRecord((await callJson(`/history/${encodeURIComponent(id)}`, { signal }))[id]);

  /** What runs and what waits; the pending list comes as Python's heap array, so it is sorted here. */
  const readQueue = async (signal?: AbortSignal): Promise<{ running: QueueEntry[]; pending: QueueEntry[] }> => {
    const body = await callJson('/queue', { signal });
    const pending = queueEntries(body.queue_pending).sort((a, b) =>
      a.number !== b.number ? a.number - b.number : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    return { running: queueEntries(body.queue_running), pending };
  };

  const has = (entries: QueueEntry[], id: string) => entries.some((entry) => entry.id === id);

  /** The files of a finished prompt: what it saved (type `output`), else its previews. */
  const outputFiles = (outputs: unknown): OutputFile[] => {
    const saved: OutputFile[] = [];
    const previews: OutputFile[] = [];
    // Every list of `{filename, subfolder, type}` of every node: SaveImage's `images`; SaveVideo
    // puts its video under `images` too (with `animated: [true]`), custom nodes under `gifs`/`videos`.
    for (const nodeOutput of Object.values(asRecord(outputs) ?? {})) {
      for (const list of Object.values(asRecord(nodeOutput) ?? {})) {
        if (!Array.isArray(list)) continue;
        for (const item of list) {
          const file = asRecord(item);
          const filename = text(file?.filename);
          if (!file || !filename) continue;
          const type = text(file.type) ?? 'output';
          const query = new URLSearchParams({ filename, subfolder: text(file.subfolder) ?? '', type });
          (type === 'output' ? saved : previews).push({
            url: `${base}/view?${query}`,
            contentType: contentTypeForFileName(filename),
            fileName: filename,
            ...(fileHeaders ? { headers: fileHeaders } : {}),
          });
        }
      }
    }
    return saved.length > 0 ? saved : previews;
  };

  /** What a prompt in the history came to. */
  const finished = (id: string, entry: Record<string, unknown>): PollResult => {
    const status = asRecord(entry.status);
    const messages = Array.isArray(status?.messages) ? status.messages : [];
    const message = (event: string) => {
      const found = messages.find((m: unknown) => Array.isArray(m) && m[0] === event) as unknown[] | undefined;
      return found ? (asRecord(found[1]) ?? {}) : undefined;
    };
    if (message('execution_interrupted')) {
      return {
        kind: 'failed',
        error: new ProviderError(`The ${VENDOR} prompt was interrupted`, false, { kind: 'canceled' }),
      };
    }
    const failure = message('execution_error');
    if (failure || status?.status_str === 'error') return { kind: 'failed', error: executionError(failure) };
    const files = outputFiles(entry.outputs);
    if (files.length === 0) {
      return {
        kind: 'failed',
        error: new ProviderError(
          `${VENDOR} finished the prompt without saving a file: the workflow needs a SaveImage or SaveVideo node`,
          false,
          { kind: 'internal', failover: true },
        ),
      };
    }
    const started = message('execution_start')?.timestamp;
    const ended = message('execution_success')?.timestamp;
    const metadata: Record<string, unknown> = { prompt_id: id };
    if (typeof started === 'number' && typeof ended === 'number') metadata.duration_ms = ended - started;
    return { kind: 'done', output: { files, metadata } };
  };

  /** Uploads an input image to ComfyUI's input folder: the name LoadImage reads it by. */
  const upload = async (url: string, signal?: AbortSignal): Promise<string> => {
    let input: { data: Buffer; contentType: string };
    try {
      input = await settings.fetchInput(url);
    } catch (err) {
      throw inputError(err);
    }
    const type = (input.contentType.split(';')[0] ?? '').trim().toLowerCase();
    if (!type.startsWith('image/')) {
      throw new ProviderError(`The input image is not an image (${type || 'no content type'})`, false, {
        kind: 'invalid_input',
      });
    }
    // Named by content, with overwrite: a submit sent again replaces its file instead of adding copies.
    const digest = createHash('sha256').update(input.data).digest('hex').slice(0, 32);
    const subtype = type.slice('image/'.length);
    const extension = IMAGE_EXTENSIONS[type] ?? (/^[a-z0-9]{1,8}$/.test(subtype) ? subtype : 'png');
    const name = `genmedia-${digest}.${extension}`;
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(input.data)], { type }), name);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const body = await callJson('/upload/image', { method: 'POST', body: form, signal });
    const saved = text(body.name) ?? name;
    const subfolder = text(body.subfolder);
    return subfolder ? `${subfolder}/${saved}` : saved;
  };

  const accepted = (id: string): SubmitResult => ({ kind: 'accepted', vendorRequestId: id, handle: { prompt_id: id } });

  const provider: Provider = {
    id: 'comfyui',
    idempotentSubmit: true,

    /** Reads the server's queue: it answers (through its proxy) or not. */
    check: () =>
      checkByGet(VENDOR, settings.fetch, `${base}/queue`, { ...settings.headers, accept: 'application/json' }),

    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const workflow = settings.workflows[request.endpoint];
      if (!workflow) {
        const known = Object.keys(settings.workflows).join(', ') || 'none';
        throw new ProviderError(`${VENDOR} has no workflow named ${request.endpoint} (known: ${known})`, false, {
          kind: 'internal',
          failover: true,
        });
      }
      const id = request.idempotencyKey;
      const signal = request.signal;
      // ComfyUI queues a prompt_id it already has a second time, so a submit sent again must look
      // first. The queue is read before the history: a prompt only moves from one to the other,
      // so in this order it cannot slip between the two reads unseen.
      const queue = await readQueue(signal);
      if (has(queue.running, id) || has(queue.pending, id)) return accepted(id);
      if (await readHistory(id, signal)) return accepted(id);

      const values: Record<string, unknown> = { ...request.input };
      // Refused here, before anything is uploaded, when the values do not fit the workflow.
      fillWorkflow(request.endpoint, workflow, values);
      if (typeof values.image === 'string') values.image = await upload(values.image, signal);
      const prompt = fillWorkflow(request.endpoint, workflow, values);
      const body = await callJson(
        '/prompt',
        { method: 'POST', json: { prompt, client_id: clientId, prompt_id: id }, signal },
        prompt,
      );
      return accepted(text(body.prompt_id) ?? id);
    },

    async poll(handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> {
      try {
        const id = promptIdOf(handle);
        const entry = await readHistory(id, signal);
        if (entry) return finished(id, entry);
        const queue = await readQueue(signal);
        // Progress of a running prompt is only told over the websocket: none here.
        if (has(queue.running, id)) return { kind: 'pending', pollAfterMs: POLL_RUNNING_MS };
        const position = queue.pending.findIndex((e) => e.id === id);
        if (position >= 0)
          return { kind: 'pending', progress: 0, queuePosition: position, pollAfterMs: POLL_QUEUED_MS };
        // It may have finished between the two reads.
        const late = await readHistory(id, signal);
        if (late) return finished(id, late);
        return {
          kind: 'failed',
          error: new ProviderError(
            `${VENDOR} no longer knows the prompt ${id} (the server restarted, or its history was cleared)`,
            true,
            { kind: 'unavailable' },
          ),
        };
      } catch (err) {
        if (err instanceof WorkError && !err.retryable) return { kind: 'failed', error: err };
        throw err;
      }
    },

    async cancel(handle: VendorHandle): Promise<CancelAnswer> {
      const id = promptIdOf(handle);
      let queue = await readQueue();
      if (has(queue.pending, id)) {
        await call('/queue', { method: 'POST', json: { delete: [id] } });
        // It may have started meanwhile, and then it is interrupted.
        queue = await readQueue();
      }
      // Only when it runs: an older ComfyUI ignores the prompt_id and would stop whatever runs.
      if (has(queue.running, id)) {
        await call('/interrupt', { method: 'POST', json: { prompt_id: id } });
        return 'running';
      }
      // Neither waiting nor running: nothing runs on for it (a prompt that had ended is dropped;
      // a self-hosted server charges nothing for it).
      return 'not_started';
    },
  };
  return provider;
}
