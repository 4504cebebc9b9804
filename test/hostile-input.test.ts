// Inputs that once answered 500 or made the server work hard: each is a clear 400 that writes and
// charges nothing, and answers small.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { scanJsonText } from '../src/lib/json-scan.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type ErrorReply } from './media-helpers.ts';

/** `{"a":{"a":…}}` nested `depth` levels deep (the outer object counts as one). */
function nested(depth: number, leaf = '1'): string {
  return `${'{"a":'.repeat(depth - 1)}{"a":${leaf}}${'}'.repeat(depth - 1)}`;
}

/** A server and a team with 1,000 credits for one describe block, and a raw JSON POST. */
function serverWithTeam() {
  const s = {} as { server: TestServer; team: TeamFixture };
  before(async () => {
    s.server = await startTestServer();
    s.team = await createTeam(s.server, 1000);
  });
  after(() => s.server.close());
  const post = (path: string, raw: string, headers: Record<string, string> = {}) =>
    call<ErrorReply>(s.server, 'POST', path, {
      token: s.team.key,
      raw,
      headers: { 'content-type': 'application/json', ...headers },
    });
  return { s, post };
}

describe('hostile JSON bodies', () => {
  const { s, post } = serverWithTeam();

  const generations = async () => {
    const { rows } = await s.server.pool.query<{ n: number }>(
      'select count(*)::int as n from generations where team_id = $1',
      [s.team.id],
    );
    return rows[0]?.n ?? 0;
  };

  /** Asserts a 400 invalid_request whose message matches, with nothing written or charged. */
  const refusedWithNothingWritten = async (reply: Awaited<ReturnType<typeof post>>, message: RegExp) => {
    assert.equal(reply.status, 400, reply.text);
    assert.equal(reply.body.error.code, 'invalid_request');
    assert.match(reply.body.error.message, message);
    assert.equal(await balanceOf(s.server, s.team.key), 1000);
    assert.equal(await generations(), 0);
  };

  test('a lone surrogate in a prompt is 400, escaped high, escaped low or at the end', async () => {
    for (const prompt of ['a\\ud800b', 'a\\udc00b', 'end\\ud83d', '\\ud83d\\u0041']) {
      const r = await post('/api/v1/images/generate', `{"prompt":"${prompt}"}`);
      await refusedWithNothingWritten(r, /unpaired UTF-16 surrogate/);
    }
  });

  test('a valid surrogate pair (an emoji, escaped or not) is accepted and stored intact', async () => {
    const escaped = await post('/api/v1/images/generate', '{"prompt":"cat \\ud83d\\ude00 escaped"}');
    assert.equal(escaped.status, 200, escaped.text);
    const raw = await post('/api/v1/images/generate', JSON.stringify({ prompt: 'cat 😀 raw' }));
    assert.equal(raw.status, 200, raw.text);
    const { rows } = await s.server.pool.query<{ prompt: string }>(
      `select input->>'prompt' as prompt from generations where team_id = $1 order by created_at`,
      [s.team.id],
    );
    assert.deepEqual(
      rows.map((r) => r.prompt),
      ['cat 😀 escaped', 'cat 😀 raw'],
    );
  });
});

describe('nesting and size limits', () => {
  const { s, post } = serverWithTeam();

  test('an unknown field nested 4,000 deep with an Idempotency-Key is 400, not a stack overflow', async () => {
    const r = await post('/api/v1/images/generate', `{"prompt":"x","extra":${nested(4000)}}`, {
      'idempotency-key': 'deep-1',
    });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.error.message, /nesting is deeper than the limit of 64 levels/);
    const { rows } = await s.server.pool.query('select 1 from idempotency_keys where key = $1', ['deep-1']);
    assert.equal(rows.length, 0, 'no claim was written');
  });

  test('desktop-project metadata nested 10,000 deep is 400, and exactly the limit is accepted', async () => {
    const push = (metadataDepth: number) =>
      post(
        '/api/v1/desktop-projects',
        `{"desktop_project_id":"deep","payload":{"storyboards":[],"timelines":[],"metadata":${nested(metadataDepth)}}}`,
      );
    const deep = await push(10_000);
    assert.equal(deep.status, 400, deep.text);
    assert.equal(deep.body.error.code, 'invalid_request');
    // The body itself and payload are two levels: metadata may take the other 62.
    const limit = await push(62);
    assert.equal(limit.status, 200, limit.text);
    const over = await push(63);
    assert.equal(over.status, 400, over.text);
    assert.match(over.body.error.message, /deeper than the limit of 64 levels/);
  });

  test('a body nested 500,000 deep is refused before it is parsed', async () => {
    const started = Date.now();
    const r = await post('/api/v1/images/generate', `${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.error.message, /nesting/);
    assert.ok(Date.now() - started < 2000);
  });

  test('thousands of bad fields answer at most 20 details, saying how many more there were', async () => {
    const urls = Array.from({ length: 12_000 }, (_, i) => `not a url ${i}`);
    const r = await call<ErrorReply>(s.server, 'POST', '/api/v1/images/generate', {
      token: s.team.key,
      body: { prompt: 'x', images: urls },
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.details?.length, 20);
    assert.match(r.body.error.message, /\(and \d+ more problems not listed\)$/);
    assert.ok(r.text.length < 8192, `the answer is ${r.text.length} bytes`);
    assert.equal(await balanceOf(s.server, s.team.key), 1000);
  });

  test('an escaped NUL is still refused, and an escaped backslash before u0000 is not a NUL', async () => {
    const nul = await post('/api/v1/images/generate', '{"prompt":"a\\u0000b"}');
    assert.equal(nul.status, 400);
    assert.match(nul.body.error.message, /NUL/);
    const literal = await post('/api/v1/images/generate', '{"prompt":"a\\\\u0000b"}');
    assert.equal(literal.status, 200, literal.text);
  });
});

describe('the JSON pre-scan', () => {
  test('tracks depth outside strings only, and pairs surrogates', () => {
    assert.equal(scanJsonText('{"a":"[[[[[[[[[["}', 2), undefined);
    assert.match(scanJsonText('[[[]]]', 2) ?? '', /deeper than the limit of 2/);
    assert.equal(scanJsonText('[[1],[2],[3]]', 2), undefined);
    assert.equal(scanJsonText('"\\\\ud800"', 8), undefined, 'an escaped backslash, then text');
    assert.equal(scanJsonText('"\\"\\ud83d\\ude00"', 8), undefined);
    assert.match(scanJsonText('"\\ud83d\\n"', 8) ?? '', /unpaired/);
    assert.match(scanJsonText(`"${String.fromCharCode(0xd800)}x"`, 8) ?? '', /unpaired/);
  });
});
