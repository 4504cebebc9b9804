// A fake Suno task API on 127.0.0.1, built from the shapes the third-party API's public docs give:
// `POST /api/v1/generate` answers `{code, msg, data: {taskId}}` (errors as a non-200 `code` in an
// HTTP 200 body: 400, 401, 405, 413, 429 insufficient credits, 430, 455, 500);
// `GET /api/v1/generate/record-info?taskId=` walks PENDING → TEXT_SUCCESS → FIRST_SUCCESS → the end,
// one step a read, with two songs in `response.sunoData[]` (camelCase) or, tagged, `response.data[]`
// (snake_case); `GET /api/v1/generate/credit` answers the balance. Each task posts its callbacks
// (`text`, `first`, `complete`, or `error`) to its `callBackUrl`, but only to loopback addresses:
// tests never reach out. Guessed where the docs say nothing: a wrong key is `code: 401` in an
// HTTP 200 body, and an unknown taskId is `data: null`.
// Tests pick a behaviour with a tag anywhere in the body (the prompt, style or title):
// on submit [suno:400] [suno:405] [suno:413] [suno:429] [suno:430] [suno:455] [suno:500]
// [suno:http-502] (a proxy's HTML page) [suno:malformed] (an HTTP 200 cut short) [suno:cut] (the
// submit is read, then the connection is cut) [suno:no-task] (code 200 without a taskId)
// [suno:hang] (never answered); for how the task ends [suno:snake] (the `response.data[]` shape)
// [suno:create-failed] [suno:audio-failed] (errorCode 501) [suno:copyright] (GENERATE_AUDIO_FAILED,
// errorCode 400, copyrighted lyrics) [suno:sensitive] [suno:callback-exception] (no audio)
// [suno:callback-exception-done] (both songs made) [suno:no-audio] (SUCCESS without audio);
// [suno:poll-455] (record-info answers maintenance); and [suno:no-callback] (the task runs and ends
// as usual, both songs made, but no callback is ever posted: only record-info tells).
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { runFfmpeg } from '../../src/lib/ffmpeg.ts';

export interface FakeSunoSubmission {
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** The task it started, when it started one. */
  taskId?: string;
}

/** A callback the fake posted. */
export interface FakeSunoCallback {
  taskId: string;
  url: string;
  body: string;
  /** The HTTP status the callback was answered with, once answered; undefined until then, or unanswered. */
  status?: number;
}

interface Task {
  id: string;
  body: Record<string, unknown>;
  tag: string | undefined;
  songIds: [string, string];
  reads: number;
}

export interface FakeSuno {
  /** The API base URL (what SUNO_BASE_URL would be). */
  url: string;
  apiKey: string;
  /** The balance `GET /api/v1/generate/credit` answers. */
  credits: number;
  submissions: FakeSunoSubmission[];
  /** Reads of a task's record (`GET /api/v1/generate/record-info`) so far. */
  reads(taskId: string): number;
  /** Callbacks posted, in order. */
  callbacks: FakeSunoCallback[];
  /** A callback body as the API posts it: `complete` with both songs (snake_case, or camelCase). */
  callbackBody(taskId: string, type: 'text' | 'first' | 'complete' | 'error', camel?: boolean): string;
  close(): Promise<void>;
}

const TAG = /\[suno:([a-z0-9-]+)\]/;
const DURATIONS = [198.44, 228.28] as const;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

// What the API says for each error code of a submit (its docs' wording).
const SUBMIT_ERRORS: Record<string, string> = {
  '400': 'Please enter a valid prompt',
  '405': 'Rate limit exceeded',
  '413': 'Theme or prompt too long',
  '429': 'Insufficient credits',
  '430': 'Your call frequency is too high. Please try again later.',
  '455': 'System maintenance',
  '500': 'Server error',
};

