// What a cancel gives back: everything while the vendor has not started the work (fal's job still
// IN_QUEUE, Replicate's prediction still `starting`), nothing by default once the vendor runs it
// (CANCEL_REFUND=full gives it back), and the answer says which; the vendor is asked to stop either way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Browser } from './console-helpers.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

type CancelAnswer = StatusRecord & { refunded_credits: number; message: string };

/** Waits until the vendor has accepted the generation's (first) item. */
async function untilAccepted(server: TestServer, generationId: string): Promise<void> {
  for (const deadline = Date.now() + 15_000; ; await sleep(50)) {
    const { rows } = await server.app.deps.pool.query(
      `select vendor_state from generation_items where generation_id = $1`,
      [generationId],
    );
    if (rows[0]?.vendor_state === 'accepted') return;
    if (Date.now() > deadline) assert.fail('the vendor never accepted the job');
  }
}

async function create(server: TestServer, team: TeamFixture, prompt: string, model: string) {
  const r = await call<{ generation_id: string; credits_used: number }>(server, 'POST', '/api/v1/images/generate', {
    token: team.key,
    body: { prompt, model, batch: 1 },
  });
  assert.equal(r.status, 200, r.text);
  assert.ok(r.body.credits_used > 0);
  return r.body;
}

const cancel = (server: TestServer, team: TeamFixture, id: string) =>
  call<CancelAnswer>(server, 'POST', `/api/v1/generations/${id}/cancel`, { token: team.key });

describe('cancel refunds by what the vendor did (CANCEL_REFUND default: none)', () => {
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
        // One attempt a route: fal's outage moves flux-1-dev on to Replicate at once.
        ITEM_MAX_ATTEMPTS: '1',
      },
    });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    fal.hold(false);
    await fal.release();
    await server.close();
    await fal.close();
    await replicate.close();
  });

  test('a job still in fal’s queue is cancelled there and refunded in full', async () => {
    fal.hold(true, 'IN_QUEUE');
    try {
      const before = await balanceOf(server, team.key);
      const created = await create(server, team, 'queued at fal', 'flux-1-schnell');
      await untilAccepted(server, created.generation_id);
      const answer = await cancel(server, team, created.generation_id);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.items[0]?.error, 'canceled');
      assert.equal(answer.body.refunded_credits, created.credits_used);
      assert.match(answer.body.message, /refunded/);
      assert.equal(answer.body.credits_used, 0);
      assert.equal(fal.cancels.length, 1, 'fal was asked to cancel the job');
      assert.equal(await balanceOf(server, team.key), before);
    } finally {
      fal.hold(false);
      await fal.release();
    }
  });

  test('a job fal already runs is asked to stop but not refunded, and the answer and the item say so', async () => {
    fal.hold(true, 'IN_PROGRESS');
    const cancelsBefore = fal.cancels.length;
    try {
      const before = await balanceOf(server, team.key);
      const created = await create(server, team, 'running at fal', 'flux-1-schnell');
      await untilAccepted(server, created.generation_id);
      const answer = await cancel(server, team, created.generation_id);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'failed');
      assert.equal(await balanceOf(server, team.key), before - created.credits_used, 'not refunded');
      assert.equal(answer.body.refunded_credits, 0);
      assert.match(answer.body.message, /not refunded/);
      assert.match(answer.body.message, /CANCEL_REFUND/);
      assert.match(String(answer.body.items[0]?.error), /^canceled: .*not refunded/);
      assert.equal(answer.body.credits_used, created.credits_used);
      assert.equal(fal.cancels.length, cancelsBefore + 1, 'fal was still asked to stop it');
      assert.equal(await balanceOf(server, team.key), before - created.credits_used);
      // The job ends at fal after all: the item stays cancelled, and nothing more changes.
      fal.hold(false);
      await fal.release();
      const later = await waitForGeneration(server, team.key, created.generation_id);
      assert.equal(later.items[0]?.status, 'FAILED');
      assert.equal(await balanceOf(server, team.key), before - created.credits_used);
    } finally {
      fal.hold(false);
      await fal.release();
    }
  });

  test('the console’s cancel button shows what the cancel refunded, and why not', async () => {
    fal.hold(true, 'IN_PROGRESS');
    try {
      const created = await create(server, team, 'running at fal, cancelled in the console', 'flux-1-schnell');
      await untilAccepted(server, created.generation_id);
      const browser = new Browser(server);
      await browser.signIn(team.key);
      const path = `/console/generations/${created.generation_id}`;
      const csrf = await browser.csrf(path);
      const fragment = await browser.request('POST', `${path}/cancel`, { _csrf: csrf }, { 'hx-request': 'true' });
      assert.equal(fragment.status, 200, fragment.text);
      assert.match(fragment.text, /Cancelled 1 item; 0 credits refunded\. 1 item was not refunded: fal had already/);
      assert.match(fragment.text, /canceled: not refunded/);
    } finally {
      fal.hold(false);
      await fal.release();
    }
  });

  test('a Replicate prediction still starting is refunded in full; one already processing is not', async () => {
    fal.outage('fal-ai/flux-lora', true);
    try {
      const before = await balanceOf(server, team.key);
      const queued = await create(server, team, 'waiting at replicate [replicate:queued]', 'flux-1-dev');
      await untilAccepted(server, queued.generation_id);
      const first = await cancel(server, team, queued.generation_id);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.refunded_credits, queued.credits_used);
      assert.equal(first.body.items[0]?.error, 'canceled');
      assert.equal(await balanceOf(server, team.key), before);

      const running = await create(server, team, 'busy at replicate [replicate:running]', 'flux-1-dev');
      await untilAccepted(server, running.generation_id);
      const second = await cancel(server, team, running.generation_id);
      assert.equal(second.status, 200, second.text);
      assert.equal(await balanceOf(server, team.key), before - running.credits_used, 'not refunded');
      assert.equal(second.body.refunded_credits, 0);
      assert.match(second.body.message, /not refunded/);
      assert.equal(replicate.cancels.length, 2, 'Replicate was asked to cancel both');
      assert.equal(await balanceOf(server, team.key), before - running.credits_used);
    } finally {
      fal.outage('fal-ai/flux-lora', false);
    }
  });
});

