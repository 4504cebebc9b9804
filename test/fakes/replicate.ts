// A fake Replicate API on 127.0.0.1, built from Replicate's public API shapes: predictions created
// on an official model (`POST /v1/models/{owner}/{name}/predictions`) or a version
// (`POST /v1/predictions` with `version`), held with `Prefer: wait=n`, read with
// `GET /v1/predictions/{id}` (starting, processing with tqdm logs, then a terminal status),
// canceled with `POST …/cancel`; problem-details errors (`title`, `detail`, `status`,
// `invalid_fields`); webhooks signed the Standard Webhooks way with the account's default secret
// (`GET /v1/webhooks/default/secret`), and `GET /v1/account` (who the token belongs to). Tests pick a behaviour with a tag in the prompt:
// [replicate:401] [replicate:402] [replicate:403] [replicate:404] [replicate:422] [replicate:429]
// [replicate:500] [replicate:502-html] (a proxy's HTML page) [replicate:malformed] (a 201 whose
// JSON is cut short) [replicate:cut] (the submit is read, then the connection is cut)
// [replicate:hang] (never answered) — on submit; and for how the prediction ends:
// [replicate:array] (two image URLs) [replicate:data-uri] (the image inline) [replicate:text]
// (a string that is no URL) [replicate:object] (an object with a mesh URL and a seed)
// [replicate:failed] [replicate:nsfw] [replicate:canceled] [replicate:aborted]
// [replicate:no-urls] (the prediction gives no `urls`) [replicate:foreign-urls] (its `urls` point
// at another host) [replicate:slow] (a held submit still answers `processing`) [replicate:never]
// (it stays `processing` and sends no webhook, until canceled) [replicate:queued] (it stays
// `starting`, never started, until canceled) [replicate:running] (`processing` from the first read
// until canceled). A prediction canceled while `starting` keeps `started_at` null.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

export interface FakeReplicateSubmission {
  /** The request path: `/v1/models/{owner}/{name}/predictions` or `/v1/predictions`. */
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

interface Prediction {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  polls: number;
  /** Set once it reached its end (held submit, webhook, cancel): GET then answers the end. */
  ended: boolean;
  canceled: boolean;
  /** Canceled while it was still `starting`: it never ran. */
  canceledBeforeStart: boolean;
  webhook: string | undefined;
  createdAt: string;
}

export interface FakeReplicate {
  /** The API base URL (what REPLICATE_BASE_URL would be), without `/v1`. */
  url: string;
  token: string;
  /** The account's default webhook signing secret (`whsec_…`). */
  secret(): string;
  /** Replaces the default secret (the old one no longer verifies). */
  rotateSecret(): void;
  /** Calls made to `GET /v1/webhooks/default/secret`. */
  secretReads(): number;
  submissions: FakeReplicateSubmission[];
  /** Prediction ids canceled with `POST …/cancel`. */
  cancels: string[];
  /** Polls made of each prediction, by id. */
  polls(id: string): number;
  /** Signs a webhook body as Replicate does; `at` in unix seconds (default now). */
  signWebhook(body: string, at?: number, secret?: string, id?: string): Record<string, string>;
  /** Every webhook the fake sent, in order, with the status the receiver answered (once it has; none when unreachable). */
  webhooks: Array<{ id: string; body: string; headers: Record<string, string>; status?: number }>;
  close(): Promise<void>;
}

const TAG = /\[replicate:([a-z0-9-]+)\]/;

function tagOf(input: unknown): string | undefined {
  const prompt = input && typeof input === 'object' ? (input as { prompt?: unknown }).prompt : undefined;
  return TAG.exec(String(prompt ?? ''))?.[1];
}

/** An id shaped like Replicate's (26 lowercase letters and digits). */
function predictionId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(26)].map((b) => alphabet[b % alphabet.length]).join('');
}

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function problem(res: ServerResponse, status: number, title: string, detail: string, extra: object = {}): void {
  res
    .writeHead(status, {
      'content-type': 'application/problem+json',
      ...(status === 429 ? { 'retry-after': '2' } : {}),
    })
    .end(JSON.stringify({ title, detail, status, ...extra }));
}

// tqdm as a diffusion model prints it, redrawn with carriage returns.
const PROGRESS_LOGS =
  'Using seed: 42\n' +
  '  0%|          | 0/28 [00:00<?, ?it/s]\r' +
  ' 25%|██▌       | 7/28 [00:01<00:03,  6.01it/s]\r' +
  ' 50%|█████     | 14/28 [00:02<00:02,  6.02it/s]';

