// The operator's pages (signed in with the admin token), each over the admin API: the teams (create
// one with starting credits), a team's page (grant or correct credits, its cap of items running at
// once, its ledger, its API keys: issue one, shown once on the answer page, or revoke one), the
// providers (configured, success rate, routes cooling down, a reachability check), the vendor
// attempts of a generation, and the margin (revenue against vendor cost, with a bar chart). A refused form is shown again with the API's words beside it.
import type { ResponseOf } from '@genmedia/sdk';
import type { Static } from 'typebox';
import type { MarginReport } from '../../reports/schemas.ts';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, errorBox, page } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';
import { attemptAdmin } from './admin-call.ts';

type Team = ResponseOf<'/admin/v1/teams/{team_id}', 'get'>;
type Teams = ResponseOf<'/admin/v1/teams', 'get'>;
type Ledger = ResponseOf<'/admin/v1/teams/{team_id}/ledger', 'get'>;
type ApiKeys = ResponseOf<'/admin/v1/teams/{team_id}/api-keys', 'get'>;
type CreatedKey = ResponseOf<'/admin/v1/teams/{team_id}/api-keys', 'post'>;
type Providers = ResponseOf<'/admin/v1/providers', 'get'>;
type Attempts = ResponseOf<'/admin/v1/generations/{generation_id}/attempts', 'get'>;
type Margin = Static<typeof MarginReport>;
type MarginRow = Margin['rows'][number];

const TEAMS_PAGE = 100;
const LEDGER_PAGE = 20;

const teamPath = (id: string) => `/console/operator/teams/${encodeURIComponent(id)}`;

/** A whole number as a number; anything else as it was typed, for the API to refuse in its words. */
const wholeOrRaw = (value: string): number | string => (/^-?\d{1,15}$/.test(value.trim()) ? Number(value) : value);

/** A timestamp as people read it (UTC), machine-readable in its attribute. */
const when = (iso: string | null | undefined): Html =>
  iso ? html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>` : html``;

// --- Teams ---

function createTeamForm(ctx: ConsoleContext, values: Record<string, string> = {}): Html {
  return html`<form method="post" action="/console/operator/teams">
${csrfField(ctx.session)}
<div class="grid">
<div><label for="team-name">Name</label>
<input id="team-name" name="name" required maxlength="100" autocomplete="off" ${attrs({ value: values.name })}></div>
<div><label for="team-credits">Starting credits</label>
<input id="team-credits" name="credits" type="number" min="0" step="1" ${attrs({ value: values.credits ?? '0' })}></div>
</div>
<button type="submit">Create the team</button>
</form>`;
}

async function teamsPage(ctx: ConsoleContext, problem?: Html, values?: Record<string, string>): Promise<Html> {
  const query = new URLSearchParams({ limit: String(TEAMS_PAGE) });
  if (ctx.query.before) query.set('before', ctx.query.before);
  const listed = await attemptAdmin<Teams>(ctx, 'GET', `/admin/v1/teams?${query}`);
  const defaultCap = ctx.app.deps.config.items.teamMaxConcurrentItems;
  const list = !listed.ok
    ? listed.box
    : listed.body.length === 0
      ? html`<p class="muted">No teams yet: create the first below.</p>`
      : html`<div class="overflow-auto"><table>
<thead><tr><th scope="col">Team</th><th scope="col">Credits</th><th scope="col">Items at once</th><th scope="col">Running</th><th scope="col">Created</th></tr></thead>
<tbody>${listed.body.map(
          (t) => html`<tr>
<td><a href="${teamPath(t.id)}">${t.name}</a><br><small class="muted">${t.id}</small></td>
<td>${t.credits}</td>
<td>${t.max_concurrent_items ?? html`<span class="muted">default (${defaultCap})</span>`}</td>
<td>${t.running_items}</td>
<td>${when(t.created_at)}</td>
</tr>`,
        )}</tbody>
</table></div>
${
  listed.body.length === TEAMS_PAGE
    ? html`<p><a role="button" class="secondary" href="/console/operator/teams?before=${encodeURIComponent(listed.body.at(-1)?.id ?? '')}">Older teams</a></p>`
    : ''
}`;
  return page(
    { title: 'Teams', session: ctx.session, current: '/console/operator/teams' },
    html`${list}
