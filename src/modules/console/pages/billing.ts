// A team's billing: its balance; the plans on sale, each active variant with a Buy button that opens
// a checkout with the configured provider (POST /api/v1/billing/top-up) and sends the browser there;
// the ledger page by page, and all of it as a CSV download; the usage over a range of days, by day,
// by kind and by model.
import { Readable } from 'node:stream';
import type { ResponseOf } from '@genmedia/sdk';
import { formatPrice } from '../../payments/pages.ts';
import { ApiCallError, type ApiErrorBody } from '../api.ts';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, errorBox, nextPageLink, page } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';

type Plans = ResponseOf<'/api/v1/billing/plans', 'get'>;
type LedgerPage = ResponseOf<'/api/v1/billing/ledger', 'get'>;
type Usage = ResponseOf<'/api/v1/billing/usage', 'get'>;
type TopUp = ResponseOf<'/api/v1/billing/top-up', 'post'>;
type Checkout = ResponseOf<'/api/v1/billing/checkouts/{checkout_id}', 'get'>;

const LEDGER_PAGE_SIZE = 25;
/** The API's largest page: the CSV download reads the ledger in pages of this many entries. */
const CSV_PAGE_SIZE = 100;

const apiMessage = (body: unknown, fallback: string) => (body as ApiErrorBody | undefined)?.error?.message ?? fallback;

/** Where the browser reached the console (checked against ours by the CSRF guard), for return URLs. */
function originOf(ctx: ConsoleContext): string {
  const origin = ctx.request.headers.origin;
  return origin && origin !== 'null' ? origin : new URL(ctx.app.deps.config.publicBaseUrl).origin;
}

const NOTICES: Record<string, Html> = {
  paid: html`<p class="ok" role="status">Thank you: the credits are added to the balance as soon as the payment is confirmed.</p>`,
  cancelled: html`<p class="muted" role="status">The checkout was cancelled; nothing was charged.</p>`,
};

// The built-in payment provider's checkout credits without taking money (PAYMENT_PROVIDER=builtin).
const TEST_CHECKOUT_NOTICE = html`<p class="notice" role="note"><strong>Test checkout, no payment:</strong> Buy adds the credits without taking any money (PAYMENT_PROVIDER=builtin).</p>`;

/** The notice of the test checkout, where the built-in provider is the one in use. */
function testCheckoutNotice(ctx: ConsoleContext): Html | '' {
  return ctx.app.deps.config.payments.provider === 'builtin' ? TEST_CHECKOUT_NOTICE : '';
}

function plansSection(ctx: ConsoleContext, plans: Plans): Html {
  if (plans.length === 0) return html`<p class="muted">No plans are on sale.</p>`;
  return html`<div class="grid-cards">${plans.map((plan) => {
    const variants = plan.variants.filter((v) => v.active);
    return html`<article>
<header><strong>${plan.name}</strong></header>
<p>${plan.description}</p>
${
  variants.length === 0
    ? html`<p class="muted">Not on sale at the moment.</p>`
    : variants.map(
        (v) => html`<form method="post" action="/console/billing/top-up" class="buy">
${csrfField(ctx.session)}
<input type="hidden" name="plan_id" value="${plan.id}">
<input type="hidden" name="variant_id" value="${v.id}">
<button type="submit" ${attrs({ 'aria-label': `Buy ${plan.name} for ${formatPrice(v.price, v.currency)}` })}>Buy · ${formatPrice(v.price, v.currency)}</button>
</form>`,
      )
}
</article>`;
  })}</div>`;
}

function ledgerTable(ledger: LedgerPage): Html {
  if (ledger.data.length === 0) return html`<p class="muted">No entries in the ledger yet.</p>`;
  return html`<table>
<thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Credits</th><th scope="col">Balance after</th><th scope="col">Reason</th></tr></thead>
<tbody>${ledger.data.map(
    (e) => html`<tr>
<td><small>${e.created_at}</small></td>
<td>${e.kind}</td>
<td class="${e.amount < 0 ? 'error' : 'ok'}">${e.amount > 0 ? `+${e.amount}` : e.amount}</td>
<td>${e.balance_after}</td>
<td>${e.reason}${e.generation_id ? html`<br><a href="/console/generations/${encodeURIComponent(e.generation_id)}">${e.generation_id}</a>` : ''}</td>
</tr>`,
  )}</tbody>
</table>`;
}

