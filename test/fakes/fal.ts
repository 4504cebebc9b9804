// A fake fal.ai queue on 127.0.0.1, built from fal's public API shapes (queue submit/status/
// result/cancel, File objects, 422 `detail[]`, `X-Fal-Error-Type`, user-timeout 504s, and
// webhooks signed with Ed25519 over `request_id\nuser_id\ntimestamp\nhex(sha256(body))` with
// the public key at /.well-known/jwks.json). Tests pick a behaviour with a tag in the prompt:
// [fal:422] [fal:429] [fal:500] [fal:malformed] [fal:error] [fal:504-user] [fal:content-policy]
// [fal:echo-key] [fal:private-url] (the result file on another loopback server) [fal:wrong-type]
// (an HTML result) [fal:webhook-first] (the job's webhook is sent, and answered, before the
// submit is answered: a job that ends at once) [fal:data-uri] (the result image inline, as
// sync_mode gives it) [fal:cut] (the submit is read, then the connection is cut with no answer)
// [fal:hang] (the submit is never answered) [fal:input-error] (accepted, then refused as fal does
// after a job started: its status COMPLETED with `error`, its result a 422 with a validation
// `detail`, and no webhook, as when fal's delivery was lost, so only polls tell) [fal:broken-file]
// (a video endpoint's result file is served as video/mp4 but holds no video) [fal:big-file] (a
// video endpoint's result file is the MP4 followed by a 9 MiB `free` box: larger than one part of
// an S3 multipart upload; `bigFile()` gives its bytes); a speech endpoint reads its tag from the `text`. The
// result is of the endpoint's kind, as fal shapes it: `{video: File}` (an H.264 MP4) for video
// endpoints, `{model_mesh: File}` (a GLB, served as application/octet-stream as CDNs do) for 3D
// ones, `{audio: File, duration_ms}` for speech (a second of tone in the `audio_setting` asked
// for: MP3, FLAC, or raw s16le mono PCM as audio/pcm, at its sample rate), `{images: [File]}` (a
// PNG) otherwise; `outage(endpoint)` makes one endpoint answer 503; `hold()` keeps jobs running
// (or waiting in the queue); `holdFiles()` keeps result downloads waiting; `failStatusAfter(n)` has
// status reads answer 503 once `n` more were answered. A cancel answers 202
// `CANCELLATION_REQUESTED` until the job has finished, then 400 `ALREADY_COMPLETED`.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';
import { H264_OUTPUT_ARGS, readOutput, runFfmpeg, withTempDir } from '../../src/lib/ffmpeg.ts';

export interface FakeFalSubmission {
  endpoint: string;
  input: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  webhookUrl: string | undefined;
  /**
   * With `fetchInputs`: every http(s) URL of the input as the fake read it when the job was
   * submitted (as fal's runners download their inputs), in the order they appear.
   */
  fetched: Array<{ url: string; status: number; body: Buffer }>;
}

export interface FakeFalOptions {
  /** Download every URL of each submitted input before answering the submit (default false). */
  fetchInputs?: boolean;
}

/** Every http(s) URL among the string values of an input, in order. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^https?:\/\//.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

interface Job {
  id: string;
  app: string;
  /** The endpoint it was submitted to (the app and its subpath). */
  endpoint: string;
  input: Record<string, unknown>;
  polls: number;
  canceled: boolean;
  /** Set when its webhook was sent: from then on the job says COMPLETED. */
  finished: boolean;
  webhookUrl: string | undefined;
  submittedAt: number;
}

export interface SentWebhook {
  requestId: string;
  body: string;
  headers: Record<string, string>;
  /** performance.now() when the submit arrived, and when this webhook was sent. */
  submittedAt: number;
  sentAt: number;
}

