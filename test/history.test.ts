// A team's history (GET /api/v1/generations): newest first, cursor pages without gaps or overlaps,
// filters, and only the team's own generations.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../src/lib/ids.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { type StatusRecord, waitForGeneration } from './media-helpers.ts';

interface Entry extends StatusRecord {
  operation: string;
  kind: string;
  model: string | null;
  workspace_id: string | null;
  prompt: string | null;
  created_at: string;
}
interface Page {
  data: Entry[];
  next_cursor: string | null;
}

describe('generation history', () => {
  let server: TestServer;
  let team: TeamFixture;
  let workspaceId: string;
  const made: string[] = [];

  before(async () => {
    server = await startTestServer();
    team = await createTeam(server, 100_000);
    const workspace = await call<{ id: string }>(server, 'POST', '/api/v1/workspaces', {
      token: team.key,
      body: { name: 'Campaign' },
    });
    assert.equal(workspace.status, 201, workspace.text);
    workspaceId = workspace.body.id;
    const post = async (path: string, body: Record<string, unknown>) => {
      const r = await call<{ generation_id: string }>(server, 'POST', path, { token: team.key, body });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      made.push(r.body.generation_id);
      return r.body.generation_id;
    };
    for (let i = 0; i < 12; i++) await post('/api/v1/images/generate', { prompt: `a lighthouse, take ${i}`, batch: 1 });
    await post('/api/v1/images/generate', { prompt: 'in the campaign', batch: 1, workspace_id: workspaceId });
    await post('/api/v1/images/generate', { prompt: `${'a very long prompt '.repeat(20)}end`, batch: 1 });
    await post('/api/v1/images/generate', { prompt: 'this one fails [simulate:fail]', batch: 1 });
    await post('/api/v1/text/generate', { prompt: 'Write a haiku about the sea.' });
    await post('/api/v2/text-to-speech', { voice_id: 'Wise_Woman', text: 'Spoken for the history.' });
    for (const id of made) await waitForGeneration(server, team.key, id);
  });
  after(async () => {
    await server.close();
  });

  const list = async (query: string, key = team.key) =>
    call<Page>(server, 'GET', `/api/v1/generations${query}`, { token: key });

  test('pages newest first, each generation once, until next_cursor is null', async () => {
    const seen: Entry[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof list>> = await list(`?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 5);
      seen.push(...page.body.data);
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 4);
    assert.deepEqual(
      seen.map((e) => e.generation_id),
      [...made].reverse(),
      'every generation, newest first, no gaps and no repeats',
    );
    const times = seen.map((e) => Date.parse(e.created_at));
    assert.deepEqual(
      [...times].sort((a, b) => b - a),
      times,
    );
  });

  test('each entry is the status record with what made it', async () => {
    const { body } = await list('?limit=100');
    const speech = body.data[0] as Entry;
    assert.equal(speech.operation, 'speech.tts');
    assert.equal(speech.kind, 'speech');
    assert.equal(speech.prompt, 'Spoken for the history.');
    assert.equal(speech.status, 'completed');
    assert.equal(speech.items.length, 1);
    assert.equal(speech.result_urls.length, 1);
    const status = await call<StatusRecord>(server, 'GET', `/api/v1/generations/${speech.generation_id}/status`, {
      token: team.key,
    });
    const { operation, kind, model, workspace_id, prompt, created_at, ...record } = speech;
    assert.deepEqual(record, status.body, 'the same status record the status endpoint gives');
    const long = body.data.find((e) => e.prompt?.startsWith('a very long prompt'));
    assert.equal(long?.prompt?.length, 200, 'an excerpt of the prompt');
    assert.equal(body.data.find((e) => e.prompt === 'Write a haiku about the sea.')?.kind, 'text');
  });

  test('filters: status, kind, operation, model, workspace and time', async () => {
    const failed = (await list('?status=failed')).body.data;
    assert.deepEqual(
      failed.map((e) => e.prompt),
      ['this one fails [simulate:fail]'],
    );
    const images = (await list('?kind=image&limit=100')).body.data;
    assert.equal(images.length, 15);
    assert.ok(images.every((e) => e.operation.startsWith('image.')));
    assert.equal((await list('?operation=text.generate')).body.data.length, 1);
    const someModel = images[0]?.model ?? '';
    const byModel = (await list(`?model=${encodeURIComponent(someModel)}&limit=100`)).body.data;
    assert.ok(byModel.length >= 1 && byModel.every((e) => e.model === someModel));
    const inWorkspace = (await list(`?workspace_id=${workspaceId}`)).body.data;
    assert.deepEqual(
      inWorkspace.map((e) => [e.prompt, e.workspace_id]),
      [['in the campaign', workspaceId]],
    );
    const all = (await list('?limit=100')).body.data;
    const middle = all[8] as Entry;
    const newer = (await list(`?created_after=${middle.created_at}&limit=100`)).body.data;
    const older = (await list(`?created_before=${middle.created_at}&limit=100`)).body.data;
    assert.ok(newer.every((e) => e.created_at > middle.created_at));
    assert.ok(older.every((e) => e.created_at < middle.created_at));
    assert.ok(newer.length + older.length <= all.length - 1);
    // A filter pages like the whole list.
    const first = await list('?kind=image&limit=10');
    const second = await list(`?kind=image&limit=10&cursor=${first.body.next_cursor}`);
    assert.equal(second.body.data.length, 5);
    assert.equal(second.body.next_cursor, null);
  });

  test('bad queries are 400 naming the field; another team sees none of it; no key is 401', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?status=done', 'status'],
      ['?kind=sculpture', 'kind'],
      ['?cursor=not-a-cursor', 'cursor'],
      [`?cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`, 'cursor'],
      // A date JavaScript rolls over (to March 1st) but PostgreSQL refuses.
      [`?cursor=${Buffer.from(`["2024-02-30T00:00:00.000000Z","${newId('gen')}"]`).toString('base64url')}`, 'cursor'],
      ['?created_after=last-week', 'created_after'],
    ] as const) {
      const r = await call<{ error: { code: string; details?: Array<{ field: string }> } }>(
        server,
        'GET',
        `/api/v1/generations${query}`,
        { token: team.key },
      );
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.ok(
        r.body.error.details?.some((d) => d.field === field),
        `${query}: ${r.text}`,
      );
    }
    const other = await createTeam(server, 10);
    assert.deepEqual((await list('', other.key)).body, { data: [], next_cursor: null });
    assert.equal((await call(server, 'GET', '/api/v1/generations')).status, 401);
  });
});
