import type { Deps } from '../../app-types.ts';
import * as engineSql from '../../engine/sql.ts';
import { queuePoll } from '../../engine/vendor.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { WebhookRejectedError } from '../../providers/types.ts';

/**
 * Verifies a vendor's webhook and has the job's item looked at now: a poll job (replacing the one
 * waiting) reads the outcome from the vendor and records it once, whichever of the webhook and
 * the scheduled polls comes first. A webhook for a job we do not know is acknowledged and ignored.
 */
export async function handleProviderWebhook(
  deps: Pick<Deps, 'pool' | 'providers'>,
  providerId: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
): Promise<void> {
  const provider = deps.providers.get(providerId);
  if (!provider?.verifyWebhook) throw notFound('Provider', providerId);
  let vendorRequestId: string;
  try {
    ({ vendorRequestId } = await provider.verifyWebhook(headers, rawBody));
  } catch (err) {
    if (err instanceof WebhookRejectedError) throw new AppError('unauthorized', `Webhook refused: ${err.message}`);
    throw err;
  }
  const itemId = await engineSql.selectItemByVendorRequest(deps.pool, providerId, vendorRequestId);
  if (itemId) await queuePoll(deps.pool, itemId, 0);
}
