// A fake Meshy API on 127.0.0.1, built from Meshy's public API shapes (docs.meshy.ai): text to 3D
// tasks created with `POST /openapi/v2/text-to-3d` (mode preview, or refine with preview_task_id),
// image to 3D with `POST /openapi/v1/image-to-3d`, both answering `{result: <task id>}`; read with
// `GET …/{id}`, each read advancing the task one status (PENDING with preceding_tasks, then
// IN_PROGRESS at 50 %, then its end); listed newest first with `GET /openapi/v2/text-to-3d`
// (an array of task objects); `GET /openapi/v1/balance`; errors as `{message}`. The GLB of a
// succeeded task is served without auth under /assets. Tests pick a behaviour with a tag in the
// prompt (a refine inherits its preview's): [meshy:401] [meshy:402] [meshy:429] [meshy:500] on
// create; [meshy:refine-402] (only the refine is refused); [meshy:refine-unanswered] (the refine
// task is made, its answer never sent); [meshy:failed] [meshy:moderation] [meshy:canceled] for how the task ends.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Document, NodeIO } from '@gltf-transform/core';

export interface FakeMeshyPost {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

interface FakeTask {
  id: string;
  type: 'text-to-3d-preview' | 'text-to-3d-refine' | 'image-to-3d';
  body: Record<string, unknown>;
  /** The preview's prompt for a refine (where its tag comes from). */
  prompt: string;
  previewTaskId: string | null;
  reads: number;
  createdAt: number;
}

const CREDITS: Record<FakeTask['type'], number> = {
  'text-to-3d-preview': 5,
  'text-to-3d-refine': 10,
  'image-to-3d': 15,
};

export interface FakeMeshy {
  url: string;
  apiKey: string;
  /** Every POST, in order (rejected ones too). */
  posts: FakeMeshyPost[];
  /** Calls to the list route. */
  listReads(): number;
  close(): Promise<void>;
}

const TAG = /\[meshy:([a-z0-9-]+)\]/;

/** A one-triangle GLB, a real file that decodes. */
async function triangleGlb(): Promise<Buffer> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const position = doc
    .createAccessor('position')
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer);
  const primitive = doc.createPrimitive().setAttribute('POSITION', position);
  const node = doc.createNode('fake').setMesh(doc.createMesh('fake').addPrimitive(primitive));
  doc.getRoot().setDefaultScene(doc.createScene('Scene').addChild(node));
  return Buffer.from(await new NodeIO().writeBinary(doc));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Starts the fake; `apiKey` is the key it accepts. */
