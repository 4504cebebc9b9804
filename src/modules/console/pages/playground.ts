// The playground: a form for every generation endpoint, built from the endpoint's request schema
// in the service's own OpenAPI document (one control per property), with a model picker from the
// model list (each model's price, its settings on selection), a quote before submitting (POST
// /api/v1/quote) and the result in place: the live status of an asynchronous generation, or the
// answer of a synchronous one. Everything goes through the API as the signed-in team, so
// validation, prices and charges are the API's own.
import { randomUUID } from 'node:crypto';
import type { ResponseOf, Schemas } from '@genmedia/sdk';
import { type ApiAnswer, ApiCallError, type ApiErrorBody } from '../api.ts';
import { attrs, type Html, html } from '../html.ts';
import { csrfField, page } from '../layout.ts';
import { fullView } from '../media.ts';
import {
  type Choice,
  type Detail,
  type Field,
  formOf,
  formToBody,
  idOf,
  labelOf,
  renderField,
  selectControl,
  show,
} from '../schema-form.ts';
import type { ConsoleContext, ConsoleRoute } from '../types.ts';
import { statusFragment } from './generations.ts';

// How each model is served here (available, simulator) is part of the list's entries.
type ModelEntry = Schemas['ModelListEntry'] & { available: boolean; simulator: boolean };
type ModelList = ResponseOf<'/api/v1/models', 'get'>;
type Quote = ResponseOf<'/api/v1/quote'>;
type Status = Schemas['GenerationStatus'];
type Workspaces = ResponseOf<'/api/v1/workspaces', 'get'>;
type Influencers = ResponseOf<'/api/v1/influencers', 'get'>;
type Voices = ResponseOf<'/api/v2/voices', 'get'>;

/** A generation endpoint the playground has a form for. */
interface PlaygroundEndpoint {
  slug: string;
  path: string;
  group: string;
  /** The model list's entries that price it, when not those whose endpoint is this one. */
  catalog?: { endpoint: string; ids: string[] };
  /** Its results may be 3D models (the page loads <model-viewer>). */
  modelViewer?: boolean;
}

