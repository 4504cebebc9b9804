import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { routesTable, withTable } from '../src/cli/routes-table.ts';
import { call, createTeam, startTestServer, type TestServer } from './helpers.ts';

interface OpenApiDoc {
  openapi: string;
  info: { title: string };
  paths: Record<string, Record<string, { tags?: string[]; security?: unknown[]; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

describe('docs, health and metrics', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('documented defaults are the ones applied: influencers/create age 25', async () => {
    const doc = (await call<OpenApiDoc>(server, 'GET', '/openapi.json')).body;
    const op = doc.paths['/api/v1/influencers/create']?.post as unknown as {
      requestBody: {
        content: { 'application/json': { schema: { properties: Record<string, { default?: unknown }> } } };
      };
    };
    assert.equal(op.requestBody.content['application/json'].schema.properties.age?.default, 25);
  });

  test('GET /openapi.json is OpenAPI 3.1 and documents every route with its errors', async () => {
    const r = await call<OpenApiDoc>(server, 'GET', '/openapi.json');
    assert.equal(r.status, 200);
    const doc = r.body;
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.components.schemas.Error);
    assert.ok(doc.components.securitySchemes.apiKey && doc.components.securitySchemes.adminToken);
    const documented = server.routes.filter(
      (route) => route.url.startsWith('/api/') || route.url.startsWith('/admin/'),
    );
    assert.ok(documented.length > 10);
    for (const route of documented) {
      const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(op, `${route.method} ${route.url} is missing from the document`);
      assert.ok(op.responses['401'], `${route.method} ${route.url} does not document 401`);
      assert.ok(
        Object.keys(op.responses).some((s) => s.startsWith('2')),
        `${route.method} ${route.url} has no success response`,
      );
      if (route.auth === 'admin') {
        assert.deepEqual(op.tags, ['Admin']);
        assert.deepEqual(op.security, [{ adminToken: [] }]);
      } else {
        assert.deepEqual(op.security, [{ apiKey: [] }]);
      }
      // Team limits, and failed authentications from one address, for both APIs.
      assert.ok(op.responses['429'], `${route.method} ${route.url} does not document 429`);
      assert.ok(op.responses['503'], `${route.method} ${route.url} does not document 503`);
    }
  });

  test('the reference UI is served at /docs with its script', async () => {
    const page = await fetch(`${server.url}/docs/`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<html/i);
    const src = /<script src="([^"]+scalar\.js)"/.exec(html)?.[1];
    assert.ok(src, 'no script tag');
    const script = await fetch(new URL(src, `${server.url}/docs/`));
    assert.equal(script.status, 200);
    assert.ok((await script.arrayBuffer()).byteLength > 100_000);
    const bare = await fetch(`${server.url}/docs`, { redirect: 'manual' });
    assert.ok([200, 301, 302].includes(bare.status));
  });

  test('healthz and readyz answer without credentials', async () => {
    const health = await call<{ status: string }>(server, 'GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    const ready = await call<{ status: string }>(server, 'GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
  });

  test('metrics count requests and their latency by route pattern and status', async () => {
    const team = await createTeam(server, 5);
    for (let i = 0; i < 3; i++) await call(server, 'GET', '/api/v1/billing/credits', { token: team.key });
    await call(server, 'GET', '/api/v1/billing/credits');
    await call(server, 'GET', '/api/v1/workspaces/ws_unknown', { token: team.key });
    const r = await fetch(`${server.url}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
    const text = await r.text();
    assert.match(text, /http_requests_total\{method="GET",route="\/api\/v1\/billing\/credits",status="200"\} 3/);
    assert.match(text, /http_requests_total\{method="GET",route="\/api\/v1\/billing\/credits",status="401"\} 1/);
    assert.match(
      text,
      /http_requests_total\{method="GET",route="\/api\/v1\/workspaces\/:workspace_id",status="404"\} 1/,
    );
    assert.match(
      text,
      /http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v1\/billing\/credits",status="200"\} \d+/,
    );
    assert.ok(!text.includes('ws_unknown'), 'raw URLs must not become labels');
  });
});

test('docs/providers.md lists every catalog model with its routes in order, as the catalog has them', () => {
  const page = readFileSync(new URL('../docs/providers.md', import.meta.url), 'utf8');
  assert.equal(withTable(page, routesTable()), page, 'docs/providers.md is not current: run npm run docs:routes');
});
