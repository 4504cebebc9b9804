// A team's overview: its balance, the credits it spent per day (an inline SVG chart) and its
// latest generations.
import type { ResponseOf } from '@genmedia/sdk';
import { type Html, html } from '../html.ts';
import { page, statusBadge } from '../layout.ts';
import { thumbnail } from '../media.ts';
import type { ConsoleRoute } from '../types.ts';

type Usage = ResponseOf<'/api/v1/billing/usage', 'get'>;
type History = ResponseOf<'/api/v1/generations', 'get'>;

const DAY_MS = 86_400_000;
const CHART_DAYS = 30;

/** Net credits per day as bars, the last CHART_DAYS days (days without use are zero). */
export function spendChart(days: Usage['days'], today: Date): Html {
  const byDate = new Map(days.map((d) => [d.date, d.net]));
  const series = Array.from({ length: CHART_DAYS }, (_, i) => {
    const date = new Date(today.getTime() - (CHART_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    return { date, net: byDate.get(date) ?? 0 };
  });
  const most = Math.max(1, ...series.map((d) => d.net));
  const width = 600;
  const height = 160;
  const slot = width / CHART_DAYS;
  const total = series.reduce((sum, d) => sum + d.net, 0);
  return html`<figure>
<svg class="chart" viewBox="0 0 ${width} ${height + 20}" role="img" aria-labelledby="spend-title">
<title id="spend-title">Credits spent per day over the last ${CHART_DAYS} days: ${total} in all</title>
<line class="axis" x1="0" y1="${height}" x2="${width}" y2="${height}"></line>
${series.map((d, i) => {
  const h = Math.round((d.net / most) * (height - 10));
  return html`<rect class="bar" x="${(i * slot + 1).toFixed(1)}" y="${height - h}" width="${(slot - 2).toFixed(1)}" height="${h}"><title>${d.date}: ${d.net} credits</title></rect>`;
})}
<text x="0" y="${height + 15}">${series[0]?.date}</text>
<text x="${width}" y="${height + 15}" text-anchor="end">${series.at(-1)?.date}</text>
</svg>
<figcaption>Credits spent per day (net of refunds), last ${CHART_DAYS} days: ${total}</figcaption>
</figure>`;
}

/** Rows of generations with their thumbnails, as the overview and the history show them. */
export function generationRows(entries: History['data']): Html {
  if (entries.length === 0)
    return html`<p class="muted">No generations yet: try the <a href="/console/playground">playground</a>.</p>`;
  return html`<table>
<thead><tr><th scope="col">Generation</th><th scope="col">Status</th><th scope="col">What</th><th scope="col">Prompt</th><th scope="col">Results</th><th scope="col">Credits</th></tr></thead>
<tbody>
${entries.map(
  (g) => html`<tr>
<td><a href="/console/generations/${g.generation_id}">${g.generation_id}</a><br><small class="muted">${g.created_at}</small></td>
<td>${statusBadge(g.status)}${g.items.some((i) => i.error) ? html`<br><small class="error">${g.items.find((i) => i.error)?.error}</small>` : ''}</td>
<td>${g.operation}<br><small class="muted">${g.model ?? ''}</small></td>
<td>${(g.prompt ?? '').slice(0, 120)}</td>
<td>${g.result_urls.slice(0, 2).map((url, i) => thumbnail(url, `Result ${i + 1} of ${g.generation_id}`))}</td>
<td>${g.credits_used}</td>
</tr>`,
)}
</tbody>
</table>`;
}

export const overviewRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console',
    who: 'team',
    async handler(ctx) {
      const { session } = ctx;
      const today = new Date();
      const from = new Date(today.getTime() - (CHART_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
      const [balance, usage, recent] = await Promise.all([
        ctx.api<number>('GET', '/api/v1/billing/credits'),
        ctx.api<Usage>('GET', `/api/v1/billing/usage?from=${from}`),
        ctx.api<History>('GET', '/api/v1/generations?limit=10'),
      ]);
      return page(
        { title: 'Overview', session, current: '/console' },
        html`<section class="grid">
<article><header>Balance</header><p class="balance" id="balance">${balance} credits</p><a href="/console/billing" role="button">Buy credits</a></article>
<article><header>Last ${CHART_DAYS} days</header><p>${usage.totals.generations} generations, ${usage.totals.net} credits net</p></article>
</section>
${spendChart(usage.days, today)}
<h2>Recent generations</h2>
${generationRows(recent.data)}
<p><a href="/console/generations">All generations</a></p>`,
      );
    },
  },
];
