import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: /ok answers 200, /flaky 500 then 200, /redirect a 302 to /target. */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  let flaky = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body });
      if (path === '/flaky' && flaky++ === 0) res.writeHead(500).end('try later');
      else if (path === '/redirect') res.writeHead(302, { location: '/target' }).end();
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

describe('webhooks', () => {
  let server: TestServer;
  let team: TeamFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;

  before(async () => {
    server = await startTestServer({ env: { WEBHOOK_RETRY_DELAYS_S: '1,1' } });
    team = await createTeam(server, 10_000);
    receiver = await startReceiver();
    secret = (
      await call<{ secret: string }>(server, 'GET', `/admin/v1/teams/${team.id}/webhook-secret`, {
        token: server.adminToken,
      })
    ).body.secret;
  });
  after(async () => {
    receiver.server.close();
    await server.close();
  });

  const generate = async (prompt: string, webhook: string) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, webhook },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.generation_id;
  };

  test('a completed generation is delivered once, signed, with its status record', async () => {
    const id = await generate('a webhook test', `${receiver.url}/ok`);
    const status = await waitForGeneration(server, team.key, id);
    const delivery = await waitFor(() => receiver.received.find((r) => r.path === '/ok' && r.body.includes(id)));
    const payload = new Webhook(secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    }) as { type: string; timestamp: string; data: StatusRecord };
    assert.equal(payload.type, 'generation.completed');
    assert.match(payload.timestamp, /Z$/);
    assert.deepEqual(payload.data, status);
    assert.match(String(delivery.headers['webhook-id']), /^whd_/);
    assert.equal(delivery.headers['content-type'], 'application/json');
    // A forged body does not verify.
    assert.throws(() =>
      new Webhook(secret).verify(delivery.body.replace('completed', 'failed'), {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      }),
    );
    await sleep(300);
    assert.equal(receiver.received.filter((r) => r.body.includes(id)).length, 1);
  });

  test('a failed generation sends generation.failed', async () => {
    const id = await generate('[simulate:fail]', `${receiver.url}/ok`);
    await waitForGeneration(server, team.key, id);
    const delivery = await waitFor(() => receiver.received.find((r) => r.body.includes(id)));
    assert.equal(JSON.parse(delivery.body).type, 'generation.failed');
  });

  test('a 5xx is retried with the same webhook-id and every attempt is recorded', async () => {
    const id = await generate('flaky receiver', `${receiver.url}/flaky`);
    await waitForGeneration(server, team.key, id);
    const attempts = await waitFor(() => {
      const got = receiver.received.filter((r) => r.path === '/flaky' && r.body.includes(id));
      return got.length >= 2 ? got : undefined;
    });
    assert.equal(attempts[0]?.headers['webhook-id'], attempts[1]?.headers['webhook-id']);
    assert.equal(attempts[0]?.body, attempts[1]?.body);
    const { rows } = await waitFor(async () => {
      const r = await server.pool.query(
        `select d.state, a.attempt, a.status_code from webhook_deliveries d
         join webhook_attempts a on a.delivery_id = d.id where d.generation_id = $1 order by a.attempt`,
        [id],
      );
      return r.rows[0]?.state === 'delivered' ? r : undefined;
    });
    assert.deepEqual(
      rows.map((r) => [r.attempt, r.status_code]),
      [
        [1, 500],
        [2, 200],
      ],
    );
  });

  test('redirects are not followed and count as failures until the schedule runs out', async () => {
    const id = await generate('redirecting receiver', `${receiver.url}/redirect`);
    await waitForGeneration(server, team.key, id);
    const { rows } = await waitFor(async () => {
      const r = await server.pool.query(
        `select d.state, a.attempt, a.status_code from webhook_deliveries d
           join webhook_attempts a on a.delivery_id = d.id where d.generation_id = $1 order by a.attempt`,
        [id],
      );
      return r.rows[0]?.state === 'failed' ? r : undefined;
    }, 20_000);
    assert.equal(rows.length, 3, 'the first attempt and two retries');
    assert.ok(rows.every((r) => r.status_code === 302));
    assert.equal(receiver.received.filter((r) => r.path === '/target').length, 0);
  });
});