<section aria-labelledby="new-team">
<h2 id="new-team">New team</h2>
${problem ?? ''}
${createTeamForm(ctx, values)}
</section>`,
  );
}

/** What a team's page shows beside its forms after one of them was sent. */
interface TeamNotes {
  credits?: Html;
  cap?: Html;
  keys?: Html;
  /** The key just issued: shown on this answer only. */
  created?: CreatedKey;
  /** The fields of the refused form, to fill it again. */
  values?: Record<string, string>;
}

function newKeyBox(key: CreatedKey): Html {
  return html`<article class="new-key" id="new-key" role="status" aria-labelledby="new-key-title">
<h2 id="new-key-title">New API key${key.name ? html` “${key.name}”` : ''}: copy it now</h2>
<p>This is the only time the key is shown: only its hash is kept, and no page shows it again.</p>
<label for="new-key-value">The API key</label>
<input id="new-key-value" class="secret" type="text" readonly autocomplete="off" spellcheck="false" ${attrs({ value: key.key })}>
</article>`;
}

function ledgerTable(teamId: string, entries: Ledger, before: string | undefined): Html {
  if (entries.length === 0)
    return html`<p class="muted">${before ? 'No older entries.' : 'No ledger entries yet.'}</p>`;
  return html`<div class="overflow-auto"><table id="ledger">
<thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Amount</th><th scope="col">Balance after</th><th scope="col">Reason</th><th scope="col">Generation</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr>
<td>${when(e.created_at)}</td>
<td>${e.kind}</td>
<td class="${e.amount < 0 ? 'error' : 'ok'}">${e.amount > 0 ? `+${e.amount}` : e.amount}</td>
<td>${e.balance_after}</td>
<td>${e.reason}</td>
<td>${e.generation_id ? html`<a href="/console/operator/attempts?generation_id=${encodeURIComponent(e.generation_id)}">${e.generation_id}</a>` : ''}</td>
</tr>`,
  )}</tbody>
</table></div>
${
  entries.length === LEDGER_PAGE
    ? html`<p><a role="button" class="secondary" href="${teamPath(teamId)}?ledger_before=${encodeURIComponent(entries.at(-1)?.id ?? '')}#ledger-title">Older entries</a></p>`
    : ''
}`;
}

function keysTable(ctx: ConsoleContext, teamId: string, keys: ApiKeys): Html {
  if (keys.length === 0) return html`<p class="muted">No API keys yet.</p>`;
  return html`<div class="overflow-auto"><table id="api-keys">
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">State</th></tr></thead>
<tbody>${keys.map(
    (k) => html`<tr>
<td>${k.name ?? html`<span class="muted">unnamed</span>`}</td>
<td><code>${k.prefix}…</code></td>
<td>${when(k.created_at)}</td>
<td>${
      k.revoked_at
        ? html`<span class="muted">revoked ${when(k.revoked_at)}</span>`
        : html`<form method="post" class="inline" action="${teamPath(teamId)}/api-keys/${encodeURIComponent(k.id)}/revoke">${csrfField(ctx.session)}<button type="submit" class="secondary" ${attrs({ 'aria-label': `Revoke the key ${k.name ?? k.prefix}` })}>Revoke</button></form>`
    }</td>
</tr>`,
  )}</tbody>
</table></div>`;
}

/** A team's list of `kind:model` entries, or what an empty one means. */
function modelList(entries: readonly string[], empty: string): Html {
  return entries.length === 0
    ? html`<span class="muted">${empty}</span>`
    : html`${entries.map((entry, i) => html`${i > 0 ? ', ' : ''}<code>${entry}</code>`)}`;
}

