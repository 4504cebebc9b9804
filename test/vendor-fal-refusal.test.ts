// A fal job that fal accepted and then refused for its input (status COMPLETED with an error, the
// result a 422 with a validation detail) is the caller's error: the item fails with fal's words,
// is refunded once, and is neither sent to fal again nor failed over to Replicate.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

/** A webhook receiver that resolves `next(id)` when a delivery naming `id` arrives. */
async function startReceiver() {
  const waiting = new Map<string, (body: string) => void>();
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push(body);
      for (const [id, resolve] of waiting) if (body.includes(id)) resolve(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    next: (id: string) =>
      new Promise<string>((resolve) => {
        const already = received.find((b) => b.includes(id));
        if (already) resolve(already);
        else waiting.set(id, resolve);
      }),
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('a fal job refused for its input after acceptance', () => {
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let server: TestServer;
  let team: TeamFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    fal = await startFakeFal();
    replicate = await startFakeReplicate();
    receiver = await startReceiver();
    server = await startTestServer({
      env: {
        ...fal.env,
        REPLICATE_API_TOKEN: replicate.token,
        REPLICATE_BASE_URL: replicate.url,
        // Three attempts a route (the default), and quick polls: the fake sends this job no webhook.
        ITEM_MAX_ATTEMPTS: '3',
        VENDOR_POLL_MIN_MS: '100',
        VENDOR_POLL_MAX_MS: '1000',
      },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await fal.close();
    await replicate.close();
  });

  test('fails with fal’s words, one submit, no failover, refunded once, webhook failed', async () => {
    const prompt = 'a harbour at night [fal:input-error]';
    const before = await balanceOf(server, team.key);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, model: 'flux-1-dev', webhook: receiver.url },
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.generation_id;
    const delivery = JSON.parse(await receiver.next(id)) as { type: string };
    assert.equal(delivery.type, 'generation.failed');

    const done = await waitForGeneration(server, team.key, id, 30_000);
    assert.equal(done.status, 'failed');
    assert.match(done.items[0]?.error ?? '', /image_url: Failed to download the file/);
    assert.equal(fal.submissions.filter((s) => s.input.prompt === prompt).length, 1, 'submitted to fal once');
    assert.equal(
      replicate.submissions.filter((s) => JSON.stringify(s.body).includes('a harbour at night')).length,
      0,
      'never sent to Replicate',
    );
    assert.equal(await balanceOf(server, team.key), before);
    const { rows } = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from credit_ledger where generation_id = $1 and kind = 'refund'`,
      [id],
    );
    assert.equal(rows[0]?.n, 1, 'refunded exactly once');
    const attempts = await server.pool.query<{ provider: string; error_kind: string | null }>(
      'select provider, error_kind from item_attempts where generation_id = $1 order by id',
      [id],
    );
    assert.deepEqual(
      attempts.rows.map((r) => [r.provider, r.error_kind]),
      [['fal', 'invalid_input']],
    );
  });
});
