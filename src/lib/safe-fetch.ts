// The one outbound HTTP client for user-supplied URLs (reference media, webhooks). It exists to
// stop server-side request forgery: a caller must never be able to make this service talk to
// loopback, the cloud metadata endpoint, or anything else on a private network.
//
// The address rules are enforced where the socket is opened, not where the URL is read: the
// agent's connector judges IP-literal hosts itself and gives hostnames a `lookup` that refuses
// the connection if any resolved address is non-public. Checking a URL once and connecting later
// would let a DNS answer that changes in between (rebinding) slip through.
import dns from 'node:dns';
import net from 'node:net';
import { type Readable, Transform } from 'node:stream';
import { Agent, buildConnector, type Dispatcher, request } from 'undici';
import { answerHeaders, REDIRECT_STATUSES, redirectedRequest } from './redirects.ts';

export interface SafeFetchOptions {
  /** Lift the address rules (local development and tests: config ALLOW_PRIVATE_URLS). Scheme rules still apply. */
  allowPrivate?: boolean;
  /** Additionally allow addresses this returns true for; pass the same function each time (one agent per function). */
  isAllowedAddress?: (ip: string) => boolean;
  /** Deadline for the whole call, redirects and body included. Default 15 s. */
  timeoutMs?: number;
  /** Largest response body accepted. Default 50 MiB. */
  maxBytes?: number;
  /** Redirects followed before giving up. Default 3. */
  maxRedirects?: number;
  /** When false a 3xx is a failure (webhook deliveries). Default true. */
  followRedirects?: boolean;
}

export interface SafeFetchRequest extends SafeFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Which final statuses count as success. Default: 2xx. */
  acceptStatus?: (status: number) => boolean;
}

export interface FetchedResource {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  headers: Headers;
  /** The media type without parameters, lower-cased; '' when the server sent none. */
  contentType: string;
  body: Buffer;
}

/** A URL refused by the outbound policy (scheme, credentials or address); callers answer 400. */
export class UnsafeUrlError extends Error {
  /** The refused URL, without any credentials it carried. */
  readonly url: string;
  /** Why it was refused, safe to show to the API caller. */
  readonly reason: string;

  constructor(url: string, reason: string, options?: ErrorOptions) {
    super(`URL refused: ${reason}`, options);
    this.name = 'UnsafeUrlError';
    this.url = url;
    this.reason = reason;
  }
}

export type FetchFailureKind = 'network' | 'timeout' | 'too_large' | 'status' | 'redirect';

/** An allowed URL that could not be fetched: network error, timeout, body too large or unwanted status. */
export class FetchFailedError extends Error {
  readonly url: string;
  readonly kind: FetchFailureKind;
  /** The HTTP status, when the failure is about one. */
  readonly status: number | undefined;
  /** Whether trying again later may succeed (network errors, timeouts, 5xx, 408, 429). */
  readonly retryable: boolean;

