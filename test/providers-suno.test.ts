// The Suno adapter against a fake Suno task API (test/fakes/suno.ts) built from the
// API's public shapes: how a song request becomes a task, what the adapter sends, how it reads every
// answer and record, which callbacks it believes, and its credit check.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WorkError } from '../src/lib/errors.ts';
import { checkSuno, createSunoProvider, type SunoSettings, sunoCodeError } from '../src/providers/suno/client.ts';
import { generateInput, type MusicRequest, sunoMapping, titleFrom } from '../src/providers/suno/mappings.ts';
import {
  type OutputFile,
  type PollResult,
  type Provider,
  type ProviderError,
  type ProviderOutput,
  type SubmitResult,
  type VendorHandle,
  type WebhookEvent,
  WebhookRejectedError,
} from '../src/providers/types.ts';
import { type FakeSuno, startFakeSuno } from './fakes/suno.ts';
import { closedPort, failure } from './provider-helpers.ts';

const SECRET = 'suno-callback-secret-for-tests';
// Never posted to: the fake posts callbacks to loopback addresses only.
const FALLBACK = 'https://callbacks.example.invalid/suno';

function accepted(result: SubmitResult): Extract<SubmitResult, { kind: 'accepted' }> {
  assert.equal(result.kind, 'accepted', JSON.stringify(result));
  return result as Extract<SubmitResult, { kind: 'accepted' }>;
}

function doneOutput(result: PollResult): ProviderOutput {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return (result as Extract<PollResult, { kind: 'done' }>).output;
}

function failedError(result: PollResult): ProviderError {
  assert.equal(result.kind, 'failed', JSON.stringify(result));
  return (result as Extract<PollResult, { kind: 'failed' }>).error;
}

function urlOf(file: OutputFile | undefined): string | undefined {
  return file && 'url' in file ? file.url : undefined;
}

function song(fields: Partial<MusicRequest> = {}): MusicRequest {
  return {
    kind: 'music',
    prompt: 'a song about night drives through a neon city',
    lyrics: null,
    style: null,
    title: null,
    instrumental: false,
    vocalGender: null,
    ...fields,
  };
}

/** The invalid_input refusal of a mapping. */
function refusal(request: MusicRequest, model = 'V4_5PLUS'): ProviderError {
  try {
    generateInput(request, model);
  } catch (err) {
    assert.ok(err instanceof WorkError, String(err));
    assert.equal(err.kind, 'invalid_input');
    assert.equal(err.retryable, false);
    return err;
  }
  assert.fail(`expected a refusal of ${JSON.stringify(request)}`);
}

/** The query a callback URL carries, as the service passes it to the adapter. */
function queryHeaders(url: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-callback-query': new URL(url).search.slice(1) };
}

