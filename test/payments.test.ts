import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { Browser } from './console-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

// ---------------------------------------------------------------------------------------------
// Helpers: balances and ledgers as a user reads them, and local fakes of the vendors' APIs.

interface ErrorReply {
  error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

interface TopUp {
  checkoutUrl: string;
  checkout_id: string;
}

interface CheckoutRecord {
  id: string;
  status: string;
  plan_id: string;
  variant_id: string;
  credits: number;
  amount: number;
  currency: string;
  provider: string;
  checkout_url: string;
  success_url: string | null;
  cancel_url: string | null;
  signature_name: string | null;
  dispute_policy_acknowledged: boolean;
  paid_at: string | null;
}

interface LedgerEntry {
  amount: number;
  kind: string;
  reason: string;
}

const balanceOf = async (server: TestServer, team: TeamFixture) =>
  (await call<number>(server, 'GET', '/api/v1/billing/credits', { token: team.key })).body;

const purchasesOf = async (server: TestServer, team: TeamFixture) =>
  (
    await call<LedgerEntry[]>(server, 'GET', `/admin/v1/teams/${team.id}/ledger`, { token: server.adminToken })
  ).body.filter((e) => e.kind === 'purchase');

const checkoutOf = async (server: TestServer, team: TeamFixture, id: string) =>
  (await call<CheckoutRecord>(server, 'GET', `/api/v1/billing/checkouts/${id}`, { token: team.key })).body;

const topUp = (server: TestServer, team: TeamFixture, body: Record<string, unknown>) =>
  call<TopUp & ErrorReply>(server, 'POST', '/api/v1/billing/top-up', { token: team.key, body });

/** What a user could read from SQL reports: the checkouts and provider events recorded for a team. */
async function recordedFor(server: TestServer, team: TeamFixture): Promise<{ checkouts: number; events: number }> {
  const { rows } = await server.pool.query<{ checkouts: number; events: number }>(
    `select (select count(*)::int from checkouts where team_id = $1) as checkouts,
            (select count(*)::int from payment_events e join checkouts c on c.id = e.checkout_id
              where c.team_id = $1) as events`,
    [team.id],
  );
  return rows[0] ?? { checkouts: -1, events: -1 };
}

interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Fake {
  url: string;
  requests: FakeRequest[];
  /** Answer the next create with a server error. */
  failNext: boolean;
  close(): Promise<void>;
}

async function startFake(handle: (request: FakeRequest, res: ServerResponse, fake: Fake) => void): Promise<Fake> {
  const fake: Fake = { url: '', requests: [], failNext: false, close: async () => {} };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      fake.requests.push(request);
      handle(request, res, fake);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake;
}

function json(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
}

// Stripe: POST /v1/checkout/sessions, form-encoded, Bearer secret key; answers a Checkout Session.
const STRIPE_KEY = 'sk_test_x';
const STRIPE_WHSEC = `whsec_${randomBytes(24).toString('base64')}`;

type StripeSession = Record<string, unknown> & {
  id: string;
  amount_subtotal: number;
  currency: string;
  metadata: Record<string, string>;
};

async function startFakeStripe(): Promise<Fake & { sessions: Map<string, StripeSession> }> {
  const sessions = new Map<string, StripeSession>();
  const fake = await startFake((request, res, self) => {
    const stripeError = (status: number, message: string) =>
      json(res, status, { error: { type: 'invalid_request_error', message } });
    if (request.method !== 'POST' || request.path !== '/v1/checkout/sessions') return stripeError(404, 'no route');
    if (request.headers.authorization !== `Bearer ${STRIPE_KEY}`) return stripeError(401, 'Invalid API Key provided');
    if (request.headers['content-type'] !== 'application/x-www-form-urlencoded')
      return stripeError(400, 'Invalid request: send a form-encoded body');
    if (self.failNext) {
      self.failNext = false;
      return json(res, 500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
    }
    const form = new URLSearchParams(request.body);
    const required = [
      'mode',
      'line_items[0][quantity]',
      'line_items[0][price_data][currency]',
      'line_items[0][price_data][unit_amount]',
      'line_items[0][price_data][product_data][name]',
      'success_url',
      'client_reference_id',
      'metadata[checkout_id]',
      'metadata[team_id]',
    ];
    const missing = required.find((name) => !form.get(name));
    if (missing) return stripeError(400, `Missing required param: ${missing}.`);
    if (form.get('mode') !== 'payment') return stripeError(400, 'mode must be payment for one-time prices');
    const currency = form.get('line_items[0][price_data][currency]') ?? '';
    if (!/^[a-z]{3}$/.test(currency)) return stripeError(400, 'Invalid currency');
    const amount = Number(form.get('line_items[0][price_data][unit_amount]'));
    if (!Number.isInteger(amount) || amount < 0) return stripeError(400, 'Invalid integer: unit_amount');
    if (request.headers['idempotency-key'] !== form.get('client_reference_id'))
      return stripeError(400, 'expected the checkout id as Idempotency-Key');
    const id = `cs_test_${randomBytes(12).toString('hex')}`;
    const metadata: Record<string, string> = {};
    for (const [key, value] of form) {
      const m = /^metadata\[(.+)\]$/.exec(key);
      if (m?.[1]) metadata[m[1]] = value;
    }
    const session: StripeSession = {
      id,
      object: 'checkout.session',
      amount_subtotal: amount * Number(form.get('line_items[0][quantity]')),
      amount_total: amount * Number(form.get('line_items[0][quantity]')),
      cancel_url: form.get('cancel_url'),
      client_reference_id: form.get('client_reference_id'),
      currency,
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
      livemode: false,
      metadata,
      mode: 'payment',
      payment_status: 'unpaid',
      status: 'open',
      success_url: form.get('success_url'),
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
    };
    sessions.set(id, session);
    json(res, 200, session);
  });
  return Object.assign(fake, { sessions });
}

/** A `checkout.session.completed` event as Stripe sends it once the session is paid. */
function stripeCompletedEvent(session: StripeSession, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    type: 'checkout.session.completed',
    data: { object: { ...session, payment_status: 'paid', status: 'complete', ...overrides } },
  });
}