  constructor(
    message: string,
    details: { url: string; kind: FetchFailureKind; retryable: boolean; status?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'FetchFailedError';
    this.url = details.url;
    this.kind = details.kind;
    this.status = details.status;
    this.retryable = details.retryable;
  }
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;
// The pre-check is advisory (the connect-time check is the real one), so a slow resolver must
// not hold up the API request that asked for it.
const PRECHECK_DNS_TIMEOUT_MS = 5_000;
// A failure with these codes will fail the same way next time.
const PERMANENT_NETWORK_CODES = new Set([
  'ENOTFOUND',
  'ENODATA',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

// ---------------------------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------------------------

type Range<T> = readonly [network: T, prefixLength: number, label: string];

// The IANA IPv4 Special-Purpose Address Registry plus multicast and the reserved 240/4. Order
// matters only for the label: the first match names the range.
const IPV4_SPECIAL: ReadonlyArray<Range<number>> = [
  [ipv4ToInt('0.0.0.0'), 8, 'unspecified'],
  [ipv4ToInt('10.0.0.0'), 8, 'private'],
  [ipv4ToInt('100.64.0.0'), 10, 'carrier-grade NAT'],
  [ipv4ToInt('127.0.0.0'), 8, 'loopback'],
  [ipv4ToInt('169.254.0.0'), 16, 'link-local'],
  [ipv4ToInt('172.16.0.0'), 12, 'private'],
  [ipv4ToInt('192.0.0.0'), 24, 'IETF protocol assignments'],
  [ipv4ToInt('192.0.2.0'), 24, 'documentation'],
  [ipv4ToInt('192.31.196.0'), 24, 'AS112'],
  [ipv4ToInt('192.52.193.0'), 24, 'AMT'],
  [ipv4ToInt('192.88.99.0'), 24, '6to4 relay anycast'],
  [ipv4ToInt('192.168.0.0'), 16, 'private'],
  [ipv4ToInt('192.175.48.0'), 24, 'AS112'],
  [ipv4ToInt('198.18.0.0'), 15, 'benchmarking'],
  [ipv4ToInt('198.51.100.0'), 24, 'documentation'],
  [ipv4ToInt('203.0.113.0'), 24, 'documentation'],
  [ipv4ToInt('224.0.0.0'), 4, 'multicast'],
  [ipv4ToInt('255.255.255.255'), 32, 'broadcast'],
  [ipv4ToInt('240.0.0.0'), 4, 'reserved'],
];

// IPv6 is judged by allow-list: only global unicast 2000::/3 can be public, minus the special
// ranges inside it. Everything outside 2000::/3 (::, ::1, IPv4-mapped and -compatible, NAT64,
// discard, ULA, link- and site-local, multicast) is refused; the labels only name the reason.
// 6to4 and Teredo are refused whole rather than by their embedded IPv4: both are all but
// retired and would otherwise tunnel to whatever IPv4 address they encode.
const IPV6_INSIDE_GLOBAL_SPECIAL: ReadonlyArray<Range<bigint>> = [
  [ipv6ToBigInt('2001::'), 32, 'Teredo'],
  [ipv6ToBigInt('2001::'), 23, 'IETF protocol assignments'],
  [ipv6ToBigInt('2001:db8::'), 32, 'documentation'],
  [ipv6ToBigInt('2002::'), 16, '6to4'],
  [ipv6ToBigInt('2620:4f:8000::'), 48, 'AS112'],
  [ipv6ToBigInt('3fff::'), 20, 'documentation'],
];
const IPV6_OUTSIDE_GLOBAL: ReadonlyArray<Range<bigint>> = [
  [0n, 128, 'unspecified'],
  [1n, 128, 'loopback'],
  [ipv6ToBigInt('::ffff:0:0'), 96, 'IPv4-mapped'],
  [0n, 96, 'IPv4-compatible'],
  [ipv6ToBigInt('64:ff9b::'), 96, 'NAT64'],
  [ipv6ToBigInt('64:ff9b:1::'), 48, 'NAT64 local-use'],
  [ipv6ToBigInt('100::'), 64, 'discard-only'],
  [ipv6ToBigInt('fc00::'), 7, 'unique-local (private)'],
  [ipv6ToBigInt('fe80::'), 10, 'link-local'],
  [ipv6ToBigInt('fec0::'), 10, 'site-local'],
  [ipv6ToBigInt('ff00::'), 8, 'multicast'],
];
const IPV6_GLOBAL_UNICAST: Range<bigint> = [ipv6ToBigInt('2000::'), 3, 'global unicast'];

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function intToIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

// Expects text that net.isIPv6 accepted (a zone suffix is ignored).
function ipv6ToBigInt(ip: string): bigint {
  let text = ip.split('%')[0] ?? '';
  if (text.includes('.')) {
    // A trailing dotted quad stands for the last two groups.
    const cut = text.lastIndexOf(':') + 1;
    const v4 = ipv4ToInt(text.slice(cut));
    text = `${text.slice(0, cut)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function inRange4(ip: number, [network, bits]: Range<number>): boolean {
  const shift = 32 - bits;
  // Division instead of >>> because a shift by 32 is a shift by 0 in JavaScript.
  return Math.floor(ip / 2 ** shift) === Math.floor(network / 2 ** shift);
}

function inRange6(ip: bigint, [network, bits]: Range<bigint>): boolean {
  const shift = BigInt(128 - bits);
  return ip >> shift === network >> shift;
}

function specialIpv4(n: number): string | undefined {
  return IPV4_SPECIAL.find((range) => inRange4(n, range))?.[2];
}

/** Names the special-purpose range an address falls in, or undefined for a public unicast address. */
export function nonPublicReason(ip: string): string | undefined {
  const family = net.isIP(ip);
  if (family === 4) return specialIpv4(ipv4ToInt(ip));
  if (family !== 6) return 'not an IP address';
  const n = ipv6ToBigInt(ip);
  if (inRange6(n, IPV6_GLOBAL_UNICAST)) {
    return IPV6_INSIDE_GLOBAL_SPECIAL.find((range) => inRange6(n, range))?.[2];
  }
  const label = IPV6_OUTSIDE_GLOBAL.find((range) => inRange6(n, range))?.[2] ?? 'not global unicast';
  if (label === 'IPv4-mapped' || label === 'IPv4-compatible' || label === 'NAT64') {
    // Refused whatever they embed (a mapped address is an IPv4 destination in disguise); the
    // embedded address is named so that the reason explains what was really being reached.
    const v4 = Number(n & 0xffffffffn);
    return `${label} ${intToIpv4(v4)} (${specialIpv4(v4) ?? 'public'})`;
  }
  return label;
}

/** Whether an IP address (canonical text form) is public unicast, i.e. fine to connect to. */
export function isPublicAddress(ip: string): boolean {
  return nonPublicReason(ip) === undefined;
}

// ---------------------------------------------------------------------------------------------
// Policy and agents
// ---------------------------------------------------------------------------------------------

type AddressPolicy = (ip: string) => boolean;

function addressPolicy(options: Pick<SafeFetchOptions, 'allowPrivate' | 'isAllowedAddress'>): AddressPolicy {
  if (options.allowPrivate === true) return () => true;
  const extra = options.isAllowedAddress;
  return extra === undefined ? isPublicAddress : (ip) => isPublicAddress(ip) || extra(ip);
}

function bareHostname(url: URL): string {
  // The URL parser keeps IPv6 literals in brackets and has already turned odd IPv4 spellings
  // (2130706433, 0x7f.1, 127.1) into dotted quads.
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function redact(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

function describeInput(url: string): string {
  return url.length > 200 ? `${url.slice(0, 200)}…` : url;
}

// Everything that can be judged from the URL alone; throws UnsafeUrlError.
function checkUrl(url: URL, allows: AddressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UnsafeUrlError(redact(url), 'only http and https URLs are allowed');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeUrlError(redact(url), 'URLs with credentials are not allowed');
  }
  const host = bareHostname(url);
  if (net.isIP(host) !== 0 && !allows(host)) {
    throw new UnsafeUrlError(redact(url), `address ${host} is not public (${nonPublicReason(host) ?? 'not allowed'})`);
  }
}

function parseUrl(input: string | URL, allows: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UnsafeUrlError(describeInput(String(input)), 'not a valid URL');
  }
  checkUrl(url, allows);
  return url;
}

// Resolves every address of the name and refuses the connection if any of them is not allowed,
// so a name that mixes a public and a private answer cannot be used to reach the private one.
function policyLookup(allows: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (err, addresses) => {
      if (err !== null) {
        callback(err, '');
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        callback(Object.assign(new Error(`no addresses for ${hostname}`), { code: 'ENODATA' }), '');
        return;
      }
      if (addresses.some((a) => !allows(a.address))) {
        callback(new UnsafeUrlError(hostname, 'host resolves to a non-public address'), '');
        return;
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

function createAgent(allows: AddressPolicy): Agent {
  const base = buildConnector({ lookup: policyLookup(allows) });
  const connect: buildConnector.connector = (options, callback) => {
    // An IP-literal host never reaches `lookup`, so it is judged here, just before the socket
    // opens. The callback is deferred because undici does not expect it to run synchronously.
    if (net.isIP(options.hostname) !== 0 && !allows(options.hostname)) {
      const err = new UnsafeUrlError(
        `${options.protocol}//${options.host ?? options.hostname}`,
        'address is not public',
      );
      process.nextTick(callback, err, null);
      return;
    }
    base(options, callback);
  };
  return new Agent({ connect });
}

let publicAgent: Agent | undefined;
let privateAgent: Agent | undefined;
// Keyed by function identity; only tests widen the policy, each with one long-lived function.
const widenedAgents = new Map<AddressPolicy, Agent>();

function agentFor(options: SafeFetchOptions): Agent {
  if (options.allowPrivate === true) {
    privateAgent ??= createAgent(addressPolicy(options));
    return privateAgent;
  }
  const extra = options.isAllowedAddress;
  if (extra === undefined) {
    publicAgent ??= createAgent(isPublicAddress);
    return publicAgent;
  }
  let agent = widenedAgents.get(extra);
  if (agent === undefined) {
    agent = createAgent(addressPolicy(options));
    widenedAgents.set(extra, agent);
  }
  return agent;
}

/** Closes the pooled connections of every outbound agent (shutdown, end of tests); later calls open new ones. */
export async function closeSafeFetchAgents(): Promise<void> {
  const agents = [publicAgent, privateAgent, ...widenedAgents.values()].filter((a) => a !== undefined);
  publicAgent = undefined;
  privateAgent = undefined;
  widenedAgents.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}

// ---------------------------------------------------------------------------------------------
// Fetching
// ---------------------------------------------------------------------------------------------

function findUnsafe(err: unknown): UnsafeUrlError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UnsafeUrlError) return e;
  }
  return undefined;
}

