// Meshy's native API (api.meshy.ai): text to 3D is two tasks, a preview (geometry) and, for a
// textured model, a refine of it; image to 3D is one task. Submit starts the first task; the chain
// lives in `poll`, which starts the refine once the preview succeeded and answers the replacement
// handle (the engine records it before the next poll). A crash between the refine's POST and that
// record would start a second refine (paid again): so before POSTing one, poll looks in Meshy's task
// list for a refine of the same preview and reuses it.
//
// Handles: `{kind:'text', stage:'preview'|'refine', preview_task_id, refine_task_id, full, pbr,
// ai_model}` (full, pbr 0|1; refine_task_id null at the preview stage) or
// `{kind:'image', task_id, ai_model}`.
//
// Meshy has no cancel for these tasks (only DELETE, which removes a task's record): no `cancel`.
// Docs read: docs.meshy.ai/en/api/text-to-3d.md, /api/image-to-3d, /api/balance.md, /api/errors.

import { WorkError } from '../../lib/errors.ts';
import { asRecord } from '../../lib/records.ts';
import { checkByGet, noAnswerError, statusError } from '../http.ts';
import {
  type Fetch,
  type PollResult,
  type Provider,
  ProviderError,
  type ProviderOutput,
  type SubmitRequest,
  type SubmitResult,
  type VendorHandle,
} from '../types.ts';

/** Meshy's API, the default base URL. */
export const MESHY_BASE_URL = 'https://api.meshy.ai';

export interface MeshySettings {
  /** The API key (`msy_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** `https://api.meshy.ai`, or a fake's address in tests. */
  baseUrl: string;
  fetch: Fetch;
  /** What one Meshy credit costs in US dollars: a task's cost is its `consumed_credits` at it. */
  usdPerCredit?: number;
}

const TEXT_PATH = '/openapi/v2/text-to-3d';
const IMAGE_PATH = '/openapi/v1/image-to-3d';
// Tasks queue for a while and then take a minute or two.
const POLL_PENDING_MS = 5000;
const POLL_RUNNING_MS = 3000;
// The refine just POSTed is among the newest tasks; 50 is the largest page Meshy serves.
const LIST_PAGE_SIZE = 50;
const POLICY_WORDS = /moderat|safety|nsfw|inappropriate|violat|policy/i;

type Task = Record<string, unknown>;

function messageOf(text: string): string | undefined {
  try {
    const message = asRecord(JSON.parse(text))?.message;
    if (typeof message === 'string' && message !== '') return message;
  } catch {
    // not JSON: a proxy's page
  }
  return text.trim() === '' ? undefined : text.trim().slice(0, 200);
}

function handleString(handle: VendorHandle, name: string): string {
  const value = handle[name];
  if (typeof value !== 'string' || value === '') throw new ProviderError(`The Meshy handle has no ${name}`, false);
  return value;
}

/** A failed task's error: a moderation refusal is content_policy; anything else may pass on a retry. */
function failedTaskError(task: Task): ProviderError {
  const said = asRecord(task.task_error)?.message;
  const message = typeof said === 'string' && said !== '' ? said : 'no reason given';
  if (POLICY_WORDS.test(message)) {
    return new ProviderError(`Meshy refused the content: ${message}`, false, {
      kind: 'content_policy',
      vendorCode: 'FAILED',
    });
  }
  return new ProviderError(`Meshy failed the task: ${message}`, true, { kind: 'unavailable', vendorCode: 'FAILED' });
}

/** The credits a task says it used (`consumed_credits`), when it says. */
function consumedCredits(task: Task): number | undefined {
  const credits = task.consumed_credits;
  return typeof credits === 'number' && Number.isFinite(credits) && credits >= 0 ? credits : undefined;
}

/**
 * The GLB of a succeeded task, with the task's other assets in metadata; its cost is the credits
 * it used (and `earlierCredits`, those of the preview a refine followed) at `usdPerCredit`.
 */
function taskOutput(
  task: Task,
  ids: Record<string, string>,
  usdPerCredit: number | undefined,
  earlierCredits = 0,
): ProviderOutput {
  const glb = asRecord(task.model_urls)?.glb;
  if (typeof glb !== 'string' || glb === '') {
    throw new ProviderError('Meshy answered a succeeded task without a GLB', false, {
      kind: 'internal',
      vendorCode: 'SUCCEEDED',
    });
  }
  const metadata: Record<string, unknown> = { ...ids };
  for (const name of ['thumbnail_url', 'texture_urls', 'model_urls', 'consumed_credits'] as const) {
    if (task[name] !== undefined && task[name] !== null) metadata[name] = task[name];
  }
  const credits = consumedCredits(task);
  const output: ProviderOutput = {
    // Meshy's URLs expire (expires_at): the service copies the file at once.
    files: [{ url: glb, contentType: 'model/gltf-binary', fileName: 'model.glb' }],
    metadata,
  };
  if (credits !== undefined && usdPerCredit !== undefined) {
    output.vendorCost = (credits + earlierCredits) * usdPerCredit;
  }
  return output;
}

