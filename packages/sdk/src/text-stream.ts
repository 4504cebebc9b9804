// Text as it is generated, through the service's OpenAI-compatible door (POST /v1/chat/completions
// with stream: true): each piece the model's route streams is yielded as soon as it arrives.
import { createParser } from 'eventsource-parser';
import { ApiError, type ApiErrorInit, type ErrorCode, errorFromResponse } from './errors.js';

/** What text/generate takes, with the model named. */
export interface StreamBody {
  model: string;
  prompt: string;
  settings?: { temperature?: number; max_tokens?: number; system_prompt?: string };
}

// The door answers errors in OpenAI's shape; its `code` (or the status) gives back ours.
const DOOR_CODES: Record<string, ErrorCode> = {
  invalid_api_key: 'unauthorized',
  insufficient_quota: 'insufficient_credits',
  rate_limit_exceeded: 'rate_limited',
};
const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

async function doorError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { message?: string; code?: string | null } }
    | undefined;
  const doorCode = body?.error?.code ?? undefined;
  const code = (doorCode && (DOOR_CODES[doorCode] ?? doorCode)) || STATUS_CODES[response.status];
  if (!code || typeof body?.error?.message !== 'string') return errorFromResponse(response, body);
  const native = { error: { code, message: body.error.message } };
  const error = errorFromResponse(response, native);
  return error.code === 'unknown' ? new ApiError({ ...(error as ApiErrorInit), status: response.status }) : error;
}

/** Streams the pieces of a chat completion's text as they arrive. */
export async function* streamChat(
  transport: (request: Request) => Promise<Response>,
  baseUrl: string,
  body: StreamBody,
  options: { idempotencyKey?: string; signal?: AbortSignal; headers?: Record<string, string> } = {},
): AsyncIterable<string> {
  const { temperature, max_tokens, system_prompt } = body.settings ?? {};
  const messages = [
    ...(system_prompt ? [{ role: 'system', content: system_prompt }] : []),
    { role: 'user', content: body.prompt },
  ];
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await transport(
    new Request(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers,
      signal: options.signal,
      body: JSON.stringify({
        model: body.model,
        messages,
        stream: true,
        ...(temperature !== undefined ? { temperature } : {}),
        ...(max_tokens !== undefined ? { max_tokens } : {}),
      }),
    }),
  );
  if (!response.ok || !response.body) throw await doorError(response);
  const pieces: string[] = [];
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      const chunk = JSON.parse(event.data) as { choices?: Array<{ delta?: { content?: string | null } }> };
      const piece = chunk.choices?.[0]?.delta?.content;
      if (piece) pieces.push(piece);
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!done) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      parser.feed(value);
      while (pieces.length > 0) yield pieces.shift() as string;
    }
    while (pieces.length > 0) yield pieces.shift() as string;
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