export interface FakeFal {
  /** The queue base URL (what FAL_QUEUE_URL would be). */
  url: string;
  jwksUrl: string;
  key: string;
  /** The settings that point the service at this fake: FAL_KEY, FAL_QUEUE_URL, FAL_JWKS_URL. */
  env: Record<string, string>;
  submissions: FakeFalSubmission[];
  cancels: string[];
  /** The Authorization headers of the requests refused for a wrong key (401), in order. */
  refused: string[];
  /** Status polls made of each job, by request id. */
  polls(requestId: string): number;
  /** Signs a webhook body as fal does; `at` in unix seconds (default now). */
  signWebhook(requestId: string, body: string, at?: number, key?: KeyObject): Record<string, string>;
  /** Replaces the published signing key (the old one no longer verifies). */
  rotateKey(): void;
  /** Makes every submit to `endpoint` answer 503 (no runner), or serve again with `false`. */
  outage(endpoint: string, down: boolean): void;
  /**
   * While holding, accepted jobs (of `endpoint` only, when given) stay IN_PROGRESS (or IN_QUEUE,
   * with `stage`) and send no webhook until `release()`.
   */
  hold(on: boolean, stage?: 'IN_PROGRESS' | 'IN_QUEUE', endpoint?: string): void;
  /** While on, downloads of result files wait (answering nothing) until it is turned off. */
  holdFiles(on: boolean): void;
  /** Downloads of result files asked for so far (answered or waiting). */
  fileRequests(): number;
  /** The bytes of a `[fal:big-file]` video result: a valid MP4 of 9 MiB and more. */
  bigFile(): Buffer;
  /**
   * Status reads answer as usual `reads` more times, then 503 (fal's gateway out) until called
   * again with undefined.
   */
  failStatusAfter(reads: number | undefined): void;
  /** Finishes every held job (and sends its webhook); resolves once the webhooks were answered. */
  release(): Promise<void>;
  /** Jobs accepted and held now. */
  held(): number;
  /** The most jobs this account had accepted and not finished nor canceled at once (counted at each submit). */
  peakInFlight(): number;
  /** Every webhook the fake sent, in order. */
  webhooks: SentWebhook[];
  close(): Promise<void>;
}

const USER_ID = 'user-fake-1';

/** How fal reports an input it refused once the job had started: the status's error, the result's detail. */
export const INPUT_ERROR = {
  error: 'Invalid status code: 422',
  detail: [
    {
      loc: ['body', 'image_url'],
      msg: 'Failed to download the file. Please check if the URL is accessible.',
      type: 'file_download_error',
    },
  ],
};

function tagOf(input: Record<string, unknown>): string | undefined {
  return /\[fal:([a-z0-9-]+)\]/.exec(String(input.prompt ?? input.text ?? ''))?.[1];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** What an endpoint makes, judged by its id the way fal names its apps. */
export function outputKind(endpoint: string): 'video' | 'model' | 'audio' | 'image' {
  if (/speech|tts/.test(endpoint)) return 'audio';
  if (/3d|trellis|triposr|rodin/.test(endpoint)) return 'model';
  if (
    /video|lipsync|latentsync|avatar|omnihuman|infinitalk|sadtalker|fabric|veo|sora|hailuo|seedance|wan-[it]2v|wan-25|wan\/v2\.2-a14b\/(text|image)-to-video|luma-dream|pika|pixverse|vidu|ltx|cogvideox|seedvr|topaz/.test(
      endpoint,
    )
  ) {
    return 'video';
  }
  return 'image';
}

/** A small GLB: one triangle, enough to decode. */
async function cubeGlb(): Promise<Buffer> {
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

/** The audio a speech job asked for in its `audio_setting` (MiniMax's defaults: MP3 at 32 kHz). */
function speechSetting(input: Record<string, unknown>): { format: 'mp3' | 'flac' | 'pcm'; rate: number } {
  const setting = (input.audio_setting ?? {}) as { format?: unknown; sample_rate?: unknown };
  const format = setting.format === 'flac' || setting.format === 'pcm' ? setting.format : 'mp3';
  return { format, rate: typeof setting.sample_rate === 'number' ? setting.sample_rate : 32000 };
}

const SPEECH_TYPES = { mp3: 'audio/mpeg', flac: 'audio/flac', pcm: 'audio/pcm' } as const;
const SPEECH_SECONDS = 1;

/** A second of a 220 Hz tone, mono, in a format and at a rate MiniMax makes. */
async function speechAudio(format: 'mp3' | 'flac' | 'pcm', rate: number): Promise<Buffer> {
  if (format === 'pcm') {
    const samples = Buffer.alloc(rate * SPEECH_SECONDS * 2);
    for (let i = 0; i < rate * SPEECH_SECONDS; i++) {
      samples.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / rate)), i * 2);
    }
    return samples;
  }
  const codec = format === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '128k'] : ['-c:a', 'flac'];
  // Written to a file, so that the MP3's Xing header and FLAC's STREAMINFO are complete.
  return withTempDir(async (dir) => {
    const out = join(dir, `speech.${format}`);
    const tone = `sine=frequency=220:sample_rate=${rate}:duration=${SPEECH_SECONDS}`;
    await runFfmpeg(['-f', 'lavfi', '-i', tone, '-ac', '1', ...codec, out], { what: 'fake speech' });
    return readOutput(out, 'fake speech');
  });
}

