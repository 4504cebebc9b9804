import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { routesTable, withTable } from '../src/cli/routes-table.ts';
import { launchChromium } from './browser-helpers.ts';
import { call, createTeam, startTestServer, type TestServer } from './helpers.ts';

type Schema = Record<string, unknown>;

interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

interface OpenApiOperation {
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, unknown>;
}

interface OpenApiDoc {
  openapi: string;
  info: { title: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
}

/** A schema with its `$ref` (to components.schemas) followed. */
function resolved(doc: OpenApiDoc, schema: unknown): Schema {
  const s = (schema ?? {}) as Schema;
  const ref = typeof s.$ref === 'string' ? s.$ref : undefined;
  if (!ref) return s;
  const target = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  assert.ok(target, `unresolved ${ref}`);
  return resolved(doc, target);
}

/** Whether an example is given anywhere in a request body (the media type or any schema in it). */
function hasExample(doc: OpenApiDoc, value: unknown, depth = 0): boolean {
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  const node = resolved(doc, value);
  if ('example' in node || 'examples' in node) return true;
  return Object.values(node).some((child) => hasExample(doc, child, depth + 1));
}

/**
 * The request body the reference UI (Scalar) shows for a media type: its example, else one composed
 * from the schema by the UI's rules (every property that is not read-only or deprecated; a value's
 * `examples[0]`, `example`, `default`, `const` or first `enum`, else a placeholder of its type: ''
 * for strings, the minimum or 1 for numbers, true for booleans; the first branch of an anyOf that is
 * not null; `additionalProperty: 'anything'` where more properties are allowed).
 */
function shownBody(doc: OpenApiDoc, media: MediaType): unknown {
  if (media.example !== undefined) return media.example;
  if (media.examples) return Object.values(media.examples)[0]?.value;
  return composed(doc, media.schema, 0);
}

function composed(doc: OpenApiDoc, input: unknown, depth: number): unknown {
  const schema = resolved(doc, input);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (depth > 10) return null;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  const branch = branches?.map((b) => resolved(doc, b)).find((b) => b.type !== 'null');
  if (schema.properties || schema.type === 'object') {
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
      const p = resolved(doc, property);
      if (p.readOnly === true || p.deprecated === true) continue;
      const value = composed(doc, p, depth + 1);
      if (value !== undefined) body[name] = value;
    }
    const more = schema.additionalProperties;
    if (more === true || (typeof more === 'object' && more !== null)) {
      const open = more === true || Object.keys(more as object).length === 0;
      body.additionalProperty = open ? 'anything' : composed(doc, more, depth + 1);
    }
    const merged = branch ? composed(doc, branch, depth + 1) : undefined;
    return merged && typeof merged === 'object' ? { ...body, ...merged } : body;
  }
  if (branches) return branch ? composed(doc, branch, depth + 1) : null;
  if (schema.type === 'array' || schema.items) {
    const items = resolved(doc, schema.items);
    return Object.keys(items).length > 0 ? [composed(doc, items, depth + 1)] : [];
  }
  const type = Array.isArray(schema.type) ? (schema.type.includes('null') ? 'null' : schema.type[0]) : schema.type;
  switch (type) {
    case 'string':
      return schema.format === 'binary' ? '@filename' : '';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
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

  test('servers is the public base URL', async () => {
    const doc = (await call<OpenApiDoc>(server, 'GET', '/openapi.json')).body;
    assert.deepEqual(doc.servers, [{ url: server.url }]);
  });

  test('every example request body in the document is a valid request', async () => {
    const team = await createTeam(server, 100_000);
    const doc = (await call<OpenApiDoc>(server, 'GET', '/openapi.json')).body;
    const checked: string[] = [];
    const refused: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const media = op.requestBody?.content['application/json'];
        if (!media || !hasExample(doc, media)) continue;
        const body = shownBody(doc, media);
        const label = `${method.toUpperCase()} ${path} with ${JSON.stringify(body)}`;
        // A generation endpoint takes Prefer: dry-run: validated and priced, nothing made or charged.
        const generation = op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'prefer');
        const admin = op.security?.some((s) => 'adminToken' in s);
        const r = await call<{ error?: { code: string } }>(
          server,
          method.toUpperCase(),
          path.replace(/\{([^}]+)\}/g, (_m, name: string) => `${name}-unknown`),
          {
            token: admin ? server.adminToken : team.key,
            body,
            headers: generation ? { prefer: 'dry-run' } : {},
          },
        );
        const accepted = generation ? r.status === 200 : r.status !== 400 && r.status < 500;
        if (!accepted) refused.push(`${label}: ${r.status} ${r.text}`);
        checked.push(`${method} ${path}`);
      }
    }
    assert.deepEqual(refused, []);
    assert.ok(checked.length >= 6, `only ${checked.join(', ')}`);
  });

  test('the /docs page and what it loads come from this server only, without fonts from the internet', async () => {
    const html = await (await fetch(`${server.url}/docs/`)).text();
    const origin = new URL(server.url).origin;
    const foreign = [...html.matchAll(/https?:\/\/[^\s"'`<>)]+/g)]
      .map((m) => m[0])
      .filter((u) => !u.startsWith(origin));
    assert.deepEqual(foreign, [], 'the page names no other site');
    const config = JSON.parse(/createApiReference\('#app', (\{[\s\S]*?\})\)/.exec(html)?.[1] ?? '{}') as Schema;
    assert.equal(config.withDefaultFonts, false);
    assert.equal(config.telemetry, false);
    assert.equal(config.hideClientButton, true);
    assert.equal(config.showDeveloperTools, 'never');
    assert.deepEqual(config.agent, { disabled: true });
    assert.deepEqual(config.mcp, { disabled: true });

    // What a browser really fetches, the script's own requests included (fonts, chunks, telemetry).
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      await page.goto(`${server.url}/docs/`, { waitUntil: 'networkidle' });
      await page.getByText('Generative Media Service API').first().waitFor();
      // The request editor, opened as a reader would, sends to this server too.
      await page
        .getByRole('button', { name: /Test Request/ })
        .first()
        .click();
      await page.getByRole('button', { name: /^Send/ }).first().click();
      await page.waitForLoadState('networkidle');
      const elsewhere = requested.filter((u) => !u.startsWith(`${origin}/`));
      assert.deepEqual(elsewhere, [], 'everything the page loads comes from this server');
      assert.ok(requested.includes(`${origin}/docs/js/scalar.js`));
      assert.ok(requested.includes(`${origin}/openapi.json`));
      assert.ok(
        requested.some((u) => u.startsWith(`${origin}/api/`)),
        'Test Request calls this server',
      );
      // None of the buttons that lead to the UI vendor's hosted services.
      const buttons = await page.$$eval('button', (all) => all.map((b) => b.textContent?.trim() ?? ''));
      for (const hosted of ['Ask AI', 'Deploy', 'Share', 'Configure', 'Developer Tools', 'VS Code', 'Cursor']) {
        assert.ok(!buttons.includes(hosted), `no "${hosted}" button`);
      }
    } finally {
      await browser.close();
    }
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
