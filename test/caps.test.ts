// Caps on what one key can hold open: live-status streams per team and per process (429 with
// Retry-After past them, the place given back when a stream closes), desktop-project uploads at
// once per team, and the team's storage quota (413 past it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { type ClientRequest, request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { call, createTeam, sleep, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

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

const MiB = 1024 * 1024;

/**
 * The bytes of the largest file under `dir` (a file being written included) whose path has
 * `within` in it, 0 when there is none.
 */
async function largestFileUnder(dir: string, within = ''): Promise<number> {
  let largest = 0;
  try {
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !join(entry.parentPath, entry.name).includes(within)) continue;
      const size = await stat(join(entry.parentPath, entry.name)).then(
        (s) => s.size,
        () => 0,
      );
      largest = Math.max(largest, size);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return largest;
}

/** Waits until `ready()` holds, failing with `what` after `timeoutMs`. */
async function until(ready: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await ready()); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(what);
  }
}

/**
 * Uploads a file of `total` bytes (`head`, then zeros) as it is made, never whole in memory. After
 * `gateAt` bytes it waits for `gate` before sending the rest.
 */
async function streamedUpload(
  server: TestServer,
  key: string,
  projectId: string,
  file: { name: string; type: string; head: Buffer; total: number },
  gateAt: number,
  gate: () => Promise<void>,
): Promise<{ status: number; text: string }> {
  const boundary = `----caps${randomBytes(8).toString('hex')}`;
  const start = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
      `Content-Type: ${file.type}\r\n\r\n`,
  );
  const chunk = new Uint8Array(256 * 1024);
  let sent = 0;
  let gated = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(Buffer.concat([start, file.head])));
      sent = file.head.length;
    },
    async pull(controller) {
      if (!gated && sent >= gateAt) {
        gated = true;
        await gate();
      }
      if (sent >= file.total) {
        controller.enqueue(new Uint8Array(Buffer.from(`\r\n--${boundary}--\r\n`)));
        controller.close();
        return;
      }
      const n = Math.min(chunk.length, file.total - sent);
      controller.enqueue(chunk.slice(0, n));
      sent += n;
    },
  });
  const r = await fetch(`${server.url}/api/v1/desktop-projects/${projectId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: r.status, text: await r.text() };
}

async function uploadFile(server: TestServer, key: string, projectId: string, bytes: Buffer, name: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  const r = await fetch(`${server.url}/api/v1/desktop-projects/${projectId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: r.status, text: await r.text(), retryAfter: r.headers.get('retry-after') };
}

/** An MP4 file type box and nothing valid after it: accepted while streaming, refused by the structure check. */
const MP4_HEAD = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom\0\0\x02\0isomiso2', 'latin1')]);

