import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser-helpers.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

const SCREENSHOT = '/tmp/checkout.png';

const balanceOf = async (server: TestServer, team: TeamFixture) =>
  (await call<number>(server, 'GET', '/api/v1/billing/credits', { token: team.key })).body;

const statusOf = async (server: TestServer, team: TeamFixture, id: string) =>
  (await call<{ status: string }>(server, 'GET', `/api/v1/billing/checkouts/${id}`, { token: team.key })).body.status;

/** The text of the first element a selector finds ('' when none). */
const textOf = async (page: Page, selector: string) => (await page.locator(selector).first().textContent()) ?? '';

/** The buyer's own site: where the checkout sends them back to. */
async function startShop(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const title = req.url?.startsWith('/success') ? 'Thanks for your purchase' : 'Purchase cancelled';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the built-in checkout in a browser', () => {
  let server: TestServer;
  let team: TeamFixture;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let browser: Browser;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 0, 'Browser Team');
    shop = await startShop();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise<void>((r) => (shop ? shop.server.close(() => r()) : r()));
  });

  const topUp = async (planId: string) => {
    const r = await call<{ checkoutUrl: string; checkout_id: string }>(server, 'POST', '/api/v1/billing/top-up', {
      token: team.key,
      body: { plan_id: planId, success_url: `${shop.url}/success`, cancel_url: `${shop.url}/cancel` },
    });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  test('Pay shows the plan, price and team, lands on success_url and adds the credits once', async () => {
    const checkout = await topUp('starter');
    const page = await browser.newPage();
    try {
      await page.goto(checkout.checkoutUrl);
      const text = await textOf(page, 'main');
      assert.match(text, /Starter/);
      assert.match(text, /\$10\.00/);
      assert.match(text, /Browser Team/);
      assert.match(text, /1,000/);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      await Promise.all([page.waitForURL(`${shop.url}/success`), page.getByRole('button', { name: /^Pay / }).click()]);
      assert.equal(await textOf(page, 'h1'), 'Thanks for your purchase');
      assert.equal(await balanceOf(server, team), 1000);
      assert.equal(await statusOf(server, team, checkout.checkout_id), 'paid');

      // Back to the checkout page: it says paid and has no button to pay again.
      await page.goto(checkout.checkoutUrl);
      assert.match(await textOf(page, 'main'), /Paid\./);
      assert.equal(await page.getByRole('button').count(), 0);
      assert.equal(await balanceOf(server, team), 1000);
    } finally {
      await page.close();
    }
  });

  test('Cancel lands on cancel_url and adds nothing', async () => {
    const checkout = await topUp('creator');
    const page = await browser.newPage();
    try {
      await page.goto(checkout.checkoutUrl);
      assert.match(await textOf(page, 'main'), /\$49\.00/);
      await Promise.all([page.waitForURL(`${shop.url}/cancel`), page.getByRole('button', { name: 'Cancel' }).click()]);
      assert.equal(await textOf(page, 'h1'), 'Purchase cancelled');
      assert.equal(await balanceOf(server, team), 1000);
      assert.equal(await statusOf(server, team, checkout.checkout_id), 'cancelled');
      await page.goto(checkout.checkoutUrl);
      assert.match(await textOf(page, 'main'), /cancelled/);
      assert.equal(await page.getByRole('button').count(), 0);
    } finally {
      await page.close();
    }
  });
});