function stripeSign(body: string, secret = STRIPE_WHSEC, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

const deliverStripe = (server: TestServer, body: string, signature: string | undefined) =>
  call<{ received: boolean; outcome: string } & ErrorReply>(server, 'POST', '/webhooks/stripe', {
    raw: body,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature === undefined ? {} : { 'stripe-signature': signature }),
    },
  });

// Lemon Squeezy: POST /v1/checkouts, JSON:API, Bearer API key; answers a checkout with its url.
const LS_KEY = `ls_${randomBytes(16).toString('hex')}`;
const LS_STORE = '4242';
const LS_SECRET = randomBytes(16).toString('hex');
const JSON_API = 'application/vnd.api+json';

interface LsCheckout {
  id: string;
  customPrice: number;
  variantId: string;
  custom: Record<string, string>;
}

async function startFakeLemonSqueezy(): Promise<Fake & { checkouts: LsCheckout[] }> {
  const checkouts: LsCheckout[] = [];
  const fake = await startFake((request, res) => {
    const lsError = (status: number, detail: string) =>
      json(
        res,
        status,
        { jsonapi: { version: '1.0' }, errors: [{ status: String(status), title: 'Error', detail }] },
        JSON_API,
      );
    if (request.method !== 'POST' || request.path !== '/v1/checkouts') return lsError(404, 'Not found');
    if (request.headers.authorization !== `Bearer ${LS_KEY}`) return lsError(401, 'Unauthenticated.');
    if (request.headers.accept !== JSON_API || request.headers['content-type'] !== JSON_API)
      return lsError(415, 'Use application/vnd.api+json');
    let body: {
      data?: {
        type?: string;
        attributes?: {
          custom_price?: number;
          product_options?: { redirect_url?: string };
          checkout_data?: { custom?: Record<string, string> };
        };
        relationships?: {
          store?: { data?: { type?: string; id?: string } };
          variant?: { data?: { type?: string; id?: string } };
        };
      };
    };
    try {
      body = JSON.parse(request.body);
    } catch {
      return lsError(400, 'Malformed JSON');
    }
    const data = body.data;
    const store = data?.relationships?.store?.data;
    const variant = data?.relationships?.variant?.data;
    if (data?.type !== 'checkouts') return lsError(422, 'data.type must be checkouts');
    if (store?.type !== 'stores' || typeof store.id !== 'string') return lsError(422, 'The store field is required.');
    if (store.id !== LS_STORE) return lsError(404, 'Store not found');
    if (variant?.type !== 'variants' || typeof variant.id !== 'string')
      return lsError(422, 'The variant field is required.');
    const customPrice = data.attributes?.custom_price;
    if (typeof customPrice !== 'number' || !Number.isInteger(customPrice) || customPrice < 0)
      return lsError(422, 'custom_price must be a positive integer');
    const custom = data.attributes?.checkout_data?.custom ?? {};
    const id = randomUUID();
    checkouts.push({ id, customPrice, variantId: variant.id, custom });
    json(
      res,
      201,
      {
        jsonapi: { version: '1.0' },
        links: { self: `https://api.lemonsqueezy.com/v1/checkouts/${id}` },
        data: {
          type: 'checkouts',
          id,
          attributes: {
            store_id: Number(store.id),
            variant_id: Number(variant.id) || variant.id,
            custom_price: customPrice,
            product_options: data.attributes?.product_options ?? {},
            checkout_data: data.attributes?.checkout_data ?? {},
            expires_at: null,
            created_at: new Date().toISOString(),
            updated_at: new Date().toISOString(),
            test_mode: true,
            url: `https://genmedia.lemonsqueezy.com/checkout/custom/${id}?signature=${randomBytes(16).toString('hex')}`,
          },
        },
      },
      JSON_API,
    );
  });
  return Object.assign(fake, { checkouts });
}