async function teamPage(ctx: ConsoleContext, notes: TeamNotes = {}): Promise<Html> {
  const id = ctx.params.id ?? '';
  const before = ctx.query.ledger_before || undefined;
  const ledgerQuery = new URLSearchParams({ limit: String(LEDGER_PAGE) });
  if (before) ledgerQuery.set('before', before);
  const base = `/admin/v1/teams/${encodeURIComponent(id)}`;
  // An unknown team answers 404 here, and the console shows its not-found page.
  const [team, ledger, keys] = await Promise.all([
    ctx.api<Team>('GET', base),
    ctx.api<Ledger>('GET', `${base}/ledger?${ledgerQuery}`),
    ctx.api<ApiKeys>('GET', `${base}/api-keys`),
  ]);
  const values = notes.values ?? {};
  const defaultCap = ctx.app.deps.config.items.teamMaxConcurrentItems;
  const path = teamPath(team.id);
  return page(
    { title: `Team ${team.name}`, session: ctx.session, current: '/console/operator/teams' },
    html`<p><a href="/console/operator/teams">← All teams</a></p>
${notes.created ? newKeyBox(notes.created) : ''}
<p class="balance" id="balance">${team.credits} credits</p>
<dl class="facts">
<dt>Id</dt><dd><code>${team.id}</code></dd>
<dt>Items at once</dt><dd id="cap">${team.max_concurrent_items ?? `default (${defaultCap})`}</dd>
<dt>Running now</dt><dd>${team.running_items}</dd>
<dt>Price multiplier</dt><dd id="price-multiplier">${team.price_multiplier === 1 ? html`1 <span class="muted">(list prices)</span>` : String(team.price_multiplier)}</dd>
<dt>Models allowed</dt><dd id="allowed-models">${modelList(team.allowed_models, 'every model not denied')}</dd>
<dt>Models denied</dt><dd id="denied-models">${modelList(team.denied_models, 'none')}</dd>
<dt>Created</dt><dd>${when(team.created_at)}</dd>
</dl>
<p class="muted"><small>The team's rules change through <code>PATCH /admin/v1/teams/{id}</code>, <code>npm run -s admin -- teams set</code> or the configuration file (docs/operating.md).</small></p>

<section aria-labelledby="credits-title">
<h2 id="credits-title">Grant or correct credits</h2>
${notes.credits ?? ''}
<form method="post" action="${path}/credits">
${csrfField(ctx.session)}
<div class="grid">
<div><label for="credit-amount">Amount</label>
<input id="credit-amount" name="amount" type="number" step="1" required aria-describedby="credit-amount-help" ${attrs({ value: values.amount })}>
<small id="credit-amount-help">Positive grants credits; negative corrects the balance (never below zero).</small></div>
<div><label for="credit-reason">Reason</label>
<input id="credit-reason" name="reason" required maxlength="500" ${attrs({ value: values.reason })}></div>
</div>
<button type="submit">Record the change</button>
</form>
</section>

<section aria-labelledby="cap-title">
<h2 id="cap-title">Items it runs at once</h2>
${notes.cap ?? ''}
<form method="post" action="${path}/cap">
${csrfField(ctx.session)}
<label for="cap-value">Cap (empty: the service default, ${defaultCap})</label>
<input id="cap-value" name="max_concurrent_items" type="number" min="1" step="1" ${attrs({
      value:
        values.max_concurrent_items ?? (team.max_concurrent_items === null ? '' : String(team.max_concurrent_items)),
    })}>
<button type="submit">Save the cap</button>
</form>
<p class="muted">More items than the cap wait in the queue and start in order as room frees.</p>
</section>

<section aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
${notes.keys ?? ''}
${keysTable(ctx, team.id, keys)}
<form method="post" action="${path}/api-keys">
${csrfField(ctx.session)}
<label for="key-name">Name of a new key (optional)</label>
<input id="key-name" name="name" maxlength="100" autocomplete="off" ${attrs({ value: values.name })}>
<button type="submit">Issue a key</button>
</form>
</section>

<section aria-labelledby="ledger-title">
<h2 id="ledger-title">Ledger${before ? ' (older entries)' : ''}</h2>
${ledgerTable(team.id, ledger, before)}
</section>`,
  );
}

/** Shows the team's page again with a refusal beside the form that caused it. */
async function refused(ctx: ConsoleContext, status: number, notes: TeamNotes): Promise<Html> {
  const body = await teamPage(ctx, { ...notes, values: ctx.form });
  ctx.reply.code(status);
  return body;
}

// --- Providers ---