function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

// Turns whatever undici or the body stream threw into one of the two public error types.
function classifyError(err: unknown, url: URL, deadline: AbortSignal, timeoutMs: number): Error {
  if (err instanceof FetchFailedError) return err;
  const unsafe = findUnsafe(err);
  if (unsafe !== undefined) return new UnsafeUrlError(redact(url), unsafe.reason, { cause: err });
  if (deadline.aborted) {
    return new FetchFailedError(`timed out after ${timeoutMs} ms fetching ${url.host}`, {
      url: redact(url),
      kind: 'timeout',
      retryable: true,
      cause: err,
    });
  }
  const code = errorCode(err);
  const detail = err instanceof Error ? err.message : String(err);
  return new FetchFailedError(`could not fetch ${url.host}: ${code ?? detail}`, {
    url: redact(url),
    kind: 'network',
    retryable: code === undefined || !PERMANENT_NETWORK_CODES.has(code),
    cause: err,
  });
}

function statusFailure(status: number, url: URL, redirect: boolean): FetchFailedError {
  return new FetchFailedError(
    redirect ? `unexpected redirect (HTTP ${status}) from ${url.host}` : `HTTP ${status} from ${url.host}`,
    {
      url: redact(url),
      kind: redirect ? 'redirect' : 'status',
      status,
      retryable: status >= 500 || status === 408 || status === 429,
    },
  );
}