/** An `order_created` webhook body as Lemon Squeezy sends it. */
function lsOrderCreated(
  checkout: LsCheckout,
  order: { id?: string; subtotal?: number; currency?: string; status?: string; event?: string } = {},
): string {
  const subtotal = order.subtotal ?? checkout.customPrice;
  return JSON.stringify({
    meta: { event_name: order.event ?? 'order_created', test_mode: true, custom_data: checkout.custom },
    data: {
      type: 'orders',
      id: order.id ?? String(100_000 + Math.floor(Math.random() * 900_000)),
      attributes: {
        store_id: Number(LS_STORE),
        customer_id: 1,
        identifier: randomUUID(),
        order_number: 1,
        user_name: 'Jo Buyer',
        user_email: 'jo@example.com',
        currency: order.currency ?? 'USD',
        currency_rate: '1.0000',
        subtotal,
        discount_total: 0,
        tax: Math.round(subtotal * 0.2),
        total: subtotal + Math.round(subtotal * 0.2),
        tax_inclusive: false,
        status: order.status ?? 'paid',
        status_formatted: 'Paid',
        refunded: false,
        first_order_item: { id: 1, order_id: 1, product_id: 1, variant_id: Number(checkout.variantId) || 0 },
        test_mode: true,
      },
    },
  });
}

const deliverLemonSqueezy = (
  server: TestServer,
  body: string,
  signature: string | undefined,
  event = 'order_created',
) =>
  call<{ received: boolean; outcome: string } & ErrorReply>(server, 'POST', '/webhooks/lemonsqueezy', {
    raw: body,
    headers: {
      'content-type': 'application/json',
      'x-event-name': event,
      ...(signature === undefined ? {} : { 'x-signature': signature }),
    },
  });

const lsSign = (body: string, secret = LS_SECRET) => createHmac('sha256', secret).update(body).digest('hex');

// ---------------------------------------------------------------------------------------------