/** Meshy's text- and image-to-3D tasks: the preview→refine chain runs in `poll`. */
export function createMeshyProvider(settings: MeshySettings): Provider {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const headers = (json: boolean): Record<string, string> => ({
    authorization: `Bearer ${settings.apiKey}`,
    accept: 'application/json',
    ...(json ? { 'content-type': 'application/json' } : {}),
  });

  /** One call: the parsed JSON of a 2xx answer, or the ProviderError the answer means. */
  const call = async (path: string, init: RequestInit, create = false): Promise<unknown> => {
    let response: Response;
    let text: string;
    try {
      response = await settings.fetch(`${base}${path}`, init);
      text = await response.text();
    } catch (err) {
      throw noAnswerError('Meshy', err, init.signal);
    }
    if (!response.ok) {
      const said = messageOf(text);
      throw statusError({
        vendor: 'Meshy',
        status: response.status,
        headers: response.headers,
        said,
        policy: said !== undefined && POLICY_WORDS.test(said),
      });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderError(`Meshy answered something that is not JSON (HTTP ${response.status})`, true, {
        kind: 'unavailable',
        vendorCode: String(response.status),
        maybeAccepted: create,
      });
    }
  };

  /** Creates a task; its id. */
  const create = async (path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<string> => {
    const answer = asRecord(
      await call(path, { method: 'POST', headers: headers(true), body: JSON.stringify(body), signal }, true),
    );
    const id = answer?.result;
    if (typeof id !== 'string' || id === '') {
      throw new ProviderError('Meshy created the task without an id', true, {
        kind: 'unavailable',
        maybeAccepted: true,
      });
    }
    return id;
  };

  const read = async (path: string, signal?: AbortSignal): Promise<Task> => {
    const task = asRecord(await call(path, { headers: headers(false), signal }));
    if (!task) throw new ProviderError('Meshy answered a task that is not an object', true, { kind: 'unavailable' });
    return task;
  };

  /** A refine of `previewId` that already exists (its POST answered, but its handle was lost). */
  const existingRefine = async (previewId: string, signal?: AbortSignal): Promise<string | undefined> => {
    const query = `page_num=1&page_size=${LIST_PAGE_SIZE}&sort_by=-created_at`;
    const answer = await call(`${TEXT_PATH}?${query}`, { headers: headers(false), signal });
    // The list is an array of task objects (some wrappers nest it under `result`).
    const list = Array.isArray(answer) ? answer : asRecord(answer)?.result;
    if (!Array.isArray(list)) return undefined;
    for (const item of list) {
      const task = asRecord(item);
      if (!task || typeof task.id !== 'string') continue;
      const of = task.preview_task_id ?? task.preceding_task_id;
      if (of === previewId && task.id !== previewId && task.status !== 'FAILED' && task.status !== 'CANCELED') {
        return task.id;
      }
    }
    return undefined;
  };

  /**
   * Where a task stands, in the terms of a poll: `progress` maps the task's 0-100 into [from, from +
   * span] (a full text task's preview is its first half, the refine its second).
   */
  const taskResult = (task: Task, from: number, span: number): PollResult | 'succeeded' => {
    const percent = typeof task.progress === 'number' && Number.isFinite(task.progress) ? task.progress : 0;
    const progress = Math.min(1, from + (span * Math.max(0, Math.min(100, percent))) / 100);
    switch (task.status) {
      case 'PENDING': {
        const ahead = task.preceding_tasks;
        return typeof ahead === 'number' && Number.isFinite(ahead)
          ? { kind: 'pending', progress, queuePosition: ahead, pollAfterMs: POLL_PENDING_MS }
          : { kind: 'pending', progress, pollAfterMs: POLL_PENDING_MS };
      }
      case 'IN_PROGRESS':
        return { kind: 'pending', progress, pollAfterMs: POLL_RUNNING_MS };
      case 'SUCCEEDED':
        return 'succeeded';
      case 'FAILED':
        return { kind: 'failed', error: failedTaskError(task) };
      case 'CANCELED':
        return {
          kind: 'failed',
          error: new ProviderError('The Meshy task was canceled', false, { kind: 'canceled', vendorCode: 'CANCELED' }),
        };
      case 'EXPIRED':
        return {
          kind: 'failed',
          error: new ProviderError('The Meshy task expired before its result was read', true, {
            kind: 'unavailable',
            vendorCode: 'EXPIRED',
          }),
        };
      default:
        throw new ProviderError(`Meshy answered an unknown status ${JSON.stringify(task.status)}`, true, {
          kind: 'unavailable',
        });
    }
  };

  const done = (task: Task, ids: Record<string, string>, earlierCredits = 0): PollResult => {
    try {
      return { kind: 'done', output: taskOutput(task, ids, settings.usdPerCredit, earlierCredits) };
    } catch (err) {
      if (err instanceof WorkError) return { kind: 'failed', error: err };
      throw err;
    }
  };

  const pollText = async (handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> => {
    const previewId = handleString(handle, 'preview_task_id');
    const full = handle.full === 1;
    if (handle.stage === 'refine') {
      const refineId = handleString(handle, 'refine_task_id');
      const task = await read(`${TEXT_PATH}/${encodeURIComponent(refineId)}`, signal);
      const result = taskResult(task, 0.5, 0.5);
      // The preview's credits were paid too: its handle carried them to the refine.
      const previewCredits = typeof handle.preview_credits === 'number' ? handle.preview_credits : 0;
      return result === 'succeeded'
        ? done(task, { preview_task_id: previewId, refine_task_id: refineId }, previewCredits)
        : result;
    }
    const task = await read(`${TEXT_PATH}/${encodeURIComponent(previewId)}`, signal);
    const result = taskResult(task, 0, full ? 0.5 : 1);
    if (result !== 'succeeded') return result;
    if (!full) return done(task, { preview_task_id: previewId });
    const refineId =
      (await existingRefine(previewId, signal)) ??
      (await create(
        TEXT_PATH,
        {
          mode: 'refine',
          preview_task_id: previewId,
          enable_pbr: handle.pbr === 1,
          ...(typeof handle.ai_model === 'string' ? { ai_model: handle.ai_model } : {}),
        },
        signal,
      ));
    return {
      kind: 'pending',
      progress: 0.5,
      pollAfterMs: POLL_PENDING_MS,
      handle: { ...handle, stage: 'refine', refine_task_id: refineId, preview_credits: consumedCredits(task) ?? 0 },
    };
  };

  return {
    id: 'meshy',
    // Meshy takes no idempotency key: a submit whose outcome is unknown is not sent again.
    idempotentSubmit: false,

    /** Reads the account's credit balance (`GET /openapi/v1/balance`): nothing is run or paid. */
    check: () => checkByGet('Meshy', settings.fetch, `${base}/openapi/v1/balance`, headers(false)),

    /** Starts the preview (text) or the one task (image); the endpoint is Meshy's `ai_model`. */
    async submit(request: SubmitRequest): Promise<SubmitResult> {
      const aiModel = request.endpoint.trim();
      const model = aiModel === '' ? {} : { ai_model: aiModel };
      const input = request.input;
      if (typeof input.image_url === 'string') {
        const taskId = await create(IMAGE_PATH, { ...input, ...model }, request.signal);
        return {
          kind: 'accepted',
          vendorRequestId: taskId,
          handle: { kind: 'image', task_id: taskId, ai_model: aiModel || null },
        };
      }
      const { mode, enable_pbr: pbr, art_style: artStyle, ...preview } = input;
      // Meshy 6 (`latest`) has no art styles: its realistic default is said by sending none.
      const styled = aiModel === 'meshy-4' || aiModel === 'meshy-5';
      if (!styled && artStyle !== undefined && artStyle !== 'realistic') {
        throw new ProviderError(`Meshy's ${aiModel || 'latest'} model has no art style ${String(artStyle)}`, false, {
          kind: 'invalid_input',
        });
      }
      const style = styled && artStyle !== undefined ? { art_style: artStyle } : {};
      const previewId = await create(TEXT_PATH, { ...preview, ...style, mode: 'preview', ...model }, request.signal);
      return {
        kind: 'accepted',
        vendorRequestId: previewId,
        handle: {
          kind: 'text',
          stage: 'preview',
          preview_task_id: previewId,
          refine_task_id: null,
          full: mode === 'full' ? 1 : 0,
          pbr: pbr === true ? 1 : 0,
          ai_model: aiModel || null,
        },
      };
    },

    async poll(handle: VendorHandle, signal?: AbortSignal): Promise<PollResult> {
      try {
        if (handle.kind === 'image') {
          const taskId = handleString(handle, 'task_id');
          const task = await read(`${IMAGE_PATH}/${encodeURIComponent(taskId)}`, signal);
          const result = taskResult(task, 0, 1);
          return result === 'succeeded' ? done(task, { task_id: taskId }) : result;
        }
        return await pollText(handle, signal);
      } catch (err) {
        // What will not pass on a retry (credentials, credits, a refused refine) ends the item.
        if (err instanceof WorkError && !err.retryable) return { kind: 'failed', error: err };
        throw err;
      }
    },
  };
}