// Drops a body that is not wanted. Quicker than draining one of arbitrary size, at the cost of
// the connection; the listener swallows the "aborted" error undici emits for it.
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined).destroy();
}

function tooLarge(url: URL, maxBytes: number): FetchFailedError {
  return new FetchFailedError(`response from ${url.host} is larger than ${maxBytes} bytes`, {
    url: redact(url),
    kind: 'too_large',
    retryable: false,
  });
}

async function readCapped(response: Dispatcher.ResponseData, url: URL, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  // Counted while streaming: Content-Length may be absent or a lie. Leaving the loop early
  // destroys the stream, which closes the connection.
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(url, maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

interface OpenResponse {
  response: Dispatcher.ResponseData;
  /** The final URL, after redirects. */
  url: URL;
  deadline: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * Connects under the outbound policy, follows (or refuses) redirects and checks the final status;
 * the body is left for the caller to read. Throws UnsafeUrlError or FetchFailedError.
 */
async function openResponse(url: string, options: SafeFetchRequest): Promise<OpenResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const followRedirects = options.followRedirects ?? true;
  const acceptStatus = options.acceptStatus ?? ((status: number) => status >= 200 && status < 300);
  const allows = addressPolicy(options);
  const dispatcher = agentFor(options);
  const deadline = AbortSignal.timeout(timeoutMs);

  let current = parseUrl(url, allows);
  let method: 'GET' | 'POST' = options.method ?? 'GET';
  let body = options.body;
  const headers: Record<string, string> = { 'user-agent': 'genmedia' };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;

  for (let redirects = 0; ; redirects++) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(current, { dispatcher, method, headers, body, signal: deadline });
    } catch (err) {
      throw classifyError(err, current, deadline, timeoutMs);
    }
    const status = response.statusCode;
    const location = firstHeader(response.headers.location);

    if (followRedirects && REDIRECT_STATUSES.has(status) && location !== undefined) {
      discard(response.body);
      if (redirects >= maxRedirects) {
        throw new FetchFailedError(`too many redirects (more than ${maxRedirects}) from ${current.host}`, {
          url: redact(current),
          kind: 'redirect',
          status,
          retryable: false,
        });
      }
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new UnsafeUrlError(describeInput(location), 'redirect to an invalid URL');
      }
      checkUrl(next, allows);
      // Credentials, and whatever headers the caller gave (a vendor's proxy key), are for one origin.
      ({ method, body } = redirectedRequest(
        status,
        { method, body, headers },
        current,
        next,
        Object.keys(options.headers ?? {}),
      ));
      current = next;
      continue;
    }

    if (!acceptStatus(status)) {
      discard(response.body);
      throw statusFailure(status, current, status >= 300 && status < 400);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      discard(response.body);
      throw tooLarge(current, maxBytes);
    }
    return { response, url: current, deadline, timeoutMs, maxBytes };
  }
}

