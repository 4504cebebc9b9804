// The outbound policy against real local servers: a "forbidden" server on 127.0.0.1 (and ::1)
// that no refused URL may ever reach, and an "allowed" one on 127.0.0.2, which the tests admit
// through isAllowedAddress. Needs no database.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  assertPublicUrl,
  closeSafeFetchAgents,
  FetchFailedError,
  isPublicAddress,
  safeFetch,
  safeFetchStream,
  UnsafeUrlError,
} from '../src/lib/safe-fetch.ts';

interface CountingServer {
  server: http.Server;
  port: number;
  connections: number;
}

async function listen(host: string, port: number, handler: http.RequestListener): Promise<CountingServer> {
  const server = http.createServer(handler);
  const counting: CountingServer = { server, port: 0, connections: 0 };
  server.on('connection', () => {
    counting.connections++;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  counting.port = (server.address() as AddressInfo).port;
  return counting;
}

async function close(s: CountingServer | undefined): Promise<void> {
  if (s === undefined) return;
  s.server.closeAllConnections();
  await new Promise<void>((resolve) => s.server.close(() => resolve()));
}

const onlyTestHost = (ip: string) => ip === '127.0.0.2';

async function drain(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('safeFetch outbound policy', () => {
  let forbidden: CountingServer;
  let forbidden6: CountingServer | undefined;
  let allowed: CountingServer;
  let endlessClosed: Promise<void>;
  let base: string;
  const opts = { isAllowedAddress: onlyTestHost, timeoutMs: 2000 };

  const forbiddenConnections = () => forbidden.connections + (forbidden6?.connections ?? 0);

  before(async () => {
    const reached = () => (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('you should not be here');
    forbidden = await listen('127.0.0.1', 0, reached());
    // Same port on ::1, so that http://[::1]:port/ would land somewhere countable if it got through.
    forbidden6 = await listen('::1', forbidden.port, reached()).catch(() => undefined);

    let markEndlessClosed: () => void = () => undefined;
    endlessClosed = new Promise((resolve) => {
      markEndlessClosed = resolve;
    });
    allowed = await listen('127.0.0.2', 0, (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const chain = /^\/chain\/(\d+)$/.exec(path);
      const status = /^\/status\/(\d+)$/.exec(path);
      if (path === '/ok') {
        res.setHeader('content-type', 'Text/Plain; charset=utf-8');
        res.end('hello');
      } else if (chain?.[1] !== undefined) {
        const n = Number(chain[1]);
        if (n === 0) res.end('end of chain');
        else res.writeHead(302, { location: `/chain/${n - 1}` }).end();
      } else if (path === '/redirect') {
        res
          .writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' })
          .end();
      } else if (status?.[1] !== undefined) {
        res.writeHead(Number(status[1])).end('status body');
      } else if (path === '/echo') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              method: req.method,
              contentType: req.headers['content-type'] ?? null,
              body: Buffer.concat(chunks).toString(),
            }),
          );
        });
      } else if (path === '/endless') {
        // Writes as fast as the client reads, forever; only the client going away stops it.
        const chunk = Buffer.alloc(16 * 1024, 'x');
        let open = true;
        res.on('close', () => {
          open = false;
          markEndlessClosed();
        });
        const pump = () => {
          while (open && res.write(chunk));
          if (open) res.once('drain', pump);
        };
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        pump();
      } else if (path === '/big-declared') {
        res.writeHead(200, { 'content-length': String(10_000_000) });
        res.write('a few bytes, then nothing');
      } else if (path === '/stall-body') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('half');
      } else if (path === '/hang') {
        // Never answers.
      } else {
        res.writeHead(404).end();
      }
    });
    base = `http://127.0.0.2:${allowed.port}`;
  });

  after(async () => {
    await closeSafeFetchAgents();
    await Promise.all([close(forbidden), close(forbidden6), close(allowed)]);
  });

  test('refuses the SSRF matrix without connecting anywhere', async () => {
    const p = forbidden.port;
    const refused = [
      `http://127.0.0.1:${p}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::127.0.0.1]:${p}/`,
      `http://[64:ff9b::7f00:1]:${p}/`,
      `http://[fe80::1]:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://0:${p}/`,
      `http://localhost:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f.1:${p}/`,
      `http://127.1:${p}/`,
      `https://127.0.0.1:${p}/`,
      'file:///etc/passwd',
      'ftp://x',
      'gopher://x/',
      'data:text/plain,hello',
      'javascript:alert(1)',
      'not a url',
      `http://user:secret@127.0.0.2:${allowed.port}/ok`,
    ];
    const forbiddenBefore = forbiddenConnections();
    const allowedBefore = allowed.connections;
    for (const policy of [{}, { isAllowedAddress: onlyTestHost }]) {
      for (const url of refused) {
        await assert.rejects(safeFetch(url, { ...policy, timeoutMs: 1000 }), UnsafeUrlError, `safeFetch ${url}`);
        await assert.rejects(assertPublicUrl(url, policy), UnsafeUrlError, `assertPublicUrl ${url}`);
      }
    }
    assert.equal(forbiddenConnections(), forbiddenBefore);
    assert.equal(allowed.connections, allowedBefore, 'the URL with credentials was not fetched either');
  });

  test('never echoes credentials and explains the refusal', async () => {
    const err = await safeFetch(`http://user:secret@127.0.0.2:${allowed.port}/ok`, opts).catch((e: unknown) => e);
    assert.ok(err instanceof UnsafeUrlError);
    assert.doesNotMatch(err.url, /secret/);
    assert.doesNotMatch(err.message, /secret/);
    const loopback = await safeFetch(`http://2130706433:${forbidden.port}/`).catch((e: unknown) => e);
    assert.ok(loopback instanceof UnsafeUrlError);
    assert.match(loopback.reason, /127\.0\.0\.1.*loopback/);
    const mapped = await safeFetch(`http://[::ffff:a00:1]/`).catch((e: unknown) => e);
    assert.ok(mapped instanceof UnsafeUrlError);
    assert.match(mapped.reason, /IPv4-mapped 10\.0\.0\.1 \(private\)/);
  });

  test('fetches from an allowed host and reports type, headers and body', async () => {
    const r = await safeFetch(`${base}/ok`, opts);
    assert.equal(r.status, 200);
    assert.equal(r.url, `${base}/ok`);
    assert.equal(r.contentType, 'text/plain');
    assert.equal(r.headers.get('content-type'), 'Text/Plain; charset=utf-8');
    assert.equal(r.body.toString(), 'hello');
    await assertPublicUrl(`${base}/ok`, opts);
  });

  test('allowPrivate lets loopback through, but not other schemes or credentials', async () => {
    const before = forbidden.connections;
    const r = await safeFetch(`http://127.0.0.1:${forbidden.port}/`, { allowPrivate: true, timeoutMs: 2000 });
    assert.equal(r.body.toString(), 'you should not be here');
    assert.equal(forbidden.connections, before + 1);
    await assertPublicUrl(`http://localhost:${forbidden.port}/`, { allowPrivate: true });
    await assert.rejects(safeFetch('file:///etc/passwd', { allowPrivate: true }), UnsafeUrlError);
    await assert.rejects(assertPublicUrl('ftp://x/', { allowPrivate: true }), UnsafeUrlError);
    await assert.rejects(
      safeFetch(`http://u:p@127.0.0.1:${forbidden.port}/`, { allowPrivate: true, timeoutMs: 1000 }),
      UnsafeUrlError,
    );
    assert.equal(forbidden.connections, before + 1);
  });

  test('a redirect to a forbidden address is refused and never reaches it', async () => {
    const targets = [
      `http://127.0.0.1:${forbidden.port}/`,
      `http://localhost:${forbidden.port}/`,
      `http://[::1]:${forbidden.port}/`,
      'file:///etc/passwd',
      `http://u:p@127.0.0.2:${allowed.port}/ok`,
    ];
    const before = forbiddenConnections();
    for (const to of targets) {
      await assert.rejects(
        safeFetch(`${base}/redirect?to=${encodeURIComponent(to)}`, opts),
        UnsafeUrlError,
        `redirect to ${to}`,
      );
    }
    assert.equal(forbiddenConnections(), before);
  });

  test('the address is checked at connect time, not only before', async () => {
    const before = forbiddenConnections();
    // Simulates DNS rebinding: the policy approves the first look and refuses every later one.
    let lookedOnce = false;
    const flaky = (ip: string) => {
      const ok = ip === '127.0.0.1' && !lookedOnce;
      lookedOnce = true;
      return ok;
    };
    // safeFetch's own pre-check uses up the approval; the connector must then refuse the literal.
    await assert.rejects(safeFetch(`http://127.0.0.1:${forbidden.port}/`, { isAllowedAddress: flaky }), UnsafeUrlError);
    // A hostname is only resolved by the connection's lookup, which must refuse it too.
    let approved = true;
    const rebinding = () => approved;
    await assertPublicUrl(`http://localhost:${forbidden.port}/`, { isAllowedAddress: rebinding });
    approved = false;
    await assert.rejects(
      safeFetch(`http://localhost:${forbidden.port}/`, { isAllowedAddress: rebinding, timeoutMs: 1000 }),
      UnsafeUrlError,
    );
    assert.equal(forbiddenConnections(), before);
  });

  test('follows a redirect chain within allowed hosts and reports the final URL', async () => {
    const r = await safeFetch(`${base}/chain/3`, opts);
    assert.equal(r.status, 200);
    assert.equal(r.url, `${base}/chain/0`);
    assert.equal(r.body.toString(), 'end of chain');
  });

  test('more than maxRedirects fails', async () => {
    const err = await safeFetch(`${base}/chain/4`, opts).catch((e: unknown) => e);
    assert.ok(err instanceof FetchFailedError);
    assert.equal(err.kind, 'redirect');
    assert.equal(err.retryable, false);
    const one = await safeFetch(`${base}/chain/2`, { ...opts, maxRedirects: 1 }).catch((e: unknown) => e);
    assert.ok(one instanceof FetchFailedError);
    assert.equal(one.kind, 'redirect');
  });

  test('followRedirects: false makes a 3xx a failure', async () => {
    const err = await safeFetch(`${base}/chain/1`, { ...opts, followRedirects: false }).catch((e: unknown) => e);
    assert.ok(err instanceof FetchFailedError);
    assert.equal(err.status, 302);
    assert.equal(err.kind, 'redirect');
    assert.equal(err.retryable, false);
  });

  test('the byte cap aborts an endless stream', async () => {
    const started = Date.now();
    const err = await safeFetch(`${base}/endless`, { ...opts, maxBytes: 256 * 1024 }).catch((e: unknown) => e);
    assert.ok(err instanceof FetchFailedError);
    assert.equal(err.kind, 'too_large');
    assert.equal(err.retryable, false);
    assert.ok(Date.now() - started < 1500, 'failed fast');
    await endlessClosed; // the connection was dropped, so the server stopped writing
  });

  test('a Content-Length above the cap is refused before reading the body', async () => {
    const started = Date.now();
    const err = await safeFetch(`${base}/big-declared`, { ...opts, maxBytes: 1000 }).catch((e: unknown) => e);
    assert.ok(err instanceof FetchFailedError);
    assert.equal(err.kind, 'too_large');
    assert.ok(Date.now() - started < 1500, 'did not wait for the body');
  });

  test('the deadline fires on a server that never answers, or stalls mid-body', async () => {
    for (const path of ['/hang', '/stall-body']) {
      const started = Date.now();
      const err = await safeFetch(`${base}${path}`, { ...opts, timeoutMs: 200 }).catch((e: unknown) => e);
      assert.ok(err instanceof FetchFailedError, path);
      assert.equal(err.kind, 'timeout');
      assert.equal(err.retryable, true);
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 150 && elapsed < 1500, `${path} took ${elapsed} ms`);
    }
  });

  test('safeFetchStream: the same policy, with the cap and the deadline enforced while the body flows', async () => {
    const ok = await safeFetchStream(`${base}/chain/2`, opts);
    assert.equal(ok.url, `${base}/chain/0`);
    assert.equal((await drain(ok.body)).toString(), 'end of chain');

    const endless = await safeFetchStream(`${base}/endless`, { ...opts, maxBytes: 256 * 1024 });
    const capped = await drain(endless.body).catch((e: unknown) => e);
    assert.ok(capped instanceof FetchFailedError);
    assert.equal(capped.kind, 'too_large');

    const declared = await safeFetchStream(`${base}/big-declared`, { ...opts, maxBytes: 1000 }).catch(
      (e: unknown) => e,
    );
    assert.ok(declared instanceof FetchFailedError);
    assert.equal(declared.kind, 'too_large', 'refused before the body is read');

    const stalled = await safeFetchStream(`${base}/stall-body`, { ...opts, timeoutMs: 200 });
    const late = await drain(stalled.body).catch((e: unknown) => e);
    assert.ok(late instanceof FetchFailedError);
    assert.equal(late.kind, 'timeout');

    const connectionsBefore = forbiddenConnections();
    await assert.rejects(safeFetchStream(`http://127.0.0.1:${forbidden.port}/`, opts), UnsafeUrlError);
    assert.equal(forbiddenConnections(), connectionsBefore, 'never connected');
  });

  test('bad statuses fail, retryable for 5xx and 429 only, unless accepted', async () => {
    for (const [status, retryable] of [
      [500, true],
      [503, true],
      [429, true],
      [404, false],
      [400, false],
    ] as const) {
      const err = await safeFetch(`${base}/status/${status}`, opts).catch((e: unknown) => e);
      assert.ok(err instanceof FetchFailedError, String(status));
      assert.equal(err.kind, 'status');
      assert.equal(err.status, status);
      assert.equal(err.retryable, retryable, String(status));
    }
    const accepted = await safeFetch(`${base}/status/404`, { ...opts, acceptStatus: (s) => s === 404 });
    assert.equal(accepted.status, 404);
    assert.equal(accepted.body.toString(), 'status body');
  });

  test('POSTs a body (webhooks), and a 303 turns the POST into a GET while a 307 keeps it', async () => {
    const post = {
      ...opts,
      method: 'POST' as const,
      headers: { 'Content-Type': 'application/json' },
      body: '{"event":"done"}',
    };
    const r = await safeFetch(`${base}/echo`, { ...post, followRedirects: false });
    assert.deepEqual(JSON.parse(r.body.toString()), {
      method: 'POST',
      contentType: 'application/json',
      body: '{"event":"done"}',
    });
    const seeOther = await safeFetch(`${base}/redirect?status=303&to=/echo`, post);
    assert.deepEqual(JSON.parse(seeOther.body.toString()), { method: 'GET', contentType: null, body: '' });
    const temporary = await safeFetch(`${base}/redirect?status=307&to=/echo`, post);
    assert.equal(JSON.parse(temporary.body.toString()).body, '{"event":"done"}');
  });

  test('the headers the caller gave go to their origin only, not across a redirect', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const other = await listen('127.0.0.2', 0, (req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    try {
      const headers = { 'X-Api-Key': 'proxy-secret', authorization: 'Bearer t' };
      const elsewhere = `http://127.0.0.2:${other.port}/file`;
      await safeFetch(`${base}/redirect?to=${encodeURIComponent(elsewhere)}`, { ...opts, headers });
      assert.equal(seen[0]?.['x-api-key'], undefined);
      assert.equal(seen[0]?.authorization, undefined);
      await safeFetch(elsewhere, { ...opts, headers });
      assert.equal(seen[1]?.['x-api-key'], 'proxy-secret', 'given straight to their own origin');
    } finally {
      await close(other);
    }
  });

  test('a refused or failing host yields a network error, not a policy one', async () => {
    // 127.0.0.2 is allowed but nothing listens on port 1.
    const err = await safeFetch('http://127.0.0.2:1/', opts).catch((e: unknown) => e);
    assert.ok(err instanceof FetchFailedError);
    assert.equal(err.kind, 'network');
    assert.equal(err.retryable, true);
  });
});

