import { Type } from 'typebox';
import type { App } from '../../app-types.ts';
import { lookupModel } from '../../catalog/lookup.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import type { GenerationPlan } from '../../engine/types.ts';
import { AppError } from '../../lib/errors.ts';
import { countTokens, tokenCredits } from '../../lib/tokens.ts';
import { WorkspaceIdField } from '../workspaces/schemas.ts';

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

const TextGenerateResponse = Type.Object({
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

export default async function textRoutes(app: App): Promise<void> {
  defineGenerationEndpoint(app, {
    url: '/api/v1/text/generate',
    tags: ['Text'],
    summary: 'Generate text (synchronous)',
    description:
      'Synchronous. The request is charged for its prompt tokens and max_tokens completion tokens at the model’s ' +
      'per-1k-token prices (at least one credit); the unused part is refunded when the answer is back, so ' +
      'credits_used is what the tokens really cost. Token counts come from a real tokenizer.',
    body: TextGenerateBody,
    response: TextGenerateResponse,
    errors: [403, 404],
    sync: true,
    plan({ media }, body): GenerationPlan {
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
      return {
        operation: 'text.generate',
        model: model.id,
        input: {
          prompt: body.prompt,
          system_prompt: s.system_prompt ?? null,
          temperature: s.temperature ?? 0.7,
          max_tokens: maxTokens,
          price: model.price,
        },
        items: [{ type: 'text', price: tokenCredits(promptTokens + 16, maxTokens, model.price) }],
        estimatedSeconds: model.estimated_seconds,
      };
    },
    respond: (created, plan, _body, result) => {
      const item = result?.items[0]?.result ?? {};
      const usage = (item.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }) as {
        prompt_tokens: number;
        completion_tokens: number;
        total_tokens: number;
      };
      return {
        generation_id: created.id,
        text: String(item.text ?? ''),
        model: plan.model ?? '',
        usage,
        credits_used: Number(item.credits ?? created.creditsCharged),
      };
    },
  });
}
