// A fake ComfyUI server on 127.0.0.1, built from ComfyUI's public API shapes (server.py and
// execution.py): POST /prompt validates the graph as ComfyUI does (unknown node classes, missing
// inputs, a lora_name not in models/loras, a LoadImage file not uploaded: `{error, node_errors}`
// 400s) and queues `[number, prompt_id, prompt, extra_data, outputs_to_execute]` entries in a
// heap (GET /queue lists `queue_pending` in heap order, as ComfyUI does, not in run order);
// GET /history/{id} answers `{}` or `{id: {prompt, outputs, status: {status_str, completed,
// messages: [[event, data], ...]}, meta}}`; POST /queue {delete}, POST /interrupt {prompt_id},
// POST /upload/image (multipart `image`, `overwrite`, `type`, `subfolder`) and GET /view.
// Prompts wait until the test runs them: `run()` takes the next as ComfyUI's worker does,
// `finish(id)` ends one (by its tags), `restart()` forgets everything. Tags in any text input pick
// behaviours: [comfy:error] (an execution error), [comfy:oom] (out of GPU memory), [comfy:500]
// (the submit answers 500), [comfy:cut] (the prompt is queued, then the connection is cut with no
// answer). With `requireHeader`, every call without it is answered 401, as a proxy would.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** A core node class as ComfyUI declares it: input types (a list is a combo's options), output types. */
export interface CoreNode {
  required: Record<string, string | readonly string[]>;
  optional?: Record<string, string | readonly string[]>;
  outputs: readonly string[];
  /** OUTPUT_NODE: what a prompt runs for. */
  output?: boolean;
}

const UPSCALE = ['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos'] as const;
const SAMPLERS = [
  'euler',
  'euler_ancestral',
  'heun',
  'dpm_2',
  'dpmpp_2m',
  'dpmpp_2m_sde',
  'dpmpp_sde',
  'lcm',
  'uni_pc',
];
const SCHEDULERS = ['simple', 'sgm_uniform', 'karras', 'exponential', 'ddim_uniform', 'beta', 'normal'];

/**
 * The core nodes the templates use, as nodes.py and comfy_extras/ (nodes_primitive.py,
 * nodes_wan.py, nodes_video.py, nodes_model_advanced.py, nodes_post_processing.py) declare them.
 * `FILE` is a combo of the files of a models folder; sampler and scheduler lists are abridged.
 */
export const CORE_NODES: Record<string, CoreNode> = {
  CheckpointLoaderSimple: { required: { ckpt_name: 'FILE' }, outputs: ['MODEL', 'CLIP', 'VAE'] },
  UNETLoader: {
    required: { unet_name: 'FILE', weight_dtype: ['default', 'fp8_e4m3fn', 'fp8_e4m3fn_fast', 'fp8_e5m2'] },
    outputs: ['MODEL'],
  },
  CLIPLoader: {
    required: { clip_name: 'FILE', type: ['stable_diffusion', 'sd3', 'ltxv', 'wan', 'hidream', 'qwen_image'] },
    optional: { device: ['default', 'cpu'] },
    outputs: ['CLIP'],
  },
  VAELoader: { required: { vae_name: 'FILE' }, outputs: ['VAE'] },
  LoraLoader: {
    required: { model: 'MODEL', clip: 'CLIP', lora_name: 'FILE', strength_model: 'FLOAT', strength_clip: 'FLOAT' },
    outputs: ['MODEL', 'CLIP'],
  },
  LoraLoaderModelOnly: { required: { model: 'MODEL', lora_name: 'FILE', strength_model: 'FLOAT' }, outputs: ['MODEL'] },
  ModelSamplingSD3: { required: { model: 'MODEL', shift: 'FLOAT' }, outputs: ['MODEL'] },
  CLIPTextEncode: { required: { text: 'STRING', clip: 'CLIP' }, outputs: ['CONDITIONING'] },
  EmptyLatentImage: { required: { width: 'INT', height: 'INT', batch_size: 'INT' }, outputs: ['LATENT'] },
  PrimitiveInt: { required: { value: 'INT' }, outputs: ['INT'] },
  KSampler: {
    required: {
      model: 'MODEL',
      seed: 'INT',
      steps: 'INT',
      cfg: 'FLOAT',
      sampler_name: SAMPLERS,
      scheduler: SCHEDULERS,
      positive: 'CONDITIONING',
      negative: 'CONDITIONING',
      latent_image: 'LATENT',
      denoise: 'FLOAT',
    },
    outputs: ['LATENT'],
  },
  VAEDecode: { required: { samples: 'LATENT', vae: 'VAE' }, outputs: ['IMAGE'] },
  VAEEncode: { required: { pixels: 'IMAGE', vae: 'VAE' }, outputs: ['LATENT'] },
  LoadImage: { required: { image: 'INPUT_FILE' }, outputs: ['IMAGE', 'MASK'] },
  ImageScale: {
    required: { image: 'IMAGE', upscale_method: UPSCALE, width: 'INT', height: 'INT', crop: ['disabled', 'center'] },
    outputs: ['IMAGE'],
  },
  ImageScaleToTotalPixels: {
    required: { image: 'IMAGE', upscale_method: UPSCALE, megapixels: 'FLOAT' },
    outputs: ['IMAGE'],
  },
  SaveImage: { required: { images: 'IMAGE', filename_prefix: 'STRING' }, outputs: [], output: true },
  Wan22ImageToVideoLatent: {
    required: { vae: 'VAE', width: 'INT', height: 'INT', length: 'INT', batch_size: 'INT' },
    optional: { start_image: 'IMAGE' },
    outputs: ['LATENT'],
  },
  CreateVideo: { required: { images: 'IMAGE', fps: 'FLOAT' }, optional: { audio: 'AUDIO' }, outputs: ['VIDEO'] },
  SaveVideo: {
    required: { video: 'VIDEO', filename_prefix: 'STRING', format: ['auto', 'mp4'], codec: ['auto', 'h264'] },
    outputs: [],
    output: true,
  },
};