describe('Suno song mapping', () => {
  test('a description alone is non-custom mode: Suno writes the lyrics and names the song', () => {
    assert.deepEqual(generateInput(song(), 'V4_5'), {
      customMode: false,
      instrumental: false,
      prompt: 'a song about night drives through a neon city',
    });
    assert.deepEqual(generateInput(song({ instrumental: true, prompt: '  calm piano  ' }), 'V4'), {
      customMode: false,
      instrumental: true,
      prompt: 'calm piano',
    });
  });

  test('lyrics and a style are custom mode: the lyrics are sung as given, with the style, title and voice', () => {
    const lyrics = '[Verse]\nNeon on the wet road\n[Chorus]\nDrive, drive';
    assert.deepEqual(
      generateInput(song({ lyrics, style: 'synthwave, 80s', title: 'Neon Drive', vocalGender: 'female' }), 'V5'),
      {
        customMode: true,
        instrumental: false,
        prompt: lyrics,
        style: 'synthwave, 80s',
        title: 'Neon Drive',
        vocalGender: 'f',
      },
    );
    assert.equal(generateInput(song({ lyrics, style: 'rock', vocalGender: 'male' }), 'V5').vocalGender, 'm');
  });

  test('a style alone makes an instrumental in custom mode, titled from the description', () => {
    assert.deepEqual(generateInput(song({ style: 'lo-fi hip hop', instrumental: true }), 'V4_5PLUS'), {
      customMode: true,
      instrumental: true,
      style: 'lo-fi hip hop',
      title: 'a song about night drives through a neon city',
    });
  });

  test('a missing title is made from the description, else the first lyric line, cut at a word', () => {
    const lyrics = '[Intro]\n\n  Streetlights   hum tonight  \nmore';
    assert.equal(generateInput(song({ prompt: '', lyrics, style: 'pop' }), 'V5').title, 'Streetlights hum tonight');
    const long = `${'word '.repeat(30)}end`;
    const title = titleFrom(long);
    assert.ok(title !== null && [...title].length <= 80, String(title));
    assert.match(title ?? '', /^word( word)*$/, 'cut at a word boundary');
    assert.equal(titleFrom('A title.\nsecond line'), 'A title');
    assert.equal(titleFrom('[Verse]\n(Chorus)'), null);
  });

  test('what custom mode lacks or cannot take is refused, never dropped', () => {
    assert.match(refusal(song({ lyrics: 'la la la' })).message, /needs a style/);
    assert.match(refusal(song({ style: 'jazz' })).message, /needs lyrics/);
    assert.match(refusal(song({ lyrics: 'la', style: 'jazz', instrumental: true })).message, /no lyrics/);
    assert.match(refusal(song({ style: 'jazz', instrumental: true, vocalGender: 'male' })).message, /no vocals/);
    assert.match(refusal(song({ title: 'Named' })).message, /title only with lyrics or a style/);
    assert.match(refusal(song({ vocalGender: 'female' })).message, /vocal gender only with lyrics or a style/);
    assert.match(refusal(song({ prompt: '  ' })).message, /needs a description/);
    assert.match(refusal(song({ prompt: '', style: 'jazz', instrumental: true })).message, /needs a title/);
    // Blank texts count as absent.
    assert.equal(generateInput(song({ lyrics: ' ', style: '', title: '' }), 'V5').customMode, false);
  });

  test('texts over the model’s limits are refused, by model', () => {
    const lyrics = 'x'.repeat(3001);
    assert.match(
      refusal(song({ lyrics, style: 'pop' }), 'V4').message,
      /V4 takes lyrics of at most 3000 characters \(3001/,
    );
    assert.equal(generateInput(song({ lyrics, style: 'pop' }), 'V5').prompt, lyrics);
    assert.match(refusal(song({ lyrics: 'x'.repeat(5001), style: 'pop' }), 'V5').message, /5000/);
    assert.match(refusal(song({ style: 's'.repeat(201), instrumental: true }), 'V4').message, /style of at most 200/);
    assert.equal(generateInput(song({ style: 's'.repeat(1000), instrumental: true }), 'V4_5').style?.length, 1000);
    assert.match(refusal(song({ prompt: 'd'.repeat(501) }), 'V5').message, /description of at most 500/);
    assert.equal(generateInput(song({ prompt: '🎵'.repeat(500) }), 'V5').customMode, false, 'emoji count once');
    const style = 'rock';
    assert.match(
      refusal(song({ style, instrumental: true, title: 't'.repeat(81) }), 'V4').message,
      /title of at most 80/,
    );
    assert.equal(generateInput(song({ style, instrumental: true, title: 't'.repeat(100) }), 'V5').title?.length, 100);
    assert.match(refusal(song({ style, instrumental: true, title: 't'.repeat(101) }), 'V5').message, /at most 100/);
    assert.match(refusal(song({ style, instrumental: true, title: 't'.repeat(81) }), 'V4_5ALL').message, /at most 80/);
  });

  test('the route mapping reads music requests only', () => {
    const mapping = sunoMapping('V4_5PLUS');
    assert.deepEqual(mapping(song()), generateInput(song(), 'V4_5PLUS'));
    const image = {
      kind: 'image' as const,
      prompt: 'x',
      negativePrompt: null,
      size: null,
      aspectRatio: '1:1',
      steps: 4,
      seed: 1,
      references: [],
      lora: null,
    };
    assert.throws(
      () => mapping(image),
      (err: unknown) => err instanceof WorkError && err.kind === 'internal',
    );
  });
});

describe('the Suno adapter', () => {
  let suno: FakeSuno;
  let provider: Provider;
  let settings: SunoSettings;

  before(async () => {
    suno = await startFakeSuno();
    settings = {
      apiKey: suno.apiKey,
      baseUrl: `${suno.url}/`,
      fetch,
      callbackToken: SECRET,
      fallbackCallbackUrl: FALLBACK,
    };
    provider = createSunoProvider(settings);
  });
  after(() => suno.close());

  const submit = (prompt: string, endpoint = 'V4_5', webhookUrl?: string) =>
    provider.submit({
      endpoint,
      input: generateInput(song({ prompt }), endpoint),
      idempotencyKey: 'item_1:1',
      ...(webhookUrl ? { webhookUrl } : {}),
    });

  /** Polls until the task leaves its pending stages. */
  const settle = async (handle: VendorHandle): Promise<PollResult> => {
    for (let i = 0; i < 10; i++) {
      const result = await provider.poll(handle);
      if (result.kind !== 'pending') return result;
    }
    assert.fail('the task never ended');
  };

  test('a description goes to /api/v1/generate with the key, the model and a tokened callback URL', async () => {
    const webhookUrl = 'https://api.example.com/webhooks/providers/suno/item_1?source=vendor';
    const result = accepted(await submit('a song about night drives', 'V4_5', webhookUrl));
    const sent = suno.submissions.at(-1);
    assert.ok(sent);
    assert.equal(sent.headers.authorization, `Bearer ${suno.apiKey}`);
    assert.equal(sent.headers['content-type'], 'application/json');
    const { callBackUrl, ...rest } = sent.body;
    assert.deepEqual(rest, {
      customMode: false,
      instrumental: false,
      prompt: 'a song about night drives',
      model: 'V4_5',
    });
    assert.equal(typeof callBackUrl, 'string');
    const callback = new URL(String(callBackUrl));
    assert.equal(`${callback.origin}${callback.pathname}`, 'https://api.example.com/webhooks/providers/suno/item_1');
    assert.equal(callback.searchParams.get('source'), 'vendor', 'the webhook URL’s own query is kept');
    assert.equal(callback.searchParams.get('key'), 'item_1:1');
    const token = callback.searchParams.get('token') ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{43}$/, 'a base64url HMAC-SHA256');
    assert.ok(!String(callBackUrl).includes(SECRET), 'the secret itself never leaves');
    assert.equal(result.vendorRequestId, result.handle.task_id);
    assert.deepEqual(result.handle, { task_id: result.vendorRequestId });
    assert.equal(provider.idempotentSubmit, false, 'the API takes no idempotency key');
    assert.equal(provider.cancel, undefined, 'the API has no cancel');
  });

  test('custom mode sends the lyrics as prompt with style, title and vocal gender; the route’s model wins', async () => {
    const lyrics = '[Verse]\nNeon on the wet road';
    const input = generateInput(song({ lyrics, style: 'synthwave', title: 'Neon', vocalGender: 'female' }), 'V5');
    accepted(
      await provider.submit({
        endpoint: 'V5',
        input: { ...input, model: 'V3_5', callBackUrl: 'https://elsewhere.example/' },
        idempotencyKey: 'item_2:1',
        webhookUrl: 'https://api.example.com/webhooks/providers/suno/item_2',
      }),
    );
    const sent = suno.submissions.at(-1);
    const { callBackUrl, ...rest } = sent?.body ?? {};
    assert.deepEqual(rest, {
      customMode: true,
      instrumental: false,
      prompt: lyrics,
      style: 'synthwave',
      title: 'Neon',
      vocalGender: 'f',
      model: 'V5',
    });
    assert.match(
      String(callBackUrl),
      /^https:\/\/api\.example\.com\/webhooks\/providers\/suno\/item_2\?key=item_2%3A1&token=/,
    );
  });

  test('without a webhook the placeholder callback URL goes as it is, and the task is polled', async () => {
    const { handle } = accepted(await submit('no webhook'));
    assert.equal(suno.submissions.at(-1)?.body.callBackUrl, FALLBACK);
    assert.equal(doneOutput(await settle(handle)).files.length, 2);
  });

  test('without a webhook or a placeholder nothing is sent: another route may serve', async () => {
    const bare = createSunoProvider({ ...settings, fallbackCallbackUrl: undefined });
    const before = suno.submissions.length;
    const err = await failure(() =>
      bare.submit({ endpoint: 'V5', input: generateInput(song(), 'V5'), idempotencyKey: 'i' }),
    );
    assert.equal(err.kind, 'internal');
    assert.equal(err.failover, true);
    assert.match(err.message, /fallback callback URL/);
    assert.equal(suno.submissions.length, before);
  });

  test('an endpoint that is not a model, or a webhook URL with our parameters, is refused before sending', async () => {
    const before = suno.submissions.length;
    const model = await failure(() => submit('x', 'suno-v5'));
    assert.equal(model.kind, 'internal');
    assert.equal(model.retryable, false);
    const clash = await failure(() => submit('x', 'V5', 'https://api.example.com/hook?token=mine'));
    assert.equal(clash.kind, 'internal');
    assert.match(clash.message, /already has a key or token/);
    assert.equal(suno.submissions.length, before);
  });

  test('polls PENDING, TEXT_SUCCESS and FIRST_SUCCESS as progress, then both songs of SUCCESS', async () => {
    const { handle } = accepted(await submit('a red fox'));
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', progress: 0, pollAfterMs: 10_000 });
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', progress: 1 / 3, pollAfterMs: 10_000 });
    assert.deepEqual(await provider.poll(handle), { kind: 'pending', progress: 2 / 3, pollAfterMs: 10_000 });
    const output = doneOutput(await provider.poll(handle));
    const task = String(handle.task_id);
    assert.equal(output.files.length, 2);
    const [first, second] = output.files;
    assert.match(urlOf(first) ?? '', new RegExp(`^${suno.url}/files/${task}/[0-9a-f-]{36}\\.mp3$`));
    assert.ok(first && 'url' in first && first.contentType === 'audio/mpeg' && first.fileName?.endsWith('.mp3'));
    assert.notEqual(urlOf(first), urlOf(second));
    assert.equal(output.metadata.task_id, task);
    const songs = output.metadata.songs as Array<Record<string, unknown>>;
    assert.equal(songs.length, 2);
    assert.deepEqual(Object.keys(songs[0] ?? {}).sort(), [
      'duration',
      'id',
      'image_url',
      'lyrics',
      'model_name',
      'stream_audio_url',
      'tags',
      'title',
    ]);
    assert.equal(songs[0]?.duration, 198.44);
    assert.equal(songs[1]?.duration, 228.28);
    assert.ok(String(urlOf(first)).includes(String(songs[0]?.id)), 'files and songs are in the same order');
    assert.equal(suno.reads(task), 4);
  });

  test('a record in the response.data[] snake_case shape gives the same files and songs', async () => {
    const { handle } = accepted(await submit('shape [suno:snake]'));
    const output = doneOutput(await settle(handle));
    assert.equal(output.files.length, 2);
    assert.match(urlOf(output.files[0]) ?? '', /\.mp3$/);
    const songs = output.metadata.songs as Array<Record<string, unknown>>;
    assert.equal(songs[0]?.duration, 198.44);
    assert.match(String(songs[0]?.image_url), /\.jpeg$/);
    assert.match(String(songs[1]?.stream_audio_url), /\/stream\//);
  });

  test('each failure status fails the task as it should', async () => {
    const ended = async (tag: string) => settle(accepted(await submit(`x [suno:${tag}]`)).handle);

    const created = failedError(await ended('create-failed'));
    assert.equal(created.kind, 'unavailable');
    assert.equal(created.retryable, true);
    assert.equal(created.vendorCode, 'CREATE_TASK_FAILED');

    const audio = failedError(await ended('audio-failed'));
    assert.equal(audio.kind, 'unavailable');
    assert.equal(audio.retryable, true);
    assert.equal(audio.vendorCode, 'GENERATE_AUDIO_FAILED/501');
    assert.match(audio.message, /Audio generation failed/);

    const copyright = failedError(await ended('copyright'));
    assert.equal(copyright.kind, 'content_policy');
    assert.equal(copyright.retryable, false);
    assert.equal(copyright.failover, false);

    const sensitive = failedError(await ended('sensitive'));
    assert.equal(sensitive.kind, 'content_policy');
    assert.equal(sensitive.retryable, false);
    assert.equal(sensitive.vendorCode, 'SENSITIVE_WORD_ERROR');

    const callback = failedError(await ended('callback-exception'));
    assert.equal(callback.kind, 'unavailable');
    assert.equal(callback.retryable, true);
    assert.equal(callback.vendorCode, 'CALLBACK_EXCEPTION');

    const empty = failedError(await ended('no-audio'));
    assert.equal(empty.kind, 'internal');
    assert.equal(empty.retryable, false);
    assert.match(empty.message, /without any audio/);
  });

  test('CALLBACK_EXCEPTION with both songs made is done: only the delivery to the callback URL failed', async () => {
    const { handle } = accepted(await submit('made [suno:callback-exception-done]'));
    assert.equal(doneOutput(await settle(handle)).files.length, 2);
  });

  test('each error code of a submit maps to its kind', async () => {
    const cases: Array<[string, string, boolean, number | undefined]> = [
      ['400', 'invalid_input', false, undefined],
      ['405', 'rate_limited', true, 10_000],
      ['413', 'invalid_input', false, undefined],
      ['429', 'quota', false, undefined],
      ['430', 'rate_limited', true, 10_000],
      ['455', 'unavailable', true, undefined],
      ['500', 'unavailable', true, undefined],
    ];
    for (const [code, kind, retryable, wait] of cases) {
      const err = await failure(() => submit(`x [suno:${code}]`));
      assert.equal(err.kind, kind, code);
      assert.equal(err.retryable, retryable, code);
      assert.equal(err.vendorCode, code);
      assert.equal(err.retryAfterMs, wait, code);
      assert.equal(err.maybeAccepted, false, `${code}: the API said no task was made`);
      assert.match(err.message, new RegExp(`\\(code ${code}\\)`));
    }
    const quota = await failure(() => submit('x [suno:429]'));
    assert.equal(quota.failover, true, 'another route may have credit');
    assert.match(quota.message, /Insufficient credits/);
  });

  test('a wrong key is auth, another route may serve; the key is never in the message', async () => {
    const wrong = createSunoProvider({ ...settings, apiKey: 'suno_wrong_key' });
    const err = await failure(() =>
      wrong.submit({ endpoint: 'V5', input: generateInput(song(), 'V5'), idempotencyKey: 'i', webhookUrl: FALLBACK }),
    );
    assert.equal(err.kind, 'auth');
    assert.equal(err.retryable, false);
    assert.equal(err.failover, true);
    assert.equal(err.vendorCode, '401');
    assert.ok(!err.message.includes('suno_wrong_key'));
  });

  test('an answer that is not the API’s is retryable; an accepted submit with an unreadable answer may exist', async () => {
    const html = await failure(() => submit('x [suno:http-502]'));
    assert.equal(html.kind, 'unavailable');
    assert.equal(html.retryable, true);
    assert.equal(html.vendorCode, '502');
    for (const tag of ['malformed', 'no-task', 'cut']) {
      const err = await failure(() => submit(`x [suno:${tag}]`));
      assert.equal(err.retryable, true, tag);
      assert.equal(err.maybeAccepted, true, `${tag}: the task may be running`);
    }
    const away = createSunoProvider({ ...settings, baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const refused = await failure(() =>
      away.submit({ endpoint: 'V5', input: generateInput(song(), 'V5'), idempotencyKey: 'i' }),
    );
    assert.equal(refused.kind, 'unavailable');
    assert.equal(refused.maybeAccepted, false, 'a refused connection never reached the API');
  });

  test('a submit canceled by its signal is canceled, not retried', async () => {
    const controller = new AbortController();
    const pending = provider.submit({
      endpoint: 'V5',
      input: generateInput(song({ prompt: 'x [suno:hang]' }), 'V5'),
      idempotencyKey: 'i',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const err = await failure(() => pending);
    assert.equal(err.kind, 'canceled');
    assert.equal(err.retryable, false);
  });

  test('a poll the API refuses fails the task; maintenance, an unknown task or no answer is tried again', async () => {
    const { handle } = accepted(await submit('polled'));
    const wrong = createSunoProvider({ ...settings, apiKey: 'suno_wrong_key' });
    assert.equal(failedError(await wrong.poll(handle)).kind, 'auth');

    const down = accepted(await submit('x [suno:poll-455]'));
    const maintenance = await failure(() => provider.poll(down.handle));
    assert.equal(maintenance.kind, 'unavailable');
    assert.equal(maintenance.retryable, true);
    assert.equal(maintenance.vendorCode, '455');

    const unknown = await failure(() => provider.poll({ task_id: 'nope' }));
    assert.equal(unknown.retryable, true);
    assert.match(unknown.message, /no record/);

    const away = createSunoProvider({ ...settings, baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const err = await failure(() => away.poll(handle));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);

    const broken = await failure(() => provider.poll({ other: 'x' }));
    assert.equal(broken.retryable, false);
  });

  test('a handle is plain JSON that survives being stored and read back', async () => {
    const { handle } = accepted(await submit('stored'));
    const stored = JSON.parse(JSON.stringify(handle)) as VendorHandle;
    assert.equal((await provider.poll(stored)).kind, 'pending');
  });

  test('codes the docs of compatible APIs give map too: 402, a 429 that says rate limit, 408, 451, 531', () => {
    assert.equal(sunoCodeError(402, 'Insufficient credits').kind, 'quota');
    const limited = sunoCodeError(429, 'Rate limit exceeded, too many requests');
    assert.equal(limited.kind, 'rate_limited');
    assert.equal(limited.retryable, true);
    assert.equal(sunoCodeError(429, 'Too many requests: insufficient credits').kind, 'quota');
    assert.equal(sunoCodeError(429).kind, 'quota', 'the Suno API’s meaning when nothing is said');
    const limit = sunoCodeError(430, undefined, new Headers({ 'retry-after': '3' }));
    assert.equal(limit.retryAfterMs, 3000);
    assert.equal(sunoCodeError(408).kind, 'timeout');
    assert.equal(sunoCodeError(451).retryable, true);
    const refunded = sunoCodeError(531, 'the generation failed; your credits have been refunded');
    assert.equal(refunded.kind, 'unavailable');
    assert.equal(refunded.retryable, true);
    const route = sunoCodeError(404);
    assert.equal(route.kind, 'internal');
    assert.equal(route.failover, true);
    assert.equal(sunoCodeError(413, 'Uploaded audio matches existing work of art').kind, 'content_policy');
    assert.equal(sunoCodeError(418).kind, 'internal');
  });

  test('an adapter without a callback secret is not made', () => {
    assert.throws(() => createSunoProvider({ ...settings, callbackToken: '' }), /callback token/);
  });
});

describe('Suno callbacks', () => {
  let suno: FakeSuno;
  let provider: Provider;
  let settings: SunoSettings;
  const received: Array<{ query: string; body: string }> = [];
  const sink = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        query: new URL(req.url ?? '/', 'http://sink').search.slice(1),
        body: Buffer.concat(chunks).toString(),
      });
      res.end();
    });
  });
  let sinkUrl = '';

  before(async () => {
    suno = await startFakeSuno();
    settings = { apiKey: suno.apiKey, baseUrl: suno.url, fetch, callbackToken: SECRET, fallbackCallbackUrl: FALLBACK };
    provider = createSunoProvider(settings);
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/webhooks/providers/suno/item_9`;
  });
  after(async () => {
    await suno.close();
    await new Promise((r) => sink.close(r));
  });

  const verify = (
    headers: Record<string, string | string[]>,
    body: string,
    target = provider,
  ): Promise<WebhookEvent> => {
    assert.ok(target.verifyWebhook);
    return target.verifyWebhook(headers, Buffer.from(body));
  };

  /** A task submitted with our sink as its webhook, and the URL the API was given. */
  const task = async (prompt = 'a red fox', key = 'item_9:1') => {
    const result = accepted(
      await provider.submit({
        endpoint: 'V5',
        input: generateInput(song({ prompt }), 'V5'),
        idempotencyKey: key,
        webhookUrl: sinkUrl,
      }),
    );
    const callBackUrl = String(suno.submissions.at(-1)?.body.callBackUrl);
    return { taskId: result.vendorRequestId, callBackUrl };
  };

  const deliveries = async (count: number) => {
    for (const end = Date.now() + 10_000; received.length < count && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(received.length, count, 'the callbacks arrived');
    return received.splice(0, count);
  };

  test('the callbacks the API posts verify by the query they come back with: text, first, then both songs', async () => {
    const { taskId } = await task();
    const results: PollResult[] = [];
    for (const delivery of await deliveries(3)) {
      const event = await verify(
        { 'content-type': 'application/json', 'x-callback-query': delivery.query },
        delivery.body,
      );
      assert.equal(event.vendorRequestId, taskId);
      results.push(event.result);
    }
    assert.deepEqual(results[0], { kind: 'pending', progress: 1 / 3, pollAfterMs: 10_000 });
    assert.deepEqual(results[1], { kind: 'pending', progress: 2 / 3, pollAfterMs: 10_000 });
    const output = doneOutput(results[2] as PollResult);
    assert.equal(output.files.length, 2);
    assert.match(urlOf(output.files[0]) ?? '', new RegExp(`/files/${taskId}/.+\\.mp3$`));
    assert.equal((output.metadata.songs as unknown[]).length, 2);
  });

  test('a failing task’s error callback fails it with the code it gives', async () => {
    const { taskId } = await task('x [suno:audio-failed]');
    const [text, error] = await deliveries(2);
    assert.ok(text && error);
    const event = await verify({ 'x-callback-query': error.query }, error.body);
    assert.equal(event.vendorRequestId, taskId);
    const err = failedError(event.result);
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal(err.vendorCode, 'callback/501');
  });

  test('each callbackType in either result shape', async () => {
    const { taskId, callBackUrl } = await task('shapes');
    await deliveries(3);
    const headers = queryHeaders(callBackUrl);
    assert.deepEqual((await verify(headers, suno.callbackBody(taskId, 'text'))).result, {
      kind: 'pending',
      progress: 1 / 3,
      pollAfterMs: 10_000,
    });
    assert.equal((await verify(headers, suno.callbackBody(taskId, 'first'))).result.kind, 'pending');
    for (const camel of [false, true]) {
      const output = doneOutput((await verify(headers, suno.callbackBody(taskId, 'complete', camel))).result);
      assert.equal(output.files.length, 2, `camelCase: ${camel}`);
      assert.equal((output.metadata.songs as Array<Record<string, unknown>>)[1]?.duration, 228.28);
    }
    const error = failedError((await verify(headers, suno.callbackBody(taskId, 'error'))).result);
    assert.equal(error.kind, 'unavailable', 'code 500: Suno’s failure, worth another try');
    const refused = JSON.stringify({
      code: 400,
      msg: 'Lyrics contained copyrighted material',
      data: { callbackType: 'error', task_id: taskId, data: null },
    });
    assert.equal(failedError((await verify(headers, refused)).result).kind, 'content_policy');
    const unknown = JSON.stringify({
      code: 200,
      msg: 'ok',
      data: { callbackType: 'stems', task_id: taskId, data: [] },
    });
    assert.deepEqual((await verify(headers, unknown)).result, { kind: 'pending', pollAfterMs: 0 });
  });

  test('a callback without its query, or with a wrong, foreign or doubled token, is refused', async () => {
    const { taskId, callBackUrl } = await task('forged');
    await deliveries(3);
    const body = suno.callbackBody(taskId, 'complete');
    const query = new URL(callBackUrl).searchParams;
    const headersWith = (params: URLSearchParams) => ({ 'x-callback-query': params.toString() });

    await assert.rejects(verify({ 'content-type': 'application/json' }, body), /x-callback-query/);
    await assert.rejects(verify({ 'x-callback-query': '' }, body), WebhookRejectedError);

    const token = query.get('token') ?? '';
    const wrong = new URLSearchParams(query);
    wrong.set('token', `${token.startsWith('A') ? 'B' : 'A'}${token.slice(1)}`);
    await assert.rejects(verify(headersWith(wrong), body), /does not match/);

    const otherKey = new URLSearchParams(query);
    otherKey.set('key', 'item_10:1');
    await assert.rejects(verify(headersWith(otherKey), body), /does not match/, 'a token speaks for its key only');

    const doubled = new URLSearchParams(query);
    doubled.append('token', 'AAAA');
    await assert.rejects(verify(headersWith(doubled), body), /one key and one token/);

    const noToken = new URLSearchParams(query);
    noToken.delete('token');
    await assert.rejects(verify(headersWith(noToken), body), WebhookRejectedError);

    const stranger = createSunoProvider({ ...settings, callbackToken: 'another-secret' });
    await assert.rejects(verify(headersWith(query), body, stranger), /does not match/);

    // The right token with a body that is not a task callback is refused too.
    await assert.rejects(verify(headersWith(query), '{"hello":"world"}'), /not a Suno task callback/);
    await assert.rejects(verify(headersWith(query), 'not json'), WebhookRejectedError);
  });

  test('the query header may come with its ?, as a list, or in any case', async () => {
    const { taskId, callBackUrl } = await task('forms');
    await deliveries(3);
    const body = suno.callbackBody(taskId, 'first');
    const search = new URL(callBackUrl).search;
    assert.equal((await verify({ 'x-callback-query': search }, body)).vendorRequestId, taskId);
    assert.equal((await verify({ 'x-callback-query': [search.slice(1)] }, body)).vendorRequestId, taskId);
    assert.equal((await verify({ 'X-Callback-Query': search.slice(1) }, body)).vendorRequestId, taskId);
  });
});

describe('the Suno check', () => {
  let suno: FakeSuno;

  before(async () => {
    suno = await startFakeSuno();
  });
  after(() => suno.close());

  test('reads the remaining credits with our key, and never starts a song', async () => {
    const check = await checkSuno({ apiKey: suno.apiKey, baseUrl: suno.url, fetch });
    assert.deepEqual(check, { reachable: true, detail: 'Suno answered with our API key: 100 credits left' });
    const provider = createSunoProvider({ apiKey: suno.apiKey, baseUrl: suno.url, fetch, callbackToken: SECRET });
    assert.deepEqual(await provider.check?.(), check);
    assert.equal(suno.submissions.length, 0);
    suno.credits = 0;
    const empty = await checkSuno({ apiKey: suno.apiKey, baseUrl: suno.url, fetch });
    assert.equal(empty.reachable, true);
    assert.match(empty.detail, /0 credits left: songs will fail until the account is topped up/);
  });

  test('a refused key, a route the API does not have, or no answer is not reachable, with why', async () => {
    const wrong = await checkSuno({ apiKey: 'suno_wrong_key', baseUrl: suno.url, fetch });
    assert.equal(wrong.reachable, false);
    assert.match(wrong.detail, /refused our API key/);
    assert.ok(!wrong.detail.includes('suno_wrong_key'));
    const path = await checkSuno({ apiKey: suno.apiKey, baseUrl: suno.url, fetch, creditPath: '/api/v1/chat/credit' });
    assert.equal(path.reachable, false);
    assert.match(path.detail, /does not have this route/);
    const away = await checkSuno({ apiKey: suno.apiKey, baseUrl: `http://127.0.0.1:${await closedPort()}`, fetch });
    assert.equal(away.reachable, false);
    assert.match(away.detail, /could not be reached/);
  });
});
