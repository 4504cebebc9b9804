// The team's own views beside the contract: its ledger (JSON and CSV), its usage, its webhook
// signing secret, and its webhook deliveries with their attempts and redelivery.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { call, createTeam, type Reply, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type ErrorReply, waitForGeneration } from './media-helpers.ts';

interface LedgerEntry {
  id: string;
  amount: number;
  balance_after: number;
  kind: string;
  reason: string;
  generation_id: string | null;
  created_at: string;
}

interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

interface UsageFigures {
  charged: number;
  refunded: number;
  net: number;
  generations: number;
}

interface Usage {
  from: string;
  to: string;
  totals: UsageFigures;
  days: Array<{ date: string } & UsageFigures>;
  by_operation: Array<{ kind: string | null; operation: string | null; model: string | null } & UsageFigures>;
}

interface Attempt {
  attempt: number;
  trigger: 'schedule' | 'redelivery';
  created_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: string | null;
}

interface Delivery {
  id: string;
  generation_id: string;
  event_type: string;
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  attempts: Attempt[];
  payload?: string;
}

async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}

/** RFC 4180 reader: quoted fields with doubled quotes, commas and line breaks inside. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  assert.equal(field, '', 'the document ends with CRLF');
  assert.equal(row.length, 0);
  return rows;
}

/** All pages of a list, following next_cursor; also the pages themselves. */
async function allPages<T>(
  server: TestServer,
  key: string,
  path: string,
): Promise<{ items: T[]; pages: Array<Page<T>> }> {
  const pages: Array<Page<T>> = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = cursor === null ? path : `${path}${sep}cursor=${encodeURIComponent(cursor)}`;
    const r = await call<Page<T>>(server, 'GET', url, { token: key });
    assert.equal(r.status, 200, r.text);
    pages.push(r.body);
    cursor = r.body.next_cursor;
    assert.ok(pages.length < 100, 'the cursor moves on');
  } while (cursor !== null);
  return { items: pages.flatMap((p) => p.data), pages };
}

/**
 * Newest first: times shown to the millisecond never go up (within one millisecond the order is
 * by the exact time, then by id, which the millisecond does not show).
 */
function assertNewestFirst(items: Array<{ created_at: string }>): void {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1], items[i]];
    assert.ok(a && b && a.created_at >= b.created_at, `${a?.created_at} before ${b?.created_at}`);
  }
}

