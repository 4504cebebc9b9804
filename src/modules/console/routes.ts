// The web console at /console: server-rendered pages (typed templates, htmx for the small
// interactions), served by the service itself with its assets, behind a sign-in. Every page and
// action is a ConsoleRoute: who may use it (a team or an operator) and a handler that answers Html
// (a page, or an htmx fragment) or a redirect. This module does the rest alike for all of them:
// the session, the CSRF check on every POST, form bodies, the Content-Security-Policy, and errors.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app-types.ts';
import type { GenerationWatch } from '../generations/events.ts';
import { ApiCallError, api, callApi } from './api.ts';
import { installAssets, MODEL_VIEWER_STYLE_HASHES } from './assets.ts';
import { type Html, html } from './html.ts';
import { errorBox, loadsModelViewer, page } from './layout.ts';
import { CONSOLE_ROUTES } from './pages/index.ts';
import {
  cookiesOf,
  isOurOrigin,
  isSameOriginWithToken,
  LOGIN_COOKIE,
  newToken,
  SESSION_COOKIE,
  sameSecret,
  sessionOf,
  setCookie,
  signIn,
  signOut,
} from './session.ts';
import type { ConsoleContext, Redirect } from './types.ts';

// Scripts and styles from this origin only, no inline script or style; media from this origin
// (and blob: for <model-viewer>'s textures); no framing; forms post here only.
const DIRECTIVES: Record<string, string> = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data: blob:",
  'media-src': "'self' blob:",
  'connect-src': "'self' blob: data:",
  'worker-src': "'self' blob:",
  'object-src': "'none'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
  'form-action': "'self'",
};
const policy = (directives: Record<string, string>) =>
  Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
const CSP = policy(DIRECTIVES);
// A page with the 3D viewer also lets <model-viewer> compile its WebAssembly mesh decoder
// ('wasm-unsafe-eval' allows WebAssembly only, never a script's eval) and apply the stylesheet of
// its shadow root, by that stylesheet's hash.
const VIEWER_CSP = policy({
  ...DIRECTIVES,
  'script-src': "'self' 'wasm-unsafe-eval'",
  'style-src': ["'self'", ...MODEL_VIEWER_STYLE_HASHES].join(' '),
});
/** The requests answered with a page that loads <model-viewer>. */
const viewerPages = new WeakSet<FastifyRequest>();

const isRedirect = (value: Html | Redirect): value is Redirect => 'redirect' in value;

