import type { Deps } from '../../app-types.ts';
import { acceptVendorWebhook, refusedWebhook, type WebhookTarget } from '../../engine/index.ts';
import { notFound } from '../../lib/errors.ts';
import { type WebhookEvent, WebhookRejectedError } from '../../providers/types.ts';

/**
 * Verifies a vendor's webhook by its provider's rules (a forged or unsigned one is refused, 401)
 * and hands it to the engine, which believes it only for the item its URL names (see
 * acceptVendorWebhook).
 */
export async function handleProviderWebhook(
  deps: Pick<Deps, 'pool' | 'providers' | 'secrets'>,
  providerId: string,
  target: WebhookTarget,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
): Promise<void> {
  const provider = deps.providers.get(providerId);
  if (!provider?.verifyWebhook) throw notFound('Provider', providerId);
  let event: WebhookEvent;
  try {
    event = await provider.verifyWebhook(headers, rawBody);
  } catch (err) {
    if (err instanceof WebhookRejectedError) throw refusedWebhook(err.message);
    throw err;
  }
  await acceptVendorWebhook(deps.pool, deps.secrets, providerId, target, event);
}
