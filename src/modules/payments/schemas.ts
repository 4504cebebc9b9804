import { Type } from 'typebox';
import { Url } from '../../lib/fields.ts';
import { Timestamp } from '../../lib/schemas.ts';

export const TopUpBody = Type.Object({
  plan_id: Type.String({ minLength: 1, maxLength: 100, description: 'A plan id from GET /api/v1/billing/plans' }),
  variant_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "An active variant of the plan; default the plan's first active variant",
    }),
  ),
  success_url: Type.Optional(Url('Where the buyer is sent after paying; default a page of this service')),
  cancel_url: Type.Optional(Url('Where the buyer is sent after cancelling; default a page of this service')),
  // Optional in the document (the contract's "Req: no"); the validator fills in the default.
  dispute_policy_acknowledged: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        'Must be true (the default): calling this endpoint acknowledges the dispute evidence policy; false is 400',
    }),
  ),
  signature_name: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Typed-name acknowledgement for this charge (recorded)' }),
  ),
});

export const TopUpResponse = Type.Object({
  checkoutUrl: Type.String({ description: 'Send the buyer here to pay' }),
  checkout_id: Type.String({ description: 'Read the checkout with GET /api/v1/billing/checkouts/{checkout_id}' }),
});

export const CheckoutStatus = Type.Union(
  [Type.Literal('open'), Type.Literal('paid'), Type.Literal('cancelled'), Type.Literal('expired')],
  { description: "'open' until paid, cancelled or past expires_at" },
);

export const Checkout = Type.Object(
  {
    id: Type.String(),
    status: CheckoutStatus,
    plan_id: Type.String(),
    variant_id: Type.String(),
    credits: Type.Integer({ description: 'Credits added to the team when paid' }),
    amount: Type.Integer({ description: 'Price in the smallest unit of the currency (cents)' }),
    currency: Type.String({ description: 'ISO 4217 code' }),
    provider: Type.Union([Type.Literal('builtin'), Type.Literal('stripe'), Type.Literal('lemonsqueezy')]),
    checkout_url: Type.String({ description: 'Where the buyer pays' }),
    success_url: Type.Union([Type.String(), Type.Null()]),
    cancel_url: Type.Union([Type.String(), Type.Null()]),
    signature_name: Type.Union([Type.String(), Type.Null()]),
    dispute_policy_acknowledged: Type.Boolean(),
    created_at: Timestamp,
    expires_at: Timestamp,
    paid_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Checkout', title: 'Checkout' },
);

export const CheckoutParams = Type.Object({
  checkout_id: Type.String({ minLength: 1, maxLength: 64 }),
});