describe('the team ledger and usage', () => {
  let server: TestServer;
  let team: TeamFixture;
  let other: TeamFixture;
  const generations: string[] = [];
  const STARTING = 10_000;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, STARTING);
    other = await createTeam(server, 500, 'other');
    // A grant whose reason needs CSV quoting (comma, quotes, line break).
    const grant = await call(server, 'POST', `/admin/v1/teams/${team.id}/credits`, {
      token: server.adminToken,
      body: { amount: 250, reason: 'Welcome, "early" user\nsecond line' },
    });
    assert.equal(grant.status, 201, grant.text);
    const requests: Array<{ prompt: string; model?: string; batch?: number }> = [
      { prompt: 'a lighthouse' },
      { prompt: 'a harbour', model: 'flux-1-schnell' },
      { prompt: '[simulate:fail] a storm' },
      { prompt: 'two boats', batch: 2 },
      { prompt: 'a gull', model: 'flux-1-schnell' },
      { prompt: '[simulate:fail] fog', model: 'flux-1-schnell' },
      { prompt: 'a pier' },
      { prompt: 'a sunset' },
    ];
    for (const body of requests) {
      const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body,
      });
      assert.equal(r.status, 200, r.text);
      generations.push(r.body.generation_id);
    }
    for (const id of generations) await waitForGeneration(server, team.key, id);
  });
  after(() => server.close());

  test('pages the whole ledger newest first, across several pages, without gaps or overlaps', async () => {
    const { items, pages } = await allPages<LedgerEntry>(server, team.key, '/api/v1/billing/ledger?limit=4');
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    for (const page of pages) assert.ok(page.data.length <= 4 && page.data.length > 0);
    assert.equal(new Set(items.map((e) => e.id)).size, items.length, 'no entry twice');
    // Every entry the operator sees, no more, no fewer.
    const admin = await call<LedgerEntry[]>(server, 'GET', `/admin/v1/teams/${team.id}/ledger?limit=500`, {
      token: server.adminToken,
    });
    assert.deepEqual(new Set(items.map((e) => e.id)), new Set(admin.body.map((e) => e.id)));
    assertNewestFirst(items);
    assert.equal(
      items.reduce((sum, e) => sum + e.amount, 0),
      await balanceOf(server, team.key),
    );
    const kinds = new Set(items.map((e) => e.kind));
    for (const kind of ['grant', 'charge', 'refund']) assert.ok(kinds.has(kind), kind);
    const charge = items.find((e) => e.kind === 'charge');
    assert.ok(charge && charge.amount < 0 && generations.includes(charge.generation_id ?? ''));
    assert.match(charge.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // The default page is 50 entries, and holds them all here.
    const whole = await call<Page<LedgerEntry>>(server, 'GET', '/api/v1/billing/ledger', { token: team.key });
    assert.deepEqual(whole.body.data, items);
    assert.equal(whole.body.next_cursor, null);
  });

  test('filters the ledger by creation time, both bounds exclusive', async () => {
    const { items } = await allPages<LedgerEntry>(server, team.key, '/api/v1/billing/ledger?limit=100');
    const middle = items[Math.floor(items.length / 2)];
    assert.ok(middle);
    const t = middle.created_at;
    const before = await allPages<LedgerEntry>(
      server,
      team.key,
      `/api/v1/billing/ledger?limit=3&created_before=${encodeURIComponent(t)}`,
    );
    const afterT = await allPages<LedgerEntry>(
      server,
      team.key,
      `/api/v1/billing/ledger?limit=3&created_after=${encodeURIComponent(t)}`,
    );
    assert.deepEqual(
      before.items.map((e) => e.id),
      items.filter((e) => e.created_at < t).map((e) => e.id),
    );
    assert.deepEqual(
      afterT.items.map((e) => e.id),
      items.filter((e) => e.created_at > t).map((e) => e.id),
    );
    const first = items.at(-1);
    const last = items[0];
    assert.ok(first && last);
    const between = await allPages<LedgerEntry>(
      server,
      team.key,
      `/api/v1/billing/ledger?created_after=${encodeURIComponent(first.created_at)}&created_before=${encodeURIComponent(last.created_at)}`,
    );
    assert.deepEqual(
      between.items.map((e) => e.id),
      items.filter((e) => e.created_at > first.created_at && e.created_at < last.created_at).map((e) => e.id),
    );
  });

  test('answers a page as CSV with Accept: text/csv, which reads back to the same entries', async () => {
    let cursor: string | null = null;
    let pages = 0;
    let quotedReason = false;
    do {
      const path: string = `/api/v1/billing/ledger?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const json = await call<Page<LedgerEntry>>(server, 'GET', path, { token: team.key });
      const csv: Reply<string> = await call<string>(server, 'GET', path, {
        token: team.key,
        headers: { accept: 'text/csv' },
      });
      assert.equal(csv.status, 200, csv.text);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(csv.headers.get('vary') ?? '', /accept/i);
      const rows = parseCsv(csv.text);
      assert.deepEqual(rows[0], ['id', 'created_at', 'kind', 'amount', 'balance_after', 'reason', 'generation_id']);
      assert.deepEqual(
        rows.slice(1),
        json.body.data.map((e) => [
          e.id,
          e.created_at,
          e.kind,
          String(e.amount),
          String(e.balance_after),
          e.reason,
          e.generation_id ?? '',
        ]),
      );
      if (json.body.data.some((e) => e.reason.includes('"early"'))) {
        quotedReason = true;
        assert.ok(csv.text.includes('"Welcome, ""early"" user\nsecond line"'));
      }
      assert.equal(csv.headers.get('x-next-cursor'), json.body.next_cursor);
      cursor = csv.headers.get('x-next-cursor');
      pages++;
    } while (cursor !== null);
    assert.ok(pages >= 3);
    assert.ok(quotedReason, 'the grant with a quoted reason was on a page');
    // JSON stays the answer for JSON (or no preference).
    const either = await call<Page<LedgerEntry>>(server, 'GET', '/api/v1/billing/ledger?limit=1', {
      token: team.key,
      headers: { accept: 'application/json, text/csv;q=0.5' },
    });
    assert.match(either.headers.get('content-type') ?? '', /json/);
  });

  test('usage over the default 30 days adds up to the ledger and to the balance change', async () => {
    const r = await call<Usage>(server, 'GET', '/api/v1/billing/usage', { token: team.key });
    assert.equal(r.status, 200, r.text);
    const usage = r.body;
    assert.equal(usage.days.length, 30);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(usage.to, today);
    assert.equal(usage.days.at(-1)?.date, today);
    assert.equal(usage.days[0]?.date, usage.from);
    const { items } = await allPages<LedgerEntry>(server, team.key, '/api/v1/billing/ledger?limit=100');
    const charged = -items.filter((e) => e.kind === 'charge').reduce((s, e) => s + e.amount, 0);
    const refunded = items.filter((e) => e.kind === 'refund').reduce((s, e) => s + e.amount, 0);
    assert.ok(charged > 0 && refunded > 0);
    assert.deepEqual(usage.totals, { charged, refunded, net: charged - refunded, generations: generations.length });
    // What was spent is what the balance lost, grants aside.
    const granted = items.filter((e) => e.kind === 'grant').reduce((s, e) => s + e.amount, 0);
    assert.equal(granted - usage.totals.net, await balanceOf(server, team.key));
    assert.equal(STARTING + 250, granted);
    for (const figure of ['charged', 'refunded', 'net', 'generations'] as const) {
      assert.equal(
        usage.days.reduce((s, d) => s + d[figure], 0),
        usage.totals[figure],
        `days add up (${figure})`,
      );
      assert.equal(
        usage.by_operation.reduce((s, o) => s + o[figure], 0),
        usage.totals[figure],
        `operations add up (${figure})`,
      );
    }
    const models = usage.by_operation.map((o) => `${o.kind} ${o.operation} ${o.model}`);
    assert.equal(new Set(models).size, models.length);
    const schnell = usage.by_operation.find((o) => o.model === 'flux-1-schnell');
    assert.equal(schnell?.operation, 'image.generate');
    assert.equal(schnell?.kind, 'image');
    assert.equal(schnell?.generations, 3);
    assert.ok(usage.by_operation.length >= 2);
  });

  test('usage over an explicit range: a past range is zeros, one day is that day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const day = await call<Usage>(server, 'GET', `/api/v1/billing/usage?from=${today}&to=${today}`, {
      token: team.key,
    });
    assert.equal(day.status, 200, day.text);
    assert.equal(day.body.days.length, 1);
    assert.equal(day.body.totals.generations, generations.length);
    const past = await call<Usage>(server, 'GET', '/api/v1/billing/usage?from=2020-01-01&to=2020-12-31', {
      token: team.key,
    });
    assert.equal(past.status, 200, past.text);
    assert.equal(past.body.days.length, 366);
    assert.deepEqual(past.body.totals, { charged: 0, refunded: 0, net: 0, generations: 0 });
    assert.deepEqual(past.body.by_operation, []);
  });

  test('another team sees none of it', async () => {
    const ledger = await call<Page<LedgerEntry>>(server, 'GET', '/api/v1/billing/ledger', { token: other.key });
    assert.equal(ledger.status, 200);
    assert.equal(ledger.body.data.length, 1, 'only its own starting grant');
    assert.equal(ledger.body.data[0]?.amount, 500);
    const usage = await call<Usage>(server, 'GET', '/api/v1/billing/usage', { token: other.key });
    assert.deepEqual(usage.body.totals, { charged: 0, refunded: 0, net: 0, generations: 0 });
    // A cursor of another team's ledger gives nothing of that ledger either.
    const mine = await call<Page<LedgerEntry>>(server, 'GET', '/api/v1/billing/ledger?limit=2', { token: team.key });
    assert.ok(mine.body.next_cursor);
    const theirs = await call<Page<LedgerEntry>>(
      server,
      'GET',
      `/api/v1/billing/ledger?cursor=${encodeURIComponent(mine.body.next_cursor)}`,
      { token: other.key },
    );
    assert.equal(theirs.status, 200);
    assert.ok(theirs.body.data.every((e) => e.amount === 500));
  });

  test('bad query values are 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/billing/ledger?limit=0', 'limit'],
      ['/api/v1/billing/ledger?limit=101', 'limit'],
      ['/api/v1/billing/ledger?limit=ten', 'limit'],
      ['/api/v1/billing/ledger?cursor=not-a-cursor', 'cursor'],
      [
        `/api/v1/billing/ledger?cursor=${Buffer.from('["2026-01-01T00:00:00.000000Z","whd_0000000000000000000000000a"]').toString('base64url')}`,
        'cursor',
      ],
      ['/api/v1/billing/ledger?created_after=yesterday', 'created_after'],
      ['/api/v1/billing/ledger?created_before=2026-13-01T00:00:00Z', 'created_before'],
      ['/api/v1/billing/ledger?created_after=0000-01-01T00:00:00Z', 'created_after'],
      [
        '/api/v1/billing/ledger?created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z',
        'created_after',
      ],
      ['/api/v1/billing/usage?from=2026-02-30', 'from'],
      ['/api/v1/billing/usage?to=tomorrow', 'to'],
      ['/api/v1/billing/usage?from=0000-01-01', 'from'],
      ['/api/v1/billing/usage?to=0000-01-01', 'to'],
      ['/api/v1/billing/usage?from=2026-03-01&to=2026-02-01', 'from'],
      ['/api/v1/billing/usage?from=2024-01-01&to=2025-01-01', 'from'],
      ['/api/v1/webhooks/deliveries?status=lost', 'status'],
      ['/api/v1/webhooks/deliveries?limit=-1', 'limit'],
      ['/api/v1/webhooks/deliveries?cursor=W10', 'cursor'],
    ];
    for (const [path, field] of cases) {
      const r = await call<ErrorReply>(server, 'GET', path, { token: team.key });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.ok(
        r.body.error.details?.some((d) => d.field.includes(field)),
        `${path}: a detail for ${field}: ${r.text}`,
      );
    }
    // A range of exactly 366 days is allowed.
    const year = await call(server, 'GET', '/api/v1/billing/usage?from=2024-01-01&to=2024-12-31', { token: team.key });
    assert.equal(year.status, 200, year.text);
  });

  test('every self-service route needs an API key and is in the OpenAPI document', async () => {
    const routes: Array<[string, string]> = [
      ['GET', '/api/v1/billing/ledger'],
      ['GET', '/api/v1/billing/usage'],
      ['GET', '/api/v1/webhooks/secret'],
      ['POST', '/api/v1/webhooks/secret/rotate'],
      ['GET', '/api/v1/webhooks/deliveries'],
      ['GET', '/api/v1/webhooks/deliveries/{id}'],
      ['POST', '/api/v1/webhooks/deliveries/{id}/redeliver'],
    ];
    const doc = (await call<{ paths: Record<string, Record<string, unknown>> }>(server, 'GET', '/openapi.json')).body;
    for (const [method, path] of routes) {
      const url = path.replace('{id}', 'whd_01jb6x3t8h2k9m4n5p6q7r8s9t');
      const none = await call<ErrorReply>(server, method, url);
      assert.equal(none.status, 401, `${method} ${path}`);
      assert.equal(none.body.error.code, 'unauthorized');
      const wrong = await call<ErrorReply>(server, method, url, { token: `gms_${'x'.repeat(40)}` });
      assert.equal(wrong.status, 401, `${method} ${path}`);
      assert.ok(doc.paths[path]?.[method.toLowerCase()], `${method} ${path} is documented`);
    }
  });
});

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver: /ok answers 200; /flaky answers 500 to the first request of each
 * webhook-id, then 200; /down answers 500 while `down` is true.
 */
async function startReceiver() {
  const received: Received[] = [];
  const seenIds = new Set<string>();
  const state = { down: true };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const path = req.url ?? '';
      const id = String(req.headers['webhook-id']);
      received.push({ path, headers: req.headers, body });
      if (path === '/flaky' && !seenIds.has(id)) {
        seenIds.add(id);
        res.writeHead(500).end('not yet');
      } else if (path === '/down' && state.down) res.writeHead(500).end('down');
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, state, server };
}

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

describe('the team webhooks: secret, deliveries, redelivery', () => {
  let server: TestServer;
  let team: TeamFixture;
  let other: TeamFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    server = await startTestServer({ env: { WEBHOOK_RETRY_DELAYS_S: '1,1' } });
    team = await createTeam(server, 10_000);
    other = await createTeam(server, 10_000, 'other');
    receiver = await startReceiver();
  });
  after(async () => {
    receiver.server.close();
    await server.close();
  });

  const generate = async (prompt: string, path: string, key = team.key) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: key,
      body: { prompt, webhook: `${receiver.url}${path}` },
    });
    assert.equal(r.status, 200, r.text);
    await waitForGeneration(server, key, r.body.generation_id);
    return r.body.generation_id;
  };

  const deliveryOf = async (generationId: string, key = team.key) => {
    const r = await call<Page<Delivery>>(server, 'GET', `/api/v1/webhooks/deliveries?generation_id=${generationId}`, {
      token: key,
    });
    assert.equal(r.status, 200, r.text);
    return r.body.data[0];
  };

  const settled = (generationId: string, status: Delivery['status'], attempts: number) =>
    waitFor(async () => {
      const d = await deliveryOf(generationId);
      return d?.status === status && d.attempts.length === attempts ? d : undefined;
    });

  test('the secret is read, rotated once, and a delivery after the rotation verifies with the new one only', async () => {
    const read = await call<{ secret: string; created_at: string }>(server, 'GET', '/api/v1/webhooks/secret', {
      token: team.key,
    });
    assert.equal(read.status, 200, read.text);
    assert.match(read.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(read.headers.get('cache-control'), 'no-store');
    const admin = await call<{ secret: string }>(server, 'GET', `/admin/v1/teams/${team.id}/webhook-secret`, {
      token: server.adminToken,
    });
    assert.equal(admin.body.secret, read.body.secret);

    const rotated = await call<{ secret: string; created_at: string }>(
      server,
      'POST',
      '/api/v1/webhooks/secret/rotate',
      { token: team.key },
    );
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, read.body.secret);
    assert.ok(rotated.body.created_at > read.body.created_at);
    const again = await call<{ secret: string; created_at: string }>(server, 'GET', '/api/v1/webhooks/secret', {
      token: team.key,
    });
    assert.deepEqual(again.body, rotated.body);
    // An answer holding a secret is never stored for an Idempotency-Key: a retried rotation with
    // the same key rotates again (the newest secret is the one that signs).
    const first = await call<{ secret: string }>(server, 'POST', '/api/v1/webhooks/secret/rotate', {
      token: other.key,
      body: {},
      headers: { 'idempotency-key': 'rotate-once' },
    });
    const retried = await call<{ secret: string }>(server, 'POST', '/api/v1/webhooks/secret/rotate', {
      token: other.key,
      body: {},
      headers: { 'idempotency-key': 'rotate-once' },
    });
    assert.equal(retried.headers.get('idempotent-replayed'), null);
    assert.notEqual(retried.body.secret, first.body.secret);
    const keys = await server.app.deps.pool.query(`select 1 from idempotency_keys where key = 'rotate-once'`);
    assert.equal(keys.rowCount, 0, 'no secret kept in the idempotency records');
    // It takes no body: a field is refused, and nothing rotates.
    const withField = await call<ErrorReply>(server, 'POST', '/api/v1/webhooks/secret/rotate', {
      token: team.key,
      body: { keep_old: true },
    });
    assert.equal(withField.status, 400, withField.text);
    assert.equal(withField.body.error.details?.[0]?.field, 'keep_old');
    // The other team's secret is its own and did not move.
    const theirs = await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: other.key });
    assert.equal(theirs.body.secret, retried.body.secret);
    assert.notEqual(theirs.body.secret, rotated.body.secret);

    const id = await generate('after the rotation', '/ok');
    const got = await waitFor(() => receiver.received.find((r) => r.body.includes(id)));
    assert.equal((verify(rotated.body.secret, got) as { data: { generation_id: string } }).data.generation_id, id);
    assert.throws(() => verify(read.body.secret, got));
  });

  test('lists each delivery with its attempts: a refused attempt, then the retry that got through', async () => {
    const id = await generate('a flaky receiver', '/flaky');
    const delivery = await settled(id, 'delivered', 2);
    assert.equal(delivery.generation_id, id);
    assert.equal(delivery.event_type, 'generation.completed');
    assert.equal(delivery.url, `${receiver.url}/flaky`);
    assert.equal(delivery.attempt_count, 2);
    assert.equal(delivery.next_attempt_at, null);
    const [first, second] = delivery.attempts;
    assert.ok(first && second);
    assert.equal(first.attempt, 1);
    assert.equal(first.trigger, 'schedule');
    assert.equal(first.status_code, 500);
    assert.equal(first.error, 'HTTP 500');
    assert.ok(first.duration_ms >= 0);
    assert.ok(first.next_attempt_at && first.next_attempt_at > first.created_at, 'the retry was scheduled');
    assert.equal(second.attempt, 2);
    assert.equal(second.status_code, 200);
    assert.equal(second.error, null);
    assert.equal(second.next_attempt_at, null);
    // What was posted: the same id in webhook-id; the body as listed by the single read.
    const posted = receiver.received.filter((r) => r.body.includes(id));
    assert.equal(posted.length, 2);
    assert.ok(posted.every((r) => r.headers['webhook-id'] === delivery.id));
    const one = await call<Delivery>(server, 'GET', `/api/v1/webhooks/deliveries/${delivery.id}`, { token: team.key });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.payload, posted[0]?.body);
    assert.ok(!one.text.includes('whsec_'), 'never the secret');
    // Status filters.
    const delivered = await call<Page<Delivery>>(server, 'GET', '/api/v1/webhooks/deliveries?status=delivered', {
      token: team.key,
    });
    assert.ok(delivered.body.data.some((d) => d.id === delivery.id));
    assert.ok(delivered.body.data.every((d) => d.status === 'delivered'));
    const failed = await call<Page<Delivery>>(server, 'GET', '/api/v1/webhooks/deliveries?status=failed', {
      token: team.key,
    });
    assert.ok(!failed.body.data.some((d) => d.id === delivery.id));
  });

  test('redelivering a delivered webhook makes one more attempt, which the receiver gets', async () => {
    const id = await generate('deliver me twice', '/ok');
    const delivery = await settled(id, 'delivered', 1);
    const secret = (await call<{ secret: string }>(server, 'GET', '/api/v1/webhooks/secret', { token: team.key })).body
      .secret;
    const r = await call<Delivery>(server, 'POST', `/api/v1/webhooks/deliveries/${delivery.id}/redeliver`, {
      token: team.key,
    });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.id, delivery.id);
    assert.ok(r.body.status === 'pending' || r.body.attempts.length === 2, JSON.stringify(r.body));
    const after = await settled(id, 'delivered', 2);
    assert.equal(after.attempts[1]?.trigger, 'redelivery');
    assert.equal(after.attempts[1]?.status_code, 200);
    const posted = receiver.received.filter((p) => p.body.includes(id));
    assert.equal(posted.length, 2);
    assert.equal(posted[1]?.headers['webhook-id'], delivery.id);
    assert.equal(posted[1]?.body, posted[0]?.body);
    verify(secret, posted[1] as Received);
    // Not retried, nothing more comes.
    await sleep(1500);
    assert.equal(receiver.received.filter((p) => p.body.includes(id)).length, 2);
  });

  test('a failed delivery redelivered once the receiver is back ends delivered; redelivered while down it fails again without retries', async () => {
    receiver.state.down = true;
    const id = await generate('a receiver that is down', '/down');
    // The first attempt and two retries (WEBHOOK_RETRY_DELAYS_S=1,1), then failed.
    const failed = await settled(id, 'failed', 3);
    assert.ok(failed.attempts.every((a) => a.status_code === 500 && a.trigger === 'schedule'));
    assert.equal(failed.attempts[2]?.next_attempt_at, null, 'the schedule ran out');

    const still = await call<Delivery>(server, 'POST', `/api/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      token: team.key,
    });
    assert.equal(still.status, 202, still.text);
    const again = await settled(id, 'failed', 4);
    assert.equal(again.attempts[3]?.trigger, 'redelivery');
    await sleep(1500);
    assert.equal((await deliveryOf(id))?.attempts.length, 4, 'a redelivery is not retried');

    receiver.state.down = false;
    const back = await call<Delivery>(server, 'POST', `/api/v1/webhooks/deliveries/${failed.id}/redeliver`, {
      token: team.key,
    });
    assert.equal(back.status, 202, back.text);
    const delivered = await settled(id, 'delivered', 5);
    assert.equal(delivered.attempts[4]?.status_code, 200);
    assert.equal(delivered.attempts[4]?.trigger, 'redelivery');
    assert.equal(receiver.received.filter((p) => p.body.includes(id)).length, 5);
  });

  test('deliveries page newest first by cursor, and another team sees none of them', async () => {
    const { items, pages } = await allPages<Delivery>(server, team.key, '/api/v1/webhooks/deliveries?limit=1');
    assert.ok(items.length >= 4, `${items.length} deliveries`);
    assert.equal(pages.length, items.length);
    assert.equal(new Set(items.map((d) => d.id)).size, items.length);
    assertNewestFirst(items);
    const newest = items[0];
    assert.ok(newest);
    const older = await allPages<Delivery>(
      server,
      team.key,
      `/api/v1/webhooks/deliveries?created_before=${encodeURIComponent(newest.created_at)}`,
    );
    assert.deepEqual(
      older.items.map((d) => d.id),
      items.filter((d) => d.created_at < newest.created_at).map((d) => d.id),
    );

    const theirs = await call<Page<Delivery>>(server, 'GET', '/api/v1/webhooks/deliveries', { token: other.key });
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body.data, []);
    const byGeneration = await call<Page<Delivery>>(
      server,
      'GET',
      `/api/v1/webhooks/deliveries?generation_id=${newest.generation_id}`,
      { token: other.key },
    );
    assert.deepEqual(byGeneration.body.data, []);
    for (const [method, path] of [
      ['GET', `/api/v1/webhooks/deliveries/${newest.id}`],
      ['POST', `/api/v1/webhooks/deliveries/${newest.id}/redeliver`],
      ['GET', '/api/v1/webhooks/deliveries/whd_00000000000000000000000000'],
      ['POST', '/api/v1/webhooks/deliveries/not-an-id/redeliver'],
    ] as const) {
      const r = await call<ErrorReply>(server, method, path, { token: other.key });
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
      assert.equal(r.body.error.code, 'not_found');
    }
    // Its own generation's delivery is its own.
    const own = await generate('their own', '/ok', other.key);
    const ownDelivery = await waitFor(async () => {
      const d = await deliveryOf(own, other.key);
      return d?.status === 'delivered' ? d : undefined;
    });
    assert.equal(ownDelivery.generation_id, own);
    const mine = await call<Page<Delivery>>(server, 'GET', `/api/v1/webhooks/deliveries?generation_id=${own}`, {
      token: team.key,
    });
    assert.deepEqual(mine.body.data, []);
  });
});

