// Live status over Server-Sent Events (GET /api/v1/generations/{id}/events): the record at once and
// on every change (a change made by another connection included: PostgreSQL notifies), the end
// after the terminal record, keep-alive comments, Last-Event-ID, and a listening connection that is
// lost and comes back.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import type { StatusRecord } from './media-helpers.ts';

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** An open event stream: its events and comments as they come, and whether it ended. */
interface Stream {
  status: number;
  events: SseEvent[];
  comments: string[];
  retry?: number;
  ended: Promise<void>;
  close(): void;
  /** Waits until `n` events arrived. */
  next(n: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Waits until the latest event's record satisfies `done`; answers that record. */
  until(done: (record: StatusRecord) => boolean, timeoutMs?: number): Promise<StatusRecord>;
}

function open(server: TestServer, path: string, headers: Record<string, string>): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers }, (res) => {
      const stream: Stream = {
        status: res.statusCode ?? 0,
        events: [],
        comments: [],
        ended: new Promise((done) => res.on('close', () => done())),
        close: () => req.destroy(),
        async next(n, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          while (stream.events.length < n) {
            if (Date.now() > deadline) throw new Error(`only ${stream.events.length} of ${n} events arrived`);
            await sleep(10);
          }
          return stream.events.slice(0, n);
        },
        async until(done, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const last = stream.events.at(-1);
            if (last && done(recordOf(last))) return recordOf(last);
            if (Date.now() > deadline) throw new Error(`no event matched in ${stream.events.length} events`);
            await sleep(10);
          }
        },
      };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
            else if (line.startsWith('retry: ')) stream.retry = Number(line.slice(7));
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) event.data = line.slice(6);
          }
          if (event.data !== undefined) stream.events.push(event);
        }
      });
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}

const recordOf = (event: SseEvent | undefined) => JSON.parse(event?.data ?? 'null') as StatusRecord;

