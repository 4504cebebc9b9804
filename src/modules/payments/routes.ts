import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app-types.ts';
import { AppError } from '../../lib/errors.ts';
import { errorResponses } from '../../lib/schemas.ts';
import { createPaymentProvider } from './gateways/index.ts';
import { lemonSqueezyWebhookVerifier } from './gateways/lemonsqueezy.ts';
import { stripeWebhookVerifier } from './gateways/stripe.ts';
import type { PaymentProviderName, WebhookVerifier } from './gateways/types.ts';
import { checkoutPage, crossSitePage, notFoundPage, PAGE_HEADERS } from './pages.ts';
import { Checkout, CheckoutParams, TopUpBody, TopUpResponse } from './schemas.ts';
import {
  cancelBuiltinCheckout,
  checkVariantMapping,
  getCheckout,
  openCheckout,
  type PaymentsDeps,
  payBuiltinCheckout,
  receiveWebhook,
  viewCheckout,
} from './service.ts';

/**
 * Buying credits: POST /api/v1/billing/top-up opens a checkout with the configured provider;
 * /checkout/{id} is the built-in checkout (and every provider's landing page); the vendors'
 * webhooks at /webhooks/stripe and /webhooks/lemonsqueezy credit paid orders once.
 */
export default async function paymentsRoutes(app: App): Promise<void> {
  const { config, pool, plans } = app.deps;
  checkVariantMapping(plans, config.payments.lemonSqueezy.variantIds);
  const provider = createPaymentProvider(config);
  const depsFor = (log: FastifyBaseLogger): PaymentsDeps => ({
    pool,
    plans,
    provider,
    publicBaseUrl: config.publicBaseUrl,
    log,
  });
  if (provider.name === 'builtin')
    app.log.warn('PAYMENT_PROVIDER=builtin: top-ups are paid on a test page that takes no money');

  app.post(
    '/api/v1/billing/top-up',
    {
      schema: {
        tags: ['Billing'],
        summary: 'Open a checkout to buy credits',
        description:
          'Creates a hosted checkout for a one-time purchase of a plan variant and answers with the URL to send the buyer to. The credits are added once the provider confirms the payment.',
        body: TopUpBody,
        response: { 200: TopUpResponse, ...errorResponses(400, 401, 404, 503) },
      },
    },
    (request) =>
      openCheckout(depsFor(request.log), {
        teamId: request.principal.teamId,
        apiKeyId: request.principal.keyId,
        planId: request.body.plan_id,
        variantId: request.body.variant_id,
        successUrl: request.body.success_url,
        cancelUrl: request.body.cancel_url,
        disputePolicyAcknowledged: request.body.dispute_policy_acknowledged ?? true,
        signatureName: request.body.signature_name,
      }),
  );

  app.get(
    '/api/v1/billing/checkouts/:checkout_id',
    {
      schema: {
        tags: ['Billing'],
        summary: 'Read a checkout (status, plan, price)',
        params: CheckoutParams,
        response: { 200: Checkout, ...errorResponses(401, 404) },
      },
    },
    (request) => getCheckout(pool, request.principal.teamId, request.params.checkout_id),
  );

  // Pages and vendor webhooks take no credential (the checkout id, or the vendor's signature,
  // is the credential) and read bodies raw: a signature covers the exact bytes sent.
  await app.register(async (scope: App) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const sendPage = (reply: FastifyReply, status: number, html: string) =>
      reply.code(status).headers(PAGE_HEADERS).send(html);

    // Pay and Cancel only from our own page: a form on another site cannot press them.
    const sameOrigin = (request: FastifyRequest): boolean => {
      const origin = request.headers.origin;
      return origin === undefined || origin === new URL(config.publicBaseUrl).origin;
    };

    scope.get('/checkout/:checkout_id', { schema: { hide: true, params: CheckoutParams } }, async (request, reply) => {
      const view = await viewCheckout(depsFor(request.log), request.params.checkout_id);
      return view ? sendPage(reply, 200, checkoutPage(view)) : sendPage(reply, 404, notFoundPage());
    });

    for (const [action, apply] of [
      ['pay', payBuiltinCheckout],
      ['cancel', cancelBuiltinCheckout],
    ] as const) {
      scope.post(
        `/checkout/:checkout_id/${action}`,
        { schema: { hide: true, params: CheckoutParams } },
        async (request, reply) => {
          if (!sameOrigin(request)) return sendPage(reply, 403, crossSitePage(request.params.checkout_id));
          const outcome = await apply(depsFor(request.log), request.params.checkout_id);
          return outcome ? reply.redirect(outcome.redirect, 303) : sendPage(reply, 404, notFoundPage());
        },
      );
    }

    const webhookRoute = (path: string, name: PaymentProviderName, verify: WebhookVerifier | undefined) =>
      scope.post(path, { schema: { hide: true } }, async (request) => {
        if (!verify) throw new AppError('not_found', `${name} webhooks are not configured on this service`);
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const outcome = await receiveWebhook(depsFor(request.log), name, verify, { rawBody, headers: request.headers });
        return { received: true, outcome };
      });
    // A vendor's webhook works whenever its secret is set, so a switch of PAYMENT_PROVIDER still
    // credits the checkouts opened before it.
    const { stripe, lemonSqueezy } = config.payments;
    webhookRoute(
      '/webhooks/stripe',
      'stripe',
      stripe.webhookSecret ? stripeWebhookVerifier(stripe.webhookSecret) : undefined,
    );
    webhookRoute(
      '/webhooks/lemonsqueezy',
      'lemonsqueezy',
      lemonSqueezy.webhookSecret ? lemonSqueezyWebhookVerifier(lemonSqueezy.webhookSecret) : undefined,
    );
  });
}
