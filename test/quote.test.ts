// Quotes: `Prefer: dry-run` on a generation POST, and POST /api/v1/quote, validate and price a request
// as the endpoint would, and write and charge nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf } from './media-helpers.ts';

interface QuoteBody {
  credits: number;
  balance: number;
  items: number;
  estimated_seconds: number;
}

describe('quotes', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
  });

  const generations = async () =>
    Number(
      (await server.app.deps.pool.query('select count(*) from generations where team_id = $1', [team.id])).rows[0]
        .count,
    );

  const video = { prompt: 'a lighthouse at dusk', model: 'kling-2.0-master', settings: { duration: 10 } };

  test('Prefer: dry-run answers what the request would charge, and the request then charges exactly that', async () => {
    const before = await generations();
    const quoted = await call<QuoteBody>(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: video,
      headers: { prefer: 'dry-run' },
    });
    assert.equal(quoted.status, 200, quoted.text);
    assert.equal(quoted.headers.get('preference-applied'), 'dry-run');
    assert.equal(quoted.body.balance, 1000);
    assert.equal(quoted.body.items, 1);
    assert.ok(quoted.body.credits > 0);
    assert.equal(await generations(), before, 'nothing written');
    assert.equal(await balanceOf(server, team.key), 1000, 'nothing charged');

    const made = await call<{ credits_used: number }>(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: video,
    });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.credits_used, quoted.body.credits);
    assert.equal(await balanceOf(server, team.key), 1000 - quoted.body.credits);
  });

  test('POST /api/v1/quote prices a body for an endpoint the same way, for batches and synchronous endpoints', async () => {
    const viaHeader = await call<QuoteBody>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a red fox', batch: 3 },
      headers: { prefer: 'dry-run' },
    });
    const viaQuote = await call<QuoteBody>(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: { endpoint: '/api/v1/images/generate', body: { prompt: 'a red fox', batch: 3 } },
    });
    assert.equal(viaQuote.status, 200, viaQuote.text);
    assert.deepEqual(viaQuote.body, viaHeader.body);
    assert.equal(viaQuote.body.items, 3);

    const before = await generations();
    const speech = await call<QuoteBody>(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: { endpoint: 'POST /api/v2/text-to-speech', body: { voice_id: 'Wise_Woman', text: 'Hello.' } },
    });
    assert.equal(speech.status, 200, speech.text);
    assert.equal(speech.body.credits, 25);
    assert.equal(await generations(), before, 'a synchronous endpoint runs nothing either');
  });

  test('a quote of more than the balance is still a quote; the request itself is 402', async () => {
    const poor = await createTeam(server, 10);
    const quoted = await call<QuoteBody>(server, 'POST', '/api/v1/quote', {
      token: poor.key,
      body: { endpoint: '/api/v1/videos/generate', body: video },
    });
    assert.equal(quoted.status, 200, quoted.text);
    assert.ok(quoted.body.credits > quoted.body.balance);
    assert.equal(quoted.body.balance, 10);
    const refused = await call(server, 'POST', '/api/v1/videos/generate', { token: poor.key, body: video });
    assert.equal(refused.status, 402);
  });

  test('an invalid body is refused as the endpoint refuses it; other paths are not quoted', async () => {
    const bad = await call<{ error: { code: string; details: Array<{ field: string }> } }>(
      server,
      'POST',
      '/api/v1/quote',
      { token: team.key, body: { endpoint: '/api/v1/videos/generate', body: { model: 'kling-2.0-master' } } },
    );
    assert.equal(bad.status, 400, bad.text);
    assert.ok(
      bad.body.error.details.some((d) => d.field === 'prompt'),
      bad.text,
    );
    const unknownModel = await call(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: { endpoint: '/api/v1/videos/generate', body: { prompt: 'x', model: 'no-such-model' } },
    });
    assert.equal(unknownModel.status, 400, unknownModel.text);
    const workspaces = await call(server, 'GET', '/api/v1/workspaces', { token: team.key });
    for (const endpoint of ['/api/v1/workspaces', '/api/v1/nowhere', 'https://example.com/api/v1/images/generate']) {
      const refused = await call<{ error: { details: Array<{ field: string }> } }>(server, 'POST', '/api/v1/quote', {
        token: team.key,
        body: { endpoint, body: { name: 'should not exist' } },
      });
      assert.equal(refused.status, 400, `${endpoint}: ${refused.text}`);
      assert.equal(refused.body.error.details[0]?.field, 'endpoint');
    }
    const after = await call(server, 'GET', '/api/v1/workspaces', { token: team.key });
    assert.deepEqual(after.body, workspaces.body, 'nothing was created');
    assert.equal(
      (await call(server, 'POST', '/api/v1/quote', { body: { endpoint: '/api/v1/images/generate', body: {} } })).status,
      401,
    );
  });

  test('a dry run with an Idempotency-Key claims nothing: the real request with that key then runs', async () => {
    const headers = { 'idempotency-key': 'quote-then-buy-1' };
    const body = { prompt: 'a quiet harbour', batch: 1 };
    const quoted = await call<QuoteBody>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body,
      headers: { ...headers, prefer: 'dry-run' },
    });
    assert.equal(quoted.status, 200);
    const bought = await call<{ generation_id?: string; credits_used: number }>(
      server,
      'POST',
      '/api/v1/images/generate',
      { token: team.key, body, headers },
    );
    assert.equal(bought.status, 200, bought.text);
    assert.ok(bought.body.generation_id, 'a real generation, not the replayed quote');
    assert.equal(bought.body.credits_used, quoted.body.credits);
  });
});
