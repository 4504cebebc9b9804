// The console's page shell: the document, its navigation (a team's pages or an operator's), the
// CSRF token every htmx request sends, and the few pieces pages share (status badges, errors,
// pagination links).
import { asset } from './assets.ts';
import { attrs, type Html, html, type Renderable } from './html.ts';
import type { ConsoleSession } from './session.ts';

export interface NavEntry {
  path: string;
  label: string;
}

/** A team's pages, in the order the navigation shows them. */
export const TEAM_NAV: NavEntry[] = [
  { path: '/console', label: 'Overview' },
  { path: '/console/generations', label: 'Generations' },
  { path: '/console/playground', label: 'Playground' },
  { path: '/console/billing', label: 'Billing' },
  { path: '/console/webhooks', label: 'Webhooks' },
  { path: '/console/workspaces', label: 'Workspaces' },
  { path: '/console/library', label: 'Library' },
  { path: '/console/projects', label: 'Projects' },
];

/** An operator's pages. */
export const OPERATOR_NAV: NavEntry[] = [
  { path: '/console/operator/teams', label: 'Teams' },
  { path: '/console/operator/providers', label: 'Providers' },
  { path: '/console/operator/attempts', label: 'Attempts' },
  { path: '/console/operator/margin', label: 'Margin' },
  { path: '/console/operator/live', label: 'Live configuration' },
  { path: '/console/operator/routes', label: 'Routes' },
  { path: '/console/operator/credentials', label: 'Credentials' },
];

export interface PageOptions {
  title: string;
  /** The signed-in session (absent on the sign-in page). */
  session?: ConsoleSession;
  /** The navigation entry to mark as current. */
  current?: string;
  /** The page needs <model-viewer> (3D results). */
  modelViewer?: boolean;
}

const MODEL_VIEWER_SCRIPT = html`<script type="module" src="${asset('model-viewer.min.js')}"></script>`;

/** Whether a page loads <model-viewer> (its CSP then lets the viewer run). */
export const loadsModelViewer = (body: Html) => body.text.includes(MODEL_VIEWER_SCRIPT.text);

/** A whole console page around `body`. */
export function page(options: PageOptions, body: Renderable): Html {
  const { session } = options;
  const nav = session ? (session.kind === 'operator' ? OPERATOR_NAV : TEAM_NAV) : [];
  // htmx sends the CSRF token with every request it makes; forms carry it as a field too.
  const htmxHeaders = session ? JSON.stringify({ 'x-csrf-token': session.csrfToken }) : undefined;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}'>
<title>${options.title} · Generative Media Console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('pico.min.css')}">
<link rel="stylesheet" href="${asset('console.css')}">
<script src="${asset('htmx.min.js')}" defer></script>
<script src="${asset('console.js')}" defer></script>
${options.modelViewer ? MODEL_VIEWER_SCRIPT : ''}
</head>
<body ${attrs({ 'hx-headers': htmxHeaders })}>
<a class="skip-link" href="#main">Skip to content</a>
<header class="console container">
<nav aria-label="Main">
<ul><li><strong>Generative Media Console</strong></li></ul>
<ul>
${nav.map(
  (entry) =>
    html`<li><a ${attrs({ href: entry.path, 'aria-current': entry.path === options.current ? 'page' : undefined })}>${entry.label}</a></li>`,
)}
${session ? html`<li>${signOutForm(session)}</li>` : ''}
</ul>
</nav>
</header>
<main id="main" class="container">
<h1>${options.title}</h1>
${body}
</main>
</body>
</html>`;
}

/** The hidden CSRF field every form of a session carries. */
export function csrfField(session: ConsoleSession): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;
}

function signOutForm(session: ConsoleSession): Html {
  return html`<form method="post" action="/console/logout" class="inline">${csrfField(session)}<button type="submit" class="secondary outline">Sign out</button></form>`;
}

/** A generation's status as a badge. */
export function statusBadge(status: string): Html {
  return html`<span class="badge ${status}">${status}</span>`;
}

/** An error box. */
export function errorBox(message: string, details: Array<{ field: string; message: string }> = []): Html {
  return html`<article class="error" role="alert"><strong>${message}</strong>${
    details.length > 0 ? html`<ul>${details.map((d) => html`<li><code>${d.field}</code>: ${d.message}</li>`)}</ul>` : ''
  }</article>`;
}

/** "Next page" for a cursor list, keeping the current query. */
export function nextPageLink(path: string, query: Record<string, string | undefined>, cursor: string | null): Html {
  if (!cursor) return html``;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value && name !== 'cursor') params.set(name, value);
  params.set('cursor', cursor);
  return html`<p><a href="${`${path}?${params}`}" role="button" class="secondary">Next page</a></p>`;
}
