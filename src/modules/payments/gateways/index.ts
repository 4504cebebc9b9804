import type { Config } from '../../../config.ts';
import { createBuiltinProvider } from './builtin.ts';
import { createLemonSqueezyProvider } from './lemonsqueezy.ts';
import { createStripeProvider } from './stripe.ts';
import type { PaymentProvider } from './types.ts';

/** The provider PAYMENT_PROVIDER names (config has already checked that its keys are set). */
export function createPaymentProvider(config: Config): PaymentProvider {
  const { payments } = config;
  switch (payments.provider) {
    case 'builtin':
      return createBuiltinProvider(config.publicBaseUrl);
    case 'stripe':
      return createStripeProvider({
        secretKey: payments.stripe.secretKey ?? '',
        apiBase: payments.stripe.apiBase,
      });
    case 'lemonsqueezy':
      return createLemonSqueezyProvider({
        apiKey: payments.lemonSqueezy.apiKey ?? '',
        storeId: payments.lemonSqueezy.storeId ?? '',
        apiBase: payments.lemonSqueezy.apiBase,
        variantIds: payments.lemonSqueezy.variantIds,
      });
  }
}
