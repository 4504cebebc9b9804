// What an HTTP client of ours does with a redirect and with an answer's headers, as browsers and
// fetch do: shared by the outbound policy's fetch (safe-fetch.ts) and the vendor fetch
// (providers/vendor-fetch.ts).

/** The statuses that redirect. */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers that carry the caller's identity for one origin and must not follow a redirect elsewhere. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * The request a redirect from `from` to `to` asks for. 303 always, and 301/302 after a POST, become
 * a GET without the body (a HEAD stays one); the headers that carry credentials (and those named
 * in `alsoBound`) stay on their origin. `headers` (lower-case names) is changed in place.
 */
export function redirectedRequest<M extends string, B>(
  status: number,
  request: { method: M; body: B | undefined; headers: Record<string, string> },
  from: URL,
  to: URL,
  alsoBound: string[] = [],
): { method: M | 'GET'; body: B | undefined } {
  let method: M | 'GET' = request.method;
  let body = request.body;
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    if (method !== 'HEAD') method = 'GET';
    body = undefined;
    delete request.headers['content-type'];
    delete request.headers['content-length'];
  }
  if (to.origin !== from.origin) {
    for (const name of [...ORIGIN_BOUND_HEADERS, ...alsoBound]) delete request.headers[name.toLowerCase()];
  }
  return { method, body };
}

/** An answer's headers as undici gives them (a value or a list of values per name), as Headers. */
export function answerHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