/** Starts the fake; `token` is the API token it accepts. */
export async function startFakeReplicate(token = 'r8_fake_token'): Promise<FakeReplicate> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc6633' } })
    .png()
    .toBuffer();
  const predictions = new Map<string, Prediction>();
  const submissions: FakeReplicateSubmission[] = [];
  const cancels: string[] = [];
  const webhooks: FakeReplicate['webhooks'] = [];
  let secret = newSecret();
  let secretReads = 0;
  let base = '';

  const signWebhook = (
    body: string,
    at = Math.floor(Date.now() / 1000),
    key = secret,
    id = `msg_${predictionId()}`,
  ) => {
    const mac = createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
      .update(`${id}.${at}.${body}`)
      .digest('base64');
    return {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(at),
      'webhook-signature': `v1,${mac}`,
    };
  };

  const output = (p: Prediction): unknown => {
    const file = (n: number) => `${base}/files/${p.id}/out-${n}.png`;
    switch (tagOf(p.input)) {
      case 'array':
        return [file(0), file(1)];
      case 'data-uri':
        return `data:image/png;base64,${png.toString('base64')}`;
      case 'text':
        return 'a fox, in words';
      case 'object':
        return { mesh: `${base}/files/${p.id}/mesh.glb`, seed: 42 };
      default:
        // Official image models answer one URL (flux-schnell answers a list; see `array`).
        return file(0);
    }
  };

  /** The prediction as `GET /v1/predictions/{id}` shows it after `polls` reads. */
  const view = (p: Prediction): Record<string, unknown> => {
    const tag = tagOf(p.input);
    const stage = p.canceled
      ? 'canceled'
      : p.ended
        ? 'end'
        : tag === 'queued' || (p.polls <= 1 && tag !== 'running')
          ? 'starting'
          : p.polls === 2 || tag === 'never' || tag === 'running'
            ? 'processing'
            : 'end';
    const end =
      tag === 'failed'
        ? 'failed'
        : tag === 'nsfw'
          ? 'failed'
          : tag === 'canceled'
            ? 'canceled'
            : tag === 'aborted'
              ? 'aborted'
              : 'succeeded';
    const status = stage === 'end' ? end : stage;
    const links = `${tag === 'foreign-urls' ? 'http://192.0.2.1:9' : base}/v1/predictions/${p.id}`;
    return {
      id: p.id,
      model: p.model,
      version: p.version,
      input: p.input,
      logs: status === 'starting' ? '' : PROGRESS_LOGS,
      output: status === 'succeeded' ? output(p) : null,
      data_removed: false,
      error:
        status === 'failed'
          ? tag === 'nsfw'
            ? 'NSFW content detected. Try running it again, or try a different prompt.'
            : 'CUDA out of memory. Tried to allocate 2.00 GiB'
          : null,
      status,
      source: 'api',
      created_at: p.createdAt,
      started_at: status === 'starting' || p.canceledBeforeStart ? null : p.createdAt,
      completed_at: ['starting', 'processing'].includes(status) ? null : new Date().toISOString(),
      metrics: status === 'succeeded' ? { predict_time: 1.25, total_time: 1.5 } : {},
      ...(tag === 'no-urls'
        ? {}
        : { urls: { get: links, cancel: `${links}/cancel`, stream: `${links}/stream`, web: `${links}/web` } }),
      ...(p.webhook ? { webhook: p.webhook, webhook_events_filter: ['completed'] } : {}),
    };
  };

  /** Ends a prediction and sends its `completed` webhook, when it asked for one. */
  const finish = async (p: Prediction): Promise<void> => {
    p.ended = true;
    if (!p.webhook) return;
    const body = JSON.stringify(view(p));
    const headers = signWebhook(body);
    const sent: FakeReplicate['webhooks'][number] = { id: p.id, body, headers };
    webhooks.push(sent);
    await fetch(p.webhook, { method: 'POST', headers, body }).then(
      async (r) => {
        await r.arrayBuffer();
        sent.status = r.status;
      },
      () => undefined,
    );
  };

  const create = async (req: IncomingMessage, res: ServerResponse, path: string, model: string): Promise<void> => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      problem(res, 400, 'Invalid JSON', 'The request body is not valid JSON.');
      return;
    }
    submissions.push({ path, body, headers: req.headers });
    const input = body.input && typeof body.input === 'object' ? (body.input as Record<string, unknown>) : undefined;
    if (!input) {
      problem(res, 422, 'Input validation failed', 'input is required', {
        invalid_fields: [{ type: 'required', field: '', description: 'input is required' }],
      });
      return;
    }
    switch (tagOf(input)) {
      case '401':
        problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
        return;
      case '402':
        problem(res, 402, 'Insufficient credit', 'You have insufficient credit to run this model.');
        return;
      case '403':
        problem(res, 403, 'Forbidden', 'You do not have permission to run this model.');
        return;
      case '404':
        problem(res, 404, 'Not found', 'The requested resource could not be found.');
        return;
      case '422':
        problem(res, 422, 'Input validation failed', '- input.width: Must be less than or equal to 1440', {
          invalid_fields: [
            { type: 'maximum', field: 'input.width', description: 'Must be less than or equal to 1440' },
          ],
        });
        return;
      case '429':
        problem(res, 429, 'Request was throttled', 'Request was throttled. Expected available in 2 seconds.');
        return;
      case '500':
        problem(res, 500, 'Internal server error', 'Something went wrong on our end.');
        return;
      case '502-html':
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        return;
      case 'malformed':
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"id": ');
        return;
      case 'cut':
        req.socket.destroy();
        return;
      case 'hang':
        return;
    }
    const p: Prediction = {
      id: predictionId(),
      model,
      version: typeof body.version === 'string' ? body.version : 'hidden',
      input,
      polls: 0,
      ended: false,
      canceled: false,
      canceledBeforeStart: false,
      webhook: typeof body.webhook === 'string' ? body.webhook : undefined,
      createdAt: new Date().toISOString(),
    };
    predictions.set(p.id, p);
    // `Prefer: wait` holds the answer until the prediction ends (a slow one is answered running).
    const held = /^wait(=\d+)?$/.test(String(req.headers.prefer ?? '').trim());
    if (held && tagOf(input) !== 'slow') await finish(p);
    else if (held) p.polls = 2;
    const shown = view(p);
    json(res, 201, shown, { location: `${base}/v1/predictions/${p.id}` });
    if (!p.ended && p.webhook && !['never', 'queued', 'running'].includes(tagOf(input) ?? ''))
      setTimeout(() => void finish(p), 20);
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const segments = url.pathname.split('/').filter((s) => s !== '');
      if (req.method === 'GET' && segments[0] === 'files') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) }).end(png);
        return;
      }
      if (req.headers.authorization !== `Bearer ${token}`) {
        problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
        return;
      }
      if (segments[0] !== 'v1') {
        problem(res, 404, 'Not found', 'The requested resource could not be found.');
        return;
      }
      const [, first, second, third, fourth] = segments;
      if (req.method === 'GET' && first === 'account' && second === undefined) {
        // GET /v1/account: who the token belongs to.
        json(res, 200, { type: 'organization', username: 'fake-team', name: 'Fake Team', github_url: null });
        return;
      }
      if (req.method === 'GET' && first === 'webhooks' && second === 'default' && third === 'secret') {
        secretReads += 1;
        json(res, 200, { key: secret });
        return;
      }
      if (req.method === 'POST' && first === 'models' && second && third && fourth === 'predictions') {
        await create(req, res, url.pathname, `${second}/${third}`);
        return;
      }
      if (req.method === 'POST' && first === 'predictions' && segments.length === 2) {
        await create(req, res, url.pathname, 'owner/versioned-model');
        return;
      }
      const p = first === 'predictions' ? predictions.get(second ?? '') : undefined;
      if (!p) {
        problem(res, 404, 'Not found', 'The requested resource could not be found.');
        return;
      }
      if (req.method === 'GET' && segments.length === 3) {
        p.polls += 1;
        json(res, 200, view(p));
      } else if (req.method === 'POST' && third === 'cancel') {
        cancels.push(p.id);
        // Only a prediction still starting or processing is canceled; an ended one stays as it ended.
        const now = view(p).status;
        if (now === 'starting' || now === 'processing') {
          p.canceledBeforeStart = now === 'starting';
          p.canceled = true;
        }
        json(res, 200, view(p));
      } else problem(res, 405, 'Method not allowed', `${req.method} is not allowed here.`);
    })().catch((err: unknown) => {
      if (!res.headersSent) problem(res, 500, 'Internal server error', String(err));
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    token,
    secret: () => secret,
    rotateSecret: () => {
      secret = newSecret();
    },
    secretReads: () => secretReads,
    submissions,
    cancels,
    polls: (id) => predictions.get(id)?.polls ?? 0,
    signWebhook: (body, at, key, id) => signWebhook(body, at, key, id),
    webhooks,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
