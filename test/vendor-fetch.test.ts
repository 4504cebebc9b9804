// The fetch vendor adapters are given (src/providers/vendor-fetch.ts), against real local servers:
// a call with a text or bytes body goes through undici's `request`, and must answer as Node's
// fetch would: redirects followed (303, and 302 after a POST, become a GET; 307 keeps the method
// and body; credentials stay on their origin), compressed answers decompressed, no body for 204,
// a streamed answer readable as it comes, a caller's abort closing the vendor's connection, and
// the error codes src/providers/http.ts judges a lost call by. Needs no database.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { noAnswerError } from '../src/providers/http.ts';
import { vendorFetch } from '../src/providers/vendor-fetch.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('the vendor fetch answers as fetch would', () => {
  let vendor: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;
  /** The stream test's second chunk waits for this. */
  let sendRest: () => void = () => undefined;
  /** Resolves when the vendor sees the streamed call's connection close. */
  let streamClosed: Promise<void> = Promise.resolve();
  const fetchIt = vendorFetch(60_000);

  const echo = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => {
    const seen: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
  };

  before(async () => {
    other = await listen(echo);
    vendor = await listen((req, res, body) => {
      const path = req.url ?? '';
      if (path === '/see-other') return res.writeHead(303, { location: '/echo' }).end();
      if (path === '/found') return res.writeHead(302, { location: '/echo' }).end();
      if (path === '/temporary') return res.writeHead(307, { location: '/echo' }).end('moved');
      if (path === '/elsewhere') return res.writeHead(307, { location: `${other.base}/echo` }).end();
      if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (path === '/gzip') {
        return res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end(gzipSync(JSON.stringify({ packed: true })));
      }
      if (path === '/empty') return res.writeHead(204).end();
      if (path === '/problem') {
        return res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' }).end('{"error":"slow"}');
      }
      if (path === '/stream') {
        streamClosed = new Promise((resolve) => res.once('close', () => resolve()));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        sendRest = () => res.end('data: two\n\n');
        return;
      }
      if (path === '/endless') {
        streamClosed = new Promise((resolve) => res.once('close', () => resolve()));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        return;
      }
      if (path === '/hang') return;
      echo(req, res, body);
    });
  });
  after(async () => {
    await close(vendor.server);
    await close(other.server);
  });

  test('a JSON POST: its method, headers and body as sent, with fetch’s accept and user-agent', async () => {
    const response = await fetchIt(`${vendor.base}/echo`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sk-test', 'Content-Type': 'application/json' },
      body: JSON.stringify({ hello: 'vendor' }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.ok, true);
    assert.equal(response.headers.get('content-type'), 'application/json');
    const seen = (await response.json()) as Seen;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.body, '{"hello":"vendor"}');
    assert.equal(seen.headers.authorization, 'Bearer sk-test');
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers.accept, '*/*');
    assert.equal(seen.headers['user-agent'], 'node');
    // Sent by `request`, not fetch: an uncompressed answer is asked for (fetch asks for gzip).
    assert.equal(seen.headers['accept-encoding'], undefined);
    // Headers objects and bytes bodies are taken too.
    const bytes = await fetchIt(`${vendor.base}/echo`, {
      method: 'PUT',
      headers: new Headers({ 'x-one': '1', accept: 'application/json' }),
      body: Buffer.from('raw bytes'),
    });
    const seenBytes = (await bytes.json()) as Seen;
    assert.equal(seenBytes.method, 'PUT');
    assert.equal(seenBytes.body, 'raw bytes');
    assert.equal(seenBytes.headers['x-one'], '1');
    assert.equal(seenBytes.headers.accept, 'application/json');
    // A header given as a number is sent as its text, as fetch sends it.
    const numbered = await fetchIt(`${vendor.base}/echo`, {
      headers: { 'x-count': 3 } as unknown as Record<string, string>,
    });
    assert.equal(((await numbered.json()) as Seen).headers['x-count'], '3');
  });

  test('an error status is answered as it is, its headers and body readable', async () => {
    const response = await fetchIt(`${vendor.base}/problem`);
    assert.equal(response.status, 429);
    assert.equal(response.ok, false);
    assert.equal(response.headers.get('retry-after'), '7');
    assert.deepEqual(await response.json(), { error: 'slow' });
  });

  test('redirects are followed as fetch follows them', async () => {
    const post = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'the body' };
    // 303, and 302 after a POST: a GET without the body.
    for (const path of ['/see-other', '/found']) {
      const seen = (await (await fetchIt(`${vendor.base}${path}`, post)).json()) as Seen;
      assert.deepEqual([seen.method, seen.url, seen.body], ['GET', '/echo', ''], path);
      assert.equal(seen.headers['content-type'], undefined, path);
    }
    // 307: the same method and body.
    const kept = (await (await fetchIt(`${vendor.base}/temporary`, post)).json()) as Seen;
    assert.deepEqual([kept.method, kept.url, kept.body], ['POST', '/echo', 'the body']);
    // To another origin: the credentials stay behind.
    const away = (await (
      await fetchIt(`${vendor.base}/elsewhere`, { ...post, headers: { ...post.headers, authorization: 'Bearer sk-x' } })
    ).json()) as Seen;
    assert.equal(away.body, 'the body');
    assert.equal(away.headers.authorization, undefined);
    // Without an end, as fetch: after 20.
    await assert.rejects(fetchIt(`${vendor.base}/loop`), (err: Error) => {
      assert.equal(err.message, 'fetch failed');
      assert.match(String((err.cause as Error).message), /redirect count exceeded/);
      return true;
    });
  });

  test('a gzip answer is decompressed; a 204 has no body', async () => {
    const packed = await fetchIt(`${vendor.base}/gzip`);
    assert.deepEqual(await packed.json(), { packed: true });
    const empty = await fetchIt(`${vendor.base}/empty`, { method: 'DELETE' });
    assert.equal(empty.status, 204);
    assert.equal(empty.body, null);
    assert.equal(await empty.text(), '');
  });

  test('a streamed answer is read as it comes', async () => {
    const response = await fetchIt(`${vendor.base}/stream`, { method: 'POST', body: '{}' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    // The first chunk arrives while the vendor still holds the rest back.
    const first = await reader.read();
    assert.equal(decoder.decode(first.value), 'data: one\n\n');
    sendRest();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    assert.equal(rest, 'data: two\n\n');
  });

  test('a caller that aborts mid-answer closes the connection to the vendor', async () => {
    const controller = new AbortController();
    const response = await fetchIt(`${vendor.base}/endless`, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(reader.read(), (err: Error) => err.name === 'AbortError');
    await streamClosed;
  });

  test('a call that gets no answer fails with the codes http.ts judges it by', async () => {
    // A refused connection never reached the vendor.
    const closed = await listen(echo);
    const closedBase = closed.base;
    await close(closed.server);
    const refused = await fetchIt(`${closedBase}/echo`, { method: 'POST', body: '{}' }).catch((err: unknown) => err);
    const lost = noAnswerError('vendor', refused);
    assert.equal(lost.vendorCode, 'ECONNREFUSED');
    assert.equal(lost.maybeAccepted, false);
    assert.match(lost.message, /ECONNREFUSED/);
    // No answer within the time: a timeout, which may have been accepted.
    const hung = await vendorFetch(300)(`${vendor.base}/hang`, { method: 'POST', body: '{}' }).catch(
      (err: unknown) => err,
    );
    assert.equal((hung as Error).name, 'TimeoutError');
    const timedOut = noAnswerError('vendor', hung);
    assert.equal(timedOut.kind, 'timeout');
    assert.equal(timedOut.maybeAccepted, true);
  });

  test('a FormData body goes through fetch, as multipart', async () => {
    const form = new FormData();
    form.append('name', 'a voice');
    form.append('file', new Blob([Buffer.from('RIFF')], { type: 'audio/wav' }), 'sample.wav');
    const seen = (await (await fetchIt(`${vendor.base}/echo`, { method: 'POST', body: form })).json()) as Seen;
    assert.match(String(seen.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.match(seen.body, /name="name"\r\n\r\na voice/);
    assert.match(seen.body, /filename="sample.wav"/);
  });
});
