import type { CheckoutRequest, CreatedCheckout, PaymentProvider } from './types.ts';

/** The path of a checkout's page on this service (the built-in checkout, and every provider's landing page). */
export function checkoutPagePath(checkoutId: string): string {
  return `/checkout/${checkoutId}`;
}

/**
 * The built-in test checkout: a page of this service with Pay and Cancel buttons. Paying takes no
 * money, so it is for development and tests; production sets PAYMENT_PROVIDER to a real provider.
 */
export function createBuiltinProvider(publicBaseUrl: string): PaymentProvider {
  return {
    name: 'builtin',
    async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
      return { url: `${publicBaseUrl}${checkoutPagePath(request.checkoutId)}`, providerRef: null };
    },
  };
}
