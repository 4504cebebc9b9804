import { OperationName } from '../../catalog/operation-names.ts';
import { operationOf } from '../../engine/operation.ts';
import type { ExecutableItem, ExecutionContext, Operation, VendorWork } from '../../engine/types.ts';
import { scaleCharge } from '../../lib/multiplier.ts';
import { tokenCredits } from '../../lib/tokens.ts';
import type { ChatPassthrough, ProviderOutput } from '../../providers/types.ts';
import { TextInput } from './inputs.ts';

/** text/generate for a vendor: the prompt, the system prompt and the bounds it was charged for. */
const textForVendor = (ctx: ExecutionContext, item: ExecutableItem<TextInput>): VendorWork => {
  const r = item.request;
  return {
    routes: ctx.media.text.find((m) => m.id === item.model)?.routes ?? [],
    request: {
      kind: 'text',
      prompt: r.prompt,
      system: r.system_prompt,
      temperature: r.temperature,
      maxTokens: r.max_tokens,
      price: r.price,
      ...(r.chat ? { chat: r.chat as ChatPassthrough } : {}),
    },
    expects: 'text',
  };
};

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) ? Math.max(0, value) : 0;

/**
 * What a vendor's answer cost: the tokens it reports at the model's prices. Usage beyond the
 * charged bound is recorded but never charged (the item's price caps it); an answer without usage
 * costs what was charged.
 */
const settleText = (item: ExecutableItem<TextInput>, output: ProviderOutput, charged: number) => {
  const r = item.request;
  const reported = output.metadata.usage as Record<string, unknown> | undefined;
  const usage = {
    prompt_tokens: count(reported?.prompt_tokens),
    completion_tokens: count(reported?.completion_tokens),
    total_tokens: count(reported?.total_tokens) || count(reported?.prompt_tokens) + count(reported?.completion_tokens),
  };
  const cost = reported
    ? scaleCharge(tokenCredits(usage.prompt_tokens, usage.completion_tokens, r.price), r.price_multiplier ?? 1)
    : undefined;
  const credits = cost === undefined ? charged : Math.min(cost, charged);
  return {
    actualCredits: credits,
    metadata: {
      usage,
      credits,
      ...(cost !== undefined && cost > credits ? { uncharged_credits: cost - credits } : {}),
    },
  };
};

/** Text generation, settled to the tokens really used. */
export const textOperations: Record<string, Operation> = {
  [OperationName.textGenerate]: operationOf(TextInput, { vendor: textForVendor, settle: settleText }),
};