describe('idempotency', () => {
  let server: TestServer;
  let team: TeamFixture;
  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 10_000);
  });
  after(() => server.close());

  const post = (key: string, body: unknown, token = team.key) =>
    call<Record<string, unknown>>(server, 'POST', '/api/v1/images/generate', {
      token,
      body,
      headers: { 'idempotency-key': key },
    });

  test('the same key and body replays the first response without a second charge', async () => {
    const before = await balanceOf(server, team.key);
    const first = await post('order-1', { prompt: 'once' });
    assert.equal(first.status, 200);
    const second = await post('order-1', { prompt: 'once' });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(await balanceOf(server, team.key), before - Number(first.body.credits_used));
    // Key order does not make another request.
    const reordered = await post('order-1b', { prompt: 'x', batch: 1 });
    const same = await post('order-1b', { batch: 1, prompt: 'x' });
    assert.equal(same.body.generation_id, reordered.body.generation_id);
  });

  test('the same key with another body is 422', async () => {
    await post('order-2', { prompt: 'first' });
    const r = await post('order-2', { prompt: 'second' });
    assert.equal(r.status, 422);
    assert.equal((r.body as { error: { code: string } }).error.code, 'idempotency_mismatch');
  });

  test('concurrent requests with one key create one generation; the others get 409 or the replay', async () => {
    const before = await balanceOf(server, team.key);
    const replies = await Promise.all(Array.from({ length: 10 }, () => post('order-3', { prompt: 'race' })));
    for (const r of replies) assert.ok([200, 409].includes(r.status), `${r.status} ${r.text}`);
    const conflicts = replies.filter((r) => r.status === 409);
    for (const r of conflicts) assert.equal((r.body as { error: { code: string } }).error.code, 'idempotency_conflict');
    const ids = new Set(replies.filter((r) => r.status === 200).map((r) => r.body.generation_id));
    assert.equal(ids.size, 1);
    const price = server.app.deps.catalog.defaults.image.price.credits_per_image;
    assert.equal(await balanceOf(server, team.key), before - price);
  });

  test('a refused request releases its key so the fixed request can use it', async () => {
    const poor = await createTeam(server, 1);
    const refused = await post('order-4', { prompt: 'x' }, poor.key);
    assert.equal(refused.status, 402);
    await call(server, 'POST', `/admin/v1/teams/${poor.id}/credits`, {
      token: server.adminToken,
      body: { amount: 100, reason: 'top up' },
    });
    const accepted = await post('order-4', { prompt: 'x' }, poor.key);
    assert.equal(accepted.status, 200);
  });

  test('keys belong to a team', async () => {
    const other = await createTeam(server, 100);
    const mine = await post('shared-key', { prompt: 'x' });
    const theirs = await post('shared-key', { prompt: 'x' }, other.key);
    assert.equal(theirs.status, 200);
    assert.notEqual(theirs.body.generation_id, mine.body.generation_id);
  });

  test('other POSTs are idempotent too', async () => {
    const make = () =>
      call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
        token: team.key,
        body: { name: 'once' },
        headers: { 'idempotency-key': 'ws-1' },
      });
    const a = await make();
    const b = await make();
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(a.body.id, b.body.id);
  });

  test('a malformed key is 400', async () => {
    const r = await post('x'.repeat(256), { prompt: 'x' });
    assert.equal(r.status, 400);
  });
});

describe('outbound URL policy at the API', () => {
  let server: TestServer;
  let team: TeamFixture;
  before(async () => {
    server = await startTestServer({ env: { ALLOW_PRIVATE_URLS: 'false' } });
    team = await createTeam(server, 1000);
  });
  after(() => server.close());

  test('private, loopback, metadata and non-http URLs are refused before anything is charged', async () => {
    for (const url of [
      'http://127.0.0.1:8080/x.png',
      'http://10.0.0.1/x.png',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/x.png',
      'http://[::ffff:7f00:1]/x.png',
      'http://0.0.0.0/x.png',
      'http://localhost/x.png',
      'http://2130706433/x.png',
      'file:///etc/passwd',
    ]) {
      const r = await call<{ error: { code: string; details: Array<{ field: string }> } }>(
        server,
        'POST',
        '/api/v1/images/generate',
        { token: team.key, body: { prompt: 'x', images: [url] } },
      );
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.body.error.details[0]?.field, 'images[0]');
    }
    const hook = await call<{ error: { details: Array<{ field: string }> } }>(
      server,
      'POST',
      '/api/v1/images/generate',
      {
        token: team.key,
        body: { prompt: 'x', webhook: 'http://127.0.0.1:9/hook' },
      },
    );
    assert.equal(hook.status, 400);
    assert.equal(hook.body.error.details[0]?.field, 'webhook');
    assert.equal(await balanceOf(server, team.key), 1000);
  });

  test('URLs of our own storage are accepted as references', async () => {
    const first = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'source' },
    });
    const done = await waitForGeneration(server, team.key, first.body.generation_id);
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/edit', {
      token: team.key,
      body: { prompt: 'edit it', image_url: done.result_urls[0] },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal((await waitForGeneration(server, team.key, r.body.generation_id)).status, 'completed');
  });
});