describe('redelivery of a delivery still pending, or with an attempt under way', () => {
  let server: TestServer;
  let team: TeamFixture;
  let receiver: Server;
  let url: string;
  const received: Received[] = [];
  const state = { down: true };
  let held: Array<() => void> = [];

  before(async () => {
    // Retries far apart: a pending delivery stays pending for the whole test.
    server = await startTestServer({ env: { WEBHOOK_RETRY_DELAYS_S: '600,600' } });
    team = await createTeam(server, 10_000);
    // /down answers 500 while down; /hold keeps its first request waiting until released.
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ path, headers: req.headers, body });
        if (path === '/down' && state.down) res.writeHead(500).end('down');
        else if (path === '/hold' && received.filter((r) => r.path === '/hold').length === 1) {
          held.push(() => res.writeHead(200).end('ok'));
        } else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const release of held) release();
    receiver.closeAllConnections();
    receiver.close();
    await server.close();
  });

  const generate = async (prompt: string, path: string) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, webhook: `${url}${path}` },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.generation_id;
  };
  const deliveryWhen = (generationId: string, ready: (d: Delivery) => boolean) =>
    waitFor(async () => {
      const r = await call<Page<Delivery>>(server, 'GET', `/api/v1/webhooks/deliveries?generation_id=${generationId}`, {
        token: team.key,
      });
      const d = r.body.data[0];
      return d && ready(d) ? d : undefined;
    });

  test('a pending delivery makes its next attempt now, and its schedule goes on', async () => {
    const id = await generate('a receiver down for a while', '/down');
    const pending = await deliveryWhen(id, (d) => d.attempts.length === 1);
    assert.equal(pending.status, 'pending');
    assert.ok(pending.next_attempt_at && Date.parse(pending.next_attempt_at) > Date.now() + 500_000);

    const r = await call<Delivery>(server, 'POST', `/api/v1/webhooks/deliveries/${pending.id}/redeliver`, {
      token: team.key,
    });
    assert.equal(r.status, 202, r.text);
    const retried = await deliveryWhen(id, (d) => d.attempts.length === 2);
    assert.equal(retried.attempts[1]?.trigger, 'redelivery');
    assert.equal(retried.attempts[1]?.status_code, 500);
    // Attempt 2 failed: the schedule's next retry (600 s) is due, the one it replaced is gone.
    assert.equal(retried.status, 'pending');
    assert.ok(retried.next_attempt_at && Date.parse(retried.next_attempt_at) > Date.now() + 500_000);
    const { rows } = await server.pool.query<{ n: number }>(
      `select count(*)::int as n from graphile_worker._private_jobs where payload->>'delivery_id' = $1`,
      [pending.id],
    );
    assert.equal(rows[0]?.n, 1, 'one job: the next scheduled attempt');

    state.down = false;
    await call(server, 'POST', `/api/v1/webhooks/deliveries/${pending.id}/redeliver`, { token: team.key });
    const delivered = await deliveryWhen(id, (d) => d.status === 'delivered');
    assert.deepEqual(
      delivered.attempts.map((a) => [a.attempt, a.trigger, a.status_code]),
      [
        [1, 'schedule', 500],
        [2, 'redelivery', 500],
        [3, 'redelivery', 200],
      ],
    );
    assert.equal(delivered.next_attempt_at, null);
  });

  test('asked for while an attempt is under way, the redelivery follows that attempt', async () => {
    const id = await generate('a slow receiver', '/hold');
    await waitFor(() => (held.length === 1 ? true : undefined));
    const delivery = await deliveryWhen(id, (d) => d.status === 'pending');
    const r = await call<Delivery>(server, 'POST', `/api/v1/webhooks/deliveries/${delivery.id}/redeliver`, {
      token: team.key,
    });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.attempts.length, 0, 'the first attempt is still under way');
    await sleep(300);
    assert.equal(received.filter((p) => p.body.includes(id)).length, 1, 'no second attempt beside the first');
    for (const release of held) release();
    held = [];
    const done = await deliveryWhen(id, (d) => d.attempts.length === 2 && d.status === 'delivered');
    assert.deepEqual(
      done.attempts.map((a) => [a.trigger, a.status_code]),
      [
        ['schedule', 200],
        ['redelivery', 200],
      ],
    );
    const posted = received.filter((p) => p.body.includes(id));
    assert.equal(posted.length, 2);
    assert.equal(posted[1]?.headers['webhook-id'], delivery.id);
  });
});