export interface FakeNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: { title?: string };
}

export interface FakeComfySubmission {
  promptId: string;
  clientId: unknown;
  prompt: Record<string, FakeNode>;
  headers: IncomingMessage['headers'];
}

export interface FakeComfyUpload {
  filename: string;
  data: Buffer;
  contentType: string;
  overwrite: string | null;
  type: string;
  headers: IncomingMessage['headers'];
}

export interface FakeComfyRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

export interface FakeComfyOptions {
  /** A header every call must carry (a proxy's auth), or 401. */
  requireHeader?: { name: string; value: string };
  /** The files of models/loras. */
  loras?: string[];
}

export interface FakeComfy {
  url: string;
  /** Every prompt POST /prompt accepted or refused, in order. */
  submissions: FakeComfySubmission[];
  uploads: FakeComfyUpload[];
  requests: FakeComfyRequest[];
  /** Prompt ids POST /queue {delete} removed. */
  deletes: string[];
  /** The bodies of POST /interrupt. */
  interrupts: Record<string, unknown>[];
  /** Starts a pending prompt: the given one, or the next as ComfyUI's worker takes it (heap order). */
  run(id?: string): string | undefined;
  /** Ends a running (or pending) prompt: into the history, by its tags. */
  finish(id: string): void;
  /** Whether ComfyUI has the prompt queued, running or in its history. */
  state(id: string): 'pending' | 'running' | 'history' | undefined;
  /** Forgets the queue and the history, as a restarted server does. */
  restart(): void;
  close(): Promise<void>;
}

type Refusal = [status: number, body: Record<string, unknown>];

interface Entry {
  number: number;
  id: string;
  prompt: Record<string, FakeNode>;
  extra: Record<string, unknown>;
  outputs: string[];
}

const queueItem = (e: Entry) => [e.number, e.id, e.prompt, e.extra, e.outputs];

// Python's heapq over `(number, prompt_id, ...)` tuples.
const before = (a: Entry, b: Entry) => a.number < b.number || (a.number === b.number && a.id < b.id);

function siftDown(heap: Entry[], from: number): void {
  for (let i = from; ; ) {
    const left = 2 * i + 1;
    const right = left + 1;
    let least = i;
    const at = (k: number) => heap[k] as Entry;
    if (left < heap.length && before(at(left), at(least))) least = left;
    if (right < heap.length && before(at(right), at(least))) least = right;
    if (least === i) return;
    [heap[i], heap[least]] = [at(least), at(i)];
    i = least;
  }
}

function heapPush(heap: Entry[], entry: Entry): void {
  heap.push(entry);
  for (let i = heap.length - 1; i > 0; ) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i] as Entry, heap[parent] as Entry)) break;
    [heap[i], heap[parent]] = [heap[parent] as Entry, heap[i] as Entry];
    i = parent;
  }
}

function heapPop(heap: Entry[]): Entry | undefined {
  const last = heap.pop();
  if (!last || heap.length === 0) return last;
  const top = heap[0];
  heap[0] = last;
  siftDown(heap, 0);
  return top;
}

