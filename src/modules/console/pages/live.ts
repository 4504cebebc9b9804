// The operator's page of the live configuration, over the admin API: the model aliases (set one,
// delete one), a model's price and availability (read them, change them, or give them back to the
// catalog), and the audit of every change, newest first. Changes made here are recorded as the
// console operator's. A refused form is shown again with the API's words beside it.
import type { ResponseOf } from '@genmedia/sdk';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, errorBox, page } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';
import { attemptAdmin } from './admin-call.ts';

type Aliases = ResponseOf<'/admin/v1/aliases', 'get'>;
type Audit = ResponseOf<'/admin/v1/audit', 'get'>;
type ModelSettings = ResponseOf<'/admin/v1/models/{kind}/{model}', 'get'>;

const LIVE_PATH = '/console/operator/live';
const AUDIT_PAGE = 20;

/** What a form left for the page to show again: its error box and the values typed. */
interface Notes {
  alias?: Html;
  model?: Html;
  values?: Record<string, string>;
}

const json = (value: unknown): string => (value === null || value === undefined ? '' : JSON.stringify(value));

function aliasesSection(ctx: ConsoleContext, { data: aliases }: Aliases, notes: Notes): Html {
  const values = notes.values ?? {};
  const rows =
    aliases.length === 0
      ? html`<p class="muted">No aliases: teams name the catalog's models only.</p>`
      : html`<div class="overflow-auto"><table id="aliases">
<thead><tr><th scope="col">Alias</th><th scope="col">Kind</th><th scope="col">Model</th><th scope="col"></th></tr></thead>
<tbody>${aliases.map(
          (a) => html`<tr><td><code>${a.alias}</code></td><td>${a.kind}</td><td><code>${a.model}</code></td>
<td><form method="post" action="${LIVE_PATH}/aliases/${encodeURIComponent(a.alias)}/delete">${csrfField(ctx.session)}<button type="submit" class="secondary">Delete</button></form></td></tr>`,
        )}</tbody></table></div>`;
  return html`<section aria-labelledby="aliases-title"><h2 id="aliases-title">Aliases</h2>
<p class="muted">A name a team may send as the model: charged and run as the catalog model it stands for, and listed beside it.</p>
${rows}
${notes.alias ?? ''}
<form method="post" action="${LIVE_PATH}/aliases">
${csrfField(ctx.session)}
<div class="grid">
<div><label for="alias-name">Alias</label><input id="alias-name" name="alias" required maxlength="100" autocomplete="off" ${attrs({ value: values.alias })}></div>
<div><label for="alias-kind">Kind</label><input id="alias-kind" name="kind" required maxlength="40" placeholder="image" ${attrs({ value: values.kind })}></div>
<div><label for="alias-model">Model</label><input id="alias-model" name="model" required maxlength="200" ${attrs({ value: values.model })}></div>
</div>
<button type="submit">Set the alias</button>
</form></section>`;
}

function modelSection(kind: string, model: string, settings: Html, notes: Notes): Html {
  return html`<section aria-labelledby="model-title"><h2 id="model-title">A model's price and availability</h2>
<form method="get" action="${LIVE_PATH}">
<div class="grid">
<div><label for="model-kind">Kind</label><input id="model-kind" name="kind" required maxlength="40" placeholder="image" ${attrs({ value: kind })}></div>
<div><label for="model-id">Model</label><input id="model-id" name="model" required maxlength="200" ${attrs({ value: model })}></div>
</div>
<button type="submit" class="secondary">Show it</button>
</form>
${notes.model ?? ''}
${settings}
</section>`;
}

function settingsView(ctx: ConsoleContext, s: ModelSettings, values: Record<string, string> = {}): Html {
  const available = values.available ?? '';
  const choice = (value: string, label: string) =>
    html`<option value="${value}"${value === available ? html` selected` : ''}>${label}</option>`;
  return html`<dl id="model-settings">
<dt>Price now</dt><dd><code>${json(s.price)}</code></dd>
<dt>The catalog's price</dt><dd><code>${json(s.catalog_price)}</code></dd>
<dt>Available</dt><dd>${s.available ? 'yes' : html`<strong>no</strong> (switched off)`}</dd>
<dt>Overridden</dt><dd>price ${s.override.price === null ? 'no' : 'yes'}, availability ${s.override.available === null ? 'no' : 'yes'}</dd>
</dl>
<form method="post" action="${LIVE_PATH}/models">
${csrfField(ctx.session)}
<input type="hidden" name="kind" value="${s.kind}"><input type="hidden" name="model" value="${s.model}">
<label for="model-price">New price (the catalog's price object for the kind, as JSON; <code>catalog</code>: back to the catalog's; empty: unchanged)</label>
<textarea id="model-price" name="price" rows="3">${values.price ?? ''}</textarea>
<label for="model-available">Availability</label>
<select id="model-available" name="available">${choice('', 'unchanged')}${choice('true', 'available')}${choice('false', 'switched off')}${choice('catalog', 'as the catalog and the vendors say')}</select>
<button type="submit">Change the model</button>
</form>`;
}

