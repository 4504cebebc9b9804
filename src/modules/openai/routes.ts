import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { readFirstItemResult } from '../../engine/index.ts';
import { AppError } from '../../lib/errors.ts';
import { readStored } from '../../storage/read.ts';
import { apiKeyAuthHook } from '../api-keys/hooks.ts';
import { type Offered, offerStream } from '../text/streams.ts';
import { CHAT_PARAMS, type ChatAnswer, chatCompletion, choicesOf, nativeTextRequest, textModelId } from './chat.ts';
import { streamChat, type TextAnswer } from './chat-stream.ts';
import { installOpenAiErrors } from './errors.ts';
import { completedUrls, IMAGE_PARAMS, nativeImageRequest, waitForGeneration } from './images.ts';
import { doorModels } from './models.ts';
import { callNative } from './native.ts';
import {
  ChatCompletion,
  ChatCompletionBody,
  DoorHeaders,
  GENERATION_ERRORS,
  ImageGenerationBody,
  ImagesResponse,
  OpenAiModel,
  OpenAiModelList,
  openAiErrorResponses,
  SPEECH_FORMATS,
  SpeechBody,
} from './schemas.ts';
import { nativeSpeechRequest, SPEECH_CONTENT_TYPES, SPEECH_PARAMS, speechInFormat } from './speech.ts';

const tags = ['OpenAI-compatible'];
const security = [{ apiKey: [] }];

/** What the native endpoints answer, as far as the door reads it. */
interface Accepted {
  generation_id: string;
}
interface SpeechAnswer {
  generation_id: string;
  audio_url: string;
  credits_used: number;
}

const unixNow = () => Math.floor(Date.now() / 1000);

/** A stored result's bytes, by its public URL. */
async function storedBytes(app: App, url: string): Promise<Buffer> {
  const key = app.deps.storage.keyFromUrl(url);
  const bytes = key === undefined ? undefined : await readStored(app.deps.storage, key);
  if (!bytes) throw new AppError('internal_error', `The result ${url} is not in storage`);
  return bytes;
}

/** Whether the client has gone (the connection closed before the answer was sent). */
function clientGone(reply: FastifyReply): () => boolean {
  let gone = false;
  reply.raw.once('close', () => {
    gone = !reply.raw.writableFinished;
  });
  return () => gone;
}

/**
 * An OpenAI-compatible door for existing clients: chat, images, speech and the model list. Each
 * request is translated into the native endpoint's body and run there in-process (same key, same
 * validation, price, charge and Idempotency-Key), and its answer translated back; errors are in
 * OpenAI's shape. See docs/openai.md for the mappings.
 */
