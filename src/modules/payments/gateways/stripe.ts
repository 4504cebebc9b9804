import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type CheckoutRequest,
  type CreatedCheckout,
  callProvider,
  httpUrl,
  integerField,
  isObject,
  type PaymentEvent,
  type PaymentProvider,
  PaymentProviderError,
  parseJsonObject,
  stringField,
  WebhookRejectedError,
  type WebhookVerifier,
} from './types.ts';

/** How far a Stripe-Signature timestamp may be from now (Stripe's own libraries use 300 s). */
export const STRIPE_TOLERANCE_S = 300;

export interface StripeOptions {
  secretKey: string;
  /** `https://api.stripe.com`, or a local fake in tests. */
  apiBase: string;
}

/** The Checkout Session form Stripe expects for a one-time payment of one catalog variant. */
export function checkoutSessionForm(request: CheckoutRequest): URLSearchParams {
  const form = new URLSearchParams();
  form.set('mode', 'payment');
  form.set('line_items[0][quantity]', '1');
  form.set('line_items[0][price_data][currency]', request.currency.toLowerCase());
  form.set('line_items[0][price_data][unit_amount]', String(request.amount));
  form.set('line_items[0][price_data][product_data][name]', `${request.planName}: ${request.credits} credits`);
  form.set('success_url', request.successUrl);
  form.set('cancel_url', request.cancelUrl);
  form.set('client_reference_id', request.checkoutId);
  for (const [key, value] of Object.entries(metadataOf(request))) {
    form.set(`metadata[${key}]`, value);
    // Also on the PaymentIntent, so a dispute in the Stripe dashboard leads back to the checkout.
    form.set(`payment_intent_data[metadata][${key}]`, value);
  }
  return form;
}

function metadataOf(request: CheckoutRequest): Record<string, string> {
  return {
    checkout_id: request.checkoutId,
    team_id: request.teamId,
    plan_id: request.planId,
    variant_id: request.variantId,
  };
}

/** Stripe Checkout (hosted page, mode=payment) through the REST API. */
export function createStripeProvider(options: StripeOptions): PaymentProvider {
  return {
    name: 'stripe',
    async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
      const { status, body } = await callProvider('stripe', `${options.apiBase}/v1/checkout/sessions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          // Stripe answers a repeated create with the same key with the first session, never a second.
          'idempotency-key': request.checkoutId,
        },
        body: checkoutSessionForm(request).toString(),
      });
      if (status < 200 || status >= 300) {
        const message = stringField(isObject(body) ? body.error : undefined, 'message') ?? `HTTP ${status}`;
        throw new PaymentProviderError('stripe', `Stripe refused the Checkout Session: ${message}`, status);
      }
      const id = stringField(body, 'id');
      const url = httpUrl(stringField(body, 'url'));
      if (!id || !url) throw new PaymentProviderError('stripe', 'Stripe answered without a session id and url', status);
      const expiresAt = integerField(body, 'expires_at');
      return { url, providerRef: id, expiresAt: expiresAt === null ? undefined : new Date(expiresAt * 1000) };
    },
  };
}

/** The `Stripe-Signature` value for a body: what Stripe sends, and what tests forge. */
export function stripeSignatureHeader(rawBody: string | Buffer, secret: string, timestampS: number): string {
  return `t=${timestampS},v1=${stripeSignature(rawBody, secret, timestampS)}`;
}

function stripeSignature(rawBody: string | Buffer, secret: string, timestampS: number): string {
  return createHmac('sha256', secret).update(`${timestampS}.`).update(rawBody).digest('hex');
}

function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1') signatures.push(value);
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

/**
 * Verifies `Stripe-Signature` (HMAC-SHA256 of `t.rawbody` keyed with the whsec secret; any of several
 * v1 values may match, as during a secret roll) and the 300 s tolerance, then reads the event.
 */
export function stripeWebhookVerifier(secret: string): WebhookVerifier {
  return (rawBody, headers, nowMs) => {
    const header = headers['stripe-signature'];
    const parsed = typeof header === 'string' ? parseSignatureHeader(header) : undefined;
    if (!parsed) throw new WebhookRejectedError('missing or malformed Stripe-Signature header');
    const expected = Buffer.from(stripeSignature(rawBody, secret, parsed.timestamp), 'hex');
    const matches = parsed.signatures.some((candidate) => {
      if (!/^[0-9a-f]{64}$/i.test(candidate)) return false;
      return timingSafeEqual(Buffer.from(candidate, 'hex'), expected);
    });
    if (!matches) throw new WebhookRejectedError('Stripe-Signature does not match the body');
    if (Math.abs(nowMs / 1000 - parsed.timestamp) > STRIPE_TOLERANCE_S)
      throw new WebhookRejectedError(`Stripe-Signature timestamp is more than ${STRIPE_TOLERANCE_S} s from now`);
    const event = parseJsonObject(rawBody);
    if (!event) throw new WebhookRejectedError('the body is not a JSON Stripe event');
    return readStripeEvent(event);
  };
}

function readStripeEvent(event: Record<string, unknown>): PaymentEvent {
  const eventId = stringField(event, 'id');
  const type = stringField(event, 'type') ?? '(none)';
  const session = isObject(event.data) ? event.data.object : undefined;
  if (!eventId || !isObject(session)) throw new WebhookRejectedError('the body is not a Stripe event');
  if (!type.startsWith('checkout.session.')) return { kind: 'ignored', eventType: type, reason: 'not handled' };
  const checkoutId = stringField(session.metadata, 'checkout_id') ?? stringField(session, 'client_reference_id');
  if (!checkoutId) return { kind: 'ignored', eventType: type, reason: 'not a checkout of this service' };
  const providerRef = stringField(session, 'id');

  if (type === 'checkout.session.expired')
    return { kind: 'expired', eventId, eventType: type, checkoutId, providerRef };
  if (type !== 'checkout.session.completed' && type !== 'checkout.session.async_payment_succeeded')
    return { kind: 'ignored', eventType: type, reason: 'not handled' };
  // A delayed payment method completes the session unpaid; async_payment_succeeded follows.
  if (stringField(session, 'payment_status') !== 'paid')
    return { kind: 'ignored', eventType: type, reason: 'the payment is not confirmed yet' };

  const subtotal = integerField(session, 'amount_subtotal') ?? integerField(session, 'amount_total');
  const discount = integerField(session.total_details, 'amount_discount') ?? 0;
  const currency = stringField(session, 'currency');
  if (subtotal === null || currency === null)
    throw new WebhookRejectedError('the Checkout Session has no amount or currency');
  return {
    kind: 'paid',
    eventId,
    eventType: type,
    checkoutId,
    providerRef,
    teamId: stringField(session.metadata, 'team_id'),
    amount: subtotal - discount,
    currency: currency.toUpperCase(),
  };
}
