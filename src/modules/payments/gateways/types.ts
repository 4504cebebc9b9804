import type { IncomingHttpHeaders } from 'node:http';
import type { PaymentProviderName } from '../../../config.ts';

export type { PaymentProviderName };

/** What a provider needs to open a hosted checkout for one catalog variant. */
export interface CheckoutRequest {
  checkoutId: string;
  teamId: string;
  planId: string;
  planName: string;
  variantId: string;
  credits: number;
  /** In the smallest unit of the currency (cents). */
  amount: number;
  /** ISO 4217, uppercase. */
  currency: string;
  /** Where the buyer lands after paying (the caller's URL or our own checkout page). */
  successUrl: string;
  /** Where the buyer lands after giving up (the caller's URL or our own checkout page). */
  cancelUrl: string;
  /** When the checkout stops accepting payment if the provider does not say. */
  expiresAt: Date;
}

/** A checkout the provider has opened. */
export interface CreatedCheckout {
  /** The page the buyer pays on. */
  url: string;
  /** The provider's id of the checkout (null for the built-in one). */
  providerRef: string | null;
  /** When the provider will close it, when it says. */
  expiresAt?: Date;
}

/** One small interface per way of taking money; chosen by PAYMENT_PROVIDER. */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  /** Opens a checkout; throws PaymentProviderError when the provider cannot. */
  createCheckout(request: CheckoutRequest): Promise<CreatedCheckout>;
}

/** A verified provider event, reduced to what the service acts on. */
export type PaymentEvent =
  | {
      kind: 'paid';
      /** Unique per provider event or order; a second delivery carries the same id. */
      eventId: string;
      eventType: string;
      checkoutId: string;
      /** The provider's id of the checkout when the event names it (to cross-check). */
      providerRef: string | null;
      teamId: string | null;
      /** What the buyer paid before tax, after discounts, in the smallest currency unit. */
      amount: number;
      /** ISO 4217, uppercase. */
      currency: string;
    }
  | { kind: 'expired'; eventId: string; eventType: string; checkoutId: string; providerRef: string | null }
  | { kind: 'ignored'; eventType: string; reason: string };

/** Checks a webhook delivery's signature and reads its event; throws WebhookRejectedError. */
export type WebhookVerifier = (rawBody: Buffer, headers: IncomingHttpHeaders, nowMs: number) => PaymentEvent;

/** The provider refused or could not be reached; nothing was opened. */
export class PaymentProviderError extends Error {
  readonly provider: PaymentProviderName;
  /** The provider's HTTP status, when it answered. */
  readonly status: number | undefined;

  constructor(provider: PaymentProviderName, message: string, status?: number) {
    super(message);
    this.name = 'PaymentProviderError';
    this.provider = provider;
    this.status = status;
  }
}

/** A webhook delivery that is forged, stale or not the provider's format. */
export class WebhookRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRejectedError';
  }
}

/** Reads a JSON object from a body, or undefined when it is not one. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field, or null when absent or not a non-empty string. */
export function stringField(object: unknown, key: string): string | null {
  if (!isObject(object)) return null;
  const value = object[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** An integer field, or null when absent or not a safe integer. */
export function integerField(object: unknown, key: string): number | null {
  if (!isObject(object)) return null;
  const value = object[key];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/** Fetches with a deadline; network failures and timeouts become PaymentProviderError. */
export async function callProvider(
  provider: PaymentProviderName,
  url: string,
  init: RequestInit,
  timeoutMs = 15_000,
): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new PaymentProviderError(provider, `could not reach ${new URL(url).origin}: ${(err as Error).message}`);
  }
  const text = await response.text().catch(() => '');
  return { status: response.status, body: parseJsonObject(Buffer.from(text)) };
}

/** An http(s) URL from a provider's answer (anything else is refused, never shown to a buyer). */
export function httpUrl(value: string | null): string | null {
  return value !== null && /^https?:\/\//i.test(value) ? value : null;
}