export default async function openAiRoutes(app: App): Promise<void> {
  installOpenAiErrors(app);
  // Routes that forward count against the team's rate limit in the native call they make.
  // The team's key, as /api takes it; a forwarding route leaves the rate limit to the native call.
  const forwarding = apiKeyAuthHook(app, { takeRateLimit: false });
  const counted = apiKeyAuthHook(app, { takeRateLimit: true });

  app.post(
    '/v1/chat/completions',
    {
      onRequest: forwarding,
      schema: {
        tags,
        security,
        summary: 'Chat completion (OpenAI-compatible), through POST /api/v1/text/generate',
        description:
          'Charged as the native text endpoint: the bound counts the messages and tool definitions (times `n`), ' +
          'the settled charge is the usage the route reports. Messages, tools, tool_choice, parallel_tool_calls, ' +
          'response_format (json_object, json_schema), stop, seed, top_p, penalties, logprobs/top_logprobs and n ' +
          'go as they are to an OpenAI-compatible route and come back in OpenAI’s shapes (tool_calls, refusal, ' +
          'logprobs, several choices); where the simulator serves the model, tools, JSON modes, log probabilities ' +
          'and n > 1 are refused (400). `stream: true` answers `text/event-stream` chunks as the route sends them ' +
          '(tool-call deltas included), ending with `data: [DONE]`; a client that leaves stops the route’s call and ' +
          'is charged what it reported (the bound when it reported nothing). Headers `x-generation-id` (and, ' +
          'unstreamed, `x-credits-used`) name the native generation and its net charge.',
        headers: DoorHeaders,
        body: ChatCompletionBody,
        response: {
          200: {
            description: 'A chat.completion, or its chunks as Server-Sent Events when `stream` is true',
            content: {
              'application/json': { schema: ChatCompletion },
              'text/event-stream': { schema: Type.String({ description: '`data: {chat.completion.chunk}` events' }) },
            },
          },
          ...openAiErrorResponses(...GENERATION_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const model = textModelId(app.deps.media.text, body.model);
      const params = {
        ...CHAT_PARAMS,
        'settings.max_tokens': body.max_completion_tokens == null ? 'max_tokens' : 'max_completion_tokens',
      };
      const native = nativeTextRequest(body, model);
      /**
       * The chat answer of the native one: the choices the text item recorded (the native answer has
       * its text only), as the request handed them over, or read (a replay ran nothing).
       */
      const answerOf = async (answer: TextAnswer, offer: Offered): Promise<ChatAnswer> => {
        const handed = offer.result();
        return {
          id: `chatcmpl-${answer.generation_id}`,
          created: unixNow(),
          model: answer.model,
          choices: choicesOf(
            answer.text,
            handed !== undefined
              ? handed
              : await readFirstItemResult(app.deps.pool, answer.generation_id, request.principal.teamId),
          ),
          usage: answer.usage,
        };
      };
      if (body.stream !== true) {
        const offer = offerStream();
        let answer: TextAnswer;
        try {
          answer = await callNative<TextAnswer>(app, request, '/api/v1/text/generate', native, params, offer.headers);
        } finally {
          offer.withdraw();
        }
        reply.header('x-generation-id', answer.generation_id).header('x-credits-used', String(answer.credits_used));
        return chatCompletion(await answerOf(answer, offer));
      }
      return streamChat(app, request, reply, native, params, answerOf);
    },
  );

  app.post(
    '/v1/images/generations',
    {
      onRequest: forwarding,
      schema: {
        tags,
        security,
        summary: 'Generate images (OpenAI-compatible), through POST /api/v1/images/generate',
        description:
          'Charged exactly as the native endpoint (`n` is its batch); waits for the generation to finish (at most ' +
          '10 minutes, then 504 naming the generation) and answers the images as URLs of our storage, or base64 ' +
          'with `response_format: b64_json`. `size` chooses the aspect ratio; `model` is an image model of the ' +
          'catalog (default: the catalog default). Images that failed are left out and refunded; when all fail, ' +
          '500. Header `x-generation-id` names the native generation, `x-credits-used` its net charge.',
        headers: DoorHeaders,
        body: ImageGenerationBody,
        response: { 200: ImagesResponse, ...openAiErrorResponses(...GENERATION_ERRORS, 504) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const gone = clientGone(reply);
      const native = nativeImageRequest(app.deps.catalog, body);
      const accepted = await callNative<Accepted>(app, request, '/api/v1/images/generate', native, IMAGE_PARAMS);
      const row = await waitForGeneration(app.deps.pool, accepted.generation_id, request.principal.teamId, gone);
      if (gone()) {
        // Nobody to answer: the generation goes on (and is charged) as the native one would.
        reply.hijack();
        reply.raw.destroy();
        return;
      }
      const urls = completedUrls(row);
      const data =
        body.response_format === 'b64_json'
          ? await Promise.all(urls.map(async (url) => ({ b64_json: (await storedBytes(app, url)).toString('base64') })))
          : urls.map((url) => ({ url }));
      reply
        .header('x-generation-id', row.id)
        .header('x-credits-used', String(row.credits_charged - row.credits_refunded));
      return { created: unixNow(), data };
    },
  );

  app.post(
    '/v1/audio/speech',
    {
      onRequest: forwarding,
      schema: {
        tags,
        security,
        summary: 'Speech audio (OpenAI-compatible), through POST /api/v2/text-to-speech',
        description:
          'Charged exactly as the native endpoint. Answers the audio bytes. `model` is one of tts-1, tts-1-hd, ' +
          'gpt-4o-mini-tts, tts-v2 (the same voice engine); `voice` an OpenAI voice name (mapped to a preset), a ' +
          "preset id or a voice of your team's (unknown: 400); `speed` 0.6-1.5 (400 outside); `response_format` " +
          'mp3, opus (Ogg Opus), aac, flac, wav, pcm (raw 16-bit mono at 24 kHz) or ogg (Vorbis). `instructions` ' +
          'is ignored. Header `x-generation-id` names the native generation.',
        headers: DoorHeaders,
        body: SpeechBody,
        response: {
          200: {
            description: 'The audio, in the content type of its format',
            content: Object.fromEntries(
              [...new Set(SPEECH_FORMATS.map((f) => SPEECH_CONTENT_TYPES[f]))].map((type) => [
                type,
                { schema: Type.String({ format: 'binary' }) },
              ]),
            ),
          },
          ...openAiErrorResponses(...GENERATION_ERRORS),
        },
      },
    },
    async (request, typedReply) => {
      // Bytes, not the documented string: the reply is used untyped.
      const reply = typedReply as unknown as FastifyReply;
      const { body } = request;
      const format = body.response_format ?? 'mp3';
      const native = nativeSpeechRequest(body);
      const answer = await callNative<SpeechAnswer>(
        app,
        request,
        '/api/v2/text-to-speech',
        native,
        SPEECH_PARAMS,
      ).catch((err: unknown) => {
        // The native endpoint's 404 is its unknown voice: for an OpenAI client, a bad `voice`.
        if (err instanceof AppError && err.code === 'not_found') {
          throw new AppError('invalid_request', err.message, [{ field: 'voice', message: 'is not a known voice' }]);
        }
        throw err;
      });
      const audio = await speechInFormat(await storedBytes(app, answer.audio_url), format);
      reply
        .type(SPEECH_CONTENT_TYPES[format])
        .header('x-generation-id', answer.generation_id)
        .header('x-credits-used', String(answer.credits_used));
      return reply.send(audio);
    },
  );

  app.get(
    '/v1/models',
    {
      onRequest: counted,
      schema: {
        tags,
        security,
        summary: 'The models the OpenAI-compatible door takes',
        description:
          'Text models (for chat completions), image models (for image generations) and speech models (for ' +
          'speech), by the ids the door takes: those this service can make now (GET /api/v1/models says which are ' +
          'available). Voices are listed by GET /api/v2/voices.',
        response: { 200: OpenAiModelList, ...openAiErrorResponses(401, 429, 503) },
      },
    },
    async () => ({ object: 'list' as const, data: doorModels(app.deps) }),
  );

  app.get(
    '/v1/models/*',
    {
      onRequest: counted,
      schema: {
        tags,
        security,
        summary: 'One model the OpenAI-compatible door takes',
        description: 'Model ids may contain a slash (`openai/gpt-4o-mini`). An unknown one is 404.',
        params: Type.Object({ '*': Type.String({ description: 'The model id' }) }),
        response: { 200: OpenAiModel, ...openAiErrorResponses(401, 404, 429, 503) },
      },
    },
    async (request) => {
      const id = request.params['*'];
      const model = doorModels(app.deps).find((m) => m.id === id);
      if (!model) throw new AppError('not_found', `The model '${id}' does not exist: see GET /v1/models`);
      return model;
    },
  );

  // Any other path under /v1 is answered in OpenAI's shape too.
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/v1/*',
    schema: { hide: true },
    handler: async (request: FastifyRequest) => {
      throw new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
    },
  });
}