describe('live status', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '400', EVENTS_KEEP_ALIVE_MS: '1000' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
  });

  const auth = () => ({ authorization: `Bearer ${team.key}` });
  const images = async (batch: number, prompt = 'a lighthouse') => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt, batch },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.generation_id;
  };

  test('the record at once, then on each change, ending after the terminal one', async () => {
    const id = await images(3);
    const stream = await open(server, `/api/v1/generations/${id}/events`, auth());
    assert.equal(stream.status, 200);
    await stream.ended;
    assert.equal(stream.retry, 2000);
    assert.ok(stream.events.length >= 2, `${stream.events.length} events`);
    for (const event of stream.events) {
      assert.equal(event.event, 'status');
      assert.match(event.id ?? '', /^[A-Za-z0-9_-]{22}$/);
    }
    const records = stream.events.map(recordOf);
    assert.equal(records.at(-1)?.status, 'completed');
    assert.equal(records.at(-1)?.completed_items, 3);
    assert.ok(
      records.slice(0, -1).every((r) => r.status !== 'completed'),
      'only the last is terminal',
    );
    const completed = records.map((r) => r.completed_items);
    assert.deepEqual([...completed].sort(), completed, 'counts only grow');
    assert.equal(new Set(stream.events.map((e) => e.id)).size, stream.events.length, 'no record twice');
    const status = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${id}/status`, { token: team.key });
    assert.deepEqual(records.at(-1), status.body, 'the last event is the status record');
  });

  test('a finished generation gives its record and ends; Last-Event-ID of that record gives nothing', async () => {
    const id = await images(1);
    const first = await open(server, `/api/v1/generations/${id}/events`, auth());
    await first.ended;
    const last = first.events.at(-1);
    assert.equal(recordOf(last).status, 'completed');
    const again = await open(server, `/api/v1/generations/${id}/events`, auth());
    await again.ended;
    assert.deepEqual(again.events, [last], 'a finished generation: its record, then the end');
    const resumed = await open(server, `/api/v1/generations/${id}/events`, {
      ...auth(),
      'last-event-id': last?.id ?? '',
    });
    await resumed.ended;
    assert.deepEqual(resumed.events, [], 'nothing missed, nothing sent');
  });

  test('a client that reconnects with Last-Event-ID misses nothing', async () => {
    const id = await images(2, 'resume me');
    const first = await open(server, `/api/v1/generations/${id}/events`, auth());
    const [seen] = await first.next(1);
    first.close();
    // While it is away the work moves on (or ends).
    await sleep(600);
    const resumed = await open(server, `/api/v1/generations/${id}/events`, {
      ...auth(),
      'last-event-id': seen?.id ?? '',
    });
    await resumed.ended;
    assert.ok(resumed.events.length >= 1, 'what changed while away is sent at once');
    assert.notEqual(resumed.events[0]?.id, seen?.id);
    assert.equal(recordOf(resumed.events.at(-1)).status, 'completed');
  });

  test('work waiting behind its team cap is told each new place in the queue', async () => {
    const capped = await createTeam(server, 1000);
    const patched = await call(server, 'PATCH', `/admin/v1/teams/${capped.id}`, {
      token: server.adminToken,
      body: { max_concurrent_items: 1 },
    });
    assert.equal(patched.status, 200, patched.text);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: capped.key,
        body: { prompt: `in line ${n}`, batch: 1 },
      });
      assert.equal(r.status, 200, r.text);
      ids.push(r.body.generation_id);
    }
    const stream = await open(server, `/api/v1/generations/${ids[2]}/events`, {
      authorization: `Bearer ${capped.key}`,
    });
    await stream.ended;
    const records = stream.events.map(recordOf);
    const places = records.map((r) => (r.status === 'queued' ? r.items[0]?.queue_position : r.status));
    // It may open after the first place was given; every place after it is told, in order.
    const from = places.indexOf(1) >= 0 && !places.includes(2) ? places.indexOf(1) : places.indexOf(2);
    assert.ok(from >= 0, `no place was told: ${JSON.stringify(places)}`);
    assert.deepEqual(
      places.slice(from).filter((p, i, all) => p !== all[i - 1]),
      [...(places[from] === 2 ? [2] : []), 1, 'processing', 'completed'],
      JSON.stringify(places),
    );
  });

  test("another team's generation is 404, and no key is 401", async () => {
    const id = await images(1, 'mine');
    const other = await createTeam(server, 10);
    const foreign = await call(server, 'GET', `/api/v1/generations/${id}/events`, { token: other.key });
    assert.equal(foreign.status, 404);
    assert.equal((await call(server, 'GET', `/api/v1/generations/${id}/events`)).status, 401);
  });
});

// No worker here: nothing moves but what the test changes through its own database connection, as
// another process would.
describe('live status of changes made elsewhere', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ worker: false, env: { EVENTS_KEEP_ALIVE_MS: '1000' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
  });

  const auth = () => ({ authorization: `Bearer ${team.key}` });
  const queued = async (batch: number) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'parked', batch },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.generation_id;
  };
  const sql = (text: string, values: unknown[]) => server.app.deps.pool.query(text, values);
  /** Its item as a worker elsewhere would have it: running (a queued item shows no progress). */
  const running = async (id: string) => {
    await sql(`update generation_items set status = 'PROCESSING' where generation_id = $1`, [id]);
  };

  test('each change another connection commits is an event: progress, status, counters', async () => {
    const id = await queued(2);
    const stream = await open(server, `/api/v1/generations/${id}/events`, auth());
    assert.equal(recordOf((await stream.next(1))[0]).status, 'queued');
    await sql(`update generation_items set status = 'PROCESSING' where generation_id = $1 and position = 0`, [id]);
    await sql(`update generations set status = 'processing' where id = $1`, [id]);
    // The two commits are one event or two, as the notifications happen to be read together or not.
    await stream.until((r) => r.status === 'processing' && r.items[0]?.status === 'PROCESSING');
    await sql(`update generation_items set progress = 0.42 where generation_id = $1 and position = 0`, [id]);
    const latest = await stream.until((r) => r.items[0]?.progress === 0.42);
    assert.equal(latest.status, 'processing');
    const seen = stream.events.length;
    // What the status record does not show (a lease) is no event.
    await sql(`update generation_items set lease_expires_at = now() + interval '1 minute' where generation_id = $1`, [
      id,
    ]);
    await sleep(300);
    assert.equal(stream.events.length, seen);
    stream.close();
  });

  test('an idle stream gets keep-alive comments', async () => {
    const id = await queued(1);
    const stream = await open(server, `/api/v1/generations/${id}/events`, auth());
    // One a second: two within ten (a busy machine may deliver them late, never not at all).
    const keepAlives = () => stream.comments.filter((c) => c === 'keep-alive').length;
    for (const started = Date.now(); keepAlives() < 2 && Date.now() - started < 10_000; ) await sleep(50);
    assert.ok(keepAlives() >= 2, stream.comments.join(','));
    stream.close();
    await stream.ended;
  });

  test('the stream survives losing its listening connection: changes made meanwhile still arrive', async () => {
    const id = await queued(1);
    await running(id);
    const stream = await open(server, `/api/v1/generations/${id}/events`, auth());
    await stream.next(1);
    // This server's listening connection only: other test files share the PostgreSQL server.
    await sql(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = $1 and datname = current_database()`,
      ['genmedia-events'],
    );
    await sql(`update generation_items set progress = 0.7 where generation_id = $1`, [id]);
    const events = await stream.next(2, 15_000);
    assert.equal(recordOf(events[1]).items[0]?.progress, 0.7);
    stream.close();
  });

  test('many watchers of one generation each get each change', async () => {
    const id = await queued(1);
    await running(id);
    const streams = await Promise.all(
      Array.from({ length: 50 }, () => open(server, `/api/v1/generations/${id}/events`, auth())),
    );
    await Promise.all(streams.map((s) => s.next(1)));
    await sql(`update generation_items set progress = 0.5 where generation_id = $1`, [id]);
    const seconds = await Promise.all(streams.map((s) => s.next(2)));
    assert.ok(seconds.every((events) => recordOf(events[1]).items[0]?.progress === 0.5));
    for (const s of streams) s.close();
  });
});