const endpoint = (group: string, path: string, extra: Partial<PlaygroundEndpoint> = {}): PlaygroundEndpoint => ({
  slug: path.replace(/^\/api\/v\d+\//, '').replaceAll('/', '-'),
  path,
  group,
  ...extra,
});

/** Every generation endpoint, in the order the playground lists them. */
const PLAYGROUND_ENDPOINTS: PlaygroundEndpoint[] = [
  endpoint('Images', '/api/v1/images/generate'),
  endpoint('Images', '/api/v1/images/generate-face'),
  endpoint('Images', '/api/v1/images/edit'),
  endpoint('Videos', '/api/v1/videos/generate'),
  endpoint('Videos', '/api/v1/videos/lipsync'),
  endpoint('Videos', '/api/v1/videos/motion-control'),
  endpoint('Videos', '/api/v1/videos/reference-to-video'),
  endpoint('Videos', '/api/v1/videos/talking-head'),
  endpoint('Videos', '/api/v1/videos/upscale'),
  endpoint('Videos', '/api/v1/videos/wan-2.2-lora'),
  endpoint('Audio', '/api/v1/music/generate'),
  endpoint('Audio', '/api/v2/text-to-speech'),
  endpoint('Audio', '/api/v2/voice-clone', {
    catalog: { endpoint: 'POST /api/v1/voices/generate', ids: ['voice-clone-v1'] },
  }),
  endpoint('Audio', '/api/v2/voice-design', {
    catalog: { endpoint: 'POST /api/v1/voices/generate', ids: ['voice-design-v1'] },
  }),
  endpoint('3D and text', '/api/v1/models-3d/generate', { modelViewer: true }),
  endpoint('3D and text', '/api/v1/text/generate'),
  endpoint('Influencers', '/api/v1/influencers/create'),
  endpoint('Influencers', '/api/v1/influencers/generate'),
  endpoint('Influencers', '/api/v1/influencers/video'),
];

// ---- prices and models ----------------------------------------------------------------------------

const UNITS: Record<ModelEntry['price']['unit'], string> = {
  image: 'image',
  second: 'second of video',
  input_second: 'second of input video',
  track: 'track',
  '3d_model': '3D model',
  '1k_tokens': '1k tokens',
  generation: 'generation',
  voice: 'voice',
};

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;

/** A model's price in words: "4 credits per image", "basic 40, high 90 credits per second by settings.quality". */
function priceText(price: ModelEntry['price']): string {
  const unit = UNITS[price.unit];
  if (typeof price.credits === 'number') return `${credits(price.credits)} per ${unit}`;
  const rates = Object.entries(price.credits)
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');
  const by = price.by === 'usage' ? '' : ` by ${price.by}`;
  const fallback = price.default ? ` (${price.default} unless given)` : '';
  const multipliers = Object.entries(price.multipliers ?? {})
    .map(([field, factor]) => `, ×${factor} with ${field}`)
    .join('');
  return `${rates} credits per ${unit}${by}${fallback}${multipliers}`;
}

function catalogOf(target: PlaygroundEndpoint, models: ModelEntry[]): ModelEntry[] {
  const { catalog } = target;
  if (catalog) return models.filter((m) => m.endpoint === catalog.endpoint && catalog.ids.includes(m.id));
  return models.filter((m) => m.endpoint === `POST ${target.path}`);
}

/** The request field a model is chosen by (model, voice_id), when the endpoint's models have one. */
function pickerField(entries: ModelEntry[], fields: Field[]): string | undefined {
  const named = entries.find((m) => m.field !== null)?.field ?? undefined;
  return named && fields.some((f) => f.name === named) ? named : undefined;
}

function propertyRows(record: Record<string, unknown>): Html {
  return html`${Object.entries(record).map(([key, value]) => html`<tr><th scope="row">${key}</th><td>${show(value)}</td></tr>`)}`;
}

/** A model this service cannot make now, in the picker (its card says how the others are served). */
function servingNote(entry: ModelEntry): string {
  return entry.available ? '' : ' · unavailable';
}

/** What a model's card says of how it is served here, when it is not by its vendor. */
function servingText(entry: ModelEntry): Html | '' {
  if (!entry.available) {
    return html`<p class="error">Unavailable: no provider configured on this service serves it; a request naming it is refused (503 model_unavailable) and charges nothing.</p>`;
  }
  if (entry.simulator) {
    return html`<p class="notice">Made by the built-in simulator here: results are stand-in files of the requested shape, not this model's output.</p>`;
  }
  return '';
}

/** A model's card: what it is, its price, its settings and capabilities. */
function modelDetails(entry: ModelEntry): Html {
  const rows = { ...entry.settings, ...entry.capabilities };
  return html`<article class="model-details">
<header><strong>${entry.name}</strong> <code>${entry.id}</code>${entry.default ? html` <span class="badge">default</span>` : ''}</header>
${servingText(entry)}
${entry.description ? html`<p>${entry.description}</p>` : ''}
<p>Price: <strong>${priceText(entry.price)}</strong></p>
${Object.keys(rows).length > 0 ? html`<table><caption>Settings and capabilities</caption><tbody>${propertyRows(rows)}</tbody></table>` : ''}
</article>`;
}

/** What the page read for the form: its pickers' choices. */
interface FormChoices {
  picker?: { field: string; entries: ModelEntry[]; extra: Choice[] };
  workspaces: Workspaces;
  influencers: Influencers;
}

// ---- rendering the form ----------------------------------------------------------------------------

/** The controls this page asks for its own way: the model picker, the team's workspaces and influencers. */
function specialField(field: Field, data: FormChoices, target: PlaygroundEndpoint): Html | undefined {
  const { name } = field;
  if (data.picker && name === data.picker.field) {
    const { entries, extra } = data.picker;
    const choices = [
      ...entries.map((m) => ({
        value: m.id,
        label: `${m.name} · ${priceText(m.price)}${m.default ? ' · default' : ''}${servingNote(m)}`,
        disabled: !m.available,
      })),
      ...extra,
    ];
    const chosen = entries.find((m) => m.default && m.available);
    return html`<div class="model-picker">${selectControl(field, choices, {
      chosen: chosen?.id,
      label: name === 'voice_id' ? 'Voice' : 'Model',
      listed: true,
      extra: attrs({
        'hx-get': `/console/playground/${target.slug}/model`,
        'hx-trigger': 'change',
        'hx-target': '#model-details',
        'hx-swap': 'innerHTML',
        'hx-indicator': '#model-details',
      }),
    })}
<div id="model-details" aria-live="polite">${
      chosen ? modelDetails(chosen) : html`<p class="muted">Choose one to see its settings and price.</p>`
    }</div></div>`;
  }
  if (name === 'workspace_id') {
    // A team without workspaces has nothing to choose.
    if (data.workspaces.length === 0) return html``;
    return selectControl(
      field,
      data.workspaces.map((w) => ({ value: w.id, label: w.name })),
      { label: 'Workspace', none: '(none)', listed: true },
    );
  }
  if (name === 'influencer_id' && data.influencers.length > 0) {
    return selectControl(
      field,
      data.influencers.map((i) => ({
        value: i.id,
        label: i.ready_for_generation ? i.name : `${i.name} (training)`,
      })),
      { label: 'Influencer', none: field.required ? '(choose)' : '(none)', listed: true },
    );
  }
  return undefined;
}

/** The hidden Idempotency-Key of a form: new on every render, so one form is one charge. */
const idempotencyField = (key: string, outOfBand = false) =>
  html`<input ${attrs({
    type: 'hidden',
    id: 'idempotency-key',
    name: '_idempotency',
    value: key,
    'hx-swap-oob': outOfBand ? 'true' : undefined,
  })}>`;

function playgroundForm(ctx: ConsoleContext, target: PlaygroundEndpoint, fields: Field[], data: FormChoices): Html {
  const base = `/console/playground/${target.slug}`;
  return html`<form ${attrs({
    method: 'post',
    action: `${base}/submit`,
    'hx-post': `${base}/submit`,
    'hx-target': '#result',
    'hx-swap': 'innerHTML',
    'hx-indicator': '#submit-busy',
    'hx-disabled-elt': 'find .submit-button',
    'aria-describedby': 'form-note',
  })}>
${csrfField(ctx.session)}
${idempotencyField(randomUUID())}
<p id="form-note" class="muted">Fields left empty are left out of the request (the API's defaults apply).</p>
${fields.map((f) => renderField(f, (field) => specialField(field, data, target)))}
<div role="group">
<button ${attrs({
    type: 'submit',
    formaction: `${base}/quote`,
    class: 'secondary',
    'hx-post': `${base}/quote`,
    'hx-target': '#quote',
    'hx-swap': 'innerHTML',
    'hx-indicator': '#quote-busy',
    // Not the form's `find .submit-button`: that finds nothing inside this button.
    'hx-disabled-elt': 'this',
  })}>Quote</button>
<button type="submit" class="submit-button">Generate</button>
</div>
<p><span id="quote-busy" class="htmx-indicator">Pricing…</span><span id="submit-busy" class="htmx-indicator">Working…</span></p>
<div id="quote" aria-live="polite"></div>
</form>
<section id="result" aria-live="polite" aria-label="Result"></section>`;
}

// ---- answers in place ----------------------------------------------------------------------------

/** The fields of a problem list that have a control here (`loras[0].path` is the loras field). */
function controlName(field: string, fields: Field[]): string | undefined {
  const names = new Set<string>();
  const walk = (list: Field[]) => {
    for (const f of list) {
      names.add(f.name);
      if (f.control.kind === 'group') walk(f.control.fields);
    }
  };
  walk(fields);
  let name = field.replace(/\[.*$/, '');
  while (name) {
    if (names.has(name)) return name;
    name = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
  }
  return undefined;
}

/** An error with its field-by-field details, each linked to its control. */
function problemBox(message: string, details: Detail[], fields: Field[]): Html {
  return html`<article class="error" role="alert"><strong>${message}</strong>${
    details.length > 0
      ? html`<ul>${details.map((d) => {
          const name = controlName(d.field, fields);
          const field = html`<code>${d.field}</code>`;
          return html`<li>${name ? html`<a href="#${idOf(name)}">${field}</a>` : field}: ${d.message}</li>`;
        })}</ul>`
      : ''
  }</article>`;
}

/** The error of a failed API answer. */
const errorOf = (answer: ApiAnswer<unknown>) => (answer.body as Partial<ApiErrorBody> | undefined)?.error;

function apiProblem(answer: ApiAnswer<unknown>, fields: Field[]): Html {
  // A key revoked since sign-in: the console's error handling ends the session.
  if (answer.status === 401) throw new ApiCallError(401, undefined, 'The API key was revoked');
  const error = errorOf(answer);
  return problemBox(error?.message ?? `The API answered ${answer.status}`, error?.details ?? [], fields);
}

/** A synchronous answer: its text, its media, and its other fields. */
function answerView(body: Record<string, unknown>): Html {
  const media: Html[] = [];
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const urls = (Array.isArray(value) ? value : [value]).filter(
      (v): v is string => typeof v === 'string' && /^https?:\/\//.test(v),
    );
    if (key === 'text' && typeof value === 'string') continue;
    if (urls.length > 0) media.push(...urls.map((url) => fullView(url, labelOf(key))));
    else if (key !== 'generation_id' && value !== null) rest[key] = value;
  }
  const id = typeof body.generation_id === 'string' ? body.generation_id : undefined;
  return html`<article>
<header>${id ? html`Generation <a href="/console/generations/${id}">${id}</a>` : 'Done'}</header>
${typeof body.text === 'string' ? html`<pre class="text-result">${body.text}</pre>` : ''}
${media}
<table><tbody>${propertyRows(rest)}</tbody></table>
${body.ready_for_generation === false ? html`<p>It is training: <a href="/console/library">the library</a> shows when it is ready.</p>` : ''}
</article>`;
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/** How long a second submit of the same form waits for the first before it answers. */
const SAME_FORM_WAIT_MS = 60_000;

async function submitForm(ctx: ConsoleContext, target: PlaygroundEndpoint, fields: Field[]): Promise<Html> {
  const { body, problems } = formToBody(fields, ctx.form);
  if (problems.length > 0) return problemBox('Some fields could not be read', problems, fields);
  const key = ctx.form._idempotency;
  const headers: Record<string, string> = key ? { 'idempotency-key': key } : {};
  const send = () => ctx.callApi<Record<string, unknown>>('POST', target.path, { body, headers });
  let answer = await send();
  // The same form sent again while the first is still running: wait for the first one's answer.
  const deadline = Date.now() + SAME_FORM_WAIT_MS;
  while (answer.status === 409 && errorOf(answer)?.code === 'idempotency_conflict' && Date.now() < deadline) {
    await sleep(250);
    answer = await send();
  }
  if (answer.status >= 400) return apiProblem(answer, fields);
  // Another submit of this form is another request: it gets a key of its own.
  const nextKey = ctx.htmx ? idempotencyField(randomUUID(), true) : html``;
  const result = answer.body;
  const id = typeof result.generation_id === 'string' ? result.generation_id : undefined;
  if (id && (result.status === 'queued' || result.status === 'processing')) {
    const record = await ctx.api<Status>('GET', `/api/v1/generations/${encodeURIComponent(id)}/status`);
    return html`<p>Generation <a href="/console/generations/${id}">${id}</a> accepted: ${credits(Number(result.credits_used ?? record.credits_used))} charged.</p>
${await statusFragment(ctx, record)}${nextKey}`;
  }
  return html`${answerView(result)}${nextKey}`;
}

async function quoteForm(ctx: ConsoleContext, target: PlaygroundEndpoint, fields: Field[]): Promise<Html> {
  const { body, problems } = formToBody(fields, ctx.form);
  if (problems.length > 0) return problemBox('Some fields could not be read', problems, fields);
  const answer = await ctx.callApi<Quote>('POST', '/api/v1/quote', {
    body: { endpoint: target.path, body },
  });
  if (answer.status >= 400) return apiProblem(answer, fields);
  const q = answer.body;
  return html`<p class="quote"><strong>${credits(q.credits)} (balance ${q.balance})</strong> · ${q.items} item${
    q.items === 1 ? '' : 's'
  } · about ${Math.ceil(q.estimated_seconds)} s${
    q.credits > q.balance
      ? html` · <span class="error">more than your balance: <a href="/console/billing">buy credits</a></span>`
      : ''
  }</p>`;
}

// ---- routes --------------------------------------------------------------------------------------

function endpointOf(ctx: ConsoleContext): PlaygroundEndpoint {
  const found = PLAYGROUND_ENDPOINTS.find((e) => e.slug === ctx.params.slug);
  if (!found) {
    throw new ApiCallError(
      404,
      { error: { code: 'not_found', message: `The playground has no endpoint ${ctx.params.slug}` } },
      'Not found',
    );
  }
  return found;
}

const readModels = async (ctx: ConsoleContext) =>
  (await ctx.api<ModelList>('GET', '/api/v1/models')).data as ModelEntry[];

/** A POST's answer: the fragment for htmx, or a page around it for a browser without script. */
function answered(ctx: ConsoleContext, target: PlaygroundEndpoint, title: string, fragment: Html): Html {
  if (ctx.htmx) return fragment;
  return page(
    { title, session: ctx.session, current: '/console/playground', modelViewer: target.modelViewer },
    html`${fragment}<p><a href="/console/playground/${target.slug}">Back to the form</a></p>`,
  );
}

export const playgroundRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/playground',
    who: 'team',
    handler(ctx) {
      const groups = [...new Set(PLAYGROUND_ENDPOINTS.map((e) => e.group))];
      return page(
        { title: 'Playground', session: ctx.session, current: '/console/playground' },
        html`<p>Try any generation endpoint: a form built from its request schema, a quote before you submit, the result here.</p>
${groups.map(
  (group) =>
    html`<section><h2>${group}</h2><ul>${PLAYGROUND_ENDPOINTS.filter((e) => e.group === group).map((e) => {
      const summary = formOf(ctx.app, e.path).operation.summary;
      return html`<li><a href="/console/playground/${e.slug}"><code>POST ${e.path}</code></a>${summary ? html` · ${summary}` : ''}</li>`;
    })}</ul></section>`,
)}`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/playground/:slug',
    who: 'team',
    async handler(ctx) {
      const target = endpointOf(ctx);
      const { operation, fields } = formOf(ctx.app, target.path);
      const has = (name: string) => fields.some((f) => f.name === name);
      const get = <T>(path: string) => ctx.api<T>('GET', path);
      const [models, workspaces, influencers] = await Promise.all([
        readModels(ctx),
        has('workspace_id') ? get<Workspaces>('/api/v1/workspaces') : [],
        has('influencer_id') ? get<Influencers>('/api/v1/influencers') : [],
      ]);
      const entries = catalogOf(target, models);
      const field = pickerField(entries, fields);
      const data: FormChoices = { workspaces, influencers };
      if (field) {
        const pickable = entries.filter((m) => m.field === field);
        let extra: Choice[] = [];
        if (field === 'voice_id') {
          // The team's own voices speak at the price of the endpoint's presets.
          const own = (await get<Voices>('/api/v2/voices')).filter((v) => !pickable.some((m) => m.id === v.voice_id));
          const price = pickable[0] ? ` · ${priceText(pickable[0].price)}` : '';
          extra = own.map((v) => ({ value: v.voice_id, label: `${v.name} (your ${v.type} voice)${price}` }));
        }
        data.picker = { field, entries: pickable, extra };
      }
      // Models the endpoint picks itself (face models by seed; the models an endpoint is built on).
      const fixed = entries.filter((m) => m.field === null);
      return page(
        {
          title: `Playground: POST ${target.path}`,
          session: ctx.session,
          current: '/console/playground',
          modelViewer: target.modelViewer,
        },
        html`<p><a href="/console/playground">All endpoints</a></p>
${operation.summary ? html`<p><strong>${operation.summary}</strong></p>` : ''}
${operation.description ? html`<details><summary>About this endpoint</summary><p>${operation.description}</p></details>` : ''}
${
  fixed.length > 0
    ? html`<details ${attrs({ open: fixed.length === 1 })}><summary>${fixed.length === 1 ? 'Model and price' : `The ${fixed.length} models it picks from, and their prices`}</summary><ul>${fixed.map(
        (m) => html`<li>${m.name} <code>${m.id}</code> · ${priceText(m.price)}${servingNote(m)}</li>`,
      )}</ul></details>`
    : ''
}
${playgroundForm(ctx, target, fields, data)}`,
      );
    },
  },
  {
    method: 'GET',
    path: '/console/playground/:slug/model',
    who: 'team',
    async handler(ctx) {
      const target = endpointOf(ctx);
      const { fields } = formOf(ctx.app, target.path);
      const entries = catalogOf(target, await readModels(ctx));
      const field = pickerField(entries, fields) ?? 'model';
      const id = ctx.query[field] ?? '';
      const entry = entries.find((m) => m.id === id && m.field === field);
      if (entry) return modelDetails(entry);
      if (id === '') return html`<p class="muted">The endpoint's default applies.</p>`;
      return field === 'voice_id'
        ? html`<p class="muted">One of your voices: it speaks at the presets' price.</p>`
        : html`<p class="muted">${id} is not a model of this endpoint.</p>`;
    },
  },
  {
    method: 'POST',
    path: '/console/playground/:slug/quote',
    who: 'team',
    async handler(ctx) {
      const target = endpointOf(ctx);
      const { fields } = formOf(ctx.app, target.path);
      return answered(ctx, target, 'Quote', await quoteForm(ctx, target, fields));
    },
  },
  {
    method: 'POST',
    path: '/console/playground/:slug/submit',
    who: 'team',
    async handler(ctx) {
      const target = endpointOf(ctx);
      const { fields } = formOf(ctx.app, target.path);
      return answered(ctx, target, 'Result', await submitForm(ctx, target, fields));
    },
  },
];
