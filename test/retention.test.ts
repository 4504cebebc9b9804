// Retention with the clock moved forward: a sweep judged at a later time deletes the result files of
// generations past their expires_at (their URLs then answer 410, the records stay), keeps an
// influencer's training results, and deletes old webhook deliveries and idempotency keys. The same
// sweep deleting the objects of an S3 bucket (s3rver), whether the URLs are the service's own
// /media/ route or the bucket's public URL, is in s3-service.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sweepRetention } from '../src/engine/retention.ts';
import { deleteExpiredIdempotencyKeys } from '../src/modules/idempotency/service.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { type StatusRecord, waitForGeneration, waitForInfluencer } from './media-helpers.ts';

const DAY = 86_400_000;

/** The status of a GET, its body read: a body left unread holds its connection open and stalls the server's close. */
async function statusOf(url: string): Promise<number> {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status;
}

describe('retention', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ env: { MEDIA_RETENTION_DAYS: '7', RECORDS_RETENTION_DAYS: '30' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
  });

  const sweep = (daysAhead: number) =>
    sweepRetention(server.app.deps.pool, server.app.deps.storage, {
      now: new Date(Date.now() + daysAhead * DAY),
      recordsRetentionDays: 30,
    });
  const image = async (prompt: string) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, batch: 2 },
    });
    assert.equal(r.status, 200, r.text);
    return waitForGeneration(server, team.key, r.body.generation_id);
  };

  test('the status record, the history and the lists say when the files go', async () => {
    const done = await image('kept a week');
    const expires = Date.parse(done.expires_at ?? '');
    assert.ok(Math.abs(expires - (Date.now() + 7 * DAY)) < 60_000, done.expires_at ?? 'no expires_at');
    const history = await call<{ data: StatusRecord[] }>(server, 'GET', '/api/v1/generations?limit=1', {
      token: team.key,
    });
    assert.equal(history.body.data[0]?.expires_at, done.expires_at);
    const music = await call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: team.key,
      body: { title: 'Short', style: 'ambient', instrumental: true },
    });
    await waitForGeneration(server, team.key, music.body.generation_id);
    const tracks = await call<Array<{ expires_at: string | null }>>(server, 'GET', '/api/v1/music', {
      token: team.key,
    });
    assert.ok(tracks.body[0]?.expires_at, 'a track says when its file goes');
  });

  test('a sweep a day early deletes nothing; a week on, the files are gone (410) and the records stay', async () => {
    const done = await image('gone after a week');
    const urls = done.result_urls;
    assert.equal(urls.length, 2);
    const early = await sweep(6);
    assert.equal(early.generations, 0);
    for (const url of urls) assert.equal(await statusOf(url), 200);

    const later = await sweep(8);
    assert.ok(later.generations >= 1 && later.files >= 2, JSON.stringify(later));
    for (const url of urls) {
      const gone = await fetch(url);
      assert.equal(gone.status, 410);
      assert.equal(((await gone.json()) as { error: { code: string } }).error.code, 'gone');
    }
    const status = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${done.generation_id}/status`, {
      token: team.key,
    });
    assert.equal(status.status, 200, 'the record stays');
    assert.equal(status.body.status, 'completed');
    // A URL that never existed is still 404.
    assert.equal(await statusOf(`${urls[0]}x`), 404);
    // A second sweep finds nothing more to do.
    assert.equal((await sweep(8)).generations, 0);
  });

  test("an influencer's training results are kept: later work is made from them", async () => {
    const face = await image('a face to train on');
    const created = await call<{ influencer_id: string }>(server, 'POST', '/api/v1/influencers/create', {
      token: team.key,
      body: { image_urls: [face.result_urls[0]] },
    });
    assert.equal(created.status, 200, created.text);
    const ready = await waitForInfluencer(server, team.key, created.body.influencer_id);
    await sweep(400);
    assert.equal(await statusOf(ready.face_image), 200, 'the face stays');
    const generated = await call<{ generation_id: string }>(server, 'POST', '/api/v1/influencers/generate', {
      token: team.key,
      body: { influencer_id: created.body.influencer_id, prompt: 'at the harbour' },
    });
    assert.equal(generated.status, 200, generated.text);
    assert.equal((await waitForGeneration(server, team.key, generated.body.generation_id)).status, 'completed');
  });

  test('old webhook deliveries and idempotency keys are deleted; recent ones stay', async () => {
    const pool = server.app.deps.pool;
    const keyed = await call(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'keyed', batch: 1 },
      headers: { 'idempotency-key': 'retention-key-1' },
    });
    assert.equal(keyed.status, 200);
    const keys = async () =>
      Number((await pool.query('select count(*) from idempotency_keys where team_id = $1', [team.id])).rows[0].count);
    assert.equal(await keys(), 1);
    await deleteExpiredIdempotencyKeys(pool);
    assert.equal(await keys(), 1, 'a key younger than 24 h stays');
    await pool.query(`update idempotency_keys set created_at = now() - interval '25 hours' where team_id = $1`, [
      team.id,
    ]);
    await deleteExpiredIdempotencyKeys(pool);
    assert.equal(await keys(), 0);

    const done = await image('with a delivery');
    await pool.query(
      `insert into webhook_deliveries (id, team_id, generation_id, url, event_type, payload, state, updated_at)
       values ('whd_old', $1, $2, 'https://example.com/hook', 'generation.completed', '{}', 'delivered',
               now() - interval '31 days'),
              ('whd_new', $1, $2, 'https://example.com/hook', 'generation.failed', '{}', 'delivered', now())`,
      [team.id, done.generation_id],
    );
    await pool.query(
      `insert into webhook_attempts (delivery_id, attempt, status_code, duration_ms) values ('whd_old', 1, 200, 12)`,
    );
    // The item's vendor attempts: one finished long ago, one finished now, one still open.
    const item = (await pool.query('select id from generation_items where generation_id = $1', [done.generation_id]))
      .rows[0].id;
    await pool.query(
      `insert into item_attempts (item_id, generation_id, provider, endpoint, started_at, finished_at, outcome)
       values ($1, $2, 'fal', 'old', now() - interval '40 days', now() - interval '40 days', 'completed'),
              ($1, $2, 'fal', 'new', now(), now(), 'completed'),
              ($1, $2, 'fal', 'open', now() - interval '40 days', null, null)`,
      [item, done.generation_id],
    );
    // A queue job that ran out of attempts long ago, and one that did just now.
    const dead = async (key: string) =>
      (
        await pool.query(
          `select (graphile_worker.add_job('retention_probe', '{}'::json, job_key := $1, max_attempts := 1,
                                            run_at := now() + interval '1 year')).id`,
          [key],
        )
      ).rows[0].id as string;
    const oldJob = await dead('retention-old');
    const newJob = await dead('retention-new');
    await pool.query(
      `update graphile_worker._private_jobs set attempts = 1,
         updated_at = case when id = $1::bigint then now() - interval '31 days' else now() end
       where id = any($2::bigint[])`,
      [oldJob, [oldJob, newJob]],
    );
    const report = await sweep(0);
    assert.equal(report.deliveries, 1);
    assert.equal(report.attempts, 1);
    assert.equal(report.jobs, 1);
    const jobsLeft = await pool.query(
      'select id::text from graphile_worker._private_jobs where id = any($1::bigint[])',
      [[oldJob, newJob]],
    );
    assert.deepEqual(
      jobsLeft.rows.map((r: { id: string }) => r.id),
      [String(newJob)],
    );
    const left = await pool.query(`select id from webhook_deliveries where id in ('whd_old', 'whd_new')`);
    assert.deepEqual(
      left.rows.map((r: { id: string }) => r.id),
      ['whd_new'],
    );
    const attemptsLeft = await pool.query(
      `select count(*)::int as n from webhook_attempts where delivery_id = 'whd_old'`,
    );
    assert.equal(attemptsLeft.rows[0].n, 0, "the old delivery's attempts went with it");
    // (The simulator's attempt that made the item is recent: it stays, and is left out here.)
    const vendorAttempts = await pool.query(
      `select endpoint from item_attempts where item_id = $1 and provider = 'fal' order by endpoint`,
      [item],
    );
    assert.deepEqual(
      vendorAttempts.rows.map((r: { endpoint: string }) => r.endpoint),
      ['new', 'open'],
    );
  });
});

describe('retention set to 0', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ env: { MEDIA_RETENTION_DAYS: '0' } });
    team = await createTeam(server, 1000);
  });
  after(async () => {
    await server.close();
  });

  test('keeps files for good: no expires_at, and no sweep deletes them', async () => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'forever', batch: 1 },
    });
    const done = await waitForGeneration(server, team.key, r.body.generation_id);
    assert.equal(done.expires_at, null);
    const report = await sweepRetention(server.app.deps.pool, server.app.deps.storage, {
      now: new Date(Date.now() + 10_000 * DAY),
      recordsRetentionDays: 30,
    });
    assert.equal(report.generations, 0);
    assert.equal(await statusOf(done.result_urls[0] ?? ''), 200);
  });
});
