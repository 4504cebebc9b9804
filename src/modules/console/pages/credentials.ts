// The operator's page of the vendors' credentials, over the admin API (so the same checks, sealing
// and audit as /admin/v1/credentials): every credential by vendor with its state, a form to add
// one (its secret is never shown again, only its last four characters), and for each added one an
// edit form, enable or disable, and delete. A key set by a vendor's environment variable is shown
// read-only: no control changes it, and the console refuses such a change before asking the API
// (which refuses it too), but for enabling again one the service disabled, as the API allows.
// Changes made here are audited as the console operator's.
import type { ResponseOf } from '@genmedia/sdk';
import { CREDENTIAL_VENDORS } from '../../credentials/service.ts';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';
import { attemptAdmin, type Outcome, readable, refusal, wholeOr } from './admin-call.ts';

type Credentials = ResponseOf<'/admin/v1/credentials', 'get'>;
type Credential = Credentials['data'][number];

const CREDENTIALS_PATH = '/console/operator/credentials';
const itemPath = (id: string) => `${CREDENTIALS_PATH}/${encodeURIComponent(id)}`;
const apiPath = (id: string) => `/admin/v1/credentials/${encodeURIComponent(id)}`;
/** An element id for a credential's row (its id may hold a colon). */
const anchorOf = (id: string) => `cred-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** What a form left for the page to show again. */
interface Notes {
  /** A refusal of the page as a whole (a credential that is not there). */
  top?: Html;
  /** The add form's refusal. */
  add?: Html;
  /** A credential's form refused: which one, and why. */
  row?: { id: string; box: Html };
  /** The fields of the refused form, to fill it again (never the secret). */
  values?: Record<string, string>;
}

const number = (value: number | null): Html | string =>
  value === null ? html`<span class="muted">none</span>` : String(value);

function stateCell(c: Credential): Html {
  const badge = html`<span class="badge ${c.state === 'active' ? 'completed' : c.state === 'cooling' ? 'processing' : 'failed'}">${c.state}</span>`;
  const until = c.cooling_until
    ? html`<br><small>until <time datetime="${c.cooling_until}">${readable(c.cooling_until)}</time></small>`
    : '';
  return html`${badge}${c.reason ? html`<br><small>${c.reason}</small>` : ''}${until}`;
}

function numberInput(id: string, name: string, label: string, value: string | undefined, min: number): Html {
  return html`<div><label for="${id}">${label}</label><input id="${id}" name="${name}" type="number" min="${min}" step="1" ${attrs({ value })}></div>`;
}

/** The edit form of an added credential, open when it was just refused. */
function editForm(ctx: ConsoleContext, c: Credential, notes: Notes): Html {
  const refused = notes.row?.id === c.id;
  const v = refused ? (notes.values ?? {}) : {};
  const at = anchorOf(c.id);
  const value = (name: string, current: string | number | null) => v[name] ?? (current === null ? '' : String(current));
  return html`<details ${attrs({ open: refused })}><summary>Edit</summary>