export async function startFakeMeshy(apiKey = 'msy_fake_key'): Promise<FakeMeshy> {
  const glb = await triangleGlb();
  const tasks = new Map<string, FakeTask>();
  const posts: FakeMeshyPost[] = [];
  let listReads = 0;
  let base = '';

  const status = (t: FakeTask): string => {
    if (t.reads <= 1) return 'PENDING';
    if (t.reads === 2) return 'IN_PROGRESS';
    const tag = TAG.exec(t.prompt)?.[1];
    if (tag === 'failed' || tag === 'moderation') return 'FAILED';
    if (tag === 'canceled') return 'CANCELED';
    return 'SUCCEEDED';
  };

  /** The task object as Meshy shows it. */
  const view = (t: FakeTask): Record<string, unknown> => {
    const s = status(t);
    const tag = TAG.exec(t.prompt)?.[1];
    const assets = `${base}/assets/${t.id}`;
    return {
      id: t.id,
      type: t.type,
      status: s,
      progress: s === 'PENDING' ? 0 : s === 'IN_PROGRESS' ? 50 : 100,
      preceding_tasks: s === 'PENDING' ? 3 : 0,
      ...(t.type === 'image-to-3d' ? { image_url: t.body.image_url } : { prompt: t.prompt }),
      ...(t.previewTaskId ? { preview_task_id: t.previewTaskId } : {}),
      model_urls:
        s === 'SUCCEEDED'
          ? { glb: `${assets}/model.glb`, fbx: `${assets}/model.fbx`, obj: `${assets}/model.obj`, usdz: '' }
          : {},
      thumbnail_url: s === 'SUCCEEDED' ? `${assets}/preview.png` : '',
      texture_urls:
        s === 'SUCCEEDED' && t.type !== 'text-to-3d-preview' ? [{ base_color: `${assets}/base_color.png` }] : [],
      task_error: {
        message:
          s !== 'FAILED'
            ? ''
            : tag === 'moderation'
              ? 'The prompt was flagged by our moderation system.'
              : 'Internal server error during generation.',
      },
      // What Meshy's pricing charges a meshy-5 task: a preview 5, a refine 10, image to 3D 15.
      consumed_credits: s !== 'SUCCEEDED' ? 0 : CREDITS[t.type],
      created_at: t.createdAt,
      started_at: s === 'PENDING' ? 0 : t.createdAt,
      finished_at: ['PENDING', 'IN_PROGRESS'].includes(s) ? 0 : t.createdAt + 1000,
      expires_at: t.createdAt + 3 * 24 * 3600 * 1000,
    };
  };

  const create = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      json(res, 400, { message: 'Invalid JSON body' });
      return;
    }
    posts.push({ path, body, headers: req.headers });
    let type: FakeTask['type'];
    let prompt: string;
    let previewTaskId: string | null = null;
    if (path.endsWith('/image-to-3d')) {
      if (typeof body.image_url !== 'string') {
        json(res, 400, { message: 'image_url is required' });
        return;
      }
      type = 'image-to-3d';
      prompt = String(body.texture_prompt ?? body.image_url);
    } else if (body.mode === 'refine') {
      const preview = tasks.get(String(body.preview_task_id));
      if (preview?.type !== 'text-to-3d-preview' || status(preview) !== 'SUCCEEDED') {
        json(res, 400, { message: 'preview_task_id must be a succeeded preview task' });
        return;
      }
      type = 'text-to-3d-refine';
      prompt = preview.prompt;
      previewTaskId = preview.id;
    } else if (body.mode === 'preview' && typeof body.prompt === 'string') {
      if (body.prompt.length > 600) {
        json(res, 400, { message: 'prompt must be at most 600 characters' });
        return;
      }
      type = 'text-to-3d-preview';
      prompt = body.prompt;
    } else {
      json(res, 400, { message: 'mode must be preview or refine' });
      return;
    }
    const tag = TAG.exec(prompt)?.[1];
    if (tag === 'refine-402' && type === 'text-to-3d-refine') {
      json(res, 402, { message: 'Insufficient credits' });
      return;
    }
    switch (tag) {
      case '401':
        json(res, 401, { message: 'Invalid API key' });
        return;
      case '402':
        json(res, 402, { message: 'Insufficient credits' });
        return;
      case '429':
        json(res, 429, { message: 'Too many requests' }, { 'retry-after': '2' });
        return;
      case '500':
        json(res, 500, { message: 'Internal server error' });
        return;
    }
    const task: FakeTask = { id: randomUUID(), type, body, prompt, previewTaskId, reads: 0, createdAt: Date.now() };
    tasks.set(task.id, task);
    // [meshy:refine-unanswered]: the refine is made, but its answer never comes (the caller dies waiting).
    if (tag === 'refine-unanswered' && type === 'text-to-3d-refine') return;
    json(res, 202, { result: task.id });
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const path = url.pathname;
      if (req.method === 'GET' && path.startsWith('/assets/')) {
        res.writeHead(200, { 'content-type': 'model/gltf-binary', 'content-length': String(glb.length) }).end(glb);
        return;
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        json(res, 401, { message: 'Invalid API key' });
        return;
      }
      if (req.method === 'GET' && path === '/openapi/v1/balance') {
        json(res, 200, { balance: 1000 });
        return;
      }
      if (req.method === 'POST' && (path === '/openapi/v2/text-to-3d' || path === '/openapi/v1/image-to-3d')) {
        await create(req, res, path);
        return;
      }
      if (req.method === 'GET' && path === '/openapi/v2/text-to-3d') {
        listReads += 1;
        const size = Math.min(50, Number(url.searchParams.get('page_size') ?? 10) || 10);
        const oldestFirst = url.searchParams.get('sort_by') === '+created_at';
        const list = [...tasks.values()].filter((t) => t.type !== 'image-to-3d');
        if (!oldestFirst) list.reverse();
        json(res, 200, list.slice(0, size).map(view));
        return;
      }
      const match = /^\/openapi\/(v2\/text-to-3d|v1\/image-to-3d)\/([^/]+)$/.exec(path);
      const task = match ? tasks.get(decodeURIComponent(match[2] ?? '')) : undefined;
      const kindMatches = task && (match?.[1] === 'v1/image-to-3d') === (task.type === 'image-to-3d');
      if (req.method === 'GET' && task && kindMatches) {
        task.reads += 1;
        json(res, 200, view(task));
        return;
      }
      json(res, 404, { message: 'Not found' });
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { message: String(err) });
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    apiKey,
    posts,
    listReads: () => listReads,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
