// Request and response schemas of the OpenAI-compatible door. Requests declare every field OpenAI
// documents for these endpoints, so that real clients (which send fields of their own) are
// accepted; the door uses some, refuses a few it cannot honour, and ignores the rest (see
// docs/openai.md). Bodies under /v1 are not held to the API's strict unknown-field rule.
import { type TSchema, Type } from 'typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A field the door accepts and ignores: any JSON value. */
const Ignored = (description: string) =>
  Type.Optional(Type.Unknown({ description: `Accepted and ignored. ${description}` }));

// ---- errors --------------------------------------------------------------------------------------

/** OpenAI's error body; see ./errors.ts for how our error codes map onto it. */
export const OpenAiErrorBody = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String({ examples: ['invalid_request_error'] }),
    param: Nullable(Type.String()),
    code: Nullable(Type.String({ examples: ['model_not_found'] })),
  }),
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (`invalid_request_error`; `param` names the field, `code` is e.g. `model_not_found`)',
  401: 'Missing, malformed, unknown or revoked API key (`invalid_api_key`)',
  403: 'The workspace belongs to another team',
  404: 'Unknown model (GET /v1/models/{model}) or path',
  409: 'A request with this Idempotency-Key is still in flight',
  413: 'Body larger than the limit',
  422: 'Idempotency-Key reused with another body',
  429: 'Not enough credits (`insufficient_quota`, with `x-should-retry: false`), or rate limited (`rate_limit_exceeded`, with Retry-After)',
  500: 'The generation failed (its credits were refunded), or an internal error',
  503: 'The database cannot be reached right now (with Retry-After)',
  504: 'The generation did not finish within the door’s wait (it continues; see the message)',
};

/** Response entries for the error statuses a door route can answer with, in OpenAI's shape. */
export function openAiErrorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) out[status] = { ...OpenAiErrorBody, description: ERROR_DESCRIPTIONS[status] };
  return out;
}

/** The errors every door route that forwards to a generation endpoint may answer. */
export const GENERATION_ERRORS = [400, 401, 403, 409, 413, 422, 429, 500, 503] as const;

export const DoorHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Passed to the native endpoint: the same key and body within 24 h replays the first answer without a second charge',
    }),
  ),
});

// ---- chat ----------------------------------------------------------------------------------------

const ContentPart = Type.Object(
  {
    type: Type.String({ description: 'Only `text` parts are taken (text models)', examples: ['text'] }),
    text: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const ChatMessage = Type.Object(
  {
    role: Type.Enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(ContentPart)]))),
    name: Type.Optional(Type.String()),
    refusal: Type.Optional(Nullable(Type.String())),
    tool_calls: Type.Optional(Type.Array(Type.Unknown())),
    tool_call_id: Type.Optional(Type.String()),
    function_call: Type.Optional(Nullable(Type.Unknown())),
    audio: Type.Optional(Nullable(Type.Unknown())),
  },
  { additionalProperties: true },
);

const MaxTokens = (description: string) => Type.Optional(Nullable(Type.Integer({ minimum: 1, description })));

