import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertAnsweredEarlyAndClosedCleanly,
  call,
  createTeam,
  sendRestAfterAnswer,
  startTestServer,
  type TeamFixture,
  type TestServer,
} from './helpers.ts';
import type { ErrorReply } from './media-helpers.ts';

function assertErrorShape(body: unknown, code: string): asserts body is ErrorReply {
  const e = (body as ErrorReply).error;
  assert.ok(e, `not an error body: ${JSON.stringify(body)}`);
  assert.equal(e.code, code);
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0);
  for (const key of Object.keys(e)) assert.ok(['code', 'message', 'details'].includes(key), `unexpected key ${key}`);
}

describe('errors', () => {
  let server: TestServer;
  let team: TeamFixture;
  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 10);
  });
  after(() => server.close());

  test('validation failures list each bad field', async () => {
    const r = await call(server, 'POST', '/admin/v1/teams', {
      token: server.adminToken,
      body: { credits: 'many' },
    });
    assert.equal(r.status, 400);
    assertErrorShape(r.body, 'invalid_request');
    assert.deepEqual(r.body.error.details?.map((d) => d.field).sort(), ['credits', 'name']);
    const name = r.body.error.details?.find((d) => d.field === 'name');
    assert.equal(name?.message, 'is required');
  });

  test('a body field of the wrong type is refused, not coerced', async () => {
    const r = await call(server, 'POST', '/api/v1/workspaces', { token: team.key, body: { name: 123 } });
    assert.equal(r.status, 400);
    assertErrorShape(r.body, 'invalid_request');
    assert.equal(r.body.error.details?.[0]?.field, 'name');
  });

  test('a query parameter out of range names the parameter', async () => {
    const r = await call(server, 'GET', '/admin/v1/teams?limit=0', { token: server.adminToken });
    assert.equal(r.status, 400);
    assertErrorShape(r.body, 'invalid_request');
    assert.equal(r.body.error.details?.[0]?.field, 'limit');
  });

  test('malformed JSON is a 400', async () => {
    for (const raw of ['{"name": ', '{name: "x"}', 'nul', '[1,2']) {
      const r = await call(server, 'POST', '/api/v1/workspaces', {
        token: team.key,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400, raw);
      assertErrorShape(r.body, 'invalid_request');
      assert.match(r.body.error.message, /JSON/);
    }
  });

  test('a non-object JSON body or an empty body is a 400', async () => {
    for (const raw of ['"text"', '42', '[]', 'null', '']) {
      const r = await call(server, 'POST', '/api/v1/workspaces', {
        token: team.key,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400, `body ${JSON.stringify(raw)}`);
      assertErrorShape(r.body, 'invalid_request');
    }
  });

  test('an unsupported content type is a 400 that says what to send', async () => {
    const r = await call(server, 'POST', '/api/v1/workspaces', {
      token: team.key,
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 400);
    assertErrorShape(r.body, 'invalid_request');
    assert.match(r.body.error.message, /application\/json/);
  });

  test('a body over 1 MiB is a 413 and writes nothing', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1_100_000) });
    const r = await call(server, 'POST', '/api/v1/workspaces', {
      token: team.key,
      raw: big,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 413);
    assertErrorShape(r.body, 'payload_too_large');
    const list = await call<unknown[]>(server, 'GET', '/api/v1/workspaces', { token: team.key });
    assert.equal(list.body.length, 0);
  });

  test('a body declared over the limit is answered at once; the client still sends it and reads the 413', async () => {
    const rest = Buffer.from(JSON.stringify({ name: 'x'.repeat(8 * 1024 * 1024) }));
    const outcome = await sendRestAfterAnswer(
      server,
      'POST /api/v1/workspaces HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${team.key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${rest.length}\r\n\r\n`,
      Buffer.alloc(0),
      rest,
    );
    assertAnsweredEarlyAndClosedCleanly(outcome, 413, 'payload_too_large');
  });

  test('a request refused before its body is read closes its connection without a reset', async () => {
    const rest = Buffer.from(JSON.stringify({ name: 'y'.repeat(4 * 1024 * 1024) }));
    const outcome = await sendRestAfterAnswer(
      server,
      'POST /api/v1/workspaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer nope\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${rest.length}\r\n\r\n`,
      Buffer.alloc(0),
      rest,
    );
    assertAnsweredEarlyAndClosedCleanly(outcome, 401, 'unauthorized');
  });

  test('an unknown route is a JSON 404, with or without a key', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v3/billing/credits']) {
      const r = await call(server, 'GET', path, { token: team.key });
      assert.equal(r.status, 404, path);
      assertErrorShape(r.body, 'not_found');
    }
  });

  test('a wrong method on a known path is a JSON 404', async () => {
    const r = await call(server, 'DELETE', '/api/v1/billing/credits', { token: team.key });
    assert.equal(r.status, 404);
    assertErrorShape(r.body, 'not_found');
  });

  test('every answer carries the request id, echoing a sane one the client sent', async () => {
    const mine = await call(server, 'GET', '/api/v1/billing/credits', {
      token: team.key,
      headers: { 'x-request-id': 'client-abc.123' },
    });
    assert.equal(mine.headers.get('x-request-id'), 'client-abc.123');
    const generated = await call(server, 'GET', '/nope');
    assert.match(generated.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{20}$/);
    const hostile = await call(server, 'GET', '/nope', { headers: { 'x-request-id': 'a b<script>' } });
    assert.match(hostile.headers.get('x-request-id') ?? '', /^req_/);
  });

  test('hostile inputs never produce a 500', async () => {
    const bodies: unknown[] = [
      { name: '\u0000' },
      { name: 'x'.repeat(101) },
      { name: ['a'] },
      { name: { $gt: '' } },
      { __proto__: { admin: true }, name: 'p' },
      { constructor: { prototype: { x: 1 } }, name: 'c' },
    ];
    for (const body of bodies) {
      const r = await call(server, 'POST', '/api/v1/workspaces', { token: team.key, body });
      assert.ok(r.status < 500, `${JSON.stringify(body)} gave ${r.status} ${r.text}`);
    }
    for (const path of [
      '/api/v1/workspaces/%00',
      `/api/v1/workspaces/${'x'.repeat(300)}`,
      "/api/v1/workspaces/ws_'; drop table teams;--",
      '/admin/v1/teams/%E0%A4%A',
      '/admin/v1/teams?limit=abc',
      '/admin/v1/teams?limit=1&limit=2',
    ]) {
      const r = await call(server, 'GET', path, { token: path.startsWith('/admin') ? server.adminToken : team.key });
      assert.ok(r.status >= 400 && r.status < 500, `${path} gave ${r.status} ${r.text}`);
      assert.ok((r.body as ErrorReply).error, path);
    }
  });
});