function checkCell(provider: Providers[number], checked: boolean): Html {
  if (!checked) return html`<span class="muted">not checked</span>`;
  if (!provider.check)
    return html`<span class="muted">${provider.configured ? 'built in: nothing to ask' : 'not configured'}</span>`;
  const { reachable, detail } = provider.check;
  const verdict =
    reachable === true
      ? html`<strong class="ok">reachable</strong>`
      : reachable === false
        ? html`<strong class="error">not reachable</strong>`
        : html`<strong>unknown</strong>`;
  return html`${verdict}<br><small>${detail}</small>`;
}

function providersFragment(providers: Providers, checked: boolean): Html {
  const cooling = providers.flatMap((p) =>
    p.routes.filter((r) => r.cooling_until !== null).map((r) => ({ provider: p.id, ...r })),
  );
  return html`<div id="providers">
<div class="overflow-auto"><table>
<thead><tr><th scope="col">Provider</th><th scope="col">Configured</th><th scope="col">Success rate (24 h)</th><th scope="col">Routes</th><th scope="col">Cooling down</th><th scope="col">Check</th></tr></thead>
<tbody>${providers.map(
    (p) => html`<tr>
<td><strong>${p.id}</strong></td>
<td>${p.configured ? html`<span class="ok">yes</span>` : html`<span class="muted">no key</span>`}</td>
<td>${p.success_rate === null ? html`<span class="muted">no attempts</span>` : `${(p.success_rate * 100).toFixed(1)} %`}</td>
<td>${p.routes.length}</td>
<td>${p.routes.filter((r) => r.cooling_until !== null).length}</td>
<td>${checkCell(p, checked)}</td>
</tr>`,
  )}</tbody>
</table></div>
<h2>Routes cooling down</h2>
${
  cooling.length === 0
    ? html`<p class="muted">No route is cooling down.</p>`
    : html`<div class="overflow-auto"><table>
<thead><tr><th scope="col">Provider</th><th scope="col">Model</th><th scope="col">Endpoint</th><th scope="col">Until</th></tr></thead>
<tbody>${cooling.map(
        (r) =>
          html`<tr><td>${r.provider}</td><td>${r.kind} · ${r.model}</td><td><code>${r.endpoint}</code></td><td>${when(r.cooling_until)}</td></tr>`,
      )}</tbody>
</table></div>`
}
<h2>Routes by provider</h2>
${providers.map(
  (p) => html`<details>
<summary>${p.id}: ${p.routes.length} ${p.routes.length === 1 ? 'route' : 'routes'}</summary>
${
  p.routes.length === 0
    ? html`<p class="muted">No model routes to this provider.</p>`
    : html`<div class="overflow-auto"><table>
<thead><tr><th scope="col">Kind</th><th scope="col">Model</th><th scope="col">Endpoint</th><th scope="col">Place</th><th scope="col">List</th><th scope="col">Cooling until</th></tr></thead>
<tbody>${p.routes.map(
        (r) =>
          html`<tr><td>${r.kind}</td><td>${r.model}</td><td><code>${r.endpoint}</code></td><td>${r.position + 1}</td><td>${r.source === 'override' ? 'the operator’s' : html`<span class="muted">the catalog’s</span>`}${r.enabled ? '' : html`, <strong>disabled</strong>`}</td><td>${when(r.cooling_until)}</td></tr>`,
      )}</tbody>
</table></div>`
}
</details>`,
)}
</div>`;
}

// --- Attempts ---

function attemptsTable(attempts: Attempts): Html {
  if (attempts.length === 0)
    return html`<p class="muted" id="attempts">This generation has no attempts: its items have not started yet, or they are the service's own work (made without a vendor or the simulator).</p>`;
  return html`<div class="overflow-auto"><table id="attempts">
<thead><tr><th scope="col">Item</th><th scope="col">Provider</th><th scope="col">Endpoint</th><th scope="col">Vendor request id</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Outcome</th><th scope="col">Error</th><th scope="col">Cost</th></tr></thead>
<tbody>${attempts.map(
    (a) => html`<tr>
<td><small>${a.item_id}</small></td>
<td>${a.provider}</td>
<td><code>${a.endpoint}</code></td>
<td>${a.vendor_request_id ? html`<code>${a.vendor_request_id}</code>` : html`<span class="muted">none</span>`}</td>
<td>${when(a.started_at)}</td>
<td>${a.finished_at ? when(a.finished_at) : html`<span class="muted">running</span>`}</td>
<td>${a.outcome === null ? html`<span class="muted">running</span>` : html`<span class="badge ${a.outcome === 'completed' ? 'completed' : 'failed'}">${a.outcome}</span>`}</td>
<td>${a.error ? html`${a.error_kind ? html`<code>${a.error_kind}</code>: ` : ''}<span class="error">${a.error}</span>` : ''}</td>
<td>${a.cost ?? html`<span class="muted">not said</span>`}</td>
</tr>`,
  )}</tbody>
</table></div>`;
}

