// A team's webhooks: the signing secret (revealed on demand, rotated by a form that shows the new one
// once), and the deliveries page by page, each with its attempts and a Redeliver button that updates
// the delivery in place (htmx) and follows it while its next attempt is due.
import type { ResponseOf, Schemas } from '@genmedia/sdk';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, errorBox, nextPageLink, page, statusBadge } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';

type Secret = ResponseOf<'/api/v1/webhooks/secret', 'get'>;
type Deliveries = ResponseOf<'/api/v1/webhooks/deliveries', 'get'>;
type Delivery = Schemas['WebhookDelivery'];
type DeliveryDetail = ResponseOf<'/api/v1/webhooks/deliveries/{id}', 'get'>;

const PAGE_SIZE = 20;
const STATUSES = ['pending', 'delivered', 'failed'];
/** A pending delivery whose next attempt is this close is followed on the page until it settles. */
const FOLLOW_WITHIN_MS = 30_000;

const elementId = (delivery: Pick<Delivery, 'id'>) => `delivery-${delivery.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** One delivery with its attempts and its Redeliver button: what a redelivery swaps in place. */
export function deliveryFragment(ctx: ConsoleContext, delivery: Delivery, now = Date.now()): Html {
  const id = elementId(delivery);
  const path = `/console/webhooks/deliveries/${encodeURIComponent(delivery.id)}`;
  const due = delivery.next_attempt_at === null ? now : Date.parse(delivery.next_attempt_at);
  const follow = delivery.status === 'pending' && due - now < FOLLOW_WITHIN_MS;
  return html`<article ${attrs({
    id,
    class: 'delivery',
    'hx-get': follow ? path : undefined,
    'hx-trigger': follow ? 'load delay:2s' : undefined,
    'hx-swap': follow ? 'outerHTML' : undefined,
    'aria-live': 'polite',
  })}>
<header>
${statusBadge(delivery.status)} <strong>${delivery.event_type}</strong> · <a href="${path}">${delivery.id}</a>
<br><small class="muted">Generation <a href="/console/generations/${encodeURIComponent(delivery.generation_id)}">${delivery.generation_id}</a> · to <code>${delivery.url}</code> · ${delivery.created_at}</small>
${delivery.next_attempt_at ? html`<br><small>Next attempt at ${delivery.next_attempt_at}</small>` : ''}
</header>
${
  delivery.attempts.length === 0
    ? html`<p class="muted">No attempt made yet.</p>`
    : html`<table>
<thead><tr><th scope="col">Attempt</th><th scope="col">When</th><th scope="col">Status code</th><th scope="col">Duration</th><th scope="col">Error</th></tr></thead>
<tbody>${delivery.attempts.map(
        (a) => html`<tr>
<td>${a.attempt}${a.trigger === 'redelivery' ? html` <small class="muted">(redelivery)</small>` : ''}</td>
<td><small>${a.created_at}</small></td>
<td class="${a.status_code !== null && a.status_code < 300 ? 'ok' : 'error'}">${a.status_code ?? 'none'}</td>
<td>${a.duration_ms} ms</td>
<td>${a.error ? html`<span class="error">${a.error}</span>` : ''}${
          a.next_attempt_at ? html`<br><small class="muted">retry scheduled for ${a.next_attempt_at}</small>` : ''
        }</td>
</tr>`,
      )}</tbody>
</table>`
}
<form method="post" ${attrs({
    action: `${path}/redeliver`,
    'hx-post': `${path}/redeliver`,
    'hx-target': `#${id}`,
    'hx-swap': 'outerHTML',
  })}>${csrfField(ctx.session)}<button type="submit" class="secondary outline">Redeliver</button> <span class="htmx-indicator muted">Sending…</span></form>
</article>`;
}

function secretSection(ctx: ConsoleContext, secret: Secret, rotated: boolean, problem?: string): Html {
  return html`${rotated ? html`<p class="ok" role="status">The secret was rotated: this is the new one. Every webhook from now on is signed with it only.</p>` : ''}
