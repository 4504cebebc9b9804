// Every POST of the public API, fed wrong input: none may answer 5xx, and none may charge.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, concretePath, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}

/** Values of the wrong type (or shape) for a schema, to put in a field. */
function wrongValues(schema: Schema): unknown[] {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const values: unknown[] = [null, { nested: { deeper: [1, 2, 3] } }];
  if (type !== 'string') values.push('text', '\u0000', 'x'.repeat(5000));
  if (type !== 'number' && type !== 'integer') values.push(-1, 1e308, 3.5);
  if (type !== 'boolean') values.push(true);
  if (type !== 'array') values.push([]);
  if (type === 'array') values.push(['not-a-url', 42], Array(500).fill('x'));
  if (type === 'string') values.push('');
  return values;
}

describe('wrong input never produces a 5xx', () => {
  let server: TestServer;
  let team: TeamFixture;
  before(async () => {
    server = await startTestServer({ env: { ALLOW_PRIVATE_URLS: 'false' } });
    team = await createTeam(server, 5000);
  });
  after(() => server.close());

  test('every POST route, every field, wrong types and shapes', async () => {
    const doc = (await call<OpenApi>(server, 'GET', '/openapi.json')).body;
    const posts = server.routes.filter((r) => r.method === 'POST' && r.url.startsWith('/api/'));
    assert.ok(posts.length >= 20, `only ${posts.length} POST routes`);
    let requests = 0;
    for (const route of posts) {
      const path = concretePath(route.url);
      const openApiPath = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const schema = doc.paths[openApiPath]?.post?.requestBody?.content?.['application/json']?.schema ?? {};
      const bodies: unknown[] = [{}, [], 'text', 42, null];
      for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
        for (const value of wrongValues(fieldSchema)) bodies.push({ [field]: value });
      }
      for (const body of bodies) {
        const r = await call(server, 'POST', path, {
          token: team.key,
          body: body === null ? undefined : body,
          raw: body === null ? 'null' : undefined,
          headers: { 'content-type': 'application/json' },
        });
        requests++;
        assert.ok(
          r.status < 500,
          `${route.url} ${JSON.stringify(body)?.slice(0, 200)} → ${r.status} ${r.text.slice(0, 300)}`,
        );
        assert.ok((r.body as { error?: unknown }).error || r.status < 300, `${route.url}: not an error body`);
      }
    }
    assert.ok(requests > 300);
    assert.equal((await call(server, 'GET', '/api/v1/billing/credits', { token: team.key })).body, 5000);
  });
});
