import type { Queryable } from '../../db/pool.ts';
import type { PaymentProviderName } from './gateways/types.ts';

export type CheckoutStatus = 'open' | 'paid' | 'cancelled' | 'expired';

export interface CheckoutRow {
  id: string;
  team_id: string;
  api_key_id: string | null;
  plan_id: string;
  variant_id: string;
  credits: number;
  amount: number;
  currency: string;
  provider: PaymentProviderName;
  provider_ref: string | null;
  checkout_url: string;
  success_url: string | null;
  cancel_url: string | null;
  signature_name: string | null;
  dispute_policy_acknowledged: boolean;
  status: CheckoutStatus;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  cancelled_at: Date | null;
  ledger_entry_id: string | null;
}

export interface CheckoutInsert {
  id: string;
  teamId: string;
  apiKeyId: string | null;
  planId: string;
  variantId: string;
  credits: number;
  amount: number;
  currency: string;
  provider: PaymentProviderName;
  providerRef: string | null;
  checkoutUrl: string;
  successUrl: string | null;
  cancelUrl: string | null;
  signatureName: string | null;
  disputePolicyAcknowledged: boolean;
  expiresAt: Date;
}

const CHECKOUT_COLUMNS = `id, team_id, api_key_id, plan_id, variant_id, credits, amount, currency, provider,
  provider_ref, checkout_url, success_url, cancel_url, signature_name, dispute_policy_acknowledged, status,
  created_at, expires_at, paid_at, cancelled_at, ledger_entry_id`;

export async function insertCheckout(db: Queryable, c: CheckoutInsert): Promise<CheckoutRow> {
  const { rows } = await db.query<CheckoutRow>(
    `insert into checkouts (id, team_id, api_key_id, plan_id, variant_id, credits, amount, currency, provider,
       provider_ref, checkout_url, success_url, cancel_url, signature_name, dispute_policy_acknowledged, expires_at)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::bigint, $7::bigint, $8::text, $9::text,
       $10::text, $11::text, $12::text, $13::text, $14::text, $15::boolean, $16::timestamptz)
     returning ${CHECKOUT_COLUMNS}`,
    [
      c.id,
      c.teamId,
      c.apiKeyId,
      c.planId,
      c.variantId,
      c.credits,
      c.amount,
      c.currency,
      c.provider,
      c.providerRef,
      c.checkoutUrl,
      c.successUrl,
      c.cancelUrl,
      c.signatureName,
      c.disputePolicyAcknowledged,
      c.expiresAt,
    ],
  );
  return rows[0] as CheckoutRow;
}

export async function selectCheckout(db: Queryable, id: string): Promise<CheckoutRow | undefined> {
  const { rows } = await db.query<CheckoutRow>(`select ${CHECKOUT_COLUMNS} from checkouts where id = $1::text`, [id]);
  return rows[0];
}

/** Locks the checkout for the rest of the transaction: concurrent deliveries for it queue here. */
export async function selectCheckoutForUpdate(db: Queryable, id: string): Promise<CheckoutRow | undefined> {
  const { rows } = await db.query<CheckoutRow>(
    `select ${CHECKOUT_COLUMNS} from checkouts where id = $1::text for update`,
    [id],
  );
  return rows[0];
}

/**
 * Open -> paid for a built-in checkout that has not expired. No row back: not built-in, already
 * paid, cancelled or expired (so a second Pay never credits again).
 */
export async function markBuiltinCheckoutPaid(db: Queryable, id: string): Promise<CheckoutRow | undefined> {
  const { rows } = await db.query<CheckoutRow>(
    `update checkouts set status = 'paid', paid_at = now()
     where id = $1::text and provider = 'builtin' and status = 'open' and expires_at > now()
     returning ${CHECKOUT_COLUMNS}`,
    [id],
  );
  return rows[0];
}

/**
 * Open (or expired: the provider took the money all the same) -> paid, for the provider that
 * opened it. No row back: already paid or cancelled.
 */
export async function markCheckoutPaid(
  db: Queryable,
  id: string,
  provider: PaymentProviderName,
): Promise<CheckoutRow | undefined> {
  const { rows } = await db.query<CheckoutRow>(
    `update checkouts set status = 'paid', paid_at = now()
     where id = $1::text and provider = $2::text and status in ('open', 'expired')
     returning ${CHECKOUT_COLUMNS}`,
    [id, provider],
  );
  return rows[0];
}

export async function setCheckoutLedgerEntry(db: Queryable, id: string, ledgerEntryId: string): Promise<void> {
  await db.query('update checkouts set ledger_entry_id = $2::text where id = $1::text', [id, ledgerEntryId]);
}

/** Open -> cancelled for a built-in checkout; no row back when it is not open. */
export async function markBuiltinCheckoutCancelled(db: Queryable, id: string): Promise<CheckoutRow | undefined> {
  const { rows } = await db.query<CheckoutRow>(
    `update checkouts set status = 'cancelled', cancelled_at = now()
     where id = $1::text and provider = 'builtin' and status = 'open'
     returning ${CHECKOUT_COLUMNS}`,
    [id],
  );
  return rows[0];
}

/** Open -> expired when the provider says its checkout closed unpaid. */
export async function markCheckoutExpired(db: Queryable, id: string, provider: PaymentProviderName): Promise<boolean> {
  const { rowCount } = await db.query(
    `update checkouts set status = 'expired'
     where id = $1::text and provider = $2::text and status = 'open'`,
    [id, provider],
  );
  return (rowCount ?? 0) > 0;
}

/** Records a provider event; false when this event was recorded before (a replay). */
export async function insertPaymentEvent(
  db: Queryable,
  event: { provider: PaymentProviderName; eventId: string; eventType: string; checkoutId: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into payment_events (provider, event_id, event_type, checkout_id)
     values ($1::text, $2::text, $3::text, $4::text)
     on conflict (provider, event_id) do nothing`,
    [event.provider, event.eventId, event.eventType, event.checkoutId],
  );
  return (rowCount ?? 0) > 0;
}
