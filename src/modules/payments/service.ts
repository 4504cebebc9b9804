import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { CreditPlan } from '../../catalog/plans.ts';
import { withTransaction } from '../../db/pool.ts';
import { AppError, invalidField, notFound } from '../../lib/errors.ts';
import { looksLikeId, newId } from '../../lib/ids.ts';
import { changeCredits } from '../credits/service.ts';
import { getTeam } from '../teams/service.ts';
import { checkoutPagePath } from './gateways/builtin.ts';
import {
  type PaymentEvent,
  type PaymentProvider,
  PaymentProviderError,
  type PaymentProviderName,
  WebhookRejectedError,
  type WebhookVerifier,
} from './gateways/types.ts';
import * as sql from './sql.ts';

/** How long a checkout accepts payment when the provider does not say (Stripe's default too). */
const CHECKOUT_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface PaymentsDeps {
  pool: pg.Pool;
  plans: CreditPlan[];
  provider: PaymentProvider;
  publicBaseUrl: string;
  log: FastifyBaseLogger;
}

export interface TopUpInput {
  teamId: string;
  apiKeyId: string | null;
  planId: string;
  variantId?: string;
  successUrl?: string;
  cancelUrl?: string;
  disputePolicyAcknowledged: boolean;
  signatureName?: string;
}

export interface Checkout {
  id: string;
  status: sql.CheckoutStatus;
  plan_id: string;
  variant_id: string;
  credits: number;
  amount: number;
  currency: string;
  provider: PaymentProviderName;
  checkout_url: string;
  success_url: string | null;
  cancel_url: string | null;
  signature_name: string | null;
  dispute_policy_acknowledged: boolean;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
}

/** An open checkout past its expiry reads as expired (no sweeper needed). */
export function effectiveStatus(row: sql.CheckoutRow, now = new Date()): sql.CheckoutStatus {
  return row.status === 'open' && row.expires_at <= now ? 'expired' : row.status;
}

function toCheckout(row: sql.CheckoutRow): Checkout {
  return {
    id: row.id,
    status: effectiveStatus(row),
    plan_id: row.plan_id,
    variant_id: row.variant_id,
    credits: row.credits,
    amount: row.amount,
    currency: row.currency,
    provider: row.provider,
    checkout_url: row.checkout_url,
    success_url: row.success_url,
    cancel_url: row.cancel_url,
    signature_name: row.signature_name,
    dispute_policy_acknowledged: row.dispute_policy_acknowledged,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    paid_at: row.paid_at?.toISOString() ?? null,
  };
}

/** Picks the plan and variant a top-up buys: unknown plan 404; unknown or inactive variant 404. */
export function resolveVariant(plans: CreditPlan[], planId: string, variantId: string | undefined) {
  const plan = plans.find((p) => p.id === planId);
  if (!plan) throw notFound('Plan', planId);
  const variant =
    variantId === undefined
      ? plan.variants.find((v) => v.active)
      : plan.variants.find((v) => v.id === variantId && v.active);
  if (!variant) {
    throw variantId === undefined
      ? new AppError('not_found', `Plan '${planId}' has no active variant to buy`)
      : new AppError('not_found', `Variant '${variantId}' of plan '${planId}' not found or no longer sold`);
  }
  return { plan, variant };
}

/**
 * Opens a checkout with the configured provider and records it; returns where the buyer pays.
 * Nothing is recorded when the provider refuses (503).
 */
