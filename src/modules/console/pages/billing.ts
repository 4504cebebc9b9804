// A team's billing: its balance and the plans on sale.
import type { ResponseOf } from '@genmedia/sdk';
import { api } from '../api.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

type Plans = ResponseOf<'/api/v1/billing/plans', 'get'>;

export const billingRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/billing',
    who: 'team',
    async handler(ctx) {
      const [balance, plans] = await Promise.all([
        api<number>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/billing/credits'),
        api<Plans>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/billing/plans'),
      ]);
      return page(
        { title: 'Billing', session: ctx.session, current: '/console/billing' },
        html`<p class="balance" id="balance">${balance} credits</p>
<h2>Plans</h2>
<ul>${plans.map((plan) => html`<li><strong>${plan.name}</strong>: ${plan.description}</li>`)}</ul>`,
      );
    },
  },
];
