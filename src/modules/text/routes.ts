import type { App } from '../../app-types.ts';
import { defineGenerationEndpoint } from '../../engine/define.ts';
import { planTextGenerate, TextGenerateBody, TextGenerateResponse } from './service.ts';
import { handOverResult, textStream } from './streams.ts';

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
    plan: planTextGenerate,
    stream: textStream,
    handOver: handOverResult,
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