export async function openCheckout(
  deps: PaymentsDeps,
  input: TopUpInput,
): Promise<{ checkoutUrl: string; checkout_id: string }> {
  if (!input.disputePolicyAcknowledged)
    throw invalidField(
      'dispute_policy_acknowledged',
      'must be true: buying credits acknowledges the dispute evidence policy (see docs/payments.md)',
    );
  const { plan, variant } = resolveVariant(deps.plans, input.planId, input.variantId);
  const id = newId('chk');
  const page = `${deps.publicBaseUrl}${checkoutPagePath(id)}`;
  let created: Awaited<ReturnType<PaymentProvider['createCheckout']>>;
  const expiresAt = new Date(Date.now() + CHECKOUT_LIFETIME_MS);
  try {
    created = await deps.provider.createCheckout({
      checkoutId: id,
      teamId: input.teamId,
      planId: plan.id,
      planName: plan.name,
      variantId: variant.id,
      credits: variant.credits,
      amount: variant.price,
      currency: variant.currency,
      successUrl: input.successUrl ?? page,
      cancelUrl: input.cancelUrl ?? page,
      expiresAt,
    });
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    deps.log.error({ err, provider: err.provider, status: err.status }, 'payment provider refused a checkout');
    throw new AppError(
      'service_unavailable',
      'The payment provider could not open a checkout; nothing was charged. Try again in a minute.',
    );
  }
  const row = await sql.insertCheckout(deps.pool, {
    id,
    teamId: input.teamId,
    apiKeyId: input.apiKeyId,
    planId: plan.id,
    variantId: variant.id,
    credits: variant.credits,
    amount: variant.price,
    currency: variant.currency,
    provider: deps.provider.name,
    providerRef: created.providerRef,
    checkoutUrl: created.url,
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    signatureName: input.signatureName ?? null,
    disputePolicyAcknowledged: input.disputePolicyAcknowledged,
    expiresAt: created.expiresAt ?? expiresAt,
  });
  return { checkoutUrl: row.checkout_url, checkout_id: row.id };
}

/** One checkout of the team (another team's is 404). */
export async function getCheckout(db: pg.Pool, teamId: string, checkoutId: string): Promise<Checkout> {
  const row = looksLikeId(checkoutId, 'chk') ? await sql.selectCheckout(db, checkoutId) : undefined;
  if (!row || row.team_id !== teamId) throw notFound('Checkout', checkoutId);
  return toCheckout(row);
}

/** What the checkout page shows. */
export interface CheckoutView {
  checkout: sql.CheckoutRow;
  status: sql.CheckoutStatus;
  planName: string;
  teamName: string;
}

/** The checkout behind a page, with the names it shows; undefined for an unknown id. */
export async function viewCheckout(deps: PaymentsDeps, checkoutId: string): Promise<CheckoutView | undefined> {
  const row = looksLikeId(checkoutId, 'chk') ? await sql.selectCheckout(deps.pool, checkoutId) : undefined;
  if (!row) return undefined;
  const team = await getTeam(deps.pool, row.team_id);
  const planName = deps.plans.find((p) => p.id === row.plan_id)?.name ?? row.plan_id;
  return { checkout: row, status: effectiveStatus(row), planName, teamName: team.name };
}

function purchaseReason(row: sql.CheckoutRow): string {
  return `Purchase of ${row.credits} credits (${row.plan_id}/${row.variant_id}) via ${row.provider}, checkout ${row.id}`;
}

/** Credits the purchase of a checkout just marked paid, in the transaction that marked it. */
async function creditPurchase(client: pg.PoolClient, row: sql.CheckoutRow): Promise<void> {
  const entry = await changeCredits(client, {
    teamId: row.team_id,
    amount: row.credits,
    kind: 'purchase',
    reason: purchaseReason(row),
  });
  await sql.setCheckoutLedgerEntry(client, row.id, entry.id);
}

/** Where a browser goes after Pay or Cancel on the built-in checkout; undefined for an unknown id. */
export interface BuiltinOutcome {
  redirect: string;
}

/**
 * Pay on the built-in checkout: marks it paid and credits the team in one transaction, exactly
 * once however often it is pressed. A paid checkout goes to its success URL; any other to its page.
 */
export async function payBuiltinCheckout(deps: PaymentsDeps, checkoutId: string): Promise<BuiltinOutcome | undefined> {
  if (!looksLikeId(checkoutId, 'chk')) return undefined;
  const row = await withTransaction(deps.pool, async (client) => {
    const paid = await sql.markBuiltinCheckoutPaid(client, checkoutId);
    if (paid) await creditPurchase(client, paid);
    return paid ?? (await sql.selectCheckout(client, checkoutId));
  });
  if (row?.provider !== 'builtin') return undefined;
  const page = `${deps.publicBaseUrl}${checkoutPagePath(row.id)}`;
  return { redirect: row.status === 'paid' ? (row.success_url ?? page) : page };
}

/** Cancel on the built-in checkout: an open checkout becomes cancelled and nothing is credited. */
export async function cancelBuiltinCheckout(
  deps: PaymentsDeps,
  checkoutId: string,
): Promise<BuiltinOutcome | undefined> {
  if (!looksLikeId(checkoutId, 'chk')) return undefined;
  const row =
    (await sql.markBuiltinCheckoutCancelled(deps.pool, checkoutId)) ??
    (await sql.selectCheckout(deps.pool, checkoutId));
  if (row?.provider !== 'builtin') return undefined;
  const page = `${deps.publicBaseUrl}${checkoutPagePath(row.id)}`;
  return { redirect: row.status === 'cancelled' ? (row.cancel_url ?? page) : page };
}

