import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type CheckoutRequest,
  type CreatedCheckout,
  callProvider,
  httpUrl,
  integerField,
  isObject,
  type PaymentProvider,
  PaymentProviderError,
  parseJsonObject,
  stringField,
  WebhookRejectedError,
  type WebhookVerifier,
} from './types.ts';

const JSON_API = 'application/vnd.api+json';

export interface LemonSqueezyOptions {
  apiKey: string;
  storeId: string;
  /** `https://api.lemonsqueezy.com`, or a local fake in tests. */
  apiBase: string;
  /** Catalog variant id -> Lemon Squeezy variant id; unlisted variants are sent under their own id. */
  variantIds: Record<string, string>;
}

/** The JSON:API body of POST /v1/checkouts for one catalog variant. */
export function checkoutBody(request: CheckoutRequest, options: LemonSqueezyOptions): unknown {
  return {
    data: {
      type: 'checkouts',
      attributes: {
        // The catalog price, whatever the variant costs in the Lemon Squeezy dashboard.
        custom_price: request.amount,
        product_options: { redirect_url: request.successUrl },
        checkout_options: { discount: false },
        checkout_data: { custom: { checkout_id: request.checkoutId, team_id: request.teamId } },
        expires_at: request.expiresAt.toISOString(),
      },
      relationships: {
        store: { data: { type: 'stores', id: options.storeId } },
        variant: { data: { type: 'variants', id: lemonSqueezyVariantId(request.variantId, options.variantIds) } },
      },
    },
  };
}

/** The Lemon Squeezy variant a catalog variant is sold as. */
export function lemonSqueezyVariantId(variantId: string, variantIds: Record<string, string>): string {
  return variantIds[variantId] ?? variantId;
}

/** Lemon Squeezy hosted checkout through its JSON:API. */
export function createLemonSqueezyProvider(options: LemonSqueezyOptions): PaymentProvider {
  return {
    name: 'lemonsqueezy',
    async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
      const { status, body } = await callProvider('lemonsqueezy', `${options.apiBase}/v1/checkouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.apiKey}`, accept: JSON_API, 'content-type': JSON_API },
        body: JSON.stringify(checkoutBody(request, options)),
      });
      if (status < 200 || status >= 300) {
        const errors = isObject(body) && Array.isArray(body.errors) ? body.errors : [];
        const message = stringField(errors[0], 'detail') ?? stringField(errors[0], 'title') ?? `HTTP ${status}`;
        throw new PaymentProviderError('lemonsqueezy', `Lemon Squeezy refused the checkout: ${message}`, status);
      }
      const data = isObject(body) ? body.data : undefined;
      const id = stringField(data, 'id');
      const url = httpUrl(stringField(isObject(data) ? data.attributes : undefined, 'url'));
      if (!id || !url) throw new PaymentProviderError('lemonsqueezy', 'Lemon Squeezy answered without a checkout url');
      return { url, providerRef: id };
    },
  };
}

/** The `X-Signature` value for a body: what Lemon Squeezy sends, and what tests forge. */
export function lemonSqueezySignature(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Verifies `X-Signature` (hex HMAC-SHA256 of the raw body with the signing secret, compared in
 * constant time) and reads `order_created` events. Lemon Squeezy signs no timestamp, so replays
 * are stopped by the order id, not by age.
 */
export function lemonSqueezyWebhookVerifier(secret: string): WebhookVerifier {
  return (rawBody, headers) => {
    const header = headers['x-signature'];
    if (typeof header !== 'string' || !/^[0-9a-f]{64}$/i.test(header.trim()))
      throw new WebhookRejectedError('missing or malformed X-Signature header');
    const expected = Buffer.from(lemonSqueezySignature(rawBody, secret), 'hex');
    if (!timingSafeEqual(Buffer.from(header.trim(), 'hex'), expected))
      throw new WebhookRejectedError('X-Signature does not match the body');
    const event = parseJsonObject(rawBody);
    if (!event || !isObject(event.meta) || !isObject(event.data))
      throw new WebhookRejectedError('the body is not a Lemon Squeezy event');

    const eventName = stringField(event.meta, 'event_name') ?? '(none)';
    if (eventName !== 'order_created') return { kind: 'ignored', eventType: eventName, reason: 'not handled' };
    const checkoutId = stringField(event.meta.custom_data, 'checkout_id');
    if (!checkoutId) return { kind: 'ignored', eventType: eventName, reason: 'not a checkout of this service' };
    const orderId = stringField(event.data, 'id') ?? String(integerField(event.data, 'id') ?? '');
    const order = event.data.attributes;
    if (!orderId || !isObject(order)) throw new WebhookRejectedError('the order has no id or attributes');
    if (stringField(order, 'status') !== 'paid')
      return { kind: 'ignored', eventType: eventName, reason: `order status is ${stringField(order, 'status')}` };

    const subtotal = integerField(order, 'subtotal');
    const currency = stringField(order, 'currency');
    if (subtotal === null || currency === null) throw new WebhookRejectedError('the order has no subtotal or currency');
    return {
      kind: 'paid',
      eventId: `order_${orderId}`,
      eventType: eventName,
      checkoutId,
      providerRef: null,
      teamId: stringField(event.meta.custom_data, 'team_id'),
      amount: subtotal - (integerField(order, 'discount_total') ?? 0),
      currency: currency.toUpperCase(),
    };
  };
}