/** Starts the fake; `apiKey` is the key it accepts. */
export async function startFakeSuno(apiKey = 'suno_fake_key'): Promise<FakeSuno> {
  // The songs' files (served without the API key, as the vendor's CDN does): one second of tone.
  const mp3 = await runFfmpeg([
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=1',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '64k',
    '-f',
    'mp3',
    'pipe:1',
  ]);
  const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#884422' } })
    .jpeg()
    .toBuffer();
  const tasks = new Map<string, Task>();
  const submissions: FakeSunoSubmission[] = [];
  const callbacks: FakeSunoCallback[] = [];
  let base = '';

  const song = (task: Task, n: 0 | 1, stage: 'text' | 'first' | 'done', camel: boolean) => {
    const id = task.songIds[n];
    const streamed = stage === 'done' || (stage === 'first' && n === 0);
    const lyrics = typeof task.body.prompt === 'string' ? task.body.prompt : '[Verse] Night city lights shining bright';
    const fields = {
      id,
      audio: stage === 'done' ? `${base}/files/${task.id}/${id}.mp3` : '',
      stream: streamed ? `${base}/stream/${id}` : '',
      image: streamed ? `${base}/files/${task.id}/${id}.jpeg` : '',
      model: `chirp-${String(task.body.model ?? 'V4_5').toLowerCase()}`,
      title: typeof task.body.title === 'string' ? task.body.title : 'Night City',
      tags: typeof task.body.style === 'string' ? task.body.style : 'electrifying, rock',
      duration: stage === 'done' ? DURATIONS[n] : null,
    };
    return camel
      ? {
          id,
          audioUrl: fields.audio,
          streamAudioUrl: fields.stream,
          imageUrl: fields.image,
          prompt: lyrics,
          modelName: fields.model,
          title: fields.title,
          tags: fields.tags,
          createTime: '2025-01-01 00:00:00',
          duration: fields.duration,
        }
      : {
          id,
          audio_url: fields.audio,
          source_audio_url: fields.audio,
          stream_audio_url: fields.stream,
          source_stream_audio_url: fields.stream,
          image_url: fields.image,
          source_image_url: fields.image,
          prompt: lyrics,
          model_name: fields.model,
          title: fields.title,
          tags: fields.tags,
          createTime: '2025-01-01 00:00:00',
          duration: fields.duration,
        };
  };

  /** How the task ends: its status, whether its songs have audio, and its error. */
  const ending = (task: Task) => {
    switch (task.tag) {
      case 'create-failed':
        return { status: 'CREATE_TASK_FAILED', audio: false, code: null, message: 'Failed to create the task' };
      case 'audio-failed':
        return { status: 'GENERATE_AUDIO_FAILED', audio: false, code: 501, message: 'Audio generation failed' };
      case 'copyright':
        return {
          status: 'GENERATE_AUDIO_FAILED',
          audio: false,
          code: 400,
          message: 'Lyrics contained copyrighted material',
        };
      case 'sensitive':
        return { status: 'SENSITIVE_WORD_ERROR', audio: false, code: null, message: 'Contains prohibited words' };
      case 'callback-exception':
        return { status: 'CALLBACK_EXCEPTION', audio: false, code: null, message: 'Callback failed' };
      case 'callback-exception-done':
        return { status: 'CALLBACK_EXCEPTION', audio: true, code: null, message: 'Callback failed' };
      case 'no-audio':
        return { status: 'SUCCESS', audio: false, code: null, message: null };
      default:
        return { status: 'SUCCESS', audio: true, code: null, message: null };
    }
  };

  /** The record as record-info shows it after `reads` reads. */
  const record = (task: Task): Record<string, unknown> => {
    const end = ending(task);
    const status =
      task.reads <= 1 ? 'PENDING' : task.reads === 2 ? 'TEXT_SUCCESS' : task.reads === 3 ? 'FIRST_SUCCESS' : end.status;
    const ended = status === end.status;
    const camel = task.tag !== 'snake';
    // Songs ended without audio are still listed (audio URLs empty) where the task got that far.
    const stage = status === 'TEXT_SUCCESS' ? 'text' : ended && end.audio ? 'done' : 'first';
    const listed =
      status === 'PENDING' || (ended && !end.audio && status !== 'SUCCESS' && status !== 'CALLBACK_EXCEPTION')
        ? null
        : ([0, 1] as const).map((n) => song(task, n, stage, camel));
    return {
      taskId: task.id,
      parentMusicId: '',
      param: JSON.stringify(task.body),
      response:
        listed === null ? null : camel ? { taskId: task.id, sunoData: listed } : { taskId: task.id, data: listed },
      status,
      type: 'GENERATE',
      errorCode: ended ? end.code : null,
      errorMessage: ended ? end.message : null,
    };
  };

  const callbackBody = (taskId: string, type: 'text' | 'first' | 'complete' | 'error', camel = false): string => {
    const task = tasks.get(taskId);
    if (!task) throw new Error(`no task ${taskId}`);
    if (type === 'error') {
      const end = ending(task);
      return JSON.stringify({
        code: end.code ?? 500,
        msg: end.message ?? 'Music generation failed',
        data: { callbackType: 'error', task_id: taskId, data: null },
      });
    }
    const stage = type === 'complete' ? 'done' : type;
    const messages = { text: 'Text generation completed.', first: 'First generated successfully.', done: '' };
    return JSON.stringify({
      code: 200,
      msg: type === 'complete' ? 'All generated successfully.' : messages[stage],
      data: {
        callbackType: type,
        task_id: taskId,
        data: ([0, 1] as const).map((n) => song(task, n, stage, camel)),
      },
    });
  };

  /** Posts the task's callbacks in order, as the API does when it can reach the URL. */
  const sendCallbacks = async (task: Task): Promise<void> => {
    const url = task.body.callBackUrl;
    if (task.tag === 'no-callback' || typeof url !== 'string' || !isLoopback(url)) return;
    const failed = !ending(task).audio;
    const types = failed ? (['text', 'error'] as const) : (['text', 'first', 'complete'] as const);
    for (const type of types) {
      // A song takes minutes; here a fifth of a second a stage, still after the submit is answered.
      await new Promise((r) => setTimeout(r, 200));
      const callback: FakeSunoCallback = { taskId: task.id, url, body: callbackBody(task.id, type) };
      callbacks.push(callback);
      callback.status = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: callback.body,
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => undefined,
      );
    }
  };

  const generate = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      json(res, { code: 400, msg: 'Invalid JSON', data: null });
      return;
    }
    const submission: FakeSunoSubmission = { body, headers: req.headers };
    submissions.push(submission);
    const tag = TAG.exec(JSON.stringify(body))?.[1];
    const said = tag ? SUBMIT_ERRORS[tag] : undefined;
    if (tag && said) {
      json(res, { code: Number(tag), msg: said, data: null });
      return;
    }
    switch (tag) {
      case 'http-502':
        res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"code": 200, "data": {"taskId": ');
        return;
      case 'cut':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'no-task':
        json(res, { code: 200, msg: 'success', data: {} });
        return;
    }
    for (const field of ['customMode', 'instrumental', 'model', 'callBackUrl']) {
      if (body[field] === undefined) {
        json(res, { code: 400, msg: `${field} is required`, data: null });
        return;
      }
    }
    const task: Task = {
      id: randomBytes(16).toString('hex'),
      body,
      tag,
      songIds: [randomUUID(), randomUUID()],
      reads: 0,
    };
    tasks.set(task.id, task);
    submission.taskId = task.id;
    json(res, { code: 200, msg: 'success', data: { taskId: task.id } });
    void sendCallbacks(task);
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
        const file = url.pathname.endsWith('.mp3')
          ? { type: 'audio/mpeg', data: mp3 }
          : { type: 'image/jpeg', data: jpeg };
        res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.data.length) }).end(file.data);
        return;
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        json(res, { code: 401, msg: 'You do not have access permissions', data: null });
        return;
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/generate') {
        await generate(req, res);
      } else if (req.method === 'GET' && url.pathname === '/api/v1/generate/record-info') {
        const task = tasks.get(url.searchParams.get('taskId') ?? '');
        if (!task) {
          json(res, { code: 200, msg: 'success', data: null });
          return;
        }
        if (task.tag === 'poll-455') {
          json(res, { code: 455, msg: 'System maintenance', data: null });
          return;
        }
        task.reads += 1;
        json(res, { code: 200, msg: 'success', data: record(task) });
      } else if (req.method === 'GET' && url.pathname === '/api/v1/generate/credit') {
        json(res, { code: 200, msg: 'success', data: fake.credits });
      } else {
        json(res, { code: 404, msg: 'Invalid request method or path', data: null }, 404);
      }
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, { code: 500, msg: String(err), data: null }, 500);
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeSuno = {
    url: base,
    apiKey,
    credits: 100,
    submissions,
    reads: (taskId) => tasks.get(taskId)?.reads ?? 0,
    callbacks,
    callbackBody,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return fake;
}
