// The operator's page of a model's vendor routes, over the admin API (so the same checks and audit
// as /admin/v1/models/{kind}/{model}/routes): choose a kind and a model, see the routes in force
// (the catalog's or the operator's) and the catalog's, replace them with a list given as JSON, or
// give the model back the catalog's. Changes made here are audited as the console operator's. A
// refused list is shown again as it was typed, with the API's words beside it.
import type { ResponseOf } from '@genmedia/sdk';
import { ENDPOINT_MODELS } from '../../../catalog/routes.ts';
import { VENDORS } from '../../../providers/vendors.ts';
import { catalogLists, LIVE_KINDS } from '../../live-config/service.ts';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';
import { attemptAdmin, type Outcome, refusal } from './admin-call.ts';

type ModelRoutes = ResponseOf<'/admin/v1/models/{kind}/{model}/routes', 'get'>;
type Route = ModelRoutes['routes'][number];

const ROUTES_PATH = '/console/operator/routes';
const apiPath = (kind: string, model: string) =>
  `/admin/v1/models/${encodeURIComponent(kind)}/${encodeURIComponent(model)}/routes`;
const viewPath = (kind: string, model: string) =>
  `${ROUTES_PATH}?kind=${encodeURIComponent(kind)}&model=${encodeURIComponent(model)}`;

/** A refused form: its error box and the list as it was typed. */
interface Notes {
  box?: Html;
  routes?: string;
}

/** Every kind and model id the page may be asked about, for the pickers. */
function choices(ctx: ConsoleContext): { kinds: string[]; models: string[] } {
  const { catalog, media } = ctx.app.deps;
  const lists = catalogLists(catalog, media);
  const kinds = new Set<string>(LIVE_KINDS);
  const models = new Set<string>();
  for (const kind of LIVE_KINDS) for (const m of lists[kind]) models.add(m.id);
  for (const [model, { kind }] of Object.entries(ENDPOINT_MODELS)) {
    kinds.add(kind);
    models.add(model);
  }
  return { kinds: [...kinds].sort(), models: [...models].sort() };
}

/**
 * A route list as the PUT takes it, every field the API shows kept (image endpoint, fixed input
 * fields): a route that serves only requests with images keeps its `mapping: null`; one without
 * any mapping leaves it out, for the operator to choose one.
 */
const editable = (routes: readonly Route[]): string =>
  JSON.stringify(
    routes.map(({ mapping, ...rest }) => ({
      provider: rest.provider,
      endpoint: rest.endpoint,
      ...(mapping !== null ? { mapping } : rest.image_mapping !== undefined ? { mapping: null } : {}),
      ...(rest.image_endpoint === undefined
        ? {}
        : { image_endpoint: rest.image_endpoint, image_mapping: rest.image_mapping }),
      ...(rest.params === undefined ? {} : { params: rest.params }),
      tier: rest.tier,
      weight: rest.weight,
      enabled: rest.enabled,
    })),
    null,
    2,
  );

function routesTable(id: string, routes: readonly Route[]): Html {
  if (routes.length === 0)
    return html`<p class="muted" id="${id}">No vendor route: the service serves the model itself, or the simulator stands in.</p>`;
  return html`<div class="overflow-auto"><table id="${id}">
<thead><tr><th scope="col">#</th><th scope="col">Provider</th><th scope="col">Endpoint</th><th scope="col">Mapping</th><th scope="col">With images</th><th scope="col">Fixed fields</th><th scope="col">Tier</th><th scope="col">Weight</th><th scope="col">Enabled</th></tr></thead>
<tbody>${routes.map(
    (r, i) =>
      html`<tr><td>${i + 1}</td><td>${r.provider}</td><td><code>${r.endpoint}</code></td><td>${mappingCell(r)}</td><td>${r.image_endpoint ? html`<code>${r.image_endpoint}</code> (<code>${r.image_mapping ?? ''}</code>)` : html`<span class="muted">the same</span>`}</td><td>${r.params ? html`<code>${JSON.stringify(r.params)}</code>` : html`<span class="muted">none</span>`}</td><td>${r.tier}</td><td>${r.weight}</td><td>${r.enabled ? 'yes' : html`<strong>no</strong>`}</td></tr>`,
  )}</tbody></table></div>`;
}

/** A route's mapping, or why it has none. */
function mappingCell(r: Route): Html {
  if (r.mapping !== null) return html`<code>${r.mapping}</code>`;
  return r.image_mapping
    ? html`<span class="muted">none: requests with images only</span>`
    : html`<span class="muted">none: not served</span>`;
}

function mappingsHelp(): Html {
  return html`<details><summary>The vendors and their mappings</summary>
<dl>${VENDORS.map(
    (v) =>
      html`<dt>${v.id}</dt><dd>${Object.keys(v.mappings)
        .sort()
        .map((m, i) => html`${i > 0 ? ', ' : ''}<code>${m}</code>`)}</dd>`,
  )}</dl></details>`;
}

