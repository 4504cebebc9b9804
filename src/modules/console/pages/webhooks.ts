// A team's webhooks: its recent deliveries.
import type { ResponseOf } from '@genmedia/sdk';
import { api } from '../api.ts';
import { html } from '../html.ts';
import { page } from '../layout.ts';
import type { ConsoleRoute } from '../routes.ts';

type Deliveries = ResponseOf<'/api/v1/webhooks/deliveries', 'get'>;

export const webhookRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/webhooks',
    who: 'team',
    async handler(ctx) {
      const deliveries = await api<Deliveries>(ctx.app, ctx.request, ctx.session, 'GET', '/api/v1/webhooks/deliveries');
      return page(
        { title: 'Webhooks', session: ctx.session, current: '/console/webhooks' },
        html`<h2>Deliveries</h2>
${deliveries.data.length === 0 ? html`<p class="muted">No webhook deliveries yet.</p>` : ''}
<ul>${deliveries.data.map((d) => html`<li>${d.id} · ${d.event_type} · ${d.status} · ${d.url}</li>`)}</ul>`,
      );
    },
  },
];