describe('caps on desktop-project uploads', () => {
  let server: TestServer;
  let mediaRoot: string;

  before(async () => {
    server = await startTestServer({ env: { UPLOADS_MAX_CONCURRENT_PER_TEAM: '1', TEAM_STORAGE_QUOTA_MB: '1' } });
    mediaRoot = join(server.dataDir, 'media');
  });
  after(async () => {
    await server.close();
  });

  test('an upload streams into storage while it arrives, and a refused one leaves nothing stored', async () => {
    const team = await createTeam(server, 100);
    const total = 96 * MiB;
    const r = await streamedUpload(
      server,
      team.key,
      'streamed',
      { name: 'clip.mp4', type: 'video/mp4', head: MP4_HEAD, total },
      64 * MiB,
      // Two thirds sent: storage must hold most of it already, with the rest of the request still to come.
      () =>
        until(
          async () => (await largestFileUnder(mediaRoot, team.id)) >= 48 * MiB,
          'storage received nothing while the upload was arriving: the file is held in memory',
        ),
    );
    assert.equal(r.status, 422, r.text);
    assert.match(r.text, /media_rejected/);
    assert.equal(await largestFileUnder(mediaRoot, team.id), 0, 'the refused upload was removed from storage');
  });

  test('a team past its concurrent uploads is refused with 429 and Retry-After until one ends', async () => {
    const team = await createTeam(server, 100);
    const small = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    let second: Awaited<ReturnType<typeof uploadFile>> | undefined;
    const first = await streamedUpload(
      server,
      team.key,
      'busy',
      { name: 'clip.mp4', type: 'video/mp4', head: MP4_HEAD, total: 8 * MiB },
      4 * MiB,
      async () => {
        // The first upload is under way (its bytes are reaching storage): a second one is refused.
        await until(
          async () => (await largestFileUnder(mediaRoot, team.id)) >= MiB,
          'the first upload never reached storage',
        );
        second = await uploadFile(server, team.key, 'busy', small, 'small.png');
      },
    );
    assert.equal(first.status, 422, first.text);
    assert.equal(second?.status, 429, second?.text);
    assert.equal(JSON.parse(second?.text ?? '{}').error.code, 'rate_limited');
    assert.ok(Number(second?.retryAfter) > 0, `Retry-After: ${second?.retryAfter}`);
    const again = await uploadFile(server, team.key, 'busy', small, 'small.png');
    assert.equal(again.status, 200, again.text);
  });

  test("an upload or a push past the team's storage quota is 413, and what fits is taken", async () => {
    const team = await createTeam(server, 100);
    const other = await createTeam(server, 100);
    const push = (key: string, notes: string) =>
      call<{ version: number }>(server, 'POST', '/api/v1/desktop-projects', {
        token: key,
        body: { desktop_project_id: 'quota', payload: { storyboards: [], timelines: [], metadata: { notes } } },
      });
    const pushed = await push(team.key, 'n'.repeat(700 * 1024));
    assert.equal(pushed.status, 200, pushed.text);
    // Noise does not compress: about 470 KiB of PNG, which with the snapshot passes 1 MiB.
    const noise = await sharp(randomBytes(400 * 400 * 3), { raw: { width: 400, height: 400, channels: 3 } })
      .png()
      .toBuffer();
    assert.ok(noise.length > 400 * 1024, `${noise.length} bytes`);
    const refused = await uploadFile(server, team.key, 'quota', noise, 'noise.png');
    assert.equal(refused.status, 413, refused.text);
    assert.equal(JSON.parse(refused.text).error.code, 'payload_too_large');
    assert.match(refused.text, /storage quota/);
    assert.equal(await largestFileUnder(mediaRoot, team.id), 0, 'nothing of it is stored');
    const small = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#884422' } })
      .png()
      .toBuffer();
    const fits = await uploadFile(server, team.key, 'quota', small, 'small.png');
    assert.equal(fits.status, 200, fits.text);
    const tooMuch = await push(team.key, 'm'.repeat(400 * 1024));
    assert.equal(tooMuch.status, 413, tooMuch.text);
    assert.match(tooMuch.text, /storage quota/);
    // Another team's quota is its own.
    assert.equal((await uploadFile(server, other.key, 'quota', noise, 'noise.png')).status, 200);
  });

  test("a team's kept result files count towards its quota, to the byte", async () => {
    const team = await createTeam(server, 1000);
    const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dusk' },
    });
    assert.equal(created.status, 200, created.text);
    const done = await waitForGeneration(server, team.key, created.body.generation_id, 30_000);
    assert.equal(done.status, 'completed');
    const result = Buffer.from(await (await fetch(done.items[0]?.url ?? '')).arrayBuffer());
    assert.ok(result.length > 0);
    const quota = MiB;
    // A snapshot of `bytes` bytes as stored (its payload's JSON).
    const payloadOf = (bytes: number) => {
      const empty = JSON.stringify({ storyboards: [], timelines: [], metadata: { notes: '' } }).length;
      return { storyboards: [], timelines: [], metadata: { notes: 'r'.repeat(bytes - empty) } };
    };
    const push = (bytes: number) =>
      call(server, 'POST', '/api/v1/desktop-projects', {
        token: team.key,
        body: { desktop_project_id: 'results', payload: payloadOf(bytes) },
      });
    const over = await push(quota - result.length + 1);
    assert.equal(over.status, 413, `one byte past the quota with the result counted: ${over.text}`);
    const exact = await push(quota - result.length);
    assert.equal(exact.status, 200, exact.text);
  });
});
