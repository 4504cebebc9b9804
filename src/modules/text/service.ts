// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import { Type } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import type { TextModel } from '../../catalog/media-models.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import { enabledRoutes } from '../../catalog/routes.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { AppError, invalidField } from '../../lib/errors.ts';
import { countTokens, tokenCredits } from '../../lib/tokens.ts';
import { vendorOnlyChatFields } from '../../providers/chat-fields.ts';
import type { ChatPassthrough } from '../../providers/types.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';
import type { TextInput } from './inputs.ts';

/** An OpenAI chat message, as it is (roles system, developer, user, assistant with tool_calls, tool). */
const ChatFieldMessage = Type.Object(
  { role: Type.Enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']) },
  { additionalProperties: true },
);

/** OpenAI chat completion fields, sent as they are to an OpenAI-compatible route. */
export const ChatFields = Type.Object(
  {
    messages: Type.Array(ChatFieldMessage, { minItems: 1, maxItems: 1000 }),
    tools: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 128 })),
    tool_choice: Type.Optional(Type.Unknown()),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    response_format: Type.Optional(
      Type.Object({ type: Type.Enum(['text', 'json_object', 'json_schema']) }, { additionalProperties: true }),
    ),
    stop: Type.Optional(
      Type.Union([Type.String({ maxLength: 500 }), Type.Array(Type.String({ maxLength: 500 }), { maxItems: 4 })]),
    ),
    seed: Type.Optional(Type.Integer()),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    logprobs: Type.Optional(Type.Boolean()),
    top_logprobs: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: 'Choices; each is charged for' })),
  },
  {
    description:
      "OpenAI chat completion fields (the OpenAI-compatible door's): an OpenAI-compatible route is sent them as " +
      'they are, `messages` in place of `prompt` and `settings.system_prompt` (which the simulator reads). The ' +
      'simulator honours `stop` and ignores the sampling fields; where it serves the model, tools, JSON modes, ' +
      'log probabilities and n > 1 are refused (400). The charge counts the messages and tool definitions, ' +
      'times n',
  },
);

export const TextGenerateBody = Type.Object({
  prompt: Type.String({ minLength: 1, maxLength: 200_000 }),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  settings: Type.Optional(
    Type.Object({
      temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: 'Default 0.7' })),
      max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 16_000, description: 'Default 16000' })),
      system_prompt: Type.Optional(Type.String({ maxLength: 50_000 })),
    }),
  ),
  workspace_id: Type.Optional(WorkspaceIdField),
  stream: Type.Optional(
    Type.Boolean({
      description:
        'true: answer `text/event-stream` as the text comes: `event: delta` with `{text}` pieces, then `event: done` ' +
        "with this endpoint's usual answer (or `event: error` with an error body). Errors found before the text " +
        'starts are answered as usual; a client that leaves stops the route’s call and is charged what it ' +
        'reported (the bound when nothing). A replay of its Idempotency-Key answers the usual JSON',
    }),
  ),
  chat: Type.Optional(ChatFields),
});

export const TextGenerateResponse = Type.Object({
  generation_id: Type.String(),
  text: Type.String(),
  model: Type.String({ description: 'The model used' }),
  usage: Type.Object({
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
  }),
  credits_used: Type.Number({ description: 'Net charge after the unused part is refunded' }),
});

/** Whether a configured vendor's route (not the simulator) serves the text model now. */
function servedByVendor(deps: Deps, model: TextModel): boolean {
  const ctx = deps.work.context(new AbortController().signal);
  const routes = enabledRoutes(ctx.services.live.routesOf('text', model.id) ?? model.routes);
  return ctx.providers.candidates(routes).length > 0;
}

export function planTextGenerate(deps: Deps, body: Static<typeof TextGenerateBody>, teamId: string): GenerationPlan {
  const { media, live } = deps;
  const model = lookupModel(media.text, body.model, 'text');
  const s = body.settings ?? {};
  const maxTokens = Math.min(s.max_tokens ?? 16_000, model.max_output_tokens);
  const chat = body.chat as ChatPassthrough | undefined;
  // What is sent is counted: the chat's messages and tool definitions when it has them.
  const promptTokens = Math.max(
    countTokens(`${s.system_prompt ?? ''}\n${body.prompt}`),
    chat ? countTokens(JSON.stringify([chat.messages, chat.tools ?? [], chat.response_format ?? null])) : 0,
  );
  const needsVendor = chat ? vendorOnlyChatFields(chat) : [];
  const [field] = needsVendor;
  if (field !== undefined && !servedByVendor(deps, model)) {
    throw invalidField(
      `chat.${field}`,
      `the simulator serves ${model.id} on this service and cannot honour it (an OpenAI-compatible route can)`,
    );
  }
  const choices = chat?.n ?? 1;
  if (promptTokens + maxTokens > model.context_window) {
    throw new AppError(
      'invalid_request',
      `The prompt (${promptTokens} tokens) and max_tokens (${maxTokens}) exceed ${model.id}'s context window of ${model.context_window}`,
      [{ field: 'prompt', message: 'is too long for the model' }],
    );
  }
  const multiplier = live.teamRules(teamId).priceMultiplier;
  return {
    operation: OperationName.textGenerate,
    model: model.id,
    input: {
      prompt: body.prompt,
      system_prompt: s.system_prompt ?? null,
      temperature: s.temperature ?? 0.7,
      max_tokens: maxTokens,
      price: model.price,
      // The engine scales the charge by the team's multiplier; the settled cost is scaled alike.
      ...(multiplier === 1 ? {} : { price_multiplier: multiplier }),
      ...(chat ? { chat } : {}),
    } satisfies TextInput,
    // Each choice is bounded alike.
    items: [{ type: 'text', price: choices * tokenCredits(promptTokens + 16, maxTokens, model.price) }],
    estimatedSeconds: model.estimated_seconds,
  };
}