/** The console: its assets, sign-in and sign-out, and every page of CONSOLE_ROUTES. */
export default async function consoleRoutes(app: App, { watch }: { watch: GenerationWatch }): Promise<void> {
  const { deps } = app;
  // Forms post urlencoded; only the console's routes read them.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1_048_576 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/console')) {
      const csp = viewerPages.has(request) ? VIEWER_CSP : CSP;
      reply.header(
        'content-security-policy',
        deps.config.publicBaseUrl.startsWith('https:') ? `${csp}; upgrade-insecure-requests` : csp,
      );
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
      if (!request.url.startsWith('/console/assets/')) reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
  installAssets(app);

  const send = (reply: FastifyReply, status: number, body: Html) =>
    reply.code(status).type('text/html; charset=utf-8').send(body.text);

  app.get('/console/login', { schema: { hide: true } }, async (request, reply) => {
    const session = await sessionOf(deps, request);
    if (session) return reply.redirect(session.kind === 'operator' ? '/console/operator/teams' : '/console');
    const nonce = newToken();
    setCookie(deps, request, reply, LOGIN_COOKIE, nonce, 600, '/console/login');
    const failed = (request.query as { failed?: string }).failed !== undefined;
    return send(reply, 200, loginPage(nonce, failed ? 'That is not a valid API key or admin token.' : undefined));
  });

  app.post('/console/login', { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string>;
    if (!sameSecret(form._csrf, cookiesOf(request)[LOGIN_COOKIE]) || !isOurOrigin(deps, request)) {
      return send(reply, 403, loginPage(newToken(), 'The sign-in form expired: reload the page and sign in again.'));
    }
    const throttled = deps.authThrottle.check(request.ip);
    if (throttled) {
      reply.header('retry-after', String(throttled.retryAfterSeconds));
      return send(
        reply,
        429,
        loginPage(newToken(), `Too many failed sign-ins; retry after ${throttled.retryAfterSeconds} s.`),
      );
    }
    const result = await signIn(deps, (form.credential ?? '').trim());
    if (!result.ok) {
      deps.authThrottle.fail(request.ip);
      return reply.redirect('/console/login?failed', 303);
    }
    setCookie(deps, request, reply, LOGIN_COOKIE, '', 0, '/console/login');
    setCookie(deps, request, reply, SESSION_COOKIE, result.token, Math.floor(deps.config.console.maxMs / 1000));
    return reply.redirect('/console', 303);
  });

  app.post('/console/logout', { schema: { hide: true } }, async (request, reply) => {
    const session = await sessionOf(deps, request);
    const form = (request.body ?? {}) as Record<string, string>;
    if (session && isSameOriginWithToken(deps, request, session.csrfToken, form._csrf)) await signOut(deps, request);
    setCookie(deps, request, reply, SESSION_COOKIE, '', 0);
    return reply.redirect('/console/login', 303);
  });

  for (const route of CONSOLE_ROUTES) {
    app.route({
      method: route.method,
      url: route.path,
      schema: { hide: true },
      handler: async (request, reply) => {
        const session = await sessionOf(deps, request);
        if (!session) {
          if (request.headers['hx-request']) return reply.code(401).header('hx-redirect', '/console/login').send();
          return reply.redirect('/console/login', 303);
        }
        if (session.kind !== route.who) {
          // An operator on a team's page goes to theirs; a team never sees an operator's page.
          if (session.kind === 'operator' && route.method === 'GET')
            return reply.redirect('/console/operator/teams', 303);
          return send(reply, 403, page({ title: 'Not yours', session }, errorBox('This page is for operators only.')));
        }
        const form = route.method === 'POST' ? ((request.body ?? {}) as Record<string, string>) : {};
        if (route.method === 'POST' && !isSameOriginWithToken(deps, request, session.csrfToken, form._csrf)) {
          return send(
            reply,
            403,
            page(
              { title: 'Refused', session },
              errorBox('The form expired or came from elsewhere: reload the page and try again.'),
            ),
          );
        }
        const ctx: ConsoleContext = {
          app,
          request,
          reply,
          session,
          form,
          query: (request.query ?? {}) as Record<string, string>,
          params: (request.params ?? {}) as Record<string, string>,
          htmx: request.headers['hx-request'] === 'true',
          watch,
          api: (method, path, options) => api(app, request, session, method, path, options),
          callApi: (method, path, options) => callApi(app, request, session, method, path, options),
        };
        try {
          const answer = await route.handler(ctx);
          if (isRedirect(answer)) {
            if (ctx.htmx) return reply.header('hx-redirect', answer.redirect).send();
            return reply.redirect(answer.redirect, 303);
          }
          if (reply.sent) return reply;
          if (loadsModelViewer(answer)) viewerPages.add(request);
          return send(reply, reply.statusCode, answer);
        } catch (err) {
          if (!(err instanceof ApiCallError)) throw err;
          // The key was revoked since sign-in: the session is over.
          if (err.status === 401) return reply.redirect('/console/login', 303);
          const box = errorBox(err.message, err.body?.error.details);
          return send(
            reply,
            err.status,
            ctx.htmx ? box : page({ title: err.status === 404 ? 'Not found' : 'Error', session }, box),
          );
        }
      },
    });
  }
}

function loginPage(nonce: string, problem?: string): Html {
  return page(
    { title: 'Sign in' },
    html`<article>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<form method="post" action="/console/login">
<input type="hidden" name="_csrf" value="${nonce}">
<label for="credential">A team API key (<code>gms_…</code>), or the admin token to manage teams</label>
<input id="credential" name="credential" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
<p class="muted">The key is kept encrypted on the server for this session; the browser holds only a session cookie.</p>
</article>`,
  );
}
