import type { Deps } from '../../app-types.ts';
import { acceptVendorWebhook, refusedWebhook, type WebhookTarget, webhookItemOf } from '../../engine/index.ts';
import { notFound } from '../../lib/errors.ts';
import { type WebhookEvent, WebhookRejectedError } from '../../providers/types.ts';

/**
 * Verifies a vendor's webhook by its provider's rules (a forged or unsigned one is refused, 401),
 * with the credential the job of the item its URL names was submitted with (its key, and what its
 * vendor derives from it: Suno's callback token, Replicate's signing secret), and hands it to the engine, which believes it only for the item its URL names (see
 * acceptVendorWebhook).
 */
export async function handleProviderWebhook(
  deps: Pick<Deps, 'pool' | 'providers' | 'secrets' | 'work'>,
  providerId: string,
  target: WebhookTarget,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
): Promise<void> {
  if (!deps.providers.get(providerId)?.verifyWebhook) throw notFound('Provider', providerId);
  const named = await webhookItemOf(deps.pool, providerId, target);
  const provider = deps.providers.get(providerId, named?.credentialId);
  if (!provider?.verifyWebhook) throw notFound('Provider', providerId);
  let event: WebhookEvent;
  try {
    event = await provider.verifyWebhook(headers, rawBody);
  } catch (err) {
    if (err instanceof WebhookRejectedError) throw refusedWebhook(err.message);
    throw err;
  }
  // A process that runs a worker with room looks at the item at once, once this answer has gone out.
  const held = deps.work.localRuns?.hold(1);
  try {
    await acceptVendorWebhook(deps.pool, deps.secrets, providerId, target, event, named, held);
  } finally {
    held?.release();
  }
}
