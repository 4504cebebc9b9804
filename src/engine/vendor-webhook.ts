import type { Queryable } from '../db/pool.ts';
import { AppError } from '../lib/errors.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { WebhookEvent } from '../providers/types.ts';
import type { HeldSlots } from './local-runs.ts';
import { markEarlyWebhook, selectItemByVendorRequest, selectWebhookItem, type WebhookItem } from './sql/attempts.ts';
import { isItemWebhookCredential, queuePoll, reportedOutput } from './vendor.ts';

/** What the webhook URL we gave the vendor says: the item it serves and the item's credential. */
export interface WebhookTarget {
  item: string | undefined;
  credential: string | undefined;
}

/**
 * The item a vendor's webhook URL names, when it is at this vendor: its `credentialId` is the
 * credential the webhook is verified with, the one its job was submitted with (a job keeps its
 * credential for its polls, cancel and webhooks; undefined: the vendor's default). What the URL
 * names is not believed yet: a webhook verified with the credential of an item it does not serve is
 * refused by acceptVendorWebhook (the item's own webhook credential in the URL), which is given
 * this read to spare a second look-up when the webhook reports that item's job.
 */
export async function webhookItemOf(
  db: Queryable,
  providerId: string,
  target: WebhookTarget,
): Promise<WebhookItem | undefined> {
  return target.item === undefined ? undefined : selectWebhookItem(db, target.item, providerId);
}

/** A vendor's webhook the engine does not believe (401). */
export function refusedWebhook(reason: string): AppError {
  return new AppError('unauthorized', `Webhook refused: ${reason}`);
}

/**
 * Has the item of a vendor's verified webhook looked at now: a poll job (replacing the one
 * waiting) reads the outcome from the vendor and records it once, whichever of the webhook and
 * the scheduled polls comes first. `target` is what the webhook URL names: an item and the
 * credential made for it when its job was sent. A webhook is believed for that item only: one
 * whose body names the job of another item, or whose URL has no valid credential for the item
 * of the job it names, is refused (401) and changes nothing. When the item's submit has not
 * recorded the vendor's answer yet, the item is marked and recording the answer polls at once. A
 * webhook for a job we do not know is acknowledged and ignored.
 */
export async function acceptVendorWebhook(
  db: Queryable,
  secrets: Pick<SecretBox, 'mac'>,
  providerId: string,
  target: WebhookTarget,
  event: WebhookEvent,
  /** The item the URL names as webhookItemOf read it (before the webhook was verified). */
  named: WebhookItem | undefined,
  /**
   * Slots held in this process's worker: the item's vendor job is looked at there at once, instead
   * of by a poll job. The poll scheduled when the job was sent stays, should this process stop.
   */
  here?: Pick<HeldSlots, 'poll'>,
): Promise<void> {
  // The item the URL's credential speaks for, if it is a genuine one.
  const { item, credential } = target;
  if (item !== undefined && !(credential && isItemWebhookCredential(secrets, providerId, item, credential))) {
    throw refusedWebhook('the URL does not carry the credential of the item it names');
  }
  const bound = (found: string | undefined) => {
    if (found !== undefined && found !== item) {
      throw refusedWebhook("the job it reports is not the one of the item its URL's credential was made for");
    }
    return found;
  };
  const find = () => selectItemByVendorRequest(db, providerId, event.vendorRequestId);
  // Usually the submit's answer is recorded by now, and the item the URL names, read to verify the
  // webhook, has the job it reports: no other look-up. Else the job's item is looked up. When the
  // answer is not recorded, the item is marked (recording the answer then polls at once); if that
  // finds the answer recorded after all (the row lock orders the two), a second look-up, in a
  // statement of its own, sees it.
  let found =
    item !== undefined && named?.unfinished && named.vendorRequestId === event.vendorRequestId
      ? item
      : bound(await find());
  if (!found && item) {
    if (await markEarlyWebhook(db, item, providerId)) return;
    found = bound(await find());
  }
  // A verified result saves asking the vendor for it again.
  const reported = event.result.kind === 'done' ? reportedOutput(event.result.output) : undefined;
  if (!found) return;
  if (here) here.poll(found, reported);
  else await queuePoll(db, found, 0, reported);
}
