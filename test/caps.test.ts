// Caps on what one key can hold open: live-status streams per team and per process (429 with
// Retry-After past them, the place given back when a stream closes), desktop-project uploads at
// once per team, and the team's storage quota (413 past it).
import assert from 'node:assert/strict';
import { type ClientRequest, request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

/** A live-status stream as the client sees it: its status, and for a refusal its body and headers. */
interface OpenedStream {
  status: number;
  retryAfter: string | undefined;
  body: string;
  /** Resolves once the first event (the record) arrived. */
  firstEvent: Promise<void>;
  close(): void;
}

function openStream(server: TestServer, key: string, generationId: string): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined;
    req = request(
      `${server.url}/api/v1/generations/${generationId}/events`,
      { headers: { authorization: `Bearer ${key}` } },
      (res) => {
        let body = '';
        let sawEvent: () => void = () => undefined;
        const firstEvent = new Promise<void>((done) => {
          sawEvent = done;
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          if (body.includes('event: status')) sawEvent();
        });
        const opened: OpenedStream = {
          status: res.statusCode ?? 0,
          retryAfter: res.headers['retry-after'] as string | undefined,
          get body() {
            return body;
          },
          firstEvent,
          close: () => req?.destroy(),
        };
        if (opened.status === 200) resolve(opened);
        else res.on('end', () => resolve(opened));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('caps on live-status streams', () => {
  let server: TestServer;
  const teams: TeamFixture[] = [];
  const generations: string[] = [];

  before(async () => {
    // No worker: the generations stay queued, so their streams stay open.
    server = await startTestServer({
      worker: false,
      env: { EVENTS_MAX_STREAMS_PER_TEAM: '2', EVENTS_MAX_STREAMS: '3' },
    });
    for (let i = 0; i < 3; i++) {
      const team = await createTeam(server, 1000);
      const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt: 'a lighthouse' },
      });
      assert.equal(created.status, 200, created.text);
      teams.push(team);
      generations.push(created.body.generation_id);
    }
  });
  after(async () => {
    await server.close();
  });

  const open = async (i: number) => {
    const stream = await openStream(server, teams[i]?.key ?? '', generations[i] ?? '');
    if (stream.status === 200) await stream.firstEvent;
    return stream;
  };
  /** Opens a stream once a place is free again (the server learns of a closed stream when its socket closes). */
  const openWhenFree = async (i: number) => {
    for (const deadline = Date.now() + 10_000; ; await sleep(20)) {
      const stream = await open(i);
      if (stream.status === 200) return stream;
      assert.equal(stream.status, 429, stream.body);
      if (Date.now() > deadline) throw new Error('the place of the closed stream was never given back');
    }
  };

  test('a team past its stream cap is refused with 429 and Retry-After, and a closed stream frees its place', async () => {
    const first = await open(0);
    const second = await open(0);
    assert.deepEqual([first.status, second.status], [200, 200]);
    const third = await open(0);
    assert.equal(third.status, 429, third.body);
    assert.equal(JSON.parse(third.body).error.code, 'rate_limited');
    assert.match(third.body, /live-status streams/);
    assert.ok(Number(third.retryAfter) > 0, `Retry-After: ${third.retryAfter}`);
    first.close();
    const again = await openWhenFree(0);
    second.close();
    again.close();
  });

  test('the process cap holds across teams, and is freed the same way', async () => {
    const held = [await openWhenFree(0), await openWhenFree(0), await openWhenFree(1)];
    assert.ok(held.every((s) => s.status === 200));
    // Team 2 holds no stream, but the process holds its most.
    const refused = await open(2);
    assert.equal(refused.status, 429, refused.body);
    assert.equal(JSON.parse(refused.body).error.code, 'rate_limited');
    assert.ok(Number(refused.retryAfter) > 0);
    held[2]?.close();
    const admitted = await openWhenFree(2);
    for (const stream of [...held, admitted]) stream.close();
  });
});
