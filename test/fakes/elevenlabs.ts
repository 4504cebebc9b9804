// A fake ElevenLabs API on 127.0.0.1, built from its public shapes: `POST /v1/text-to-speech/{voice_id}
// ?output_format=` answering audio bytes (a real MP3 made once with ffmpeg, raw s16le PCM, or PCM in a
// RIFF header for wav_*) with `x-character-count` and `request-id` headers; `POST /v1/voices/add`
// (multipart: name, files repeated, description, remove_background_noise) → `{voice_id,
// requires_verification}`; `POST /v1/text-to-voice/design` → two previews (base64 MP3); `POST
// /v1/text-to-voice` → `{voice_id}`; `GET /v1/user`. Every route requires the `xi-api-key` header.
// Errors are `{detail: {status, message}}` (422: `{detail: [{loc, msg, type}]}`), picked by a tag in
// the text, name or description: [el:quota] (a 401, as ElevenLabs sends it) [el:invalid-key]
// [el:voice-not-found] [el:too-long] [el:429] (too_many_concurrent_requests, Retry-After 2) [el:busy]
// (system_busy) [el:422] [el:500] [el:raw-wav] (PCM bytes without a header for a wav format).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runFfmpeg } from '../../src/lib/ffmpeg.ts';
import { wavFromPcm } from '../../src/lib/wav.ts';

export interface FakeElevenLabsCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The JSON body, when it was JSON. */
  body: Record<string, unknown> | undefined;
}

/** A multipart clone as the fake received it. */
export interface FakeClone {
  fields: Record<string, string>;
  files: Array<{ fileName: string; contentType: string; data: Buffer }>;
  voiceId: string;
}

export interface FakeElevenLabs {
  url: string;
  apiKey: string;
  calls: FakeElevenLabsCall[];
  clones: FakeClone[];
  /** The MP3 every TTS call and preview answers with. */
  mp3: Buffer;
  close(): Promise<void>;
}

const TAG = /\[el:([a-z0-9-]+)\]/;

let sampleMp3: Promise<Buffer> | undefined;

/** One second of a 440 Hz tone as MP3 (made once per process). */
export function toneMp3(): Promise<Buffer> {
  sampleMp3 ??= runFfmpeg(
    [
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=1:sample_rate=44100',
      '-ac',
      '1',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '128k',
      '-f',
      'mp3',
      'pipe:1',
    ],
    { what: 'test tone encoding' },
  );
  return sampleMp3;
}