interface Figures {
  charged: number;
  refunded: number;
  net: number;
  generations: number;
}

/** Sums the usage rows under one key each (a kind, a model). */
function totalsBy(
  rows: Usage['by_operation'],
  keyOf: (row: Usage['by_operation'][number]) => string,
): Array<[string, Figures]> {
  const totals = new Map<string, Figures>();
  for (const row of rows) {
    const key = keyOf(row);
    const sum = totals.get(key) ?? { charged: 0, refunded: 0, net: 0, generations: 0 };
    sum.charged += row.charged;
    sum.refunded += row.refunded;
    sum.net += row.net;
    sum.generations += row.generations;
    totals.set(key, sum);
  }
  return [...totals].sort((a, b) => b[1].net - a[1].net || a[0].localeCompare(b[0]));
}

function figuresTable(label: string, rows: Array<[string, Figures]>, empty: string): Html {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table>
<thead><tr><th scope="col">${label}</th><th scope="col">Generations</th><th scope="col">Charged</th><th scope="col">Refunded</th><th scope="col">Net</th></tr></thead>
<tbody>${rows.map(
    ([key, f]) =>
      html`<tr><td>${key}</td><td>${f.generations}</td><td>${f.charged}</td><td>${f.refunded}</td><td>${f.net}</td></tr>`,
  )}</tbody>
</table>`;
}

function usageSection(ctx: ConsoleContext, usage: Usage | undefined, problem: string | undefined): Html {
  const form = html`<form method="get" action="/console/billing#usage" class="grid">
<label>From<input type="date" name="from" ${attrs({ value: usage?.from ?? ctx.query.from })}></label>
<label>To<input type="date" name="to" ${attrs({ value: usage?.to ?? ctx.query.to })}></label>
<button type="submit">Show usage</button>
</form>`;
  if (!usage) return html`${form}${errorBox(problem ?? 'The usage could not be read')}`;
  const days = usage.days.filter((d) => d.charged > 0 || d.refunded > 0 || d.generations > 0);
  return html`${form}
<p>${usage.from} to ${usage.to}: <strong>${usage.totals.net} credits</strong> net over ${usage.totals.generations} generations (${usage.totals.charged} charged, ${usage.totals.refunded} refunded).</p>
<h3>By kind</h3>
${figuresTable(
  'Kind',
  totalsBy(usage.by_operation, (r) => r.kind ?? 'other'),
  'No usage in this range.',
)}
<h3>By model</h3>
${figuresTable(
  'Model',
  totalsBy(usage.by_operation, (r) => r.model ?? '(no model)'),
  'No usage in this range.',
)}
<h3>By day</h3>
${figuresTable(
  'Day',
  days.map((d) => [d.date, d]),
  'No usage in this range.',
)}`;
}

/** The whole ledger as CSV: the API's CSV pages one after another, with the header row once. */
async function* ledgerCsv(
  ctx: ConsoleContext,
  first: { body: string; cursor: string | undefined },
  window: URLSearchParams,
): AsyncGenerator<string> {
  yield first.body;
  let cursor = first.cursor;
  while (cursor) {
    const query = new URLSearchParams(window);
    query.set('cursor', cursor);
    const answer = await ctx.callApi<string>('GET', `/api/v1/billing/ledger?${query}`, {
      headers: { accept: 'text/csv' },
    });
    // The download has begun: a failed page ends it where it is.
    if (answer.status !== 200) return;
    const body = String(answer.body);
    yield body.slice(body.indexOf('\r\n') + 2);
    const next = answer.headers['x-next-cursor'];
    cursor = typeof next === 'string' && next !== '' ? next : undefined;
  }
}

export const billingRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/billing',
    who: 'team',
    async handler(ctx) {
      const { session } = ctx;
      const ledgerQuery = new URLSearchParams({ limit: String(LEDGER_PAGE_SIZE) });
      if (ctx.query.cursor) ledgerQuery.set('cursor', ctx.query.cursor);
      const usageQuery = new URLSearchParams();
      for (const name of ['from', 'to'] as const) if (ctx.query[name]) usageQuery.set(name, ctx.query[name]);
      const [balance, plans, ledger, usage] = await Promise.all([
        ctx.api<number>('GET', '/api/v1/billing/credits'),
        ctx.api<Plans>('GET', '/api/v1/billing/plans'),
        ctx.callApi<LedgerPage>('GET', `/api/v1/billing/ledger?${ledgerQuery}`),
        ctx.callApi<Usage>('GET', `/api/v1/billing/usage?${usageQuery}`),
      ]);
      const notice = NOTICES[ctx.query.top_up ?? ''];
      return page(
        { title: 'Billing', session, current: '/console/billing' },
        html`${notice ?? ''}
<p class="balance" id="balance">${balance} credits</p>
<h2>Buy credits</h2>
${testCheckoutNotice(ctx)}
<p class="muted">Buy opens a checkout. Opening one acknowledges the dispute evidence policy: the purchase is recorded (team, key, plan, price, times) as evidence should the payment be disputed.</p>
${plansSection(ctx, plans)}
<h2 id="ledger">Ledger</h2>
<p><a href="/console/billing/ledger.csv" download>Download CSV</a> <small class="muted">(every entry, newest first)</small></p>
${
  ledger.status === 200
    ? html`${ledgerTable(ledger.body)}${nextPageLink('/console/billing', ctx.query, ledger.body.next_cursor)}`
    : errorBox(apiMessage(ledger.body, 'The ledger could not be read'))
}
<h2 id="usage">Usage</h2>
${usageSection(ctx, usage.status === 200 ? usage.body : undefined, apiMessage(usage.body, 'The usage could not be read'))}`,
      );
    },
  },
  {
    method: 'POST',
    path: '/console/billing/top-up',
    who: 'team',
    async handler(ctx) {
      const back = `${originOf(ctx)}/console/billing`;
      const { checkoutUrl, checkout_id } = await ctx.api<TopUp>('POST', '/api/v1/billing/top-up', {
        body: {
          plan_id: ctx.form.plan_id ?? '',
          ...(ctx.form.variant_id ? { variant_id: ctx.form.variant_id } : {}),
          success_url: `${back}?top_up=paid`,
          cancel_url: `${back}?top_up=cancelled`,
        },
      });
      // Our own checkout page is a redirect away. A vendor's is reached from a page of ours by a
      // link: browsers hold a form's redirects to the CSP's form-action ('self').
      if (new URL(checkoutUrl).origin === originOf(ctx)) return { redirect: checkoutUrl };
      return { redirect: `/console/billing/checkouts/${encodeURIComponent(checkout_id)}` };
    },
  },
  {
    method: 'GET',
    path: '/console/billing/checkouts/:id',
    who: 'team',
    async handler(ctx) {
      const checkout = await ctx.api<Checkout>(
        'GET',
        `/api/v1/billing/checkouts/${encodeURIComponent(ctx.params.id ?? '')}`,
      );
      return page(
        { title: 'Checkout', session: ctx.session, current: '/console/billing' },
        html`<article>
${checkout.provider === 'builtin' ? TEST_CHECKOUT_NOTICE : ''}
<p><strong>${checkout.credits} credits</strong> (${checkout.plan_id}) for ${formatPrice(checkout.amount, checkout.currency)} · ${checkout.status}</p>
${
  checkout.status === 'open'
    ? html`<p><a href="${checkout.checkout_url}" role="button">Continue to payment</a></p>`
    : html`<p><a href="/console/billing">Back to billing</a></p>`
}
</article>`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/billing/ledger.csv',
    who: 'team',
    async handler(ctx) {
      const window = new URLSearchParams({ limit: String(CSV_PAGE_SIZE) });
      for (const name of ['created_after', 'created_before'] as const)
        if (ctx.query[name]) window.set(name, ctx.query[name]);
      const first = await ctx.callApi<string>('GET', `/api/v1/billing/ledger?${window}`, {
        headers: { accept: 'text/csv' },
      });
      if (first.status !== 200) {
        throw new ApiCallError(first.status, first.body as unknown as ApiErrorBody, 'The ledger could not be read');
      }
      const next = first.headers['x-next-cursor'];
      const cursor = typeof next === 'string' && next !== '' ? next : undefined;
      const day = new Date().toISOString().slice(0, 10);
      await ctx.reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="ledger-${day}.csv"`)
        .send(Readable.from(ledgerCsv(ctx, { body: String(first.body), cursor }, window)));
      return html``;
    },
  },
];
