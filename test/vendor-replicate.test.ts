// Replicate behind the whole service, as the second route of models fal serves first: a fake fal
// and a fake Replicate (test/fakes/) on 127.0.0.1, selected with their base-URL variables.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, waitForGeneration } from './media-helpers.ts';

describe('failover from fal to Replicate', () => {
  let fal: FakeFal;
  let replicate: FakeReplicate;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    replicate = await startFakeReplicate();
    server = await startTestServer({
      env: {
        ...fal.env,
        REPLICATE_API_TOKEN: replicate.token,
        REPLICATE_BASE_URL: replicate.url,
        // One attempt a route: an outage moves the item on at once.
        ITEM_MAX_ATTEMPTS: '1',
        ITEM_DEADLINE_S: 'image=4',
        SWEEP_INTERVAL_MS: '200',
      },
    });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
    await fal.close();
    await replicate.close();
  });

  const generate = (prompt: string) =>
    call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, model: 'flux-1-dev', settings: { aspect_ratio: '16:9' } },
    });

  test('with fal down, Replicate serves the image and its signed webhook finishes it', async () => {
    fal.outage('fal-ai/flux-lora', true);
    try {
      const before = await balanceOf(server, team.key);
      const created = await generate('a red kite over the dunes');
      assert.equal(created.status, 200, created.text);
      const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
      assert.equal(done.status, 'completed');
      const sent = replicate.submissions.filter((s) => JSON.stringify(s.body).includes('a red kite over the dunes'));
      assert.equal(sent.length, 1, 'sent to Replicate once');
      assert.equal(sent[0]?.path, '/v1/models/black-forest-labs/flux-dev-lora/predictions');
      assert.equal(sent[0]?.headers.authorization, `Bearer ${replicate.token}`);
      assert.match(String(sent[0]?.body.webhook), /\/webhooks\/providers\/replicate\?item=/);
      assert.deepEqual(sent[0]?.body.webhook_events_filter, ['completed']);
      const url = done.items[0]?.url ?? '';
      assert.ok(url.startsWith(`${server.url}/media/`), url);
      const image = await sharp(Buffer.from(await (await fetch(url)).arrayBuffer())).metadata();
      assert.equal(image.format, 'png');
      assert.equal(await balanceOf(server, team.key), before - done.credits_used);
      const { rows } = await server.pool.query<{ provider: string; outcome: string }>(
        'select provider, outcome from item_attempts where generation_id = $1 order by id',
        [created.body.generation_id],
      );
      assert.deepEqual(
        rows.map((r) => [r.provider, r.outcome]),
        [
          ['fal', 'submit_failed'],
          ['replicate', 'completed'],
        ],
      );
      assert.equal(replicate.secretReads(), 1, "the account's signing secret was read to verify the webhook");
    } finally {
      fal.outage('fal-ai/flux-lora', false);
    }
  });

  test('a prediction that never ends fails at the deadline, refunded once, and Replicate cancels it', async () => {
    fal.outage('fal-ai/flux-lora', true);
    try {
      const before = await balanceOf(server, team.key);
      const created = await generate('a lighthouse [replicate:never]');
      const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
      assert.equal(done.status, 'failed');
      assert.match(done.items[0]?.error ?? '', /^Timed out: not finished within 4 seconds/);
      assert.equal(await balanceOf(server, team.key), before);
      const { rows } = await server.pool.query<{ vendor_request_id: string }>(
        `select vendor_request_id from item_attempts where generation_id = $1 and provider = 'replicate'`,
        [created.body.generation_id],
      );
      const id = rows[0]?.vendor_request_id ?? '';
      for (const deadline = Date.now() + 5000; !replicate.cancels.includes(id); ) {
        if (Date.now() > deadline) assert.fail(`Replicate was never asked to cancel ${id}`);
        await sleep(50);
      }
    } finally {
      fal.outage('fal-ai/flux-lora', false);
    }
  });

  test('providers check asks each configured vendor one harmless question, over HTTP and in the CLI', async () => {
    const before = replicate.submissions.length;
    const listed = await call<Array<{ id: string; check?: { reachable: boolean | null; detail: string } }>>(
      server,
      'GET',
      '/admin/v1/providers?check=true',
      { token: server.adminToken },
    );
    assert.equal(listed.status, 200, listed.text);
    const checkOf = (id: string) => listed.body.find((p) => p.id === id)?.check;
    assert.equal(checkOf('replicate')?.reachable, true, checkOf('replicate')?.detail);
    assert.equal(checkOf('fal')?.reachable, null, 'fal has no harmless call');
    assert.equal(checkOf('simulator'), undefined);
    assert.equal(replicate.submissions.length, before, 'nothing was run');
    const plain = await call<Array<{ check?: unknown }>>(server, 'GET', '/admin/v1/providers', {
      token: server.adminToken,
    });
    assert.ok(
      plain.body.every((p) => p.check === undefined),
      'asked only with ?check=true',
    );

    const cli = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['src/cli/admin.ts', 'providers', 'check'],
        { env: { ...process.env, GMS_URL: server.url, ADMIN_TOKEN: server.adminToken } },
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      );
    });
    const fromCli = JSON.parse(cli) as Array<{ id: string; check?: { reachable: boolean | null } }>;
    assert.equal(fromCli.find((p) => p.id === 'replicate')?.check?.reachable, true);
  });

  test('a Replicate webhook with a bad signature is 401 and changes nothing', async () => {
    const body = JSON.stringify({ id: 'p1', status: 'succeeded', output: 'https://example.com/x.png' });
    const headers = replicate.signWebhook(body, Math.floor(Date.now() / 1000), `whsec_${'A'.repeat(32)}`);
    const forged = await call(server, 'POST', '/webhooks/providers/replicate', { raw: body, headers });
    assert.equal(forged.status, 401, forged.text);
  });

  test('a prediction that fails is refunded once with Replicate’s words', async () => {
    fal.outage('fal-ai/flux-lora', true);
    try {
      const before = await balanceOf(server, team.key);
      const created = await generate('a storm [replicate:nsfw]');
      const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
      assert.equal(done.status, 'failed');
      assert.match(done.items[0]?.error ?? '', /NSFW|safety|sensitive/i);
      assert.equal(await balanceOf(server, team.key), before);
      await sleep(200);
      const { rows } = await server.pool.query<{ n: number }>(
        `select count(*)::int as n from credit_ledger where generation_id = $1 and kind = 'refund'`,
        [created.body.generation_id],
      );
      assert.equal(rows[0]?.n, 1);
    } finally {
      fal.outage('fal-ai/flux-lora', false);
    }
  });
});