function heapRemove(heap: Entry[], id: string): Entry | undefined {
  const at = heap.findIndex((e) => e.id === id);
  if (at < 0) return undefined;
  const [removed] = heap.splice(at, 1);
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
  return removed;
}

function tagsOf(prompt: Record<string, FakeNode>): Set<string> {
  const tags = new Set<string>();
  for (const node of Object.values(prompt)) {
    for (const value of Object.values(node.inputs ?? {})) {
      if (typeof value !== 'string') continue;
      for (const match of value.matchAll(/\[comfy:([a-z0-9-]+)\]/g)) if (match[1]) tags.add(match[1]);
    }
  }
  return tags;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

const CONTENT_TYPES: Record<string, string> = { png: 'image/png', mp4: 'video/mp4', webp: 'image/webp' };

/** Starts the fake. */
export async function startFakeComfy(options: FakeComfyOptions = {}): Promise<FakeComfy> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc6633' } })
    .png()
    .toBuffer();
  const loras = options.loras ?? [];
  const submissions: FakeComfySubmission[] = [];
  const uploads: FakeComfyUpload[] = [];
  const requests: FakeComfyRequest[] = [];
  const deletes: string[] = [];
  const interrupts: Record<string, unknown>[] = [];
  let pending: Entry[] = [];
  const running = new Map<string, Entry>();
  const history = new Map<string, Record<string, unknown>>();
  /** Files by `type/subfolder/filename`. */
  const files = new Map<string, { data: Buffer; contentType: string }>();
  let number = 0;
  let counter = 0;
  const fileKey = (type: string, subfolder: string, filename: string) => `${type}/${subfolder}/${filename}`;

  const stamp = () => Date.now();
  const started = (e: Entry) => [
    ['execution_start', { prompt_id: e.id, timestamp: stamp() }],
    ['execution_cached', { nodes: [], prompt_id: e.id, timestamp: stamp() }],
  ];
  const toHistory = (e: Entry, outputs: Record<string, unknown>, ok: boolean, messages: unknown[]) => {
    running.delete(e.id);
    history.set(e.id, {
      prompt: queueItem(e),
      outputs,
      status: { status_str: ok ? 'success' : 'error', completed: ok, messages },
      meta: Object.fromEntries(
        Object.keys(outputs).map((id) => [id, { node_id: id, display_node: id, parent_node: null, real_node_id: id }]),
      ),
    });
  };
  const nodeOfClass = (e: Entry, classType: string) =>
    Object.entries(e.prompt).find(([, node]) => node.class_type === classType);

  /** Saves what an output node would: `prefix` split as ComfyUI's get_save_image_path does. */
  const save = (prefix: string, extension: string, data: Buffer) => {
    counter += 1;
    const slash = prefix.lastIndexOf('/');
    const subfolder = slash >= 0 ? prefix.slice(0, slash) : '';
    const filename = `${prefix.slice(slash + 1)}_${String(counter).padStart(5, '0')}_.${extension}`;
    files.set(fileKey('output', subfolder, filename), { data, contentType: CONTENT_TYPES[extension] ?? '' });
    return { filename, subfolder, type: 'output' };
  };

  const finish = (id: string) => {
    const e = running.get(id) ?? heapRemove(pending, id);
    if (!e) return;
    const tags = tagsOf(e.prompt);
    const sampler = nodeOfClass(e, 'KSampler');
    if (tags.has('error') || tags.has('oom')) {
      const oom = tags.has('oom');
      toHistory(e, {}, false, [
        ...started(e),
        [
          'execution_error',
          {
            prompt_id: e.id,
            node_id: sampler?.[0] ?? '1',
            node_type: 'KSampler',
            executed: [],
            exception_message: oom
              ? 'Allocation on device \nThis error means you ran out of memory on your GPU.\n\nTIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.'
              : 'mat1 and mat2 shapes cannot be multiplied (154x2048 and 768x320)',
            exception_type: oom ? 'torch.OutOfMemoryError' : 'RuntimeError',
            traceback: ['  File "execution.py", line 496, in execute\n'],
            current_inputs: {},
            current_outputs: [],
            timestamp: stamp(),
          },
        ],
      ]);
      return;
    }
    const outputs: Record<string, unknown> = {};
    for (const [nodeId, node] of Object.entries(e.prompt)) {
      const prefix = String(node.inputs.filename_prefix ?? 'ComfyUI');
      if (node.class_type === 'SaveImage') outputs[nodeId] = { images: [save(prefix, 'png', png)] };
      if (node.class_type === 'SaveVideo') {
        // SaveVideo's ui is PreviewVideo: the video under `images`, with `animated`.
        outputs[nodeId] = { images: [save(prefix, 'mp4', Buffer.from('fake mp4 video'))], animated: [true] };
      }
    }
    toHistory(e, outputs, true, [...started(e), ['execution_success', { prompt_id: e.id, timestamp: stamp() }]]);
  };

  const interrupt = (e: Entry) => {
    const sampler = nodeOfClass(e, 'KSampler');
    toHistory(e, {}, false, [
      ...started(e),
      [
        'execution_interrupted',
        {
          prompt_id: e.id,
          node_id: sampler?.[0] ?? '1',
          node_type: 'KSampler',
          executed: [],
          timestamp: stamp(),
        },
      ],
    ]);
  };

  /** ComfyUI's validate_prompt, for the classes of CORE_NODES: `[status, body]` of a refusal. */
  const validate = (prompt: Record<string, FakeNode>): Refusal | undefined => {
    const invalid = (message: string, details: string): Refusal => [
      400,
      { error: { type: 'invalid_prompt', message, details, extra_info: {} }, node_errors: {} },
    ];
    const outputs: string[] = [];
    for (const [id, node] of Object.entries(prompt)) {
      if (typeof node?.class_type !== 'string') {
        return invalid('Cannot execute because a node is missing the class_type property.', `Node ID '#${id}'`);
      }
      const core = CORE_NODES[node.class_type];
      if (!core) {
        return invalid(`Cannot execute because node ${node.class_type} does not exist.`, `Node ID '#${id}'`);
      }
      if (core.output) outputs.push(id);
    }
    if (outputs.length === 0) {
      return [
        400,
        {
          error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
          node_errors: {},
        },
      ];
    }
    const nodeErrors: Record<string, unknown> = {};
    const lines: string[] = [];
    for (const [id, node] of Object.entries(prompt)) {
      const core = CORE_NODES[node.class_type] as CoreNode;
      const errors: Record<string, unknown>[] = [];
      for (const input of Object.keys(core.required)) {
        if (!(input in node.inputs)) {
          errors.push({
            type: 'required_input_missing',
            message: 'Required input is missing',
            details: input,
            extra_info: { input_name: input },
          });
        }
      }
      const lora = node.inputs.lora_name;
      if (typeof lora === 'string' && !loras.includes(lora)) {
        errors.push({
          type: 'value_not_in_list',
          message: 'Value not in list',
          details: `lora_name: '${lora}' not in ${JSON.stringify(loras)}`,
          extra_info: { input_name: 'lora_name', input_config: [loras], received_value: lora },
        });
      }
      const image = node.inputs.image;
      if (node.class_type === 'LoadImage' && (typeof image !== 'string' || !files.has(inputKey(image)))) {
        errors.push({
          type: 'custom_validation_failed',
          message: 'Custom validation failed for node',
          details: `image - Invalid image file: ${String(image)}`,
          extra_info: { input_name: 'image' },
        });
      }
      if (errors.length > 0) {
        nodeErrors[id] = { errors, dependent_outputs: outputs, class_type: node.class_type };
        for (const error of errors) lines.push(`${error.message}: ${error.details}`);
      }
    }
    if (lines.length === 0) return undefined;
    return [
      400,
      {
        error: {
          type: 'prompt_outputs_failed_validation',
          message: 'Prompt outputs failed validation',
          details: lines.join('\n'),
          extra_info: {},
        },
        node_errors: nodeErrors,
      },
    ];
  };
  /** A LoadImage name (`subfolder/name`) as a key of the input folder. */
  const inputKey = (name: string) => {
    const slash = name.lastIndexOf('/');
    return fileKey('input', slash >= 0 ? name.slice(0, slash) : '', name.slice(slash + 1));
  };

  let base = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      requests.push({ method: req.method ?? 'GET', path: `${url.pathname}${url.search}`, headers: req.headers });
      const required = options.requireHeader;
      if (required && req.headers[required.name.toLowerCase()] !== required.value) {
        json(res, 401, { error: 'Unauthorized' });
        return;
      }
      const route = `${req.method} ${url.pathname}`;
      if (route === 'POST /prompt') {
        const body = JSON.parse((await readBody(req)).toString('utf8')) as Record<string, unknown>;
        if (!body.prompt || typeof body.prompt !== 'object') {
          json(res, 400, {
            error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
            node_errors: {},
          });
          return;
        }
        const prompt = body.prompt as Record<string, FakeNode>;
        const promptId = String(body.prompt_id ?? randomUUID());
        submissions.push({ promptId, clientId: body.client_id, prompt, headers: req.headers });
        const tags = tagsOf(prompt);
        if (tags.has('500')) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end('500 Internal Server Error');
          return;
        }
        const refused = validate(prompt);
        if (refused) {
          json(res, ...refused);
          return;
        }
        const outputs = Object.keys(prompt).filter((id) => CORE_NODES[prompt[id]?.class_type ?? '']?.output);
        const entry: Entry = { number, id: promptId, prompt, extra: { client_id: body.client_id }, outputs };
        number += 1;
        // ComfyUI does not refuse a prompt_id it already has: it queues it again.
        heapPush(pending, entry);
        if (tags.has('cut')) {
          req.socket.destroy();
          return;
        }
        json(res, 200, { prompt_id: promptId, number: entry.number, node_errors: {} });
        return;
      }
      if (route === 'GET /queue') {
        json(res, 200, { queue_running: [...running.values()].map(queueItem), queue_pending: pending.map(queueItem) });
        return;
      }
      if (req.method === 'GET' && url.pathname.startsWith('/history/')) {
        const id = decodeURIComponent(url.pathname.slice('/history/'.length));
        const item = history.get(id);
        json(res, 200, item ? { [id]: item } : {});
        return;
      }
      if (route === 'POST /queue') {
        const body = JSON.parse((await readBody(req)).toString('utf8') || '{}') as Record<string, unknown>;
        if (body.clear === true) pending = [];
        if (Array.isArray(body.delete)) {
          for (const id of body.delete) if (typeof id === 'string' && heapRemove(pending, id)) deletes.push(id);
        }
        res.writeHead(200).end();
        return;
      }
      if (route === 'POST /interrupt') {
        const raw = (await readBody(req)).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          body = {};
        }
        interrupts.push(body);
        const target = typeof body.prompt_id === 'string' ? body.prompt_id : undefined;
        // A prompt_id stops only that prompt, when it runs; none stops whatever runs.
        for (const entry of [...running.values()]) if (target === undefined || entry.id === target) interrupt(entry);
        res.writeHead(200).end();
        return;
      }
      if (route === 'POST /upload/image') {
        const contentType = req.headers['content-type'] ?? '';
        const form = await new Response(new Uint8Array(await readBody(req)), {
          headers: { 'content-type': contentType },
        }).formData();
        const image = form.get('image');
        if (!(image instanceof File) || image.name === '') {
          res.writeHead(400).end();
          return;
        }
        const data = Buffer.from(await image.arrayBuffer());
        const overwrite = form.get('overwrite');
        const type = String(form.get('type') ?? 'input');
        const subfolder = String(form.get('subfolder') ?? '');
        uploads.push({
          filename: image.name,
          data,
          contentType: image.type,
          overwrite: typeof overwrite === 'string' ? overwrite : null,
          type,
          headers: req.headers,
        });
        // Without overwrite, a different file of the same name is saved as `name (1).ext`.
        let name = image.name;
        if (overwrite !== 'true' && overwrite !== '1') {
          const dot = image.name.lastIndexOf('.');
          const stem = dot > 0 ? image.name.slice(0, dot) : image.name;
          const ext = dot > 0 ? image.name.slice(dot) : '';
          for (let i = 1; ; i++) {
            const existing = files.get(fileKey(type, subfolder, name));
            if (!existing || existing.data.equals(data)) break;
            name = `${stem} (${i})${ext}`;
          }
        }
        files.set(fileKey(type, subfolder, name), { data, contentType: image.type });
        json(res, 200, { name, subfolder, type });
        return;
      }
      if (route === 'GET /view') {
        const filename = url.searchParams.get('filename') ?? '';
        const file = files.get(
          fileKey(url.searchParams.get('type') ?? 'output', url.searchParams.get('subfolder') ?? '', filename),
        );
        if (!file) {
          res.writeHead(404).end();
          return;
        }
        res
          .writeHead(200, {
            'content-type': file.contentType || 'application/octet-stream',
            'content-disposition': `filename="${filename}"`,
          })
          .end(file.data);
        return;
      }
      json(res, 404, { error: 'Not found' });
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    submissions,
    uploads,
    requests,
    deletes,
    interrupts,
    run(id) {
      const entry = id === undefined ? heapPop(pending) : heapRemove(pending, id);
      if (!entry) return undefined;
      running.set(entry.id, entry);
      return entry.id;
    },
    finish,
    state(id) {
      if (pending.some((e) => e.id === id)) return 'pending';
      if (running.has(id)) return 'running';
      return history.has(id) ? 'history' : undefined;
    },
    restart() {
      pending = [];
      running.clear();
      history.clear();
      number = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