function described(open: OpenResponse): Omit<FetchedResource, 'body'> {
  const headers = answerHeaders(open.response.headers);
  return {
    url: open.url.href,
    status: open.response.statusCode,
    headers,
    contentType: (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
  };
}

/** Fetches a user-supplied URL under the outbound policy; throws UnsafeUrlError or FetchFailedError. */
export async function safeFetch(url: string, options: SafeFetchRequest = {}): Promise<FetchedResource> {
  const open = await openResponse(url, options);
  let bytes: Buffer;
  try {
    bytes = await readCapped(open.response, open.url, open.maxBytes);
  } catch (err) {
    throw classifyError(err, open.url, open.deadline, open.timeoutMs);
  }
  return { ...described(open), body: bytes };
}

/** A response whose body is read as a stream, capped at `maxBytes` while it flows. */
export interface StreamedResource extends Omit<FetchedResource, 'body'> {
  /** Errors with FetchFailedError (too large, timed out, cut off) or UnsafeUrlError. */
  body: Readable;
}

/**
 * Like safeFetch, but the body is handed over as a stream: nothing is held in memory beyond the
 * stream's buffer, so a body of any size (up to `maxBytes`) can be copied onward. The deadline
 * (`timeoutMs`) covers reading the body too.
 */
export async function safeFetchStream(url: string, options: SafeFetchRequest = {}): Promise<StreamedResource> {
  const open = await openResponse(url, options);
  let total = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > open.maxBytes) callback(tooLarge(open.url, open.maxBytes));
      else callback(null, chunk);
    },
  });
  const source = open.response.body;
  source.on('error', (err) => capped.destroy(classifyError(err, open.url, open.deadline, open.timeoutMs)));
  capped.on('close', () => {
    if (!source.destroyed) source.on('error', () => undefined).destroy();
  });
  source.pipe(capped);
  return { ...described(open), body: capped };
}

/** Cheap pre-check at request time (scheme, credentials, literal or resolved addresses) so a bad URL is a 400 before anything is charged. */
export async function assertPublicUrl(
  url: string,
  options: Pick<SafeFetchOptions, 'allowPrivate' | 'isAllowedAddress'> = {},
): Promise<void> {
  const allows = addressPolicy(options);
  const parsed = parseUrl(url, allows);
  const host = bareHostname(parsed);
  if (options.allowPrivate === true || net.isIP(host) !== 0) return;

  let timer: NodeJS.Timeout | undefined;
  let addresses: dns.LookupAddress[] | undefined;
  try {
    addresses = await Promise.race([
      dns.promises.lookup(host, { all: true }),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), PRECHECK_DNS_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw new UnsafeUrlError(redact(parsed), 'host does not resolve');
    // A transient resolver failure is left to the fetch itself, which checks again anyway.
    return;
  } finally {
    clearTimeout(timer);
  }
  if (addresses?.some((a) => !allows(a.address))) {
    throw new UnsafeUrlError(redact(parsed), 'host resolves to a non-public address');
  }
}