<form method="post" action="${itemPath(c.id)}">
${csrfField(ctx.session)}
<label for="${at}-name">Name</label><input id="${at}-name" name="name" required maxlength="100" autocomplete="off" ${attrs({ value: value('name', c.name) })}>
<label for="${at}-base-url">Base URL (empty: the vendor's setting)</label><input id="${at}-base-url" name="base_url" maxlength="2000" autocomplete="off" ${attrs({ value: value('base_url', c.base_url) })}>
<div class="grid">
${numberInput(`${at}-weight`, 'weight', 'Weight', value('weight', c.weight), 0)}
${numberInput(`${at}-rpm`, 'rpm', 'Requests a minute (empty: no cap)', value('rpm', c.rpm), 1)}
${numberInput(`${at}-in-flight`, 'max_in_flight', 'Jobs at once (empty: no cap)', value('max_in_flight', c.max_in_flight), 1)}
</div>
<label for="${at}-secret">New secret (empty: unchanged; never shown again)</label><input id="${at}-secret" name="secret" type="password" maxlength="4096" autocomplete="new-password">
<button type="submit">Save the credential</button>
</form></details>`;
}

function controls(ctx: ConsoleContext, c: Credential, notes: Notes): Html {
  const button = (action: string, label: string, kind = 'secondary') =>
    html`<form method="post" class="inline" action="${itemPath(c.id)}/${action}">${csrfField(ctx.session)}<button type="submit" class="${kind}" ${attrs({ 'aria-label': `${label} ${c.provider} ${c.name}` })}>${label}</button></form>`;
  if (c.source === 'env') {
    const enable = c.state === 'disabled' ? button('enable', 'Enable again') : '';
    return html`<span class="muted">Set by the environment: read-only</span>${enable ? html`<br>${enable}` : ''}`;
  }
  return html`${c.state === 'disabled' ? button('enable', 'Enable') : button('disable', 'Disable')}
${button('delete', 'Delete')}
${editForm(ctx, c, notes)}`;
}

function vendorSection(ctx: ConsoleContext, provider: string, list: Credential[], notes: Notes): Html {
  const rows =
    list.length === 0
      ? html`<p class="muted">No credential: the vendor is not configured.</p>`
      : html`<div class="overflow-auto"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Secret</th><th scope="col">Base URL</th><th scope="col">Weight</th><th scope="col">Requests a minute</th><th scope="col">Jobs at once</th><th scope="col">State</th><th scope="col">Source</th><th scope="col"></th></tr></thead>
<tbody>${list.map(
          (c) => html`<tr id="${anchorOf(c.id)}">
<td>${c.name}<br><small class="muted">${c.id}</small></td>
<td><code>…${c.secret_last4}</code></td>
<td>${c.base_url ? html`<code>${c.base_url}</code>` : html`<span class="muted">the vendor's setting</span>`}</td>
<td>${c.weight}</td>
<td>${number(c.rpm)}</td>
<td>${number(c.max_in_flight)}</td>
<td>${stateCell(c)}</td>
<td>${c.source === 'env' ? 'environment' : 'admin'}</td>
<td>${notes.row?.id === c.id ? notes.row.box : ''}${controls(ctx, c, notes)}</td>
</tr>`,
        )}</tbody></table></div>`;
  return html`<section aria-labelledby="vendor-${provider}"><h2 id="vendor-${provider}">${provider}</h2>${rows}</section>`;
}

function addSection(ctx: ConsoleContext, vendors: string[], notes: Notes): Html {
  const v = notes.add ? (notes.values ?? {}) : {};
  return html`<section aria-labelledby="add-title"><h2 id="add-title">Add a credential</h2>
<p class="muted">It is picked by weight among the active credentials of its vendor at each submit, in every process within a second. The secret is stored sealed and never shown again: only its last four characters.</p>
${notes.add ?? ''}
<form method="post" action="${CREDENTIALS_PATH}">
${csrfField(ctx.session)}
<div class="grid">
<div><label for="add-provider">Vendor</label><select id="add-provider" name="provider" required>${vendors.map(
    (p) => html`<option value="${p}"${p === v.provider ? html` selected` : ''}>${p}</option>`,
  )}</select></div>
<div><label for="add-name">Name</label><input id="add-name" name="name" required maxlength="100" autocomplete="off" ${attrs({ value: v.name })}></div>
</div>
<label for="add-secret">Secret</label><input id="add-secret" name="secret" type="password" required minlength="8" maxlength="4096" autocomplete="new-password">
<label for="add-base-url">Base URL (empty: the vendor's setting)</label><input id="add-base-url" name="base_url" maxlength="2000" autocomplete="off" ${attrs({ value: v.base_url })}>
<div class="grid">
${numberInput('add-weight', 'weight', 'Weight (empty: 1)', v.weight, 0)}
${numberInput('add-rpm', 'rpm', 'Requests a minute (empty: no cap)', v.rpm, 1)}
${numberInput('add-in-flight', 'max_in_flight', 'Jobs at once (empty: no cap)', v.max_in_flight, 1)}
</div>
<button type="submit">Add the credential</button>
</form></section>`;
}

async function credentialsPage(ctx: ConsoleContext, notes: Notes = {}): Promise<Html> {
  const listed = await attemptAdmin<Credentials>(ctx, 'GET', '/admin/v1/credentials');
  const vendors = [...CREDENTIAL_VENDORS];
  let body: Html;
  if (listed.ok) {
    for (const c of listed.body.data) if (!vendors.includes(c.provider)) vendors.push(c.provider);
    const added = listed.body.data.find((c) => c.id === ctx.query.added);
    body = html`${
      added
        ? html`<article role="status" id="added">Added <strong>${added.name}</strong> for ${added.provider}: its secret ends in <code>${added.secret_last4}</code> and is not shown again.</article>`
        : ''
    }
${vendors.map((p) =>
  vendorSection(
    ctx,
    p,
    listed.body.data.filter((c) => c.provider === p),
    notes,
  ),
)}`;
  } else body = listed.box;
  return page(
    { title: 'Vendor credentials', session: ctx.session, current: CREDENTIALS_PATH },
    html`<p class="muted">The keys the service calls each vendor with. A key set by a vendor's environment variable is read-only here: change the variable and restart. Every change is in the audit of the <a href="/console/operator/live#audit-title">live configuration</a>.</p>
${notes.top ?? ''}
${body}
${addSection(
  ctx,
  CREDENTIAL_VENDORS.filter((p) => vendors.includes(p)),
  notes,
)}`,
  );
}

/** The credential a row's form names, as listed now: unknown is 404; the environment's is read-only but for `enable`. */
async function findChangeable(ctx: ConsoleContext, allowEnv: boolean): Promise<Outcome<Credential>> {
  const id = ctx.params.id ?? '';
  const listed = await attemptAdmin<Credentials>(ctx, 'GET', '/admin/v1/credentials');
  if (!listed.ok) return listed;
  const found = listed.body.data.find((c) => c.id === id);
  if (!found) return refusal(404, `There is no credential ${id}.`);
  if (found.source === 'env' && !allowEnv) {
    return refusal(
      409,
      `The credential ${id} is set by the environment and is read-only in the console: change the vendor's environment variable and restart.`,
    );
  }
  return { ok: true, body: found };
}

/** The page again with a refusal beside the form that caused it. */
async function refused(ctx: ConsoleContext, outcome: { status: number; box: Html }, notes: Notes): Promise<Html> {
  const body = await credentialsPage(ctx, { ...notes, values: ctx.form });
  ctx.reply.code(outcome.status);
  return body;
}

/** A row's action: check the credential, then ask the API for the change. */
function rowAction(
  action: string,
  change: (ctx: ConsoleContext, id: string) => Promise<Outcome<unknown>>,
  allowEnv = false,
): ConsoleRoute {
  return {
    method: 'POST',
    path: `${CREDENTIALS_PATH}/:id${action ? `/${action}` : ''}`,
    who: 'operator',
    async handler(ctx) {
      const id = ctx.params.id ?? '';
      const found = await findChangeable(ctx, allowEnv);
      const done = found.ok ? await change(ctx, id) : found;
      if (done.ok) return { redirect: `${CREDENTIALS_PATH}#${anchorOf(id)}` };
      return refused(ctx, done, found.ok ? { row: { id, box: done.box } } : { top: done.box });
    },
  };
}

/** The change an edit form asks for: every field it shows, a blank secret left unchanged. */
function editChange(form: Record<string, string>): Record<string, unknown> {
  const baseUrl = (form.base_url ?? '').trim();
  const secret = form.secret ?? '';
  const weight = wholeOr(form.weight, undefined);
  return {
    name: (form.name ?? '').trim(),
    base_url: baseUrl === '' ? null : baseUrl,
    ...(weight === undefined ? {} : { weight }),
    rpm: wholeOr(form.rpm, null),
    max_in_flight: wholeOr(form.max_in_flight, null),
    ...(secret === '' ? {} : { secret }),
  };
}

export const credentialRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: CREDENTIALS_PATH,
    who: 'operator',
    handler: (ctx) => credentialsPage(ctx),
  },
  {
    method: 'POST',
    path: CREDENTIALS_PATH,
    who: 'operator',
    async handler(ctx) {
      const baseUrl = (ctx.form.base_url ?? '').trim();
      const weight = wholeOr(ctx.form.weight, undefined);
      const rpm = wholeOr(ctx.form.rpm, undefined);
      const inFlight = wholeOr(ctx.form.max_in_flight, undefined);
      const added = await attemptAdmin<Credential>(ctx, 'POST', '/admin/v1/credentials', {
        provider: (ctx.form.provider ?? '').trim(),
        name: (ctx.form.name ?? '').trim(),
        secret: ctx.form.secret ?? '',
        ...(baseUrl === '' ? {} : { base_url: baseUrl }),
        ...(weight === undefined ? {} : { weight }),
        ...(rpm === undefined ? {} : { rpm }),
        ...(inFlight === undefined ? {} : { max_in_flight: inFlight }),
      });
      if (added.ok) return { redirect: `${CREDENTIALS_PATH}?added=${encodeURIComponent(added.body.id)}#added` };
      return refused(ctx, added, { add: added.box });
    },
  },
  rowAction('', (ctx, id) => attemptAdmin(ctx, 'PATCH', apiPath(id), editChange(ctx.form))),
  rowAction('enable', (ctx, id) => attemptAdmin(ctx, 'PATCH', apiPath(id), { enabled: true }), true),
  rowAction('disable', (ctx, id) => attemptAdmin(ctx, 'PATCH', apiPath(id), { enabled: false })),
  rowAction('delete', (ctx, id) => attemptAdmin(ctx, 'DELETE', apiPath(id))),
];