// --- Margin ---

/** US dollars as people read them: cents at least, down to millionths for small vendor costs. */
const usd = (value: number | null): Html =>
  value === null
    ? html`<span class="muted">unknown</span>`
    : html`${value.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;

const CHART = { width: 640, label: 150, bar: 12, gap: 10 } as const;

/**
 * Revenue against vendor cost per row as horizontal bars (an inline SVG, no script): both bars of a
 * row on one scale, the largest figure of the report filling the width.
 */
function marginChart(rows: readonly MarginRow[]): Html {
  const largest = Math.max(...rows.flatMap((r) => [r.revenue_usd ?? 0, r.vendor_cost_usd]), 0);
  const span = CHART.width - CHART.label - 90;
  const length = (value: number) => (largest > 0 ? Math.max(0, (value / largest) * span) : 0);
  const rowHeight = CHART.bar * 2 + CHART.gap;
  const height = rows.length * rowHeight + 24;
  const bars = rows.map((row, index) => {
    const top = index * rowHeight;
    const revenue = length(row.revenue_usd ?? 0);
    const cost = length(row.vendor_cost_usd);
    return html`<g>
<text x="0" y="${top + CHART.bar + 4}" font-size="12" fill="currentColor">${row.key.length > 22 ? `${row.key.slice(0, 21)}…` : row.key}</text>
<rect x="${CHART.label}" y="${top}" width="${revenue.toFixed(1)}" height="${CHART.bar}" fill="#2e7d32"><title>${row.key} revenue</title></rect>
<text x="${CHART.label + revenue + 4}" y="${top + CHART.bar - 2}" font-size="10" fill="currentColor">${row.revenue_usd === null ? 'revenue unknown' : `$${row.revenue_usd}`}</text>
<rect x="${CHART.label}" y="${top + CHART.bar}" width="${cost.toFixed(1)}" height="${CHART.bar}" fill="${row.margin_usd !== null && row.margin_usd < 0 ? '#c62828' : '#ef6c00'}"><title>${row.key} vendor cost</title></rect>
<text x="${CHART.label + cost + 4}" y="${top + CHART.bar * 2 - 2}" font-size="10" fill="currentColor">$${row.vendor_cost_usd}</text>
</g>`;
  });
  return html`<svg id="margin-chart" role="img" aria-labelledby="margin-chart-title" viewBox="0 0 ${CHART.width} ${height}" width="100%" xmlns="http://www.w3.org/2000/svg">
<title id="margin-chart-title">Revenue (green) against vendor cost (orange, red where the margin is negative), in US dollars</title>
${bars}
<g transform="translate(${CHART.label}, ${height - 8})" font-size="11" fill="currentColor">
<rect x="0" y="-9" width="10" height="10" fill="#2e7d32"></rect><text x="14" y="0">revenue</text>
<rect x="80" y="-9" width="10" height="10" fill="#ef6c00"></rect><text x="94" y="0">vendor cost</text>
</g>
</svg>`;
}

function marginTable(report: Margin): Html {
  if (report.rows.length === 0) return html`<p class="muted" id="margin">No generation was created in this range.</p>`;
  const negative = new Set(report.negative.map((r) => r.key));
  return html`${marginChart(report.rows)}
<div class="overflow-auto"><table id="margin">
<thead><tr><th scope="col">${report.group_by}</th><th scope="col">Generations</th><th scope="col">Credits</th><th scope="col">Revenue</th><th scope="col">Vendor cost</th><th scope="col">Margin</th><th scope="col">Unpriced attempts</th></tr></thead>
<tbody>${report.rows.map(
    (r) => html`<tr>
<td>${r.key}</td>
<td>${r.generations}</td>
<td>${r.credits}</td>
<td>${usd(r.revenue_usd)}</td>
<td>${usd(r.vendor_cost_usd)}</td>
<td>${negative.has(r.key) ? html`<span class="error">${usd(r.margin_usd)}</span>` : usd(r.margin_usd)}</td>
<td>${r.unpriced_attempts > 0 ? html`<span class="warn" title="Their cost is unknown: not in the vendor cost">${r.unpriced_attempts}</span>` : 0}</td>
</tr>`,
  )}</tbody>
