// The spans of an item's work at a vendor and of its copy into our storage, with the GenAI
// semantic conventions' attributes (gen_ai.*) where they apply. No-ops while tracing is off.

import type { Attributes } from '@opentelemetry/api';
import { inSpan, recordError, SpanKind, tracingEnabled } from '../lib/tracing.ts';
import { redact } from '../providers/policy.ts';
import type { PollResult, SubmitResult } from '../providers/types.ts';
import type { ClaimedItem } from './sql/items.ts';
import type { ExecutionContext } from './types.ts';

/** The GenAI operation of an item: a chat for text, content generation for media. */
function genAiOperation(type: string): string {
  return type === 'text' ? 'chat' : 'generate_content';
}

/** The token counts a vendor reported (`usage` in the answer's metadata), as GenAI attributes. */
function usageAttributes(metadata: Record<string, unknown>): Attributes {
  const usage = metadata.usage as Record<string, unknown> | null | undefined;
  const out: Attributes = {};
  if (typeof usage?.prompt_tokens === 'number') out['gen_ai.usage.input_tokens'] = usage.prompt_tokens;
  if (typeof usage?.completion_tokens === 'number') out['gen_ai.usage.output_tokens'] = usage.completion_tokens;
  return out;
}

/**
 * One call to a vendor for an item (`submit` or `poll`) in a client span: the provider, the
 * vendor's endpoint as the model asked for, the provider attempt, the credential's id (never the
 * credential), and the token usage when the answer reports it. A failed answer fails the span.
 */
export function vendorCall<T extends SubmitResult | PollResult>(
  ctx: ExecutionContext,
  call: 'submit' | 'poll',
  item: Pick<ClaimedItem, 'id' | 'type' | 'model' | 'operation' | 'failures'>,
  route: { provider: string; endpoint: string; credentialId?: string | null | undefined },
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn();
  const operation = genAiOperation(item.type);
  const scrub = (text: string) => redact(text, ctx.providers.secrets());
  const attributes: Attributes = {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': route.provider,
    'gen_ai.request.model': route.endpoint,
    'genmedia.vendor.call': call,
    'genmedia.vendor.attempt': item.failures + 1,
    'genmedia.item.id': item.id,
    'genmedia.operation': item.operation,
    ...(item.model ? { 'genmedia.model': item.model } : {}),
    ...(route.credentialId ? { 'genmedia.credential.id': route.credentialId } : {}),
  };
  return inSpan(
    `${operation} ${route.endpoint}`,
    { kind: SpanKind.CLIENT, attributes, redact: scrub },
    async (span) => {
      const result = await fn();
      if (span) {
        if (result.kind === 'done') span.setAttributes(usageAttributes(result.output.metadata));
        if (result.kind === 'failed') recordError(span, result.error, scrub);
        span.setAttribute('genmedia.vendor.outcome', result.kind);
      }
      return result;
    },
  );
}

/** Copying a vendor's result into our storage, in a span of its own (with the stored media type). */
export function storageCopy<T extends { contentType: string }>(
  item: Pick<ClaimedItem, 'id'>,
  provider: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn();
  const attributes = { 'genmedia.item.id': item.id, ...(provider ? { 'genmedia.vendor.provider': provider } : {}) };
  return inSpan('storage copy', { attributes }, async (span) => {
    const stored = await fn();
    span?.setAttribute('genmedia.storage.content_type', stored.contentType);
    return stored;
  });
}