export type WebhookOutcome = 'credited' | 'duplicate' | 'already_paid' | 'expired' | 'ignored';

/**
 * Verifies a provider's webhook delivery and applies it. A paid event credits the team exactly
 * once: the checkout row is locked, the event id is recorded (a replay stops there) and the
 * checkout moves open -> paid in the same transaction as the ledger entry. Forged, stale or
 * mismatching deliveries are 400 and write nothing.
 */
export async function receiveWebhook(
  deps: PaymentsDeps,
  provider: PaymentProviderName,
  verify: WebhookVerifier,
  delivery: { rawBody: Buffer; headers: Parameters<WebhookVerifier>[1] },
): Promise<WebhookOutcome> {
  let event: PaymentEvent;
  try {
    event = verify(delivery.rawBody, delivery.headers, Date.now());
  } catch (err) {
    if (!(err instanceof WebhookRejectedError)) throw err;
    deps.log.warn({ provider, reason: err.message }, 'payment webhook rejected');
    throw new AppError('invalid_request', `Webhook rejected: ${err.message}`);
  }
  if (event.kind === 'ignored') {
    deps.log.info({ provider, eventType: event.eventType, reason: event.reason }, 'payment webhook ignored');
    return 'ignored';
  }
  if (!looksLikeId(event.checkoutId, 'chk')) {
    deps.log.warn({ provider, checkoutId: event.checkoutId }, 'payment webhook for an id that is not a checkout');
    return 'ignored';
  }
  if (event.kind === 'expired') {
    await sql.markCheckoutExpired(deps.pool, event.checkoutId, provider);
    return 'expired';
  }
  const paid = event;
  return withTransaction(deps.pool, async (client): Promise<WebhookOutcome> => {
    const row = await sql.selectCheckoutForUpdate(client, paid.checkoutId);
    if (!row) {
      // Rows are written before their checkout URL is handed out, so this is another system's checkout.
      deps.log.warn({ provider, checkoutId: paid.checkoutId }, 'payment webhook for an unknown checkout');
      return 'ignored';
    }
    const problem = mismatch(row, provider, paid);
    if (problem) {
      deps.log.error(
        { provider, checkoutId: row.id, eventId: paid.eventId, problem, event: paid },
        'payment webhook does not match its checkout; nothing credited',
      );
      throw new AppError('invalid_request', `Webhook rejected: ${problem}`);
    }
    const fresh = await sql.insertPaymentEvent(client, {
      provider,
      eventId: paid.eventId,
      eventType: paid.eventType,
      checkoutId: row.id,
    });
    if (!fresh) return 'duplicate';
    const marked = await sql.markCheckoutPaid(client, row.id, provider);
    if (!marked) return 'already_paid';
    await creditPurchase(client, marked);
    deps.log.info({ provider, checkoutId: row.id, teamId: row.team_id, credits: row.credits }, 'credits purchased');
    return 'credited';
  });
}

function mismatch(
  row: sql.CheckoutRow,
  provider: PaymentProviderName,
  event: Extract<PaymentEvent, { kind: 'paid' }>,
): string | undefined {
  if (row.provider !== provider) return `checkout ${row.id} was not opened with ${provider}`;
  if (event.providerRef !== null && row.provider_ref !== null && event.providerRef !== row.provider_ref)
    return `checkout ${row.id} belongs to another ${provider} checkout`;
  if (event.teamId !== null && event.teamId !== row.team_id) return `checkout ${row.id} belongs to another team`;
  if (event.amount !== row.amount || event.currency !== row.currency)
    return `paid ${event.amount} ${event.currency} but checkout ${row.id} costs ${row.amount} ${row.currency}`;
  return undefined;
}

/** Refuses a start whose LEMONSQUEEZY_VARIANT_IDS names a variant the catalog does not have. */
export function checkVariantMapping(plans: CreditPlan[], variantIds: Record<string, string>): void {
  const known = new Set(plans.flatMap((p) => p.variants.map((v) => v.id)));
  const unknown = Object.keys(variantIds).filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new Error(
      `Invalid configuration:\n  LEMONSQUEEZY_VARIANT_IDS names variants that are not in credit-plans.json: ${unknown.join(', ')}`,
    );
}