</table></div>
${report.negative.length > 0 ? html`<p id="negative">Below cost: ${report.negative.map((r, i) => html`${i > 0 ? ', ' : ''}<strong>${r.key}</strong>`)}.</p>` : ''}`;
}

const GROUPS = ['model', 'vendor', 'team'] as const;

async function marginPage(ctx: ConsoleContext): Promise<Html> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const from = (ctx.query.from ?? '').trim() || day(-30);
  const to = (ctx.query.to ?? '').trim() || day(1);
  const group = (ctx.query.group_by ?? '').trim() || 'model';
  const query = new URLSearchParams({ from, to, group_by: group });
  const answer = await attemptAdmin<Margin>(ctx, 'GET', `/admin/v1/reports/margin?${query}`);
  let body: Html;
  if (answer.ok) {
    const value = answer.body.credit_value_usd;
    body = html`<p class="muted">Generations created from ${answer.body.from.slice(0, 10)} up to ${answer.body.to.slice(0, 10)} (UTC).
${value === null ? html`<strong>CREDIT_VALUE_USD is not set</strong>: revenue and margin are unknown; the vendor cost stands.` : html`One credit is worth ${usd(value)}.`}
Vendor cost is in US dollars, from what the vendors reported (docs/operating.md); an unpriced attempt's cost is unknown, not zero.</p>
${marginTable(answer.body)}`;
  } else {
    ctx.reply.code(answer.status);
    body = answer.box;
  }
  return page(
    { title: 'Margin', session: ctx.session, current: '/console/operator/margin' },
    html`<form method="get" action="/console/operator/margin">
<div class="grid">
<div><label for="margin-from">From</label><input id="margin-from" name="from" type="date" required ${attrs({ value: from })}></div>
<div><label for="margin-to">To (not included)</label><input id="margin-to" name="to" type="date" required ${attrs({ value: to })}></div>
<div><label for="margin-group">By</label><select id="margin-group" name="group_by">${GROUPS.map(
      (g) => html`<option value="${g}"${g === group ? html` selected` : ''}>${g}</option>`,
    )}</select></div>