describe('payments configuration', () => {
  test('the chosen provider needs its keys at start', () => {
    assert.throws(
      () => loadConfig({ PAYMENT_PROVIDER: 'stripe' }),
      /STRIPE_SECRET_KEY is required.*\n.*STRIPE_WEBHOOK_SECRET/,
    );
    assert.throws(
      () => loadConfig({ PAYMENT_PROVIDER: 'lemonsqueezy', LEMONSQUEEZY_API_KEY: 'k' }),
      /LEMONSQUEEZY_STORE_ID is required/,
    );
    assert.throws(() => loadConfig({ PAYMENT_PROVIDER: 'paypal' }), /PAYMENT_PROVIDER/);
    assert.equal(loadConfig({}).payments.provider, 'builtin');
    const config = loadConfig({ LEMONSQUEEZY_VARIANT_IDS: 'starter-1000=111,creator-5500=222' });
    assert.deepEqual(config.payments.lemonSqueezy.variantIds, { 'starter-1000': '111', 'creator-5500': '222' });
  });

  test('the test checkout is the default of the local start only: with DATABASE_URL it must be chosen', () => {
    const database = { DATABASE_URL: 'postgres://db.internal/genmedia' };
    assert.throws(
      () => loadConfig(database),
      /PAYMENT_PROVIDER is required when DATABASE_URL is set: stripe or lemonsqueezy to take payments, or builtin for a test checkout that adds credits with no payment/,
    );
    assert.equal(loadConfig({ ...database, PAYMENT_PROVIDER: 'builtin' }).payments.provider, 'builtin');
    // A worker process opens no checkout.
    assert.equal(loadConfig({ ...database, ROLE: 'worker' }).role, 'worker');
    const stripe = { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk', STRIPE_WEBHOOK_SECRET: 'whsec' };
    assert.equal(loadConfig({ ...database, ...stripe }).payments.provider, 'stripe');
  });
});

describe('top-up with the built-in checkout', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100, 'Acme Studio');
  });
  after(() => server.close());

  test('an unknown plan is 404 and records nothing', async () => {
    const r = await topUp(server, team, { plan_id: 'platinum' });
    assert.equal(r.status, 404);
    assert.equal(r.body.error.code, 'not_found');
    assert.match(r.body.error.message, /platinum/);
    assert.equal((await recordedFor(server, team)).checkouts, 0);
  });

  test('an unknown or inactive variant is 404', async () => {
    for (const variant_id of ['creator-9999', 'creator-5000-legacy', 'starter-1000']) {
      const r = await topUp(server, team, { plan_id: 'creator', variant_id });
      assert.equal(r.status, 404, variant_id);
      assert.equal(r.body.error.code, 'not_found');
    }
    assert.equal((await recordedFor(server, team)).checkouts, 0);
  });

  test('dispute_policy_acknowledged false is 400 and records nothing', async () => {
    const r = await topUp(server, team, { plan_id: 'starter', dispute_policy_acknowledged: false });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'invalid_request');
    assert.deepEqual(
      r.body.error.details?.map((d) => d.field),
      ['dispute_policy_acknowledged'],
    );
    assert.equal((await recordedFor(server, team)).checkouts, 0);
  });

  test('success and cancel URLs must be http(s) URLs; other fields are typed', async () => {
    for (const [field, value] of [
      ['success_url', 'javascript:alert(1)'],
      ['success_url', 'ftp://example.com/ok'],
      ['cancel_url', 'not a url'],
      ['cancel_url', 42],
      ['dispute_policy_acknowledged', 'yes'],
      ['signature_name', ''],
    ] as const) {
      const r = await topUp(server, team, { plan_id: 'starter', [field]: value });
      assert.equal(r.status, 400, `${field}=${value}`);
      assert.equal(r.body.error.details?.[0]?.field, field);
    }
    const missing = await topUp(server, team, {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.details?.[0]?.field, 'plan_id');
    assert.equal((await recordedFor(server, team)).checkouts, 0);
  });

  test("defaults to the plan's first active variant and answers with the checkout page URL", async () => {
    const r = await topUp(server, team, { plan_id: 'studio', signature_name: 'Jo Buyer' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.checkoutUrl, `${server.url}/checkout/${r.body.checkout_id}`);
    const checkout = await checkoutOf(server, team, r.body.checkout_id);
    assert.equal(checkout.status, 'open');
    assert.equal(checkout.provider, 'builtin');
    assert.equal(checkout.variant_id, 'studio-24000');
    assert.equal(checkout.credits, 24_000);
    assert.equal(checkout.amount, 19_900);
    assert.equal(checkout.currency, 'USD');
    assert.equal(checkout.signature_name, 'Jo Buyer');
    assert.equal(checkout.dispute_policy_acknowledged, true);
    assert.equal(checkout.paid_at, null);

    const page = await fetch(r.body.checkoutUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await page.text();
    assert.match(html, /Studio/);
    assert.match(html, /\$199\.00/);
    assert.match(html, /Acme Studio/);
    assert.match(html, new RegExp(`action="/checkout/${r.body.checkout_id}/pay"`));
    assert.match(html, new RegExp(`action="/checkout/${r.body.checkout_id}/cancel"`));
    assert.doesNotMatch(html, /(src|href)="https?:/, 'no external assets');
  });

  test('the checkout page says it is a test checkout, no payment, before and after Pay', async () => {
    const r = await topUp(server, team, { plan_id: 'starter' });
    assert.equal(r.status, 200, r.text);
    assert.match(await (await fetch(r.body.checkoutUrl)).text(), /Test checkout, no payment/);
    const pay = await call(server, 'POST', `/checkout/${r.body.checkout_id}/pay`);
    assert.equal(pay.status, 303);
    assert.match(await (await fetch(r.body.checkoutUrl)).text(), /Test checkout, no payment/);
  });

  test('a chosen variant sets the price and currency shown', async () => {
    const r = await topUp(server, team, { plan_id: 'studio', variant_id: 'studio-24000-eur' });
    assert.equal(r.status, 200);
    const html = await (await fetch(r.body.checkoutUrl)).text();
    assert.match(html, /€189\.00/);
  });

  test('another team cannot read the checkout through the API', async () => {
    const r = await topUp(server, team, { plan_id: 'starter' });
    const other = await createTeam(server, 0, 'Other');
    const read = await call<ErrorReply>(server, 'GET', `/api/v1/billing/checkouts/${r.body.checkout_id}`, {
      token: other.key,
    });
    assert.equal(read.status, 404);
  });

  test('Pay credits the team once however often it is pressed, and lands on success_url', async () => {
    const before = await balanceOf(server, team);
    const purchasesBefore = (await purchasesOf(server, team)).length;
    const r = await topUp(server, team, {
      plan_id: 'starter',
      success_url: 'https://app.example.com/billing/done?x=1',
      cancel_url: 'https://app.example.com/billing/cancelled',
    });
    const pay = () => call(server, 'POST', `/checkout/${r.body.checkout_id}/pay`, { raw: '' });
    const [first, second] = await Promise.all([pay(), pay()]);
    const third = await pay();
    for (const reply of [first, second, third]) {
      assert.equal(reply.status, 303);
      assert.equal(reply.headers.get('location'), 'https://app.example.com/billing/done?x=1');
    }
    assert.equal(await balanceOf(server, team), before + 1000);
    const purchases = await purchasesOf(server, team);
    assert.equal(purchases.length, purchasesBefore + 1);
    assert.equal(purchases[0]?.amount, 1000);
    assert.match(purchases[0]?.reason ?? '', new RegExp(r.body.checkout_id));
    const checkout = await checkoutOf(server, team, r.body.checkout_id);
    assert.equal(checkout.status, 'paid');
    assert.ok(checkout.paid_at);

    const html = await (await fetch(r.body.checkoutUrl)).text();
    assert.match(html, /Paid\./);
    assert.doesNotMatch(html, /\/pay"/, 'a paid checkout offers no Pay button');
    // Cancelling after paying changes nothing.
    const cancel = await call(server, 'POST', `/checkout/${r.body.checkout_id}/cancel`);
    assert.equal(cancel.status, 303);
    assert.equal(cancel.headers.get('location'), r.body.checkoutUrl);
    assert.equal((await checkoutOf(server, team, r.body.checkout_id)).status, 'paid');
  });

  test('Cancel credits nothing, lands on cancel_url, and the checkout cannot be paid afterwards', async () => {
    const before = await balanceOf(server, team);
    const r = await topUp(server, team, { plan_id: 'starter', cancel_url: 'http://127.0.0.1:9/cancelled' });
    const cancel = await call(server, 'POST', `/checkout/${r.body.checkout_id}/cancel`, {
      raw: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(cancel.status, 303);
    assert.equal(cancel.headers.get('location'), 'http://127.0.0.1:9/cancelled');
    const pay = await call(server, 'POST', `/checkout/${r.body.checkout_id}/pay`);
    assert.equal(pay.status, 303);
    assert.equal(pay.headers.get('location'), r.body.checkoutUrl);
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, r.body.checkout_id)).status, 'cancelled');
    const html = await (await fetch(r.body.checkoutUrl)).text();
    assert.match(html, /cancelled/);
    assert.doesNotMatch(html, /<form/);
  });

  test('without success_url, Pay lands on the checkout page, which says it is paid', async () => {
    const r = await topUp(server, team, { plan_id: 'starter' });
    const pay = await call(server, 'POST', `/checkout/${r.body.checkout_id}/pay`);
    assert.equal(pay.status, 303);
    assert.equal(pay.headers.get('location'), r.body.checkoutUrl);
  });

  test('Pay from another site is refused; unknown checkouts are 404 pages', async () => {
    const before = await balanceOf(server, team);
    const r = await topUp(server, team, { plan_id: 'starter' });
    const forged = await call(server, 'POST', `/checkout/${r.body.checkout_id}/pay`, {
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(forged.status, 403);
    assert.equal(await balanceOf(server, team), before);
    for (const path of ['/checkout/chk_00000000000000000000000000', '/checkout/nope']) {
      const page = await fetch(`${server.url}${path}`);
      assert.equal(page.status, 404);
      assert.match(await page.text(), /Checkout not found/);
      const pay = await call(server, 'POST', `${path}/pay`);
      assert.equal(pay.status, 404);
    }
  });

  test('the page escapes the team name and the signature', async () => {
    const evil = await createTeam(server, 0, `<script>alert("team")</script> & Sons' "Co"`);
    const r = await topUp(server, evil, { plan_id: 'starter', signature_name: '<img src=x onerror=alert(1)>' });
    assert.equal(r.status, 200);
    const html = await (await fetch(r.body.checkoutUrl)).text();
    assert.ok(html.includes('&lt;script&gt;alert(&quot;team&quot;)&lt;/script&gt; &amp; Sons&#39; &quot;Co&quot;'));
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!html.includes('<script>'));
    assert.ok(!html.includes('<img'));
  });

  test('vendor webhooks that are not configured answer 404', async () => {
    const stripe = await deliverStripe(server, '{}', stripeSign('{}'));
    assert.equal(stripe.status, 404);
    const ls = await deliverLemonSqueezy(server, '{}', lsSign('{}'));
    assert.equal(ls.status, 404);
  });
});

describe('top-up with Stripe Checkout', () => {
  let server: TestServer;
  let team: TeamFixture;
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;

  before(async () => {
    stripe = await startFakeStripe();
    server = await startTestServer({
      env: {
        PAYMENT_PROVIDER: 'stripe',
        STRIPE_API_BASE: stripe.url,
        STRIPE_SECRET_KEY: STRIPE_KEY,
        STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
      },
    });
    team = await createTeam(server, 0, 'Stripe Buyers');
  });
  after(async () => {
    await server.close();
    await stripe.close();
  });

  /** Opens a checkout and returns it with the session the fake created. */
  async function open(body: Record<string, unknown> = { plan_id: 'creator' }) {
    const r = await topUp(server, team, body);
    assert.equal(r.status, 200, r.text);
    const session = [...stripe.sessions.values()].find((s) => s.metadata.checkout_id === r.body.checkout_id);
    assert.ok(session, 'the fake saw no session for the checkout');
    return { topUp: r.body, session };
  }

  test('top-up creates a Checkout Session and answers with its url', async () => {
    const { topUp: created, session } = await open({
      plan_id: 'creator',
      success_url: 'https://app.example.com/ok',
      cancel_url: 'https://app.example.com/no',
    });
    assert.equal(created.checkoutUrl, session.url);
    const request = stripe.requests.at(-1);
    assert.equal(request?.headers.authorization, `Bearer ${STRIPE_KEY}`);
    const form = new URLSearchParams(request?.body);
    assert.equal(form.get('mode'), 'payment');
    assert.equal(form.get('line_items[0][price_data][currency]'), 'usd');
    assert.equal(form.get('line_items[0][price_data][unit_amount]'), '4900');
    assert.equal(form.get('line_items[0][quantity]'), '1');
    assert.match(form.get('line_items[0][price_data][product_data][name]') ?? '', /Creator/);
    assert.equal(form.get('success_url'), 'https://app.example.com/ok');
    assert.equal(form.get('cancel_url'), 'https://app.example.com/no');
    assert.equal(form.get('client_reference_id'), created.checkout_id);
    assert.equal(form.get('metadata[checkout_id]'), created.checkout_id);
    assert.equal(form.get('metadata[team_id]'), team.id);
    const checkout = await checkoutOf(server, team, created.checkout_id);
    assert.equal(checkout.provider, 'stripe');
    assert.equal(checkout.status, 'open');
    assert.equal(checkout.checkout_url, session.url);
  });

  test('without success and cancel URLs, Stripe returns the buyer to the checkout page', async () => {
    const { topUp: created } = await open({ plan_id: 'starter' });
    const form = new URLSearchParams(stripe.requests.at(-1)?.body);
    assert.equal(form.get('success_url'), `${server.url}/checkout/${created.checkout_id}`);
    assert.equal(form.get('cancel_url'), `${server.url}/checkout/${created.checkout_id}`);
    // That page shows the state and never offers the built-in Pay button for a Stripe checkout.
    const html = await (await fetch(`${server.url}/checkout/${created.checkout_id}`)).text();
    assert.doesNotMatch(html, /test checkout/i, 'a real provider takes a payment');
    const browser = new Browser(server);
    assert.equal((await browser.signIn(team.key)).status, 303);
    const billing = await browser.request('GET', '/console/billing');
    assert.equal(billing.status, 200);
    assert.doesNotMatch(billing.text, /test checkout/i);
    assert.match(html, /Continue to payment/);
    assert.doesNotMatch(html, /<form/);
    const pay = await call(server, 'POST', `/checkout/${created.checkout_id}/pay`);
    assert.equal(pay.status, 404);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
  });

  test('three deliveries of one paid event, two of them concurrent, credit the team once', async () => {
    const before = await balanceOf(server, team);
    const purchasesBefore = (await purchasesOf(server, team)).length;
    const { topUp: created, session } = await open({ plan_id: 'creator' });
    const body = stripeCompletedEvent(session);
    const [a, b] = await Promise.all([
      deliverStripe(server, body, stripeSign(body)),
      deliverStripe(server, body, stripeSign(body)),
    ]);
    const replay = await deliverStripe(server, body, stripeSign(body));
    for (const reply of [a, b, replay]) assert.equal(reply.status, 200, reply.text);
    assert.deepEqual([a.body.outcome, b.body.outcome].sort(), ['credited', 'duplicate']);
    assert.equal(replay.body.outcome, 'duplicate');

    assert.equal(await balanceOf(server, team), before + 5500);
    const purchases = await purchasesOf(server, team);
    assert.equal(purchases.length, purchasesBefore + 1);
    assert.equal(purchases[0]?.amount, 5500);
    const checkout = await checkoutOf(server, team, created.checkout_id);
    assert.equal(checkout.status, 'paid');
    assert.ok(checkout.paid_at);

    // Another event for the same paid session (a new event id) credits nothing either.
    const again = stripeCompletedEvent(session);
    const other = await deliverStripe(server, again, stripeSign(again));
    assert.equal(other.status, 200);
    assert.equal(other.body.outcome, 'already_paid');
    assert.equal(await balanceOf(server, team), before + 5500);
  });

  test('a forged signature is rejected and writes nothing', async () => {
    const before = await balanceOf(server, team);
    const recorded = await recordedFor(server, team);
    const { topUp: created, session } = await open({ plan_id: 'starter' });
    const body = stripeCompletedEvent(session);
    const tampered = body.replace('"amount_subtotal":1000', '"amount_subtotal":1');
    const attempts: Array<[string, string, string | undefined]> = [
      ['another secret', body, stripeSign(body, 'whsec_not_the_secret')],
      ['a signature of another body', tampered, stripeSign(body)],
      ['no header', body, undefined],
      ['a malformed header', body, 'v1=abc'],
      ['a v0 signature only', body, stripeSign(body).replace('v1=', 'v0=')],
    ];
    for (const [label, sent, signature] of attempts) {
      const r = await deliverStripe(server, sent, signature);
      assert.equal(r.status, 400, label);
      assert.equal(r.body.error.code, 'invalid_request');
    }
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
    assert.deepEqual(await recordedFor(server, team), { checkouts: recorded.checkouts + 1, events: recorded.events });
  });

  test('a signature older (or newer) than 300 s is rejected', async () => {
    const before = await balanceOf(server, team);
    const { topUp: created, session } = await open({ plan_id: 'starter' });
    const body = stripeCompletedEvent(session);
    const now = Math.floor(Date.now() / 1000);
    for (const t of [now - 301, now - 3600, now + 400]) {
      const r = await deliverStripe(server, body, stripeSign(body, STRIPE_WHSEC, t));
      assert.equal(r.status, 400);
      assert.match(r.body.error.message, /300 s/);
    }
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
    // Within the tolerance it is accepted.
    const r = await deliverStripe(server, body, stripeSign(body, STRIPE_WHSEC, now - 250));
    assert.equal(r.status, 200);
    assert.equal(await balanceOf(server, team), before + 1000);
  });

  test('several v1 signatures are accepted when one matches (secret roll)', async () => {
    const before = await balanceOf(server, team);
    const { session } = await open({ plan_id: 'starter' });
    const body = stripeCompletedEvent(session);
    const t = Math.floor(Date.now() / 1000);
    const wrong = createHmac('sha256', 'whsec_old').update(`${t}.${body}`).digest('hex');
    const right = stripeSign(body, STRIPE_WHSEC, t).split('v1=')[1];
    const r = await deliverStripe(server, body, `t=${t},v1=${wrong},v1=${right}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.outcome, 'credited');
    assert.equal(await balanceOf(server, team), before + 1000);
  });

  test('an amount or currency that does not match the checkout is rejected and credits nothing', async () => {
    const before = await balanceOf(server, team);
    const { topUp: created, session } = await open({ plan_id: 'creator' });
    for (const overrides of [
      { amount_subtotal: 100, amount_total: 100 },
      { currency: 'eur' },
      { total_details: { amount_discount: 4900, amount_shipping: 0, amount_tax: 0 } },
    ]) {
      const body = stripeCompletedEvent(session, overrides);
      const r = await deliverStripe(server, body, stripeSign(body));
      assert.equal(r.status, 400, JSON.stringify(overrides));
      assert.match(r.body.error.message, /costs 4900 USD/);
    }
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
  });

  test('unpaid completions and other events are acknowledged without crediting', async () => {
    const before = await balanceOf(server, team);
    const { topUp: created, session } = await open({ plan_id: 'starter' });
    const unpaid = stripeCompletedEvent(session, { payment_status: 'unpaid' });
    const other = JSON.stringify({
      id: 'evt_other',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { id: 'pi_1', amount: 1000 } },
    });
    const foreign = stripeCompletedEvent({ ...session, metadata: {} }, { client_reference_id: null });
    for (const body of [unpaid, other, foreign]) {
      const r = await deliverStripe(server, body, stripeSign(body));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.outcome, 'ignored');
    }
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
  });

  test('checkout.session.expired marks the checkout expired', async () => {
    const { topUp: created, session } = await open({ plan_id: 'starter' });
    const body = stripeCompletedEvent(session, { status: 'expired', payment_status: 'unpaid' }).replace(
      '"type":"checkout.session.completed"',
      '"type":"checkout.session.expired"',
    );
    const r = await deliverStripe(server, body, stripeSign(body));
    assert.equal(r.status, 200);
    assert.equal(r.body.outcome, 'expired');
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'expired');
  });

  test('a Stripe failure is 503 and records nothing', async () => {
    const recorded = await recordedFor(server, team);
    stripe.failNext = true;
    const r = await topUp(server, team, { plan_id: 'starter' });
    assert.equal(r.status, 503);
    assert.equal(r.body.error.code, 'service_unavailable');
    assert.equal((await recordedFor(server, team)).checkouts, recorded.checkouts);
  });
});

describe('top-up with Lemon Squeezy', () => {
  let server: TestServer;
  let team: TeamFixture;
  let ls: Awaited<ReturnType<typeof startFakeLemonSqueezy>>;

  before(async () => {
    ls = await startFakeLemonSqueezy();
    server = await startTestServer({
      env: {
        PAYMENT_PROVIDER: 'lemonsqueezy',
        LEMONSQUEEZY_API_BASE: ls.url,
        LEMONSQUEEZY_API_KEY: LS_KEY,
        LEMONSQUEEZY_STORE_ID: LS_STORE,
        LEMONSQUEEZY_WEBHOOK_SECRET: LS_SECRET,
        LEMONSQUEEZY_VARIANT_IDS: 'starter-1000=111111',
      },
    });
    team = await createTeam(server, 0, 'Lemon Buyers');
  });
  after(async () => {
    await server.close();
    await ls.close();
  });

  async function open(body: Record<string, unknown>) {
    const r = await topUp(server, team, body);
    assert.equal(r.status, 200, r.text);
    const checkout = ls.checkouts.find((c) => c.custom.checkout_id === r.body.checkout_id);
    assert.ok(checkout, 'the fake saw no checkout');
    return { topUp: r.body, checkout };
  }

  test('top-up creates a checkout with the mapped variant, the catalog price and our ids as custom data', async () => {
    const { topUp: created, checkout } = await open({ plan_id: 'starter', success_url: 'https://app.example.com/ok' });
    assert.match(created.checkoutUrl, /^https:\/\/genmedia\.lemonsqueezy\.com\/checkout\/custom\//);
    assert.equal(checkout.variantId, '111111');
    assert.equal(checkout.customPrice, 1000);
    assert.deepEqual(checkout.custom, { checkout_id: created.checkout_id, team_id: team.id });
    const sent = JSON.parse(ls.requests.at(-1)?.body ?? '{}');
    assert.equal(sent.data.attributes.product_options.redirect_url, 'https://app.example.com/ok');
    assert.equal(sent.data.relationships.store.data.id, LS_STORE);
    // A variant without a mapping is sent under its catalog id.
    const { checkout: unmapped } = await open({ plan_id: 'creator' });
    assert.equal(unmapped.variantId, 'creator-5500');
    assert.equal((await checkoutOf(server, team, created.checkout_id)).provider, 'lemonsqueezy');
  });

  test('a paid order delivered three times, two concurrently, credits the team once', async () => {
    const before = await balanceOf(server, team);
    const purchasesBefore = (await purchasesOf(server, team)).length;
    const { topUp: created, checkout } = await open({ plan_id: 'creator' });
    const body = lsOrderCreated(checkout);
    const [a, b] = await Promise.all([
      deliverLemonSqueezy(server, body, lsSign(body)),
      deliverLemonSqueezy(server, body, lsSign(body)),
    ]);
    const replay = await deliverLemonSqueezy(server, body, lsSign(body));
    for (const reply of [a, b, replay]) assert.equal(reply.status, 200, reply.text);
    assert.deepEqual([a.body.outcome, b.body.outcome, replay.body.outcome].sort(), [
      'credited',
      'duplicate',
      'duplicate',
    ]);
    assert.equal(await balanceOf(server, team), before + 5500);
    const purchases = await purchasesOf(server, team);
    assert.equal(purchases.length, purchasesBefore + 1);
    assert.equal(purchases[0]?.amount, 5500);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'paid');
  });

  test('a forged X-Signature is rejected and writes nothing', async () => {
    const before = await balanceOf(server, team);
    const recorded = await recordedFor(server, team);
    const { topUp: created, checkout } = await open({ plan_id: 'starter' });
    const body = lsOrderCreated(checkout);
    for (const signature of [
      lsSign(body, 'not-the-secret'),
      lsSign(`${body} `),
      undefined,
      'zz',
      lsSign(body).slice(2),
    ]) {
      const r = await deliverLemonSqueezy(server, body, signature);
      assert.equal(r.status, 400, String(signature));
    }
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
    assert.deepEqual(await recordedFor(server, team), { checkouts: recorded.checkouts + 1, events: recorded.events });
  });

  test('an order whose amount or currency does not match is rejected', async () => {
    const before = await balanceOf(server, team);
    const { topUp: created, checkout } = await open({ plan_id: 'starter' });
    for (const order of [{ subtotal: 1 }, { currency: 'EUR' }]) {
      const body = lsOrderCreated(checkout, order);
      const r = await deliverLemonSqueezy(server, body, lsSign(body));
      assert.equal(r.status, 400, JSON.stringify(order));
    }
    assert.equal(await balanceOf(server, team), before);
    assert.equal((await checkoutOf(server, team, created.checkout_id)).status, 'open');
  });

  test('pending orders and other events are acknowledged without crediting', async () => {
    const before = await balanceOf(server, team);
    const { checkout } = await open({ plan_id: 'starter' });
    for (const body of [
      lsOrderCreated(checkout, { status: 'pending' }),
      lsOrderCreated(checkout, { event: 'order_refunded' }),
      lsOrderCreated({ ...checkout, custom: {} }),
    ]) {
      const r = await deliverLemonSqueezy(server, body, lsSign(body));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.outcome, 'ignored');
    }
    assert.equal(await balanceOf(server, team), before);
  });
});
