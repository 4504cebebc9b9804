import type { Deps } from '../../app-types.ts';
import * as engineSql from '../../engine/sql.ts';
import { queuePoll, reportedOutput } from '../../engine/vendor.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { type WebhookEvent, WebhookRejectedError } from '../../providers/types.ts';

/**
 * Verifies a vendor's webhook and has the job's item looked at now: a poll job (replacing the one
 * waiting) reads the outcome from the vendor and records it once, whichever of the webhook and
 * the scheduled polls comes first. `itemId` is the item the webhook URL names: when its submit
 * has not recorded the vendor's answer yet, the item is marked and recording the answer polls at
 * once. A webhook for a job we do not know is acknowledged and ignored.
 */
export async function handleProviderWebhook(
  deps: Pick<Deps, 'pool' | 'providers'>,
  providerId: string,
  itemId: string | undefined,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
): Promise<void> {
  const provider = deps.providers.get(providerId);
  if (!provider?.verifyWebhook) throw notFound('Provider', providerId);
  let event: WebhookEvent;
  try {
    event = await provider.verifyWebhook(headers, rawBody);
  } catch (err) {
    if (err instanceof WebhookRejectedError) throw new AppError('unauthorized', `Webhook refused: ${err.message}`);
    throw err;
  }
  const find = () => engineSql.selectItemByVendorRequest(deps.pool, providerId, event.vendorRequestId);
  // Usually the submit's answer is recorded by now: one look-up. When it is not, the item is marked
  // (recording the answer then polls at once); if that finds the answer recorded after all (the row
  // lock orders the two), a second look-up, in a statement of its own, sees it.
  let found = await find();
  if (!found && itemId) {
    if (await engineSql.markEarlyWebhook(deps.pool, itemId, providerId)) return;
    found = await find();
  }
  // A verified result saves asking the vendor for it again.
  const reported = event.result.kind === 'done' ? reportedOutput(event.result.output) : undefined;
  if (found) await queuePoll(deps.pool, found, 0, reported);
}