/** The app part of an endpoint path, as fal builds its request URLs on it. */
function appOf(segments: string[]): string {
  const keep = segments[0] === 'workflows' || segments[0] === 'comfy' ? 3 : 2;
  return segments.slice(0, keep).join('/');
}

/** Starts the fake; `key` is the FAL_KEY it accepts. */
export async function startFakeFal(key = 'fake-fal-key', options: FakeFalOptions = {}): Promise<FakeFal> {
  let pair = generateKeyPairSync('ed25519');
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const mp4 = await runFfmpeg([
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=64x48:rate=8:duration=1',
    ...H264_OUTPUT_ARGS,
    '-f',
    'mp4',
    '-movflags',
    'frag_keyframe+empty_moov',
    'pipe:1',
  ]);
  const glb = await cubeGlb();
  // The MP4 with a top-level `free` box (which players skip) of random bytes after it, made when first asked for.
  let big: Buffer | undefined;
  const bigFile = () => {
    if (!big) {
      const free = Buffer.alloc(8);
      const padding = randomBytes(9 * 1024 * 1024);
      free.writeUInt32BE(8 + padding.length, 0);
      free.write('free', 4, 'latin1');
      big = Buffer.concat([mp4, free, padding]);
    }
    return big;
  };
  // Speech, made when first asked for, by format and rate.
  const speech = new Map<string, Promise<Buffer>>();
  const speechOf = (job: Job) => {
    const { format, rate } = speechSetting(job.input);
    let bytes = speech.get(`${format} ${rate}`);
    if (!bytes) {
      bytes = speechAudio(format, rate);
      speech.set(`${format} ${rate}`, bytes);
    }
    return bytes.then((data) => ({ format, data }));
  };
  const jobs = new Map<string, Job>();
  const submissions: FakeFalSubmission[] = [];
  const refused: string[] = [];
  const cancels: string[] = [];
  const down = new Set<string>();
  const held = new Set<string>();
  const webhooks: SentWebhook[] = [];
  let holding = false;
  let heldStage: 'IN_PROGRESS' | 'IN_QUEUE' = 'IN_PROGRESS';
  let heldEndpoint: string | undefined;
  let filesHeld: Promise<void> | undefined;
  let releaseFiles = () => {};
  let fileRequests = 0;
  let peak = 0;
  // Status reads still answered before they fail (undefined: they never fail).
  let statusReadsLeft: number | undefined;
  let base = '';
  // Another loopback origin, not fal's: where [fal:private-url] results live.
  const elsewhere = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) }).end(png);
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
  const elsewhereBase = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;

  const signWebhook = (
    requestId: string,
    body: string,
    at = Math.floor(Date.now() / 1000),
    signer = pair.privateKey,
  ) => {
    const digest = createHash('sha256').update(body).digest('hex');
    const message = Buffer.from(`${requestId}\n${USER_ID}\n${at}\n${digest}`);
    return {
      'content-type': 'application/json',
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': USER_ID,
      'x-fal-webhook-timestamp': String(at),
      'x-fal-webhook-signature': sign(null, message, signer).toString('hex'),
    };
  };

  const result = async (job: Job) => {
    const kind = outputKind(job.endpoint);
    if (kind === 'audio') {
      const { format, data } = await speechOf(job);
      return {
        audio: {
          url: `${base}/files/${job.id}.${format}`,
          content_type: SPEECH_TYPES[format],
          file_name: `${job.id}.${format}`,
          file_size: data.length,
        },
        duration_ms: SPEECH_SECONDS * 1000,
      };
    }
    if (kind === 'video') {
      const suffixes: Record<string, string> = { 'broken-file': '-broken', 'big-file': '-big' };
      const suffix = suffixes[tagOf(job.input) ?? ''] ?? '';
      const name = `${job.id}${suffix}.mp4`;
      return {
        video: { url: `${base}/files/${name}`, content_type: 'video/mp4', file_name: name },
        seed: 42,
      };
    }
    if (kind === 'model') {
      return { model_mesh: { url: `${base}/files/${job.id}.glb`, file_name: 'model.glb' }, seed: 42 };
    }
    return imageResult(job);
  };
  const imageResult = (job: Job) => ({
    images: [
      {
        url:
          tagOf(job.input) === 'data-uri'
            ? `data:image/png;base64,${png.toString('base64')}`
            : tagOf(job.input) === 'private-url'
              ? `${elsewhereBase}/files/${job.id}.png`
              : `${base}/files/${job.id}.${tagOf(job.input) === 'wrong-type' ? 'html' : 'png'}`,
        content_type: 'image/png',
        file_name: `${job.id}.png`,
        width: 64,
        height: 48,
      },
    ],
    seed: 42,
    has_nsfw_concepts: [false],
    prompt: job.input.prompt,
  });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const segments = url.pathname.split('/').filter((s) => s !== '');
      if (req.method === 'GET' && url.pathname === '/.well-known/jwks.json') {
        const jwk = pair.publicKey.export({ format: 'jwk' });
        json(res, 200, { keys: [{ ...jwk, kid: 'fake-1', use: 'sig', alg: 'EdDSA' }] });
        return;
      }
      if (req.method === 'GET' && segments[0] === 'files') {
        fileRequests += 1;
        await filesHeld;
      }
      if (req.method === 'GET' && segments[0] === 'files' && url.pathname.endsWith('.html')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Service page</body></html>');
        return;
      }
      if (req.method === 'GET' && segments[0] === 'files' && url.pathname.endsWith('-broken.mp4')) {
        const junk = Buffer.from('not a video at all, only text where the frames should be\n'.repeat(64));
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(junk.length) }).end(junk);
        return;
      }
      if (req.method === 'GET' && segments[0] === 'files' && url.pathname.endsWith('-big.mp4')) {
        const bytes = bigFile();
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(bytes.length) }).end(bytes);
        return;
      }
      if (req.method === 'GET' && segments[0] === 'files' && url.pathname.endsWith('.mp4')) {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(mp4.length) }).end(mp4);
        return;
      }
      const speechFile = /^([\w-]+)\.(mp3|flac|pcm)$/.exec(segments[1] ?? '');
      if (req.method === 'GET' && segments[0] === 'files' && speechFile) {
        const job = jobs.get(speechFile[1] ?? '');
        if (!job) {
          json(res, 404, { detail: 'File not found' });
          return;
        }
        const { format, data } = await speechOf(job);
        res.writeHead(200, { 'content-type': SPEECH_TYPES[format], 'content-length': String(data.length) }).end(data);
        return;
      }
      if (req.method === 'GET' && segments[0] === 'files' && url.pathname.endsWith('.glb')) {
        res
          .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(glb.length) })
          .end(glb);
        return;
      }
      if (req.method === 'GET' && segments[0] === 'files') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(png.length) }).end(png);
        return;
      }
      if (req.headers.authorization !== `Key ${key}`) {
        refused.push(req.headers.authorization ?? '');
        json(res, 401, { detail: 'Invalid Key' });
        return;
      }
      const at = segments.indexOf('requests');
      if (at > 0) {
        const job = jobs.get(segments[at + 1] ?? '');
        if (!job || job.app !== segments.slice(0, at).join('/')) {
          json(res, 404, { detail: 'Request not found' });
          return;
        }
        const tail = segments.slice(at + 2).join('/');
        if (req.method === 'PUT' && tail === 'cancel') {
          cancels.push(job.id);
          // Finished: its webhook was sent, or a poll was answered COMPLETED.
          if (job.finished || (!held.has(job.id) && job.polls >= 3)) json(res, 400, { status: 'ALREADY_COMPLETED' });
          else {
            job.canceled = true;
            json(res, 202, { status: 'CANCELLATION_REQUESTED' });
          }
        } else if (req.method === 'GET' && tail === 'status') {
          if (statusReadsLeft !== undefined && statusReadsLeft-- <= 0) {
            json(res, 503, { detail: 'Service temporarily unavailable' });
            return;
          }
          job.polls += 1;
          const links = { response_url: `${base}/${job.app}/requests/${job.id}` };
          if (held.has(job.id)) json(res, 202, { status: heldStage, logs: [], ...links });
          else if (job.polls === 1 && !job.finished)
            json(res, 202, { status: 'IN_QUEUE', queue_position: 2, ...links });
          else if (job.polls === 2 && !job.finished) json(res, 202, { status: 'IN_PROGRESS', logs: [], ...links });
          else if (tagOf(job.input) === 'input-error')
            json(res, 200, { status: 'COMPLETED', error: INPUT_ERROR.error, ...links });
          else if (tagOf(job.input) === 'error')
            json(res, 200, { status: 'COMPLETED', error: 'CUDA out of memory', error_type: 'runner_error', ...links });
          else json(res, 200, { status: 'COMPLETED', metrics: { inference_time: 0.5 }, ...links });
        } else if (req.method === 'GET' && tail === '') {
          if (tagOf(job.input) === 'input-error') {
            json(res, 422, { detail: INPUT_ERROR.detail });
          } else if (tagOf(job.input) === '504-user') {
            json(res, 504, { detail: 'Request timed out' }, { 'x-fal-request-timeout-type': 'user' });
          } else json(res, 200, await result(job));
        } else json(res, 405, { detail: 'Method not allowed' });
        return;
      }
      if (req.method !== 'POST' || segments.length < 2) {
        json(res, 404, { detail: 'Not found' });
        return;
      }
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(await readBody(req)) as Record<string, unknown>;
      } catch {
        json(res, 422, { detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'value_error.jsondecode' }] });
        return;
      }
      const submittedAt = performance.now();
      const endpoint = segments.join('/');
      const webhookUrl = url.searchParams.get('fal_webhook') ?? undefined;
      const fetched: FakeFalSubmission['fetched'] = [];
      if (options.fetchInputs) {
        for (const target of urlsIn(input)) {
          const got = await fetch(target).catch(() => undefined);
          fetched.push({
            url: target,
            status: got?.status ?? 0,
            body: got ? Buffer.from(await got.arrayBuffer()) : Buffer.alloc(0),
          });
        }
      }
      submissions.push({ endpoint, input, headers: req.headers, webhookUrl, fetched });
      if (down.has(endpoint)) {
        json(
          res,
          503,
          { detail: 'No runner available', error_type: 'runner_scheduling_failure' },
          { 'x-fal-error-type': 'runner_scheduling_failure' },
        );
        return;
      }
      switch (tagOf(input)) {
        case '422':
          json(res, 422, { detail: [{ loc: ['body', 'image_size'], msg: 'unexpected value', type: 'value_error' }] });
          return;
        case 'echo-key':
          // A vendor that quotes the credentials it was sent back in its error.
          json(res, 422, { detail: `input refused for ${req.headers.authorization}` });
          return;
        case 'content-policy':
          json(res, 422, { detail: 'The prompt was flagged', error_type: 'content_policy_violation' });
          return;
        case '429':
          json(res, 429, { detail: 'Too many requests' }, { 'retry-after': '2' });
          return;
        case '500':
          json(
            res,
            500,
            { detail: 'No runner available', error_type: 'runner_scheduling_failure' },
            { 'x-fal-error-type': 'runner_scheduling_failure' },
          );
          return;
        case 'malformed':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"request_id": ');
          return;
        case 'cut':
          req.socket.destroy();
          return;
        case 'hang':
          return;
      }
      const app = appOf(segments);
      const job: Job = {
        id: randomUUID(),
        app,
        endpoint,
        input,
        polls: 0,
        canceled: false,
        finished: false,
        webhookUrl,
        submittedAt,
      };
      jobs.set(job.id, job);
      peak = Math.max(peak, [...jobs.values()].filter((j) => !j.finished && !j.canceled).length);
      if (tagOf(input) === 'webhook-first') await finish(job);
      const links = `${base}/${app}/requests/${job.id}`;
      json(res, 200, {
        status: 'IN_QUEUE',
        request_id: job.id,
        gateway_request_id: job.id,
        queue_position: 0,
        response_url: links,
        status_url: `${links}/status`,
        cancel_url: `${links}/cancel`,
      });
      if (holding && (heldEndpoint === undefined || heldEndpoint === endpoint)) held.add(job.id);
      else if (webhookUrl && !job.finished && tagOf(input) !== 'input-error') setTimeout(() => void finish(job), 20);
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { detail: String(err) });
    });
  });
  /** Marks a job done and sends its webhook, when it asked for one. */
  const finish = async (job: Job): Promise<void> => {
    job.finished = true;
    if (!job.webhookUrl) return;
    const payload = await result(job);
    const body = JSON.stringify({ request_id: job.id, gateway_request_id: job.id, status: 'OK', payload });
    const headers = signWebhook(job.id, body);
    webhooks.push({ requestId: job.id, body, headers, submittedAt: job.submittedAt, sentAt: performance.now() });
    await fetch(job.webhookUrl, { method: 'POST', headers, body }).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
  };

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    jwksUrl: `${base}/.well-known/jwks.json`,
    key,
    env: { FAL_KEY: key, FAL_QUEUE_URL: base, FAL_JWKS_URL: `${base}/.well-known/jwks.json` },
    submissions,
    cancels,
    refused,
    polls: (requestId) => jobs.get(requestId)?.polls ?? 0,
    signWebhook: (requestId, body, at, signer) => signWebhook(requestId, body, at, signer),
    rotateKey: () => {
      pair = generateKeyPairSync('ed25519');
    },
    outage: (endpoint, isDown) => {
      if (isDown) down.add(endpoint);
      else down.delete(endpoint);
    },
    hold: (on, stage = 'IN_PROGRESS', endpoint = undefined) => {
      holding = on;
      heldStage = stage;
      heldEndpoint = endpoint;
    },
    holdFiles: (on) => {
      if (on && !filesHeld) filesHeld = new Promise<void>((resolve) => (releaseFiles = resolve));
      if (!on) {
        filesHeld = undefined;
        releaseFiles();
      }
    },
    fileRequests: () => fileRequests,
    bigFile,
    failStatusAfter: (reads) => {
      statusReadsLeft = reads;
    },
    release: async () => {
      const ids = [...held];
      held.clear();
      const pending = ids.map((id) => jobs.get(id)).filter((job): job is Job => job !== undefined);
      // A few at a time, as a vendor's webhook senders would.
      for (let i = 0; i < pending.length; i += 50) await Promise.all(pending.slice(i, i + 50).map(finish));
    },
    held: () => held.size,
    peakInFlight: () => peak,
    webhooks,
    close: async () => {
      elsewhere.closeAllConnections();
      await new Promise((r) => elsewhere.close(r));
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
