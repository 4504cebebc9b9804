// The OpenAI-compatible door (/v1), driven by the official `openai` client against the running
// service: chat (plain and streamed), images, speech and the model list, charged like the native
// endpoints, and its errors as the client's own error classes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError, RateLimitError } from 'openai';
import sharp from 'sharp';
import { probeMedia } from '../src/lib/ffmpeg.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf } from './media-helpers.ts';

interface TextAnswer {
  generation_id: string;
  text: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  credits_used: number;
}

interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const PROMPT = 'Write a short story about a lighthouse keeper and a lost whale';
// A pricey model, so that a charge is many credits and a difference would show.
const TEXT_MODEL = 'anthropic/claude-opus-4.1';

describe('OpenAI-compatible door', () => {
  let server: TestServer;
  let team: TeamFixture;
  let client: OpenAI;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100_000);
    client = new OpenAI({ apiKey: team.key, baseURL: `${server.url}/v1` });
  });
  after(() => server.close());

  /** The credits a call took from the team. */
  async function charged<T>(run: () => Promise<T>): Promise<{ result: T; credits: number }> {
    const before = await balanceOf(server, team.key);
    const result = await run();
    return { result, credits: before - (await balanceOf(server, team.key)) };
  }

  describe('chat completions', () => {
    test('answers a chat.completion with usage, charged as the native text endpoint charges', async () => {
      const { result: completion, credits } = await charged(() =>
        client.chat.completions.create({
          model: TEXT_MODEL,
          messages: [
            { role: 'system', content: 'You are a storyteller.' },
            { role: 'user', content: PROMPT },
          ],
          max_tokens: 500,
          temperature: 0,
        }),
      );
      assert.equal(completion.object, 'chat.completion');
      assert.match(completion.id, /^chatcmpl-gen_/);
      assert.equal(completion.model, TEXT_MODEL);
      assert.equal(completion.choices.length, 1);
      const choice = completion.choices[0];
      assert.equal(choice?.message.role, 'assistant');
      assert.match(choice?.message.content ?? '', /lost whale/i);
      assert.ok(['stop', 'length'].includes(choice?.finish_reason ?? ''));
      const usage = completion.usage;
      assert.ok(usage && usage.prompt_tokens > 0 && usage.completion_tokens > 0);
      assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);

      const { result: native, credits: nativeCredits } = await charged(() =>
        call<TextAnswer>(server, 'POST', '/api/v1/text/generate', {
          token: team.key,
          body: {
            prompt: PROMPT,
            model: TEXT_MODEL,
            settings: { system_prompt: 'You are a storyteller.', max_tokens: 500, temperature: 0 },
          },
        }),
      );
      assert.equal(native.status, 200, native.text);
      assert.equal(choice?.message.content, native.body.text);
      assert.deepEqual(usage, native.body.usage);
      assert.ok(credits > 1, `charged ${credits}`);
      assert.equal(credits, nativeCredits);
      assert.equal(credits, native.body.credits_used);
    });

    test('a conversation becomes a User:/Assistant: transcript, charged as that prompt is natively', async () => {
      const { result: raw, credits } = await charged(() =>
        client.chat.completions
          .create({
            model: 'gpt-4o-mini',
            messages: [
              { role: 'developer', content: 'Be kind.' },
              { role: 'user', content: [{ type: 'text', text: 'Hi!' }] },
              { role: 'assistant', content: 'Hello! How can I help?' },
              { role: 'user', content: 'What is the capital of France?' },
            ],
            temperature: 0,
          })
          .withResponse(),
      );
      assert.equal(raw.data.model, 'openai/gpt-4o-mini', 'a name without its vendor prefix is taken');
      assert.equal(raw.response.headers.get('x-credits-used'), String(credits));
      const native = await call<TextAnswer>(server, 'POST', '/api/v1/text/generate', {
        token: team.key,
        body: {
          model: 'openai/gpt-4o-mini',
          prompt: 'User: Hi!\n\nAssistant: Hello! How can I help?\n\nUser: What is the capital of France?',
          settings: { system_prompt: 'Be kind.', temperature: 0 },
        },
      });
      assert.equal(native.status, 200, native.text);
      assert.equal(raw.data.choices[0]?.message.content, native.body.text);
      assert.deepEqual(raw.data.usage, native.body.usage);
      assert.equal(credits, native.body.credits_used);
    });

    test('streams chunks with the same content, a finish reason, the usage and [DONE]', async () => {
      const request = {
        model: TEXT_MODEL,
        messages: [{ role: 'user' as const, content: PROMPT }],
        max_completion_tokens: 400,
        temperature: 0,
      };
      const plain = await client.chat.completions.create(request);
      const { result: chunks, credits } = await charged(async () => {
        const stream = await client.chat.completions.create({
          ...request,
          stream: true,
          stream_options: { include_usage: true },
        });
        const out = [];
        for await (const chunk of stream) out.push(chunk);
        return out;
      });
      assert.ok(chunks.length >= 3);
      assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]?.id));
      assert.equal(chunks[0]?.choices[0]?.delta.role, 'assistant');
      const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      assert.equal(content, plain.choices[0]?.message.content);
      const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason).filter(Boolean));
      assert.deepEqual(finishes, [plain.choices[0]?.finish_reason]);
      const last = chunks.at(-1);
      assert.deepEqual(last?.choices, []);
      assert.deepEqual(last?.usage, plain.usage);
      assert.ok(credits > 0);

      // On the wire: Server-Sent Events ending with [DONE].
      const wire = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${team.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, stream: true }),
      });
      assert.equal(wire.status, 200);
      assert.match(wire.headers.get('content-type') ?? '', /^text\/event-stream/);
      const text = await wire.text();
      assert.ok(text.startsWith('data: {'), text.slice(0, 100));
      assert.ok(text.endsWith('data: [DONE]\n\n'));
      assert.ok(!text.includes('"usage"'), 'no usage unless stream_options.include_usage');
    });

    test('an answer cut at max_tokens finishes with length', async () => {
      const completion = await client.chat.completions.create({
        model: TEXT_MODEL,
        messages: [{ role: 'user', content: PROMPT }],
        max_tokens: 5,
      });
      assert.equal(completion.choices[0]?.finish_reason, 'length');
      assert.equal(completion.usage?.completion_tokens, 5);
    });

    test('where the simulator serves the model, refuses what only a vendor can honour, naming the field, and charges nothing', async () => {
      const before = await balanceOf(server, team.key);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, 'tools'],
        [{ response_format: { type: 'json_object' } }, 'response_format'],
        [{ logprobs: true }, 'logprobs'],
        [{ n: 2 }, 'n'],
        [{ n: 9 }, 'n'],
        [{ functions: [{ name: 'f' }] }, 'functions'],
        [{ max_tokens: 100_000 }, 'max_tokens'],
        [{ max_completion_tokens: 100_000 }, 'max_completion_tokens'],
        [{ messages: [{ role: 'system', content: 'Only a system prompt' }] }, 'messages'],
      ];
      for (const [extra, param] of cases) {
        await assert.rejects(
          client.chat.completions.create({
            model: 'openai/gpt-4o-mini',
            messages: [{ role: 'user', content: 'Hi' }],
            ...extra,
          } as OpenAI.ChatCompletionCreateParamsNonStreaming),
          (err: unknown) => {
            assert.ok(err instanceof BadRequestError, `${JSON.stringify(extra)}: ${err}`);
            assert.equal(err.param, param, `${JSON.stringify(extra)}: ${err.message}`);
            assert.equal(err.type, 'invalid_request_error');
            return true;
          },
        );
      }
      assert.equal(await balanceOf(server, team.key), before);
    });

    test('the simulator cuts its text at the first stop sequence', async () => {
      const request = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' as const, content: PROMPT }] };
      const whole = (await client.chat.completions.create(request)).choices[0]?.message.content ?? '';
      const stop = whole.split(' ').slice(3, 5).join(' ');
      const cut = await client.chat.completions.create({ ...request, stop: [stop] });
      assert.equal(cut.choices[0]?.message.content, whole.slice(0, whole.indexOf(stop)));
      assert.equal(cut.choices[0]?.finish_reason, 'stop');
    });

    test('accepts the fields clients send that it does not use', async () => {
      const completion = await client.chat.completions.create({
        model: 'openai/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Hi', name: 'ann' }],
        user: 'user-1',
        seed: 7,
        top_p: 0.9,
        presence_penalty: 0,
        frequency_penalty: 0,
        logit_bias: {},
        logprobs: false,
        n: 1,
        store: false,
        metadata: { a: 'b' },
        response_format: { type: 'text' },
        parallel_tool_calls: false,
        service_tier: 'auto',
      });
      assert.ok(completion.choices[0]?.message.content);
    });
  });

  describe('images', () => {
    test('n=2 answers two URLs of PNG images, charged as the native endpoint charges', async () => {
      const body = { prompt: 'a red bicycle leaning on a wall', model: 'flux-1-dev', n: 2 };
      const { result: images, credits } = await charged(() => client.images.generate(body));
      assert.equal(typeof images.created, 'number');
      assert.equal(images.data?.length, 2);
      for (const image of images.data ?? []) {
        assert.ok(image.url?.startsWith(server.url), image.url);
        const r = await fetch(image.url ?? '');
        assert.equal(r.status, 200);
        const bytes = Buffer.from(await r.arrayBuffer());
        const meta = await sharp(bytes).metadata();
        assert.ok(meta.format === 'png' || meta.format === 'jpeg', meta.format);
        assert.equal(meta.width, meta.height);
      }
      const { result: native, credits: nativeCredits } = await charged(() =>
        call<{ credits_used: number }>(server, 'POST', '/api/v1/images/generate', {
          token: team.key,
          body: { prompt: body.prompt, model: body.model, batch: 2 },
        }),
      );
      assert.equal(native.status, 200, native.text);
      assert.equal(credits, nativeCredits);
      assert.equal(credits, 8);
    });

    test('size chooses the aspect ratio; b64_json answers the bytes', async () => {
      const images = await client.images.generate({
        prompt: 'a wide mountain landscape',
        model: 'dall-e-3',
        size: '1792x1024',
        response_format: 'b64_json',
      });
      assert.equal(images.data?.length, 1);
      const bytes = Buffer.from(images.data?.[0]?.b64_json ?? '', 'base64');
      const meta = await sharp(bytes).metadata();
      assert.ok(meta.width && meta.height);
      assert.ok(Math.abs(meta.width / meta.height - 16 / 9) < 0.03, `${meta.width}x${meta.height}`);
    });

    test('a size no ratio of the model is near, or an unknown model, is a 400 naming the field', async () => {
      await assert.rejects(
        client.images.generate({ prompt: 'x', model: 'gpt-image-1', size: '1792x1024' }),
        (err: unknown) => err instanceof BadRequestError && err.param === 'size' && /1:1/.test(err.message),
      );
      await assert.rejects(
        client.images.generate({ prompt: 'x', model: 'no-such-model' }),
        (err: unknown) => err instanceof BadRequestError && err.code === 'model_not_found' && err.param === 'model',
      );
    });

    test('the same Idempotency-Key answers the same images without a second charge', async () => {
      const body = { prompt: 'a lighthouse at dusk', model: 'flux-1-schnell' };
      const options = { headers: { 'Idempotency-Key': `door-${Date.now()}` } };
      const { result: first, credits } = await charged(() => client.images.generate(body, options));
      const { result: again, credits: more } = await charged(() => client.images.generate(body, options));
      assert.equal(credits, 1);
      assert.equal(more, 0);
      assert.deepEqual(again.data, first.data);
    });
  });

  describe('speech', () => {
    test('answers MP3 bytes for an OpenAI voice, charged as the native endpoint charges', async () => {
      const { result: response, credits } = await charged(() =>
        client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello from the door.' }),
      );
      assert.equal(response.headers.get('content-type'), 'audio/mpeg');
      const bytes = Buffer.from(await response.arrayBuffer());
      const probe = await probeMedia(bytes);
      assert.equal(probe.format, 'mp3');
      assert.ok(probe.hasAudio && probe.durationSeconds > 0.3, JSON.stringify(probe));
      const { result: native, credits: nativeCredits } = await charged(() =>
        call(server, 'POST', '/api/v2/text-to-speech', {
          token: team.key,
          body: { voice_id: 'Wise_Woman', text: 'Hello from the door.' },
        }),
      );
      assert.equal(native.status, 200, native.text);
      assert.equal(credits, nativeCredits);
      assert.equal(credits, 25);
    });

    test('wav, opus and pcm, with a preset id and a speed', async () => {
      const input = 'Testing one two three.';
      const wav = await client.audio.speech.create({
        model: 'gpt-4o-mini-tts',
        voice: 'Deep_Voice_Man',
        input,
        response_format: 'wav',
        speed: 1.2,
      });
      assert.equal(wav.headers.get('content-type'), 'audio/wav');
      const wavBytes = Buffer.from(await wav.arrayBuffer());
      assert.equal(wavBytes.subarray(0, 4).toString('latin1'), 'RIFF');
      assert.equal(wavBytes.subarray(8, 12).toString('latin1'), 'WAVE');
      const wavProbe = await probeMedia(wavBytes);
      assert.ok(wavProbe.hasAudio && wavProbe.durationSeconds > 0.3);

      const opus = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input, response_format: 'opus' });
      const opusProbe = await probeMedia(Buffer.from(await opus.arrayBuffer()));
      assert.equal(opusProbe.audioCodec, 'opus');
      assert.ok(opusProbe.durationSeconds > 0.3);

      const pcm = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input, response_format: 'pcm' });
      const pcmBytes = Buffer.from(await pcm.arrayBuffer());
      assert.equal(pcmBytes.length % 2, 0);
      // 24 kHz 16-bit mono: as long as the WAV of the same speech (at speed 1).
      const plain = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input, response_format: 'wav' });
      const seconds = (await probeMedia(Buffer.from(await plain.arrayBuffer()))).durationSeconds;
      assert.ok(Math.abs(pcmBytes.length / 2 / 24_000 - seconds) < 0.1, `${pcmBytes.length} bytes vs ${seconds} s`);
    });

    test('refuses a speed outside 0.6-1.5, an unknown voice and an unknown model', async () => {
      await assert.rejects(
        client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x', speed: 2 }),
        (err: unknown) => err instanceof BadRequestError && err.param === 'speed' && /0\.6-1\.5/.test(err.message),
      );
      await assert.rejects(
        client.audio.speech.create({ model: 'tts-1', voice: 'no_such_voice', input: 'x' }),
        (err: unknown) => err instanceof BadRequestError && err.param === 'voice',
      );
      await assert.rejects(
        client.audio.speech.create({ model: 'no-tts', voice: 'alloy', input: 'x' }),
        (err: unknown) => err instanceof BadRequestError && err.code === 'model_not_found',
      );
    });
  });

  test('models.list lists the text, image and speech models; retrieve finds one', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      assert.equal(model.object, 'model');
      assert.equal(typeof model.created, 'number');
      assert.ok(model.owned_by);
      ids.push(model.id);
    }
    for (const id of ['openai/gpt-4o-mini', 'flux-1-dev', 'dall-e-3', 'tts-1']) assert.ok(ids.includes(id), id);
    assert.equal((await client.models.retrieve('openai/gpt-4o-mini')).id, 'openai/gpt-4o-mini');
    await assert.rejects(client.models.retrieve('nope'), NotFoundError);
  });

  describe('errors', () => {
    test('a bad key is AuthenticationError (401, invalid_api_key) and charges nothing', async () => {
      const bad = new OpenAI({ apiKey: `gms_${'A'.repeat(40)}`, baseURL: `${server.url}/v1` });
      const calls: Array<() => Promise<unknown>> = [
        () => bad.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
        () => bad.images.generate({ prompt: 'x' }),
        () => bad.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x' }),
        () => bad.models.list(),
      ];
      for (const run of calls) {
        await assert.rejects(run(), (err: unknown) => {
          assert.ok(err instanceof AuthenticationError, String(err));
          assert.equal(err.status, 401);
          assert.equal(err.code, 'invalid_api_key');
          return true;
        });
      }
      const raw = await call<OpenAiErrorBody>(server, 'GET', '/v1/models');
      assert.equal(raw.status, 401);
      assert.deepEqual(Object.keys(raw.body.error).sort(), ['code', 'message', 'param', 'type']);
    });

    test('an unknown model is BadRequestError (model_not_found, param model)', async () => {
      await assert.rejects(
        client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'Hi' }] }),
        (err: unknown) => {
          assert.ok(err instanceof BadRequestError, String(err));
          assert.equal(err.code, 'model_not_found');
          assert.equal(err.param, 'model');
          assert.match(err.message, /openai\/gpt-4o-mini/);
          return true;
        },
      );
    });

    test('too few credits is a 429 insufficient_quota that the client does not retry, and charges nothing', async () => {
      const poor = await createTeam(server, 3);
      let sent = 0;
      const poorClient = new OpenAI({
        apiKey: poor.key,
        baseURL: `${server.url}/v1`,
        fetch: (input, init) => {
          sent += 1;
          return fetch(input, init);
        },
      });
      await assert.rejects(
        poorClient.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello' }),
        (err: unknown) => {
          assert.ok(err instanceof RateLimitError, String(err));
          assert.equal(err.status, 429);
          assert.equal(err.code, 'insufficient_quota');
          assert.equal(err.type, 'insufficient_quota');
          assert.equal(err.headers.get('x-should-retry'), 'false');
          assert.match(err.message, /25/);
          return true;
        },
      );
      assert.equal(sent, 1, 'the client tried again');
      await assert.rejects(poorClient.images.generate({ prompt: 'x', model: 'dall-e-3' }), RateLimitError);
      assert.equal(await balanceOf(server, poor.key), 3);
    });

    test('invalid bodies and unknown paths answer in the OpenAI shape', async () => {
      const invalid = await call<OpenAiErrorBody>(server, 'POST', '/v1/chat/completions', {
        token: team.key,
        body: { model: 'openai/gpt-4o-mini', messages: [] },
      });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.error.type, 'invalid_request_error');
      assert.equal(invalid.body.error.param, 'messages');
      const malformed = await call<OpenAiErrorBody>(server, 'POST', '/v1/images/generations', {
        token: team.key,
        raw: '{"prompt": ',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error.type, 'invalid_request_error');
      const unknown = await call<OpenAiErrorBody>(server, 'GET', '/v1/embeddings', { token: team.key });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'not_found');
    });
  });

  test('the door is in /openapi.json under its own tag', async () => {
    const doc = await call<{ paths: Record<string, Record<string, { tags?: string[]; security?: unknown }>> }>(
      server,
      'GET',
      '/openapi.json',
    );
    for (const [path, method] of [
      ['/v1/chat/completions', 'post'],
      ['/v1/images/generations', 'post'],
      ['/v1/audio/speech', 'post'],
      ['/v1/models', 'get'],
    ] as const) {
      const op = doc.body.paths[path]?.[method];
      assert.ok(op, `${method} ${path}`);
      assert.deepEqual(op.tags, ['OpenAI-compatible']);
      assert.deepEqual(op.security, [{ apiKey: [] }]);
    }
  });
});
