// Signing in to the console: a team with one of its API keys, an operator with the admin token.
// The session is a random token in an HttpOnly, SameSite=Strict cookie (Secure when the console
// is reached over HTTPS) scoped to /console; the database keeps its hash. Every form carries the
// session's CSRF token (htmx sends it as a header), checked on every POST with the request's Origin.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../app-types.ts';
import { isWellFormedApiKey } from '../../lib/secrets.ts';
import * as sql from './sql.ts';

export const SESSION_COOKIE = 'gm_console';
/** The login form's own CSRF cookie (before there is a session). */
export const LOGIN_COOKIE = 'gm_console_login';

export interface ConsoleSession {
  kind: 'team' | 'operator';
  teamId: string | null;
  /** The team's API key (opened from its sealed form), for in-process API calls. */
  apiKey: string | null;
  csrfToken: string;
  tokenHash: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const newToken = () => randomBytes(32).toString('base64url');

/** The request's cookies. */
export function cookiesOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name && !(name in out)) out[name] = decodeURIComponent(value);
  }
  return out;
}

/** Whether the console is reached over HTTPS (directly or through a trusted proxy, or by its public URL). */
function isSecure(deps: Deps, request: FastifyRequest): boolean {
  return request.protocol === 'https' || deps.config.publicBaseUrl.startsWith('https:');
}

/** Sets (or with maxAgeS 0, clears) a console cookie with the attributes every one of them has. */
export function setCookie(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeS: number,
  path = '/console',
): void {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${path}`,
    `Max-Age=${maxAgeS}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(isSecure(deps, request) ? ['Secure'] : []),
  ];
  // Fastify adds each set-cookie header to those already set.
  reply.header('set-cookie', parts.join('; '));
}

/** Equal strings, compared in constant time. */
export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type SignInResult = { ok: true; token: string } | { ok: false; reason: string };

/**
 * Signs in with an API key (a team) or the admin token (an operator); the answer's token goes in
 * the session cookie.
 */
export async function signIn(deps: Deps, credential: string): Promise<SignInResult> {
  const { config } = deps;
  let session: Omit<sql.SessionRow, 'expires_at'>;
  if (deps.adminToken && sameSecret(credential, deps.adminToken)) {
    session = { kind: 'operator', team_id: null, key_id: null, sealed_key: null, csrf_token: newToken() };
  } else {
    const principal = isWellFormedApiKey(credential) ? await deps.authenticator.authenticate(credential) : null;
    if (!principal) return { ok: false, reason: 'That is not a valid API key or admin token' };
    session = {
      kind: 'team',
      team_id: principal.teamId,
      key_id: principal.keyId,
      sealed_key: deps.secrets.seal(credential),
      csrf_token: newToken(),
    };
  }
  const token = newToken();
  await sql.insertSession(deps.pool, {
    ...session,
    tokenHash: hashToken(token),
    ttlMs: Math.min(config.console.idleMs, config.console.maxMs),
  });
  return { ok: true, token };
}

/** The live session of the request's cookie, its expiry slid forward; undefined without one. */
export async function sessionOf(deps: Deps, request: FastifyRequest): Promise<ConsoleSession | undefined> {
  const token = cookiesOf(request)[SESSION_COOKIE];
  if (!token || token.length > 100) return undefined;
  const tokenHash = hashToken(token);
  const row = await sql.touchSession(deps.pool, tokenHash, deps.config.console.idleMs, deps.config.console.maxMs);
  if (!row) return undefined;
  return {
    kind: row.kind,
    teamId: row.team_id,
    apiKey: row.sealed_key ? deps.secrets.open(row.sealed_key) : null,
    csrfToken: row.csrf_token,
    tokenHash,
  };
}

/** Ends the session of the request's cookie. */
export async function signOut(deps: Deps, request: FastifyRequest): Promise<void> {
  const token = cookiesOf(request)[SESSION_COOKIE];
  if (token) await sql.deleteSession(deps.pool, hashToken(token));
}

/** Whether a request's Origin, when the browser sends one, is this service's (an opaque `null` is not). */
export function isOurOrigin(deps: Deps, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === new URL(deps.config.publicBaseUrl).origin || origin === `${request.protocol}://${request.host}`;
}

/**
 * Whether a state-changing request came from our own pages: its Origin is ours, and its CSRF
 * token (form field `_csrf` or header x-csrf-token) is `expected`.
 */
export function isSameOriginWithToken(
  deps: Deps,
  request: FastifyRequest,
  expected: string,
  formToken: string | undefined,
): boolean {
  const header = request.headers['x-csrf-token'];
  return isOurOrigin(deps, request) && sameSecret(typeof header === 'string' ? header : formToken, expected);
}
