// The fetch vendor adapters are given. A call whose body is text or bytes (every JSON call) goes
// through undici's `request` and its answer is wrapped in a Response: the same answer for the
// adapter at a third of the CPU of Node's fetch (0.14 against 0.32-0.46 ms for a JSON call here),
// whose WHATWG layers (request and header objects, body mixins, the redirect and CORS machinery)
// cost more than the call itself when the vendor answers at once. Other bodies (FormData, streams)
// and calls that ask for a redirect mode go to Node's fetch. What fetch does that a vendor call
// needs is done here too: redirects are followed (303, and 301/302 after a POST, become a GET; the
// credentials stay on their origin), a compressed answer is decompressed, `accept`, `user-agent`
// and a text body's type have fetch's defaults, and errors carry the same codes (a refused
// connection, a timeout: src/providers/http.ts reads them).
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { request } from 'undici';
import { answerHeaders, REDIRECT_STATUSES, redirectedRequest } from '../lib/redirects.ts';
import { outgoingTraceparent } from '../lib/tracing.ts';
import type { Fetch } from './types.ts';

/** Redirects followed at most, as fetch does. */
const MAX_REDIRECTS = 20;
/** Answers that have no body (a Response refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * The fetch vendor adapters get: every call to a vendor's API ends within `timeoutMs`, and carries
 * the vendor call's `traceparent` when traces are on and propagated (src/lib/tracing.ts).
 */
export function vendorFetch(timeoutMs: number): Fetch {
  return (url, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const traceparent = outgoingTraceparent();
    if (requestCanSend(init)) return requestAsResponse(url, init ?? {}, signal, traceparent);
    if (!traceparent) return fetch(url, { ...init, signal });
    const headers = new Headers(init?.headers);
    if (!headers.has('traceparent')) headers.set('traceparent', traceparent);
    return fetch(url, { ...init, headers, signal });
  };
}

type PlainBody = string | Uint8Array | null | undefined;

/** Whether `request` sends this call as fetch would: a body of text or bytes, redirects followed. */
function requestCanSend(init: RequestInit | undefined): init is (RequestInit & { body?: PlainBody }) | undefined {
  const body = init?.body;
  const plain = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  return plain && (init?.redirect === undefined || init.redirect === 'follow');
}

/** The call's headers as a record of lower-case names, with fetch's `accept` and `user-agent`. */
function headerRecord(given: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (Array.isArray(given)) {
    for (const [name, value] of given)
      if (name !== undefined && value !== undefined) headers[name.toLowerCase()] = value;
  } else if (given && typeof (given as Headers).forEach === 'function') {
    // Headers, Node's or undici's: lower-case names, repeated values joined.
    (given as Headers).forEach((value, name) => {
      headers[name] = value;
    });
  } else if (given) {
    for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
      if (Array.isArray(value)) headers[name.toLowerCase()] = value.join(', ');
      else if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
    }
  }
  headers.accept ??= '*/*';
  headers['user-agent'] ??= 'node';
  return headers;
}

async function requestAsResponse(
  url: string,
  init: RequestInit & { body?: PlainBody },
  signal: AbortSignal,
  traceparent: string | undefined,
): Promise<Response> {
  let target = new URL(url);
  let method = (init.method ?? 'GET').toUpperCase();
  let body: PlainBody = init.body;
  const headers = headerRecord(init.headers);
  if (traceparent) headers.traceparent ??= traceparent;
  // As fetch types a text body that names no type.
  if (typeof body === 'string') headers['content-type'] ??= 'text/plain;charset=UTF-8';
  for (let redirects = 0; ; redirects++) {
    const answer = await request(target, { method: method as 'GET', headers, body: body ?? undefined, signal });
    const location = answer.headers.location;
    if (!REDIRECT_STATUSES.has(answer.statusCode) || typeof location !== 'string') {
      return responseOf(answer.statusCode, answer.headers, answer.body, method === 'HEAD');
    }
    await answer.body.dump();
    if (redirects === MAX_REDIRECTS)
      throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
    const next = new URL(location, target);
    ({ method, body } = redirectedRequest(answer.statusCode, { method, body, headers }, target, next));
    target = next;
  }
}

/** An answer of `request` as a Response, its body decompressed as fetch would. */
function responseOf(
  status: number,
  given: Record<string, string | string[] | undefined>,
  body: Readable,
  head: boolean,
): Response {
  if (status < 200 || status > 599) {
    body.destroy();
    throw new TypeError('fetch failed', { cause: new Error(`the answer's status ${status} is not an HTTP status`) });
  }
  const headers = answerHeaders(given);
  if (head || NULL_BODY.has(status)) {
    body.resume();
    return new Response(null, { status, headers });
  }
  return new Response(Readable.toWeb(decoded(body, headers.get('content-encoding'))) as ReadableStream, {
    status,
    headers,
  });
}

/** The body without its content coding (gzip, deflate, br); as it is for none or another. */
function decoded(body: Readable, coding: string | null): Readable {
  const decoder = (() => {
    switch (coding?.trim().toLowerCase()) {
      case 'gzip':
      case 'x-gzip':
        return createGunzip();
      case 'deflate':
        return createInflate();
      case 'br':
        return createBrotliDecompress();
      default:
        return undefined;
    }
  })();
  if (!decoder) return body;
  body.on('error', (err) => decoder.destroy(err));
  return body.pipe(decoder);
}