</div>
<button type="submit">Show the margin</button>
</form>
${body}`,
  );
}

export const operatorRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/operator/teams',
    who: 'operator',
    handler: (ctx) => teamsPage(ctx),
  },
  {
    method: 'POST',
    path: '/console/operator/teams',
    who: 'operator',
    async handler(ctx) {
      const credits = (ctx.form.credits ?? '').trim();
      const created = await attemptAdmin<Team>(ctx, 'POST', '/admin/v1/teams', {
        name: (ctx.form.name ?? '').trim(),
        ...(credits === '' ? {} : { credits: wholeOrRaw(credits) }),
      });
      if (created.ok) return { redirect: teamPath(created.body.id) };
      const body = await teamsPage(ctx, created.box, ctx.form);
      ctx.reply.code(created.status);
      return body;
    },
  },
  {
    method: 'GET',
    path: '/console/operator/teams/:id',
    who: 'operator',
    handler: (ctx) => teamPage(ctx),
  },
  {
    method: 'POST',
    path: '/console/operator/teams/:id/credits',
    who: 'operator',
    async handler(ctx) {
      const changed = await attemptAdmin(
        ctx,
        'POST',
        `/admin/v1/teams/${encodeURIComponent(ctx.params.id ?? '')}/credits`,
        {
          amount: wholeOrRaw(ctx.form.amount ?? ''),
          reason: (ctx.form.reason ?? '').trim(),
        },
      );
      if (changed.ok) return { redirect: `${teamPath(ctx.params.id ?? '')}#ledger-title` };
      return refused(ctx, changed.status, { credits: changed.box });
    },
  },
  {
    method: 'POST',
    path: '/console/operator/teams/:id/cap',
    who: 'operator',
    async handler(ctx) {
      const cap = (ctx.form.max_concurrent_items ?? '').trim();
      const changed = await attemptAdmin(ctx, 'PATCH', `/admin/v1/teams/${encodeURIComponent(ctx.params.id ?? '')}`, {
        max_concurrent_items: cap === '' ? null : wholeOrRaw(cap),
      });
      if (changed.ok) return { redirect: `${teamPath(ctx.params.id ?? '')}#cap-title` };
      return refused(ctx, changed.status, { cap: changed.box });
    },
  },
  {
    method: 'POST',
    path: '/console/operator/teams/:id/api-keys',
    who: 'operator',
    async handler(ctx) {
      const name = (ctx.form.name ?? '').trim();
      const created = await attemptAdmin<CreatedKey>(
        ctx,
        'POST',
        `/admin/v1/teams/${encodeURIComponent(ctx.params.id ?? '')}/api-keys`,
        name === '' ? {} : { name },
      );
      if (!created.ok) return refused(ctx, created.status, { keys: created.box });
      // Answered here, not redirected: this answer is the only place the key is ever shown.
      ctx.reply.code(201);
      return teamPage(ctx, { created: created.body });
    },
  },
  {
    method: 'POST',
    path: '/console/operator/teams/:id/api-keys/:keyId/revoke',
    who: 'operator',
    async handler(ctx) {
      const teamId = ctx.params.id ?? '';
      const keyId = ctx.params.keyId ?? '';
      // Only a key of the team whose page this is: a stale or edited form revokes nothing else.
      const keys = await ctx.api<ApiKeys>('GET', `/admin/v1/teams/${encodeURIComponent(teamId)}/api-keys`);
      if (!keys.some((k) => k.id === keyId))
        return refused(ctx, 404, { keys: errorBox(`This team has no API key ${keyId}.`) });
      const revoked = await attemptAdmin(ctx, 'DELETE', `/admin/v1/api-keys/${encodeURIComponent(keyId)}`);
      if (revoked.ok) return { redirect: `${teamPath(teamId)}#keys-title` };
      return refused(ctx, revoked.status, { keys: revoked.box });
    },
  },
  {
    method: 'GET',
    path: '/console/operator/providers',
    who: 'operator',
    async handler(ctx) {
      const checked = ctx.query.check === 'true';
      const providers = await ctx.api<Providers>(
        'GET',
        checked ? '/admin/v1/providers?check=true' : '/admin/v1/providers',
      );
      const fragment = providersFragment(providers, checked);
      if (ctx.htmx) return fragment;
      return page(
        { title: 'Providers', session: ctx.session, current: '/console/operator/providers' },
        html`<form method="get" action="/console/operator/providers" hx-get="/console/operator/providers" hx-target="#providers" hx-swap="outerHTML" hx-indicator="#checking">
<input type="hidden" name="check" value="true">
<button type="submit">Check the configured providers</button>
<span id="checking" class="htmx-indicator muted" aria-live="polite">Checking…</span>
</form>
<p class="muted">A check makes one harmless authenticated call to each configured provider (never paid work). The success rate counts the attempts that finished in the last 24 hours.</p>
${fragment}`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/operator/margin',
    who: 'operator',
    handler: marginPage,
  },
  {
    method: 'GET',
    path: '/console/operator/attempts',
    who: 'operator',
    async handler(ctx) {
      const id = (ctx.query.generation_id ?? '').trim();
      let answer: Html = html``;
      if (id !== '') {
        const listed = await attemptAdmin<Attempts>(
          ctx,
          'GET',
          `/admin/v1/generations/${encodeURIComponent(id)}/attempts`,
        );
        if (listed.ok) answer = html`<h2>Attempts of <code>${id}</code></h2>${attemptsTable(listed.body)}`;
        else {
          ctx.reply.code(listed.status);
          answer = listed.box;
        }
      }
      return page(
        { title: 'Attempts', session: ctx.session, current: '/console/operator/attempts' },
        html`<form method="get" action="/console/operator/attempts">
<label for="generation-id">Generation id</label>
<input id="generation-id" name="generation_id" required maxlength="64" autocomplete="off" ${attrs({ value: id || undefined })}>
<button type="submit">Show its attempts</button>
</form>
${answer}`,
      );
    },
  },
];
