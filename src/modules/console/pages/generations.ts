// A team's generations: the history (GET /api/v1/generations) with its filters and pages, and a
// generation's own page with every result (players, 3D viewer, text), its status and errors,
// updated live while it runs (the status stream, cookie-authenticated) and a cancel button.
import type { ResponseOf, Schemas } from '@genmedia/sdk';
import { streamStatus } from '../../generations/events.ts';
import { attrs, type Html, html } from '../html.ts';
import { errorBox, nextPageLink, page, statusBadge } from '../layout.ts';
import { fullView, mediaKindOf, needsModelViewer } from '../media.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';
import { generationRows } from './overview.ts';

type History = ResponseOf<'/api/v1/generations', 'get'>;
type Status = Schemas['GenerationStatus'];

const STATUSES = ['queued', 'processing', 'completed', 'failed'];
const KINDS = ['image', 'video', 'music', 'model3d', 'text', 'speech', 'voice', 'influencer'];
const FILTERS = ['status', 'kind', 'model', 'workspace_id', 'cursor'] as const;

function select(name: string, label: string, options: string[], chosen: string | undefined): Html {
  return html`<label>${label}<select name="${name}"><option value="">any</option>${options.map(
    (o) => html`<option ${attrs({ value: o, selected: o === chosen })}>${o}</option>`,
  )}</select></label>`;
}

/** The part of a generation's page that changes while it runs (with what a cancel just did, if one did). */
export async function statusFragment(ctx: ConsoleContext, record: Status, notice?: string): Promise<Html> {
  const running = record.status === 'queued' || record.status === 'processing';
  const id = record.generation_id;
  // Text results are shown inline: read them through our own media route.
  const texts = new Map<string, string>();
  for (const url of record.result_urls.filter((u) => mediaKindOf(u) === 'text')) {
    const path = new URL(url).pathname;
    const answer = await ctx.app.inject({ method: 'GET', url: path });
    if (answer.statusCode === 200) texts.set(url, answer.body.slice(0, 20_000));
  }
  return html`<div id="generation-status" ${attrs({
    'hx-get': `/console/generations/${encodeURIComponent(id)}/fragment`,
    'hx-trigger': running ? 'status-changed' : undefined,
    'hx-swap': 'outerHTML',
    'data-live': running ? `/console/generations/${encodeURIComponent(id)}/events` : undefined,
    'aria-live': 'polite',
  })}>
${notice ? html`<p role="status">${notice}</p>` : ''}
<p>${statusBadge(record.status)} ${record.completed_items} of ${record.total_items} completed, ${record.failed_items} failed · ${record.credits_used} credits${
    record.failed_items > 0
      ? html` <span class="muted">(failed items are refunded, unless their error says otherwise)</span>`
      : ''
  }</p>
${record.expires_at ? html`<p class="muted">Files kept until ${record.expires_at}</p>` : ''}
<table>
<thead><tr><th scope="col">Item</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Queue</th></tr></thead>
<tbody>${record.items.map(
    (item) =>
      html`<tr><td>${item.id}</td><td>${statusBadge(item.status.toLowerCase())}${
        item.error ? html`<br><small class="error">${item.error}</small>` : ''
      }</td><td><progress ${attrs({ value: item.progress, max: 1 })}></progress></td><td>${item.queue_position ?? ''}</td></tr>`,
  )}</tbody>
</table>
${
  running
    ? html`<form ${attrs({ 'hx-post': `/console/generations/${encodeURIComponent(id)}/cancel`, 'hx-target': '#generation-status', 'hx-swap': 'outerHTML' })}><button type="submit" class="secondary">Cancel</button></form>`
    : ''
}
${record.result_urls.map((url, i) => fullView(url, `Result ${i + 1}`, texts.get(url)))}
</div>`;
}

async function readStatus(ctx: ConsoleContext): Promise<Status> {
  return ctx.api<Status>('GET', `/api/v1/generations/${encodeURIComponent(ctx.params.id ?? '')}/status`);
}

export const generationRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/generations',
    who: 'team',
    async handler(ctx) {
      const query: Record<string, string> = { limit: '20' };
      for (const name of FILTERS) if (ctx.query[name]) query[name] = ctx.query[name];
      const answer = await ctx.callApi<History>('GET', `/api/v1/generations?${new URLSearchParams(query)}`);
      const list =
        answer.status === 200
          ? html`${generationRows(answer.body.data)}${nextPageLink('/console/generations', ctx.query, answer.body.next_cursor)}`
          : errorBox((answer.body as { error?: { message?: string } }).error?.message ?? 'The list could not be read');
      return page(
        { title: 'Generations', session: ctx.session, current: '/console/generations' },
        html`<form method="get" action="/console/generations" class="grid">
${select('status', 'Status', STATUSES, ctx.query.status)}
${select('kind', 'Kind', KINDS, ctx.query.kind)}
<label>Model<input name="model" ${attrs({ value: ctx.query.model })}></label>
<label>Workspace<input name="workspace_id" ${attrs({ value: ctx.query.workspace_id })}></label>
<button type="submit">Filter</button>
</form>
${list}`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/generations/:id',
    who: 'team',
    async handler(ctx) {
      const record = await readStatus(ctx);
      return page(
        {
          title: `Generation ${record.generation_id}`,
          session: ctx.session,
          current: '/console/generations',
          modelViewer: needsModelViewer(record),
        },
        html`${await statusFragment(ctx, record)}<p><a href="/console/generations">All generations</a></p>`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/generations/:id/fragment',
    who: 'team',
    async handler(ctx) {
      return statusFragment(ctx, await readStatus(ctx));
    },
  },
  {
    method: 'POST',
    path: '/console/generations/:id/cancel',
    who: 'team',
    async handler(ctx) {
      const answer = await ctx.callApi<Status & { message?: string }>(
        'POST',
        `/api/v1/generations/${encodeURIComponent(ctx.params.id ?? '')}/cancel`,
      );
      // A generation that finished first: show it as it ended. The cancel's message says what it
      // refunded, and why not all of it.
      const record = answer.status === 200 ? answer.body : await readStatus(ctx);
      const fragment = await statusFragment(ctx, record, answer.status === 200 ? answer.body.message : undefined);
      return ctx.htmx ? fragment : { redirect: `/console/generations/${encodeURIComponent(record.generation_id)}` };
    },
  },
  {
    method: 'GET',
    path: '/console/generations/:id/events',
    who: 'team',
    async handler(ctx) {
      // The team's own generation only (readStatus answers 404 otherwise), then its stream.
      const record = await readStatus(ctx);
      await streamStatus(ctx.watch, ctx.request, ctx.reply, record.generation_id, ctx.session.teamId ?? '');
      return html``;
    },
  },
];
