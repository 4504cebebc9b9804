// The rules and prices of this module's generation requests: each plan turns a validated
// request into the work to charge for and run.

import type { Static } from 'typebox';
import { Type } from 'typebox';
import type { Deps } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import { OperationName } from '../../catalog/operation-names.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { AppError } from '../../lib/errors.ts';
import { countTokens, tokenCredits } from '../../lib/tokens.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';
import type { TextInput } from './inputs.ts';

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

export function planTextGenerate(
  { media, live }: Deps,
  body: Static<typeof TextGenerateBody>,
  teamId: string,
): GenerationPlan {
  const model = lookupModel(media.text, body.model, 'text');
  const s = body.settings ?? {};
  const maxTokens = Math.min(s.max_tokens ?? 16_000, model.max_output_tokens);
  const promptTokens = countTokens(`${s.system_prompt ?? ''}\n${body.prompt}`);
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
    } satisfies TextInput,
    items: [{ type: 'text', price: tokenCredits(promptTokens + 16, maxTokens, model.price) }],
    estimatedSeconds: model.estimated_seconds,
  };
}