function routesView(ctx: ConsoleContext, view: ModelRoutes, notes: Notes): Html {
  const override = view.source === 'override';
  return html`<section aria-labelledby="in-force-title">
<h2 id="in-force-title">In force: ${override ? "the operator's routes" : "the catalog's routes"}</h2>
<p class="muted">The lowest tier is tried first, at random by weight among its usable routes; a failover goes to another route of the tier, then to the next tier.</p>
${routesTable('routes-in-force', view.routes)}
${
  override
    ? html`<details><summary>The catalog's routes</summary>${routesTable('catalog-routes', view.catalog_routes)}</details>
<form method="post" action="${ROUTES_PATH}/catalog">
${csrfField(ctx.session)}
<input type="hidden" name="kind" value="${view.kind}"><input type="hidden" name="model" value="${view.model}">
<button type="submit" class="secondary">Back to the catalog's routes</button>
</form>`
    : ''
}
</section>
<section aria-labelledby="replace-title">
<h2 id="replace-title">Replace the routes</h2>
${notes.box ?? ''}
<form method="post" action="${ROUTES_PATH}">
${csrfField(ctx.session)}
<input type="hidden" name="kind" value="${view.kind}"><input type="hidden" name="model" value="${view.model}">
<label for="routes-json">The routes, in order, as JSON: each <code>{"provider", "endpoint", "mapping", "tier", "weight", "enabled"}</code> (tier: absent, its place in the list; weight: absent, 1; enabled: absent, true), and where a route has them <code>"image_endpoint"</code> with <code>"image_mapping"</code> (requests that bring images) and <code>"params"</code> (fixed input fields it sends)</label>
<textarea id="routes-json" name="routes" rows="14" spellcheck="false" aria-describedby="routes-help">${notes.routes ?? editable(view.routes)}</textarea>
<small id="routes-help">Applies in every process within a second, to items that run after it. Each provider must be a known vendor and each mapping one of its own; a refused list changes nothing.</small>
<button type="submit">Replace the routes</button>
</form>
${mappingsHelp()}
</section>`;
}

async function routesPage(
  ctx: ConsoleContext,
  notes: Notes = {},
  chosen?: { kind: string; model: string },
): Promise<Html> {
  const kind = (chosen?.kind ?? ctx.query.kind ?? '').trim();
  const model = (chosen?.model ?? ctx.query.model ?? '').trim();
  const { kinds, models } = choices(ctx);
  let shown: Html = notes.box && !(kind && model) ? notes.box : html``;
  if (kind && model) {
    const read = await attemptAdmin<ModelRoutes>(ctx, 'GET', apiPath(kind, model));
    if (read.ok) shown = routesView(ctx, read.body, notes);
    else {
      if (ctx.reply.statusCode < 400) ctx.reply.code(read.status);
      shown = notes.box ?? read.box;
    }
  }
  return page(
    { title: 'Model routes', session: ctx.session, current: ROUTES_PATH },
    html`<p class="muted">Which vendors serve a model, set without a restart in place of the catalog's list. Every change is in the audit of the <a href="/console/operator/live#audit-title">live configuration</a>.</p>
<form method="get" action="${ROUTES_PATH}">
<div class="grid">
<div><label for="routes-kind">Kind</label><select id="routes-kind" name="kind" required>${kinds.map(
      (k) => html`<option value="${k}"${k === kind ? html` selected` : ''}>${k}</option>`,
    )}</select></div>
<div><label for="routes-model">Model</label><input id="routes-model" name="model" required maxlength="200" list="routes-models" autocomplete="off" ${attrs({ value: model || undefined })}>
<datalist id="routes-models">${models.map((m) => html`<option value="${m}"></option>`)}</datalist></div>
</div>
<button type="submit" class="secondary">Show its routes</button>
</form>
${shown}`,
  );
}

/** The page of the form's model again, with a refusal beside the form that caused it. */
async function refused(ctx: ConsoleContext, outcome: { status: number; box: Html }, routes?: string): Promise<Html> {
  ctx.reply.code(outcome.status);
  return routesPage(
    ctx,
    { box: outcome.box, routes },
    { kind: (ctx.form.kind ?? '').trim(), model: (ctx.form.model ?? '').trim() },
  );
}

/** The route list of a form: JSON, or the reason it is not. */
function parsedRoutes(text: string): Outcome<unknown> {
  if (text.trim() === '')
    return refusal(400, 'Give the routes as a JSON list, or use "Back to the catalog\'s routes".');
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch (err) {
    return refusal(
      400,
      `The routes are not JSON (${(err as Error).message}): give a list such as [{"provider": "fal", "endpoint": "…", "mapping": "…"}]`,
    );
  }
}

export const modelRoutesRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: ROUTES_PATH,
    who: 'operator',
    handler: (ctx) => routesPage(ctx),
  },
  {
    method: 'POST',
    path: ROUTES_PATH,
    who: 'operator',
    async handler(ctx) {
      const kind = (ctx.form.kind ?? '').trim();
      const model = (ctx.form.model ?? '').trim();
      const text = ctx.form.routes ?? '';
      const routes = parsedRoutes(text);
      // A list that is not one is the API's to refuse, in its words (routes must be an array).
      const replaced = routes.ok
        ? await attemptAdmin(ctx, 'PUT', apiPath(kind, model), { routes: routes.body })
        : routes;
      if (replaced.ok) return { redirect: `${viewPath(kind, model)}#in-force-title` };
      return refused(ctx, replaced, text);
    },
  },
  {
    method: 'POST',
    path: `${ROUTES_PATH}/catalog`,
    who: 'operator',
    async handler(ctx) {
      const kind = (ctx.form.kind ?? '').trim();
      const model = (ctx.form.model ?? '').trim();
      const restored = await attemptAdmin(ctx, 'DELETE', apiPath(kind, model));
      if (restored.ok) return { redirect: `${viewPath(kind, model)}#in-force-title` };
      return refused(ctx, restored);
    },
  },
];