describe('isPublicAddress', () => {
  const table: Array<[string, boolean]> = [
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['93.184.215.14', true],
    ['11.0.0.0', true],
    ['100.63.255.255', true],
    ['100.128.0.0', true],
    ['172.15.255.255', true],
    ['172.32.0.0', true],
    ['192.167.255.255', true],
    ['223.255.255.255', true],
    ['2606:4700:4700::1111', true],
    ['2001:4860:4860::8888', true],
    ['2a00:1450:4001:80b::200e', true],
    // IPv4 special-purpose
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['10.0.0.1', false],
    ['10.255.255.255', false],
    ['100.64.0.1', false],
    ['100.127.255.255', false],
    ['127.0.0.1', false],
    ['127.0.0.2', false],
    ['127.255.255.255', false],
    ['169.254.169.254', false],
    ['169.254.0.1', false],
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.0.0.8', false],
    ['192.0.2.1', false],
    ['192.88.99.1', false],
    ['192.168.1.1', false],
    ['198.18.0.1', false],
    ['198.19.255.255', false],
    ['198.51.100.7', false],
    ['203.0.113.9', false],
    ['224.0.0.1', false],
    ['239.255.255.250', false],
    ['240.0.0.1', false],
    ['255.255.255.255', false],
    // IPv6 special-purpose
    ['::', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:8.8.8.8', false],
    ['::127.0.0.1', false],
    ['::8.8.8.8', false],
    ['64:ff9b::a00:1', false],
    ['64:ff9b::8.8.8.8', false],
    ['64:ff9b:1::1', false],
    ['100::1', false],
    ['2001::1', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2001:db8::1', false],
    ['2002:7f00:1::1', false],
    ['2002:a00:1::1', false],
    ['2002:808:808::1', false],
    ['3fff::1', false],
    ['fc00::1', false],
    ['fd12:3456:789a::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['febf:ffff::1', false],
    ['fec0::1', false],
    ['ff02::1', false],
    ['ff0e::1', false],
    // Not canonical addresses at all
    ['', false],
    ['localhost', false],
    ['127.1', false],
    ['2130706433', false],
    ['1.2.3.4.5', false],
    ['[::1]', false],
  ];
  for (const [ip, expected] of table) {
    test(`${ip || '(empty)'} is ${expected ? 'public' : 'not public'}`, () => {
      assert.equal(isPublicAddress(ip), expected);
    });
  }
});