export const ChatCompletionBody = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'A text model of GET /v1/models (e.g. `openai/gpt-4o-mini`); a name without its vendor prefix ' +
        '(`gpt-4o-mini`) is taken when exactly one text model has it',
      examples: ['openai/gpt-4o-mini'],
    }),
    messages: Type.Array(ChatMessage, {
      minItems: 1,
      maxItems: 1000,
      description:
        'Sent as they are to an OpenAI-compatible route (tool messages and assistant tool_calls included); the ' +
        'simulator reads them as a system prompt and a transcript (see docs/openai.md). Content parts: text only',
    }),
    max_tokens: MaxTokens('The native max_tokens (at most 16000 and the model’s own limit)'),
    max_completion_tokens: MaxTokens('Preferred over max_tokens when both are given'),
    temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    n: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 8,
          description: 'Choices (an OpenAI-compatible route only); each is charged for: the bound is n times one',
        }),
      ),
    ),
    stream: Type.Optional(Nullable(Type.Boolean())),
    stream_options: Type.Optional(
      Nullable(
        Type.Object(
          { include_usage: Type.Optional(Type.Boolean()), include_obfuscation: Type.Optional(Type.Boolean()) },
          { additionalProperties: true },
        ),
      ),
    ),
    stop: Type.Optional(
      Nullable(
        Type.Union([Type.String({ maxLength: 500 }), Type.Array(Type.String({ maxLength: 500 }), { maxItems: 4 })], {
          description: 'Passed on; the simulator cuts its text at the first',
        }),
      ),
    ),
    logprobs: Type.Optional(Nullable(Type.Boolean({ description: 'An OpenAI-compatible route only' }))),
    top_logprobs: Type.Optional(
      Nullable(Type.Integer({ minimum: 0, maximum: 20, description: 'An OpenAI-compatible route only' })),
    ),
    response_format: Type.Optional(
      Nullable(
        Type.Object(
          {
            type: Type.Enum(['text', 'json_object', 'json_schema'], {
              description: 'JSON modes: an OpenAI-compatible route only',
              examples: ['json_object'],
            }),
          },
          { additionalProperties: true },
        ),
      ),
    ),
    tools: Type.Optional(
      Nullable(
        Type.Array(Type.Object({}, { additionalProperties: true }), {
          maxItems: 128,
          description: 'Passed on: an OpenAI-compatible route only (the simulator calls no tools: 400)',
        }),
      ),
    ),
    functions: Type.Optional(
      Nullable(Type.Array(Type.Unknown(), { description: 'Legacy functions: refused unless empty (use tools)' })),
    ),
    tool_choice: Type.Optional(Nullable(Type.Unknown({ description: 'Passed on with tools' }))),
    function_call: Ignored('Legacy functions are not taken.'),
    parallel_tool_calls: Type.Optional(Nullable(Type.Boolean({ description: 'Passed on with tools' }))),
    modalities: Type.Optional(Nullable(Type.Array(Type.String(), { description: "Only ['text']" }))),
    audio: Type.Optional(Nullable(Type.Unknown({ description: 'Refused unless null' }))),
    seed: Type.Optional(Nullable(Type.Integer({ description: 'Passed on (the simulator is deterministic anyway)' }))),
    top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Passed on' }))),
    frequency_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2, description: 'Passed on' }))),
    presence_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2, description: 'Passed on' }))),
    logit_bias: Ignored(''),
    user: Ignored(''),
    safety_identifier: Ignored(''),
    prompt_cache_key: Ignored(''),
    metadata: Ignored(''),
    store: Ignored(''),
    service_tier: Ignored(''),
    reasoning_effort: Ignored(''),
    verbosity: Ignored(''),
    prediction: Ignored(''),
    web_search_options: Ignored(''),
  },
  {
    additionalProperties: true,
    examples: [
      {
        model: 'openai/gpt-4o-mini',
        messages: [
          { role: 'system', content: 'You answer in one sentence.' },
          { role: 'user', content: 'What is a haiku?' },
        ],
        max_tokens: 200,
      },
    ],
  },
);

const Usage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
});

const FinishReason = Type.Enum(['stop', 'length', 'content_filter', 'tool_calls', 'function_call']);

const ToolCall = Type.Object({
  id: Type.String(),
  type: Type.String({ examples: ['function'] }),
  function: Type.Object({
    name: Type.String(),
    arguments: Type.String({ description: 'JSON, as the model wrote it' }),
  }),
});

export const ChatCompletion = Type.Object({
  id: Type.String({ description: '`chatcmpl-` and the generation id', examples: ['chatcmpl-gen_01jb...'] }),
  object: Type.Literal('chat.completion'),
  created: Type.Integer({ description: 'Unix seconds' }),
  model: Type.String({ description: 'The catalog text model that answered' }),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({
        role: Type.Literal('assistant'),
        content: Nullable(Type.String()),
        refusal: Nullable(Type.String()),
        tool_calls: Type.Optional(Type.Array(ToolCall)),
        annotations: Type.Array(Type.Unknown()),
      }),
      logprobs: Nullable(Type.Unknown({ description: "The route's log probabilities, when asked for" })),
      finish_reason: FinishReason,
    }),
  ),
  usage: Usage,
  system_fingerprint: Type.Null(),
});