/** Half a second of a 440 Hz tone as s16le mono PCM at `rate`. */
export function tonePcm(rate: number): Buffer {
  const samples = Math.round(rate / 2);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  return pcm;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function detail(res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>) {
  json(res, status, { detail: { status: code, message } }, headers);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Answers the error a tag asks for; false when there is none. */
function taggedError(res: ServerResponse, text: string, voiceId = 'voice'): boolean {
  switch (TAG.exec(text)?.[1]) {
    case 'quota':
      detail(
        res,
        401,
        'quota_exceeded',
        'This request exceeds your quota of 10000. You have 0 credits remaining, while 91 credits are required for this request.',
      );
      return true;
    case 'invalid-key':
      detail(res, 401, 'invalid_api_key', 'Invalid API key');
      return true;
    case 'voice-not-found':
      detail(res, 404, 'voice_not_found', `A voice with voice_id ${voiceId} was not found.`);
      return true;
    case 'too-long':
      detail(res, 400, 'max_character_limit_exceeded', 'Text is too long. Maximum 10000 characters per request.');
      return true;
    case '429':
      detail(res, 429, 'too_many_concurrent_requests', 'Too many concurrent requests for your plan.', {
        'retry-after': '2',
      });
      return true;
    case 'busy':
      detail(res, 429, 'system_busy', 'We are experiencing heavy traffic, please try again later.');
      return true;
    case '422':
      json(res, 422, {
        detail: [
          {
            loc: ['body', 'voice_settings', 'speed'],
            msg: 'Input should be less than or equal to 1.2',
            type: 'less_than_equal',
          },
        ],
      });
      return true;
    case '500':
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      return true;
  }
  return false;
}

/** Starts the fake; it requires `apiKey` in `xi-api-key`. */
export async function startFakeElevenLabs(apiKey = 'xi-test-key'): Promise<FakeElevenLabs> {
  const mp3 = await toneMp3();
  const calls: FakeElevenLabsCall[] = [];
  const clones: FakeClone[] = [];
  const id = () => randomBytes(10).toString('hex');

  const speak = (res: ServerResponse, voiceId: string, format: string, body: Record<string, unknown>) => {
    const text = typeof body.text === 'string' ? body.text : '';
    if (taggedError(res, text, voiceId)) return;
    const [codec, rate] = format.split('_');
    const headers = { 'x-character-count': String(text.length), 'request-id': `req_${id()}` };
    if (codec === 'mp3') {
      res.writeHead(200, { 'content-type': 'audio/mpeg', ...headers }).end(mp3);
    } else if (codec === 'pcm' || codec === 'wav') {
      const pcm = tonePcm(Number(rate));
      const raw = codec === 'pcm' || TAG.exec(text)?.[1] === 'raw-wav';
      res
        .writeHead(200, { 'content-type': raw ? 'audio/pcm' : 'audio/wav', ...headers })
        .end(raw ? pcm : wavFromPcm(pcm, Number(rate)));
    } else {
      json(res, 422, { detail: [{ loc: ['query', 'output_format'], msg: `Unsupported ${format}`, type: 'enum' }] });
    }
  };

  const clone = async (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    const form = await new Response(Uint8Array.from(raw), {
      headers: { 'content-type': String(req.headers['content-type']) },
    }).formData();
    const fields: Record<string, string> = {};
    const files: FakeClone['files'] = [];
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') fields[key] = value;
      else if (key === 'files') {
        files.push({ fileName: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
    }
    if (taggedError(res, `${fields.name ?? ''} ${fields.description ?? ''}`)) return;
    if (!fields.name || files.length === 0) {
      json(res, 422, {
        detail: [{ loc: ['body', fields.name ? 'files' : 'name'], msg: 'Field required', type: 'missing' }],
      });
      return;
    }
    const voiceId = `clone_${id()}`;
    clones.push({ fields, files, voiceId });
    json(res, 200, { voice_id: voiceId, requires_verification: false });
  };

  const design = (res: ServerResponse, body: Record<string, unknown>) => {
    const description = typeof body.voice_description === 'string' ? body.voice_description : '';
    if (taggedError(res, description)) return;
    const text =
      typeof body.text === 'string' ? body.text : 'A text written for the description, long enough to hear the voice.';
    json(res, 200, {
      previews: [1, 2].map(() => ({
        audio_base_64: mp3.toString('base64'),
        generated_voice_id: `gen_${id()}`,
        media_type: 'audio/mpeg',
        duration_secs: 1.03,
        language: 'en',
      })),
      text,
    });
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = await readBody(req);
      const isJson = String(req.headers['content-type'] ?? '').startsWith('application/json');
      let body: Record<string, unknown> | undefined;
      if (isJson) {
        try {
          body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        } catch {
          json(res, 400, { detail: { status: 'invalid_json', message: 'The body is not JSON' } });
          return;
        }
      }
      calls.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
      });
      if (req.headers['xi-api-key'] !== apiKey) {
        detail(res, 401, 'invalid_api_key', 'Invalid API key');
        return;
      }
      const tts = /^\/v1\/text-to-speech\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'POST' && tts?.[1] && body) {
        speak(res, decodeURIComponent(tts[1]), url.searchParams.get('output_format') ?? 'mp3_44100_128', body);
      } else if (req.method === 'POST' && url.pathname === '/v1/voices/add') {
        await clone(req, res, raw);
      } else if (req.method === 'POST' && url.pathname === '/v1/text-to-voice/design' && body) {
        design(res, body);
      } else if (req.method === 'POST' && url.pathname === '/v1/text-to-voice' && body) {
        const name = typeof body.voice_name === 'string' ? body.voice_name : '';
        if (taggedError(res, name)) return;
        json(res, 200, { voice_id: `designed_${id()}`, name, category: 'generated' });
      } else if (req.method === 'GET' && url.pathname === '/v1/user') {
        json(res, 200, {
          user_id: 'user_fake',
          subscription: { tier: 'pro', character_count: 120, character_limit: 500000 },
        });
      } else {
        json(res, 404, { detail: 'Not Found' });
      }
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { detail: String(err) });
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey,
    calls,
    clones,
    mp3,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