function auditSection(audit: Audit): Html {
  const rows =
    audit.data.length === 0
      ? html`<p class="muted">No change has been made yet.</p>`
      : html`<div class="overflow-auto"><table id="audit">
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Target</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>${audit.data.map(
          (e) =>
            html`<tr><td><time datetime="${e.at}">${e.at.slice(0, 19).replace('T', ' ')} UTC</time></td><td>${e.actor}</td><td>${e.action}</td><td><code>${e.target}</code></td><td><code>${json(e.before)}</code></td><td><code>${json(e.after)}</code></td></tr>`,
        )}</tbody></table></div>`;
  const older = audit.next_cursor
    ? html`<p><a href="${LIVE_PATH}?audit_cursor=${encodeURIComponent(audit.next_cursor)}#audit-title">Older changes</a></p>`
    : '';
  return html`<section aria-labelledby="audit-title"><h2 id="audit-title">Audit</h2>
<p class="muted">Every change of the live configuration, newest first: who made it (the admin token, or an operator in this console), and what it was before and after.</p>
${rows}${older}</section>`;
}

async function livePage(ctx: ConsoleContext, notes: Notes = {}): Promise<Html> {
  const kind = (notes.values?.kind ?? ctx.query.kind ?? '').trim();
  const model = (notes.values?.model ?? ctx.query.model ?? '').trim();
  const cursor = (ctx.query.audit_cursor ?? '').trim();
  const [aliases, audit] = await Promise.all([
    attemptAdmin<Aliases>(ctx, 'GET', '/admin/v1/aliases'),
    attemptAdmin<Audit>(
      ctx,
      'GET',
      `/admin/v1/audit?limit=${AUDIT_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    ),
  ]);
  let settings: Html = html``;
  if (kind && model && !notes.alias) {
    const read = await attemptAdmin<ModelSettings>(
      ctx,
      'GET',
      `/admin/v1/models/${encodeURIComponent(kind)}/${encodeURIComponent(model)}`,
    );
    settings = read.ok ? settingsView(ctx, read.body, notes.model ? notes.values : undefined) : read.box;
  }
  return page(
    { title: 'Live configuration', session: ctx.session, current: LIVE_PATH },
    html`<p class="muted">Changes here apply to every process within a second, without a restart, to requests accepted from then on (docs/operating.md).</p>
${aliases.ok ? aliasesSection(ctx, aliases.body, notes) : aliases.box}
${modelSection(kind, model, settings, notes)}
${audit.ok ? auditSection(audit.body) : audit.box}`,
  );
}

/** The model change a form asks for: only the fields it changes. */
function modelChange(form: Record<string, string>): Record<string, unknown> | string {
  const change: Record<string, unknown> = {};
  const price = (form.price ?? '').trim();
  if (price === 'catalog') change.price = null;
  else if (price !== '') {
    try {
      change.price = JSON.parse(price);
    } catch {
      return 'The price is not JSON: give the price object, e.g. {"credits_per_image": 5}';
    }
  }
  const available = (form.available ?? '').trim();
  if (available === 'catalog') change.available = null;
  else if (available === 'true' || available === 'false') change.available = available === 'true';
  return change;
}

export const liveRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: LIVE_PATH,
    who: 'operator',
    handler: (ctx) => livePage(ctx),
  },
  {
    method: 'POST',
    path: `${LIVE_PATH}/aliases`,
    who: 'operator',
    async handler(ctx) {
      const alias = (ctx.form.alias ?? '').trim();
      const set = await attemptAdmin(ctx, 'PUT', `/admin/v1/aliases/${encodeURIComponent(alias)}`, {
        kind: (ctx.form.kind ?? '').trim(),
        model: (ctx.form.model ?? '').trim(),
      });
      if (set.ok) return { redirect: `${LIVE_PATH}#aliases-title` };
      const body = await livePage(ctx, {
        alias: set.box,
        values: { alias, kind: ctx.form.kind ?? '', model: ctx.form.model ?? '' },
      });
      ctx.reply.code(set.status);
      return body;
    },
  },
  {
    method: 'POST',
    path: `${LIVE_PATH}/aliases/:alias/delete`,
    who: 'operator',
    async handler(ctx) {
      const removed = await attemptAdmin(
        ctx,
        'DELETE',
        `/admin/v1/aliases/${encodeURIComponent(ctx.params.alias ?? '')}`,
      );
      if (removed.ok) return { redirect: `${LIVE_PATH}#aliases-title` };
      const body = await livePage(ctx, { alias: removed.box });
      ctx.reply.code(removed.status);
      return body;
    },
  },
  {
    method: 'POST',
    path: `${LIVE_PATH}/models`,
    who: 'operator',
    async handler(ctx) {
      const kind = (ctx.form.kind ?? '').trim();
      const model = (ctx.form.model ?? '').trim();
      const back = `${LIVE_PATH}?kind=${encodeURIComponent(kind)}&model=${encodeURIComponent(model)}#model-title`;
      const change = modelChange(ctx.form);
      const changed =
        typeof change === 'string'
          ? { ok: false as const, status: 400, box: errorBox(change) }
          : Object.keys(change).length === 0
            ? { ok: false as const, status: 400, box: errorBox('Nothing to change: give a price or an availability') }
            : await attemptAdmin(
                ctx,
                'PATCH',
                `/admin/v1/models/${encodeURIComponent(kind)}/${encodeURIComponent(model)}`,
                change,
              );
      if (changed.ok) return { redirect: back };
      const body = await livePage(ctx, { model: changed.box, values: { ...ctx.form, kind, model } });
      ctx.reply.code(changed.status);
      return body;
    },
  },
];