describe('CANCEL_REFUND=full', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    server = await startTestServer({ env: { ...fal.env, CANCEL_REFUND: 'full' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    fal.hold(false);
    await fal.release();
    await server.close();
    await fal.close();
  });

  test('a job the vendor already runs is refunded in full, and still asked to stop', async () => {
    fal.hold(true, 'IN_PROGRESS');
    const before = await balanceOf(server, team.key);
    const created = await create(server, team, 'running at fal, refunded anyway', 'flux-1-schnell');
    await untilAccepted(server, created.generation_id);
    const answer = await cancel(server, team, created.generation_id);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.refunded_credits, created.credits_used);
    assert.equal(answer.body.items[0]?.error, 'canceled');
    assert.equal(fal.cancels.length, 1);
    assert.equal(await balanceOf(server, team.key), before);
  });
});

describe('a cancel that finds the vendor job already finished', () => {
  let fal: FakeFal;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    fal = await startFakeFal();
    // No webhooks (fal cannot reach a private address) and polls far apart: the job can end at fal
    // while the item still waits for its next poll.
    server = await startTestServer({
      env: { ...fal.env, ALLOW_PRIVATE_URLS: 'false', VENDOR_POLL_MIN_MS: '600000', VENDOR_POLL_MAX_MS: '600000' },
    });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    fal.hold(false);
    await fal.release();
    await server.close();
    await fal.close();
  });

  test('lets the item complete with its result, answers that it completed, and refunds nothing', async () => {
    fal.hold(true, 'IN_PROGRESS');
    const before = await balanceOf(server, team.key);
    const created = await create(server, team, 'finished at fal before the cancel', 'flux-1-schnell');
    await untilAccepted(server, created.generation_id);
    fal.hold(false);
    await fal.release();
    const answer = await call<{ error: { code: string; message: string } }>(
      server,
      'POST',
      `/api/v1/generations/${created.generation_id}/cancel`,
      { token: team.key },
    );
    assert.equal(answer.status, 409, answer.text);
    assert.equal(answer.body.error.code, 'generation_finished');
    assert.match(answer.body.error.message, /completed before the cancel/);
    const done = await waitForGeneration(server, team.key, created.generation_id);
    assert.equal(done.status, 'completed', JSON.stringify(done.items));
    assert.equal(await balanceOf(server, team.key), before - created.credits_used);
  });

  test('a finished job whose result cannot be confirmed is cancelled under the policy, never run again', async () => {
    fal.hold(true, 'IN_PROGRESS');
    const before = await balanceOf(server, team.key);
    const created = await create(server, team, 'finished at fal, its poll unanswered', 'flux-1-schnell');
    await untilAccepted(server, created.generation_id);
    fal.hold(false);
    await fal.release();
    const submissions = fal.submissions.length;
    // The cancel's own status read says COMPLETED; the poll that would confirm the result gets 503.
    fal.failStatusAfter(1);
    let answer: Awaited<ReturnType<typeof cancel>>;
    try {
      answer = await cancel(server, team, created.generation_id);
    } finally {
      fal.failStatusAfter(undefined);
    }
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.status, 'failed');
    assert.match(String(answer.body.items[0]?.error), /^canceled: not refunded, fal/);
    assert.match(answer.body.message, /not refunded/);
    assert.equal(answer.body.refunded_credits, 0);
    const later = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${created.generation_id}/status`, {
      token: team.key,
    });
    assert.equal(later.body.items[0]?.status, 'FAILED');
    assert.equal(fal.submissions.length, submissions, 'never submitted again');
    assert.equal(await balanceOf(server, team.key), before - created.credits_used);
  });
});

describe('a cancel during a synchronous vendor call (the submit is the work)', () => {
  const MODEL = 'openai/gpt-4o-mini';
  let chat: FakeOpenAiCompatible;
  let strict: TestServer;
  let generous: TestServer;

  before(async () => {
    chat = await startFakeOpenAiCompatible();
    const env = {
      OPENAI_COMPATIBLE_BASE_URL: `${chat.url}/v1`,
      OPENAI_COMPATIBLE_MODELS: JSON.stringify({ [MODEL]: 'llama3.2:3b' }),
    };
    strict = await startTestServer({ env });
    generous = await startTestServer({ env: { ...env, CANCEL_REFUND: 'full' } });
  });
  after(async () => {
    chat.release();
    await strict.close();
    await generous.close();
    await chat.close();
  });

  /**
   * Starts a text request the chat server holds, cancels it from a second request while the
   * server works on it, then lets the server answer: the cancel's answer, the held request's, and
   * what the team paid in the end.
   */
  async function cancelWhileAnswering(server: TestServer) {
    const team = await createTeam(server, 100_000);
    const before = await balanceOf(server, team.key);
    const pending = call<{ error: { code: string; message: string } }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Write a long story [oai:held]', model: MODEL, settings: { max_tokens: 4000 } },
    });
    await chat.untilHeld(1);
    const { rows } = await server.pool.query<{ id: string; credits_charged: string }>(
      'select id, credits_charged from generations where team_id = $1',
      [team.id],
    );
    assert.equal(rows.length, 1);
    const generationId = rows[0]?.id as string;
    const charged = Number(rows[0]?.credits_charged);
    assert.ok(charged > 0);
    const canceled = await cancel(server, team, generationId);
    chat.release();
    const answered = await pending;
    return { canceled, answered, charged, paid: before - (await balanceOf(server, team.key)) };
  }

  test('is not refunded by default: the server was already doing the work, and both answers say so', async () => {
    const { canceled, answered, charged, paid } = await cancelWhileAnswering(strict);
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.refunded_credits, 0);
    assert.equal(canceled.body.credits_used, charged);
    assert.match(canceled.body.message, /not refunded: openai-compatible had already started the work/);
    assert.match(canceled.body.message, /CANCEL_REFUND=none/);
    assert.match(String(canceled.body.items[0]?.error), /^canceled: not refunded, openai-compatible/);
    assert.equal(answered.status, 500, answered.text);
    assert.match(answered.body.error.message, new RegExp(`failed and 0 of its ${charged} credits were refunded`));
    assert.match(answered.body.error.message, /canceled: not refunded/);
    assert.equal(paid, charged, 'the team pays what the vendor charges for');
  });

  test('with CANCEL_REFUND=full it is refunded in full', async () => {
    const { canceled, answered, charged, paid } = await cancelWhileAnswering(generous);
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.refunded_credits, charged);
    assert.equal(canceled.body.items[0]?.error, 'canceled');
    assert.equal(answered.status, 500, answered.text);
    assert.match(answered.body.error.message, new RegExp(`failed and its ${charged} credits were refunded`));
    assert.equal(paid, 0);
  });
});
