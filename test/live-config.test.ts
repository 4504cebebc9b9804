// Live configuration: a model's price and availability, aliases and a team's model rules, changed
// through the admin API of one process and applied by another on the same database within a second
// (LISTEN/NOTIFY), each change an audit row; the catalog stays the base a fresh database uses.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';

interface Quote {
  credits: number;
}
interface ListEntry {
  id: string;
  kind: string;
  available: boolean;
  price: { credits: unknown };
  alias_of?: string;
}
interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}
interface LedgerEntry {
  amount: number;
  kind: string;
}

const MODEL = 'flux-1-dev'; // 4 credits an image in the catalog
const CATALOG_PRICE = 4;

describe('live configuration across two processes', () => {
  let a: TestServer;
  let b: TestServer;
  let team: TeamFixture;

  before(async () => {
    a = await startTestServer();
    b = await startTestServer({ databaseUrl: a.databaseUrl, adminToken: a.adminToken, worker: false });
    team = await createTeam(a, 1000);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const admin = <T = unknown>(method: string, path: string, body?: unknown) =>
    call<T>(a, method, path, { token: a.adminToken, ...(body === undefined ? {} : { body }) });
  const image = (server: TestServer, who: TeamFixture, model: string, dryRun = false) =>
    call<{ credits_used: number; generation_id: string; credits: number }>(server, 'POST', '/api/v1/images/generate', {
      token: who.key,
      body: { prompt: 'a lighthouse at dusk', model },
      ...(dryRun ? { headers: { prefer: 'dry-run' } } : {}),
    });
  const quote = async (server: TestServer, who: TeamFixture, model: string) => {
    const reply = await image(server, who, model, true);
    assert.equal(reply.status, 200, reply.text);
    return (reply.body as unknown as Quote).credits;
  };
  const ledger = async (who: TeamFixture) =>
    (await admin<LedgerEntry[]>('GET', `/admin/v1/teams/${who.id}/ledger`)).body;
  const models = async (server: TestServer, who: TeamFixture) =>
    (await call<{ data: ListEntry[] }>(server, 'GET', '/api/v1/models?kind=image', { token: who.key })).body.data;
  const auditCount = async () =>
    (await admin<{ data: AuditEntry[] }>('GET', '/admin/v1/audit?limit=100')).body.data.length;

  /** Waits (bounded) until `check` holds, and answers how long that took. */
  async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
    const started = performance.now();
    while (!(await check())) {
      if (performance.now() - started > ms * 3) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const took = performance.now() - started;
    assert.ok(await check(), `the change did not apply within ${ms * 3} ms`);
    return took;
  }

  test('a price set on A is what B quotes and charges next; a request accepted before keeps its price; null restores', async () => {
    assert.equal(await quote(b, team, MODEL), CATALOG_PRICE, 'a fresh database prices as the catalog');
    const first = await image(b, team, MODEL);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.credits_used, CATALOG_PRICE);

    const changed = await admin<{ price: unknown; catalog_price: unknown }>(
      'PATCH',
      `/admin/v1/models/image/${MODEL}`,
      {
        price: { credits_per_image: 9 },
      },
    );
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.price, { credits_per_image: 9 });
    assert.deepEqual(changed.body.catalog_price, { credits_per_image: CATALOG_PRICE });
    const took = await within(1000, async () => (await quote(b, team, MODEL)) === 9);
    assert.ok(took < 1000, `B applied the price in ${took} ms`);

    const next = await image(b, team, MODEL);
    assert.equal(next.status, 200, next.text);
    assert.equal(next.body.credits_used, 9);
    const charges = (await ledger(team)).filter((e) => e.amount < 0).map((e) => e.amount);
    assert.deepEqual(charges.sort(), [-4, -9].sort(), 'the earlier request keeps the price it was accepted with');
    const listed = (await models(b, team)).find((m) => m.id === MODEL);
    assert.equal(listed?.price.credits, 9, 'the model list shows the price charged');
    const contractList = await call<Array<{ id: string; category: string; price: unknown }>>(
      b,
      'GET',
      '/api/v1/models/images',
      {
        token: team.key,
      },
    );
    assert.deepEqual(
      contractList.body.find((m) => m.id === MODEL && m.category === 'image')?.price,
      { credits_per_image: 9 },
      'so does the contract list of image models',
    );

    const restored = await admin('PATCH', `/admin/v1/models/image/${MODEL}`, { price: null });
    assert.equal(restored.status, 200, restored.text);
    await within(1000, async () => (await quote(b, team, MODEL)) === CATALOG_PRICE);
  });

  test('available:false refuses the model before any charge and lists it unavailable; null brings it back', async () => {
    const other = await createTeam(a, 100);
    const off = await admin('PATCH', '/admin/v1/models/image/flux-1-schnell', { available: false });
    assert.equal(off.status, 200, off.text);
    await within(1000, async () => (await image(b, other, 'flux-1-schnell', true)).status === 503);
    const refused = await image(b, other, 'flux-1-schnell');
    assert.equal(refused.status, 503, refused.text);
    assert.equal((refused.body as unknown as { error: { code: string } }).error.code, 'model_unavailable');
    assert.deepEqual(
      await ledger(other),
      (await ledger(other)).filter((e) => e.amount > 0),
      'nothing charged',
    );
    assert.equal((await ledger(other)).length, 1, 'only the starting grant');
    assert.equal((await models(b, other)).find((m) => m.id === 'flux-1-schnell')?.available, false);

    assert.equal((await admin('PATCH', '/admin/v1/models/image/flux-1-schnell', { available: null })).status, 200);
    await within(1000, async () => (await image(b, other, 'flux-1-schnell', true)).status === 200);
  });

  test('an alias is accepted, charged as its model and listed beside it; it can be read, listed and removed', async () => {
    const other = await createTeam(a, 100);
    const put = await admin<{ alias: string; kind: string; model: string }>('PUT', '/admin/v1/aliases/house-style', {
      kind: 'image',
      model: MODEL,
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual([put.body.alias, put.body.kind, put.body.model], ['house-style', 'image', MODEL]);
    await within(1000, async () => (await image(b, other, 'house-style', true)).status === 200);
    const made = await image(b, other, 'house-style');
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.credits_used, CATALOG_PRICE, 'priced as its model');
    const items = await a.pool.query<{ model: string }>('select model from generation_items where generation_id = $1', [
      made.body.generation_id,
    ]);
    assert.deepEqual(
      items.rows.map((r) => r.model),
      [MODEL],
      'run as its model',
    );
    const listed = (await models(b, other)).filter((m) => m.id === MODEL || m.id === 'house-style');
    assert.deepEqual(
      listed.map((m) => [m.id, m.alias_of ?? null]),
      [
        [MODEL, null],
        ['house-style', MODEL],
      ],
      'the alias is listed beside its model',
    );

    assert.equal((await admin('GET', '/admin/v1/aliases/house-style')).status, 200);
    const all = await admin<{ data: Array<{ alias: string }> }>('GET', '/admin/v1/aliases');
    assert.deepEqual(
      all.body.data.map((x) => x.alias),
      ['house-style'],
    );
    assert.equal((await admin('DELETE', '/admin/v1/aliases/house-style')).status, 204);
    assert.equal((await admin('GET', '/admin/v1/aliases/house-style')).status, 404);
    assert.equal((await admin('DELETE', '/admin/v1/aliases/house-style')).status, 404);
    await within(1000, async () => (await image(b, other, 'house-style', true)).status === 400);
  });

  test('a denied model, or one outside the allow list, is 403 for that team and absent from its list', async () => {
    const ruled = await createTeam(a, 100);
    const free = await createTeam(a, 100);
    const denied = await admin<{ denied_models: string[] }>('PATCH', `/admin/v1/teams/${ruled.id}`, {
      denied_models: ['image:flux-1-schnell'],
    });
    assert.equal(denied.status, 200, denied.text);
    assert.deepEqual(denied.body.denied_models, ['image:flux-1-schnell']);
    await within(1000, async () => (await image(b, ruled, 'flux-1-schnell', true)).status === 403);
    const refused = await image(b, ruled, 'flux-1-schnell');
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await ledger(ruled)).length, 1, 'nothing charged');
    assert.ok(!(await models(b, ruled)).some((m) => m.id === 'flux-1-schnell'), 'absent from its list');
    const contractList = await call<Array<{ id: string }>>(b, 'GET', '/api/v1/models/images', { token: ruled.key });
    assert.ok(!contractList.body.some((m) => m.id === 'flux-1-schnell'), 'and from the contract list');
    assert.ok(
      (await models(b, free)).some((m) => m.id === 'flux-1-schnell'),
      'other teams still see it',
    );
    assert.equal((await image(b, free, 'flux-1-schnell', true)).status, 200);

    const allowed = await admin('PATCH', `/admin/v1/teams/${ruled.id}`, {
      denied_models: [],
      allowed_models: [`image:${MODEL}`],
    });
    assert.equal(allowed.status, 200, allowed.text);
    await within(1000, async () => (await image(b, ruled, 'flux-1-krea-dev', true)).status === 403);
    assert.equal((await image(b, ruled, MODEL, true)).status, 200);
    const faces = await call(b, 'POST', '/api/v1/images/generate-face', {
      token: ruled.key,
      body: { prompt: 'a face', batch: 2 },
      headers: { prefer: 'dry-run' },
    });
    assert.equal(faces.status, 403, `no face model is open to the team: ${faces.text}`);
    assert.deepEqual(
      (await models(b, ruled)).map((m) => m.id),
      [MODEL],
    );
  });

  test('the price multiplier scales what the team is quoted and charged, rounded up to whole credits', async () => {
    const team2 = await createTeam(a, 100);
    const changed = await admin<{ price_multiplier: number }>('PATCH', `/admin/v1/teams/${team2.id}`, {
      price_multiplier: 1.1,
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.price_multiplier, 1.1);
    await within(1000, async () => (await quote(b, team2, MODEL)) === 5); // 4 × 1.1 = 4.4 → 5
    const made = await image(b, team2, MODEL);
    assert.equal(made.body.credits_used, 5);
    assert.deepEqual(
      (await ledger(team2)).filter((e) => e.amount < 0).map((e) => e.amount),
      [-5],
    );
    assert.equal(await quote(b, team, MODEL), CATALOG_PRICE, 'other teams pay list prices');

    // Text is settled to the tokens used after the answer: the settled charge is scaled alike.
    const text = (who: TeamFixture) =>
      call<{ credits_used: number }>(b, 'POST', '/api/v1/text/generate', {
        token: who.key,
        body: { prompt: 'Write a haiku about the sea.', settings: { max_tokens: 4000 } },
      });
    const listPrice = await text(team);
    const scaled = await text(team2);
    assert.equal(listPrice.status, 200, listPrice.text);
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.body.credits_used, Math.ceil(Math.round(listPrice.body.credits_used * 1.1 * 1e6) / 1e6));
    const spent = (await ledger(team2)).reduce(
      (sum, e) => sum + (e.amount < 0 || e.kind === 'refund' ? e.amount : 0),
      0,
    );
    assert.equal(spent, -5 - scaled.body.credits_used, 'the ledger holds the scaled charge, net of the refund');
  });

  test('bad bodies are 400 naming the field (unknown kinds and models 404), and write nothing', async () => {
    const count = await auditCount();
    const cases: Array<[string, string, unknown, number, string | undefined]> = [
      ['PATCH', `/admin/v1/models/image/${MODEL}`, { price: { credits_per_image: 0 } }, 400, 'price.credits_per_image'],
      ['PATCH', `/admin/v1/models/image/${MODEL}`, { price: { credits_per_second: 3 } }, 400, 'price'],
      ['PATCH', `/admin/v1/models/image/${MODEL}`, { price: { credits_per_image: 2, extra: 1 } }, 400, 'price'],
      ['PATCH', `/admin/v1/models/image/${MODEL}`, { available: 'no' }, 400, undefined],
      ['PATCH', `/admin/v1/models/image/${MODEL}`, { colour: 'red' }, 400, undefined],
      ['PATCH', `/admin/v1/models/image/${MODEL}`, {}, 400, undefined],
      ['PATCH', `/admin/v1/teams/${team.id}`, {}, 400, undefined],
      ['PATCH', '/admin/v1/models/image/no-such-model', { available: false }, 404, undefined],
      ['PATCH', '/admin/v1/models/hologram/x', { available: false }, 404, undefined],
      ['PUT', '/admin/v1/aliases/nice', { kind: 'image', model: 'no-such-model' }, 400, 'model'],
      ['PUT', '/admin/v1/aliases/nice', { kind: 'hologram', model: MODEL }, 400, 'kind'],
      ['PUT', `/admin/v1/aliases/${MODEL}`, { kind: 'image', model: 'flux-1-schnell' }, 400, 'alias'],
      ['PATCH', `/admin/v1/teams/${team.id}`, { price_multiplier: 0 }, 400, undefined],
      ['PATCH', `/admin/v1/teams/${team.id}`, { denied_models: ['image:no-such-model'] }, 400, 'denied_models.0'],
      ['PATCH', `/admin/v1/teams/${team.id}`, { allowed_models: ['flux-1-dev'] }, 400, undefined],
    ];
    for (const [method, path, body, statusCode, field] of cases) {
      const reply = await admin<{ error: { details?: Array<{ field: string }> } }>(method, path, body);
      assert.equal(reply.status, statusCode, `${method} ${path} ${JSON.stringify(body)}: ${reply.text}`);
      if (field) {
        assert.ok(
          reply.body.error.details?.some((d) => d.field === field || d.field.startsWith(`${field}.`)),
          `${JSON.stringify(body)} names ${field}: ${reply.text}`,
        );
      }
    }
    assert.equal(await auditCount(), count, 'no audit row');
    assert.equal((await admin('GET', '/admin/v1/aliases/nice')).status, 404);
    assert.equal(await quote(a, team, MODEL), CATALOG_PRICE);
  });

  test('every change is an audit row with before and after, newest first, paginated', async () => {
    const target = await createTeam(a, 10);
    await admin('PATCH', `/admin/v1/teams/${target.id}`, { price_multiplier: 2 });
    await admin('PATCH', `/admin/v1/teams/${target.id}`, { price_multiplier: 3 });
    const first = await admin<{ data: AuditEntry[]; next_cursor: string | null }>('GET', '/admin/v1/audit?limit=1');
    assert.equal(first.status, 200, first.text);
    const [newest] = first.body.data;
    assert.equal(newest?.actor, 'admin');
    assert.equal(newest?.action, 'team.update');
    assert.equal(newest?.target, `team:${target.id}`);
    assert.deepEqual(newest?.before, { price_multiplier: 2, allowed_models: [], denied_models: [] });
    assert.deepEqual(newest?.after, { price_multiplier: 3, allowed_models: [], denied_models: [] });
    assert.ok(first.body.next_cursor);
    const second = await admin<{ data: AuditEntry[]; next_cursor: string | null }>(
      'GET',
      `/admin/v1/audit?limit=1&cursor=${first.body.next_cursor}`,
    );
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.body.data[0]?.after, { price_multiplier: 2, allowed_models: [], denied_models: [] });
    assert.deepEqual(second.body.data[0]?.before, { price_multiplier: 1, allowed_models: [], denied_models: [] });

    // Walking every page gives every row once, newest first.
    const seen: AuditEntry[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: AuditEntry[]; next_cursor: string | null } } = await admin(
        'GET',
        `/admin/v1/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    assert.equal(new Set(seen.map((e) => e.id)).size, seen.length);
    assert.equal(seen.length, await auditCount());
    const times = seen.map((e) => e.at);
    assert.deepEqual(times, [...times].sort().reverse());
    assert.ok(seen.some((e) => e.action === 'model.update' && e.target === `image:${MODEL}`));
    assert.ok(seen.some((e) => e.action === 'alias.delete'));
    assert.equal((await admin('GET', '/admin/v1/audit?cursor=nonsense')).status, 400);
  });

  test('a process whose listening connection was lost listens again and catches up with what changed meanwhile', async () => {
    const killed = await a.pool.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'genmedia-live-config' and datname = current_database()`,
    );
    assert.ok(killed.rowCount && killed.rowCount >= 2, 'both processes listen');
    const changed = await admin('PATCH', `/admin/v1/models/image/${MODEL}`, { price: { credits_per_image: 6 } });
    assert.equal(changed.status, 200, changed.text);
    await within(2000, async () => (await quote(b, team, MODEL)) === 6);
    await within(2000, async () => {
      const { rows } = await a.pool.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where application_name = 'genmedia-live-config' and datname = current_database()`,
      );
      return rows[0]?.n === 2;
    });
    assert.equal((await admin('PATCH', `/admin/v1/models/image/${MODEL}`, { price: null })).status, 200);
    await within(1000, async () => (await quote(b, team, MODEL)) === CATALOG_PRICE);
  });

  test('the admin CLI sets a model, an alias and a team, and reads the audit', async () => {
    const cli = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['src/cli/admin.ts', ...args], {
        env: { ...process.env, GMS_URL: a.url, ADMIN_TOKEN: a.adminToken },
      });
      return JSON.parse(stdout) as Record<string, unknown> & { data: Array<Record<string, unknown>> };
    };
    const set = await cli(
      'models',
      'set',
      'music',
      'V4_5PLUS',
      '--price',
      '{"credits_per_track":7}',
      '--available',
      'false',
    );
    assert.deepEqual([set.price, set.available], [{ credits_per_track: 7 }, false]);
    const back = await cli('models', 'set', 'music', 'V4_5PLUS', '--price', 'catalog', '--available', 'catalog');
    assert.deepEqual(back.override, { price: null, available: null });
    assert.deepEqual(back.price, back.catalog_price);
    assert.equal((await cli('aliases', 'set', 'tunes', '--kind', 'music', '--model', 'V4_5PLUS')).model, 'V4_5PLUS');
    assert.equal((await cli('aliases', 'get', 'tunes')).kind, 'music');
    assert.ok((await cli('aliases', 'list')).data.some((x) => x.alias === 'tunes'));
    assert.equal((await cli('aliases', 'delete', 'tunes')).status, 204);
    const target = await createTeam(a, 10);
    const changed = await cli('teams', 'set', target.id, '--multiplier', '2', '--deny', 'music:V4_5PLUS');
    assert.deepEqual([changed.price_multiplier, changed.denied_models], [2, ['music:V4_5PLUS']]);
    const audit = await cli('audit', '--limit', '2');
    assert.deepEqual(
      audit.data.map((e) => e.action),
      ['team.update', 'alias.delete'],
    );
  });

  test("applying a document locks its teams' rows in the order batched accepts and settles lock them", async () => {
    const ids = [(await createTeam(a, 10)).id, (await createTeam(a, 10)).id].sort();
    const [low, high] = [ids[0] as string, ids[1] as string];
    const exported = await admin<{ teams: Record<string, unknown> }>('GET', '/admin/v1/config');
    // The document names the later team first.
    const document = {
      ...exported.body,
      teams: { [high]: { price_multiplier: 2 }, [low]: { price_multiplier: 2 }, ...exported.body.teams },
    };
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    const prober = new pg.Client({ connectionString: a.databaseUrl });
    await Promise.all([holder.connect(), prober.connect()]);
    try {
      await holder.query('begin');
      await holder.query('select 1 from teams where id = $1 for update', [low]);
      const applying = admin('POST', '/admin/v1/config/apply', { document });
      // The apply waits on the first team's row...
      for (;;) {
        const { rows } = await prober.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
        );
        if ((rows[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // ...without holding the second one's meanwhile (a batch locks them in this order too).
      await prober.query('begin');
      await prober.query('select 1 from teams where id = $1 for update nowait', [high]);
      await prober.query('rollback');
      await holder.query('commit');
      const applied = await applying;
      assert.equal(applied.status, 200, applied.text);
    } finally {
      await holder.end();
      await prober.end();
    }
  });
});