/** One `data:` event of a streamed chat completion. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint: null;
  choices: Array<{
    index: number;
    delta: { role?: 'assistant'; content?: string | null; refusal?: string | null; tool_calls?: unknown[] };
    logprobs: unknown;
    finish_reason: string | null;
  }>;
  usage?: Record<string, unknown> | null;
}

// ---- images --------------------------------------------------------------------------------------

export const ImageGenerationBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 32_000, description: 'The native endpoint takes up to 4000' }),
    model: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 100,
          description: 'An image model of GET /v1/models (e.g. `dall-e-3`, `flux-1-dev`); default the catalog default',
        }),
      ),
    ),
    n: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10, description: 'The native batch' }))),
    size: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^(auto|[1-9][0-9]{1,4}x[1-9][0-9]{1,4})$',
          description:
            "`auto` or `WIDTHxHEIGHT`: chooses the model's aspect ratio closest to it (within 5%); the pixel " +
            "size is the model's own for that ratio (about a megapixel)",
          examples: ['1024x1024', '1792x1024', '1536x1024'],
        }),
      ),
    ),
    response_format: Type.Optional(
      Nullable(Type.Enum(['url', 'b64_json'], { description: 'Default url (our storage)' })),
    ),
    stream: Type.Optional(Nullable(Type.Boolean({ description: 'Refused when true' }))),
    quality: Ignored(''),
    style: Ignored(''),
    background: Ignored(''),
    moderation: Ignored(''),
    output_compression: Ignored(''),
    output_format: Ignored('The file is what the model makes (PNG from the simulator).'),
    partial_images: Ignored(''),
    user: Ignored(''),
  },
  {
    additionalProperties: true,
    examples: [{ prompt: 'a lighthouse at dawn, watercolor', model: 'dall-e-3', n: 1, size: '1024x1024' }],
  },
);

export const ImagesResponse = Type.Object({
  created: Type.Integer({ description: 'Unix seconds' }),
  data: Type.Array(
    Type.Object({
      url: Type.Optional(Type.String({ format: 'uri' })),
      b64_json: Type.Optional(Type.String()),
    }),
    { description: 'The completed images; an image that failed is left out (and refunded)' },
  ),
});

// ---- speech --------------------------------------------------------------------------------------

export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm', 'ogg'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export const SpeechBody = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 100, examples: ['tts-1'] }),
    input: Type.String({ minLength: 1, maxLength: 5000 }),
    voice: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 100 }),
        Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: true }),
      ],
      {
        description:
          "An OpenAI voice name (mapped to a preset, see docs/openai.md), a preset id or a voice of your team's",
        examples: ['alloy', 'Wise_Woman'],
      },
    ),
    response_format: Type.Optional(Nullable(Type.Enum([...SPEECH_FORMATS], { description: 'Default mp3' }))),
    speed: Type.Optional(
      Nullable(Type.Number({ minimum: 0.25, maximum: 4, description: 'This service speaks at 0.6-1.5 only' })),
    ),
    instructions: Ignored(''),
    stream_format: Type.Optional(Nullable(Type.Enum(['audio', 'sse'], { description: 'Only `audio`' }))),
  },
  {
    additionalProperties: true,
    examples: [{ model: 'tts-1', input: 'Your video is ready.', voice: 'alloy', response_format: 'mp3' }],
  },
);

// ---- models --------------------------------------------------------------------------------------

export const OpenAiModel = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer({ description: 'Unix seconds (when this process loaded the catalog)' }),
  owned_by: Type.String(),
});

export const OpenAiModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(OpenAiModel),
});