${problem ? errorBox(problem) : ''}
${rotated ? html`<details open>` : html`<details>`}
<summary>${rotated ? 'The new signing secret' : 'Show the signing secret'}</summary>
<p class="secret" id="signing-secret">${secret.secret}</p>
<p class="muted">Made ${secret.created_at}. Verify the <code>webhook-signature</code> header with it (Standard Webhooks).</p>
</details>
<form method="post" action="/console/webhooks/secret/rotate">
${csrfField(ctx.session)}
<label><input type="checkbox" name="confirm" value="yes" required> Replace it: the old secret stops signing at once</label>
<button type="submit" class="secondary">Rotate the secret</button>
</form>`;
}

function statusFilter(chosen: string | undefined): Html {
  return html`<form method="get" action="/console/webhooks" class="grid">
<label>Status<select name="status"><option value="">any</option>${STATUSES.map(
    (s) => html`<option ${attrs({ value: s, selected: s === chosen })}>${s}</option>`,
  )}</select></label>
<button type="submit">Filter</button>
</form>`;
}

async function webhooksPage(ctx: ConsoleContext, secret: Secret, rotated: boolean, problem?: string): Promise<Html> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const name of ['status', 'cursor'] as const) if (ctx.query[name]) query.set(name, ctx.query[name]);
  const deliveries = await ctx.callApi<Deliveries>('GET', `/api/v1/webhooks/deliveries?${query}`);
  let list: Html;
  if (deliveries.status !== 200) {
    list = errorBox(
      (deliveries.body as { error?: { message?: string } }).error?.message ?? 'The deliveries could not be read',
    );
  } else if (deliveries.body.data.length === 0) {
    list = html`<p class="muted">${
      ctx.query.status || ctx.query.cursor
        ? 'No deliveries here.'
        : 'No webhook deliveries yet: pass a webhook URL with a generation request and each completion or failure is posted there, signed with this secret.'
    }</p>`;
  } else {
    const now = Date.now();
    list = html`${deliveries.body.data.map((d) => deliveryFragment(ctx, d, now))}${nextPageLink(
      '/console/webhooks',
      ctx.query,
      deliveries.body.next_cursor,
    )}`;
  }
  return page(
    { title: 'Webhooks', session: ctx.session, current: '/console/webhooks' },
    html`<h2>Signing secret</h2>
${secretSection(ctx, secret, rotated, problem)}
<h2>Deliveries</h2>
${statusFilter(ctx.query.status)}
${list}`,
  );
}

const readDelivery = (ctx: ConsoleContext) =>
  ctx.api<DeliveryDetail>('GET', `/api/v1/webhooks/deliveries/${encodeURIComponent(ctx.params.id ?? '')}`);

export const webhookRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/webhooks',
    who: 'team',
    async handler(ctx) {
      const secret = await ctx.api<Secret>('GET', '/api/v1/webhooks/secret');
      return webhooksPage(ctx, secret, false);
    },
  },
  {
    method: 'POST',
    path: '/console/webhooks/secret/rotate',
    who: 'team',
    async handler(ctx) {
      if (ctx.form.confirm !== 'yes') {
        const secret = await ctx.api<Secret>('GET', '/api/v1/webhooks/secret');
        ctx.reply.code(400);
        return webhooksPage(ctx, secret, false, 'Tick the box to confirm: the old secret stops signing at once.');
      }
      const secret = await ctx.api<Secret>('POST', '/api/v1/webhooks/secret/rotate');
      return webhooksPage(ctx, secret, true);
    },
  },
  {
    method: 'GET',
    path: '/console/webhooks/deliveries/:id',
    who: 'team',
    async handler(ctx) {
      const delivery = await readDelivery(ctx);
      if (ctx.htmx) return deliveryFragment(ctx, delivery);
      return page(
        { title: `Delivery ${delivery.id}`, session: ctx.session, current: '/console/webhooks' },
        html`${deliveryFragment(ctx, delivery)}
<h2>Body</h2>
<p class="muted">Every attempt posts these exact bytes, with <code>webhook-id: ${delivery.id}</code>.</p>
<pre class="text-result">${delivery.payload}</pre>
<p><a href="/console/webhooks">All deliveries</a></p>`,
      );
    },
  },
  {
    method: 'POST',
    path: '/console/webhooks/deliveries/:id/redeliver',
    who: 'team',
    async handler(ctx) {
      const delivery = await ctx.api<DeliveryDetail>(
        'POST',
        `/api/v1/webhooks/deliveries/${encodeURIComponent(ctx.params.id ?? '')}/redeliver`,
      );
      if (ctx.htmx) return deliveryFragment(ctx, delivery);
      return { redirect: `/console/webhooks/deliveries/${encodeURIComponent(delivery.id)}` };
    },
  },
];
