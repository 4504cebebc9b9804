// The margin report through the whole service: jobs run on fake vendors (test/fakes/) that report
// what they cost the way the real vendors do (OpenRouter's usage.cost, ElevenLabs' x-character-count,
// Meshy's consumed_credits) or not at all (fal, priced by the operator's VENDOR_UNIT_PRICES_USD),
// and the report's figures are checked against what the fakes reported.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Browser } from './console-helpers.ts';
import { type FakeElevenLabs, startFakeElevenLabs } from './fakes/elevenlabs.ts';
import { type FakeFal, startFakeFal } from './fakes/fal.ts';
import { type FakeMeshy, startFakeMeshy } from './fakes/meshy.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { type FakeReplicate, startFakeReplicate } from './fakes/replicate.ts';
import { type FakeSuno, startFakeSuno } from './fakes/suno.ts';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { type ErrorReply, waitForGeneration } from './media-helpers.ts';

interface MarginRow {
  key: string;
  generations: number;
  credits: number;
  revenue_usd: number | null;
  vendor_cost_usd: number;
  margin_usd: number | null;
  unpriced_attempts: number;
}
interface MarginReport {
  credit_value_usd: number | null;
  rows: MarginRow[];
  negative: MarginRow[];
}

const CREDIT_VALUE_USD = 0.01;
const USD_PER_1K_CHARS = 0.3;
const MESHY_USD_PER_CREDIT = 1;
const SCHNELL_USD = 0.003;
const SONG_USD = 0.06;
const TEXT_MODEL = 'openai/gpt-4o-mini';
const VOICE = 'JBFqnCBsd6RMkjVDRZzb';

const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} is not ${b}`);

describe('the margin report', () => {
  let fal: FakeFal;
  let chat: FakeOpenAiCompatible;
  let el: FakeElevenLabs;
  let meshy: FakeMeshy;
  let suno: FakeSuno;
  let server: TestServer;
  let studio: TeamFixture;
  let agency: TeamFixture;
  const from = new Date(Date.now() - 60_000).toISOString();
  let to: string;
  /** Each generation run: its team, model, net credits and what its vendors reported it cost. */
  const runs: Array<{ team: string; model: string; vendor: string; credits: number; cost: number | null }> = [];

  before(async () => {
    [fal, chat, el, meshy, suno] = await Promise.all([
      startFakeFal(),
      startFakeOpenAiCompatible({ apiKey: 'sk-or-1' }),
      startFakeElevenLabs(),
      startFakeMeshy(),
      startFakeSuno(),
    ]);
    server = await startTestServer({
      env: {
        ...fal.env,
        // OpenRouter's path: its answers carry usage.cost (US dollars).
        OPENAI_COMPATIBLE_BASE_URL: `${chat.url}/api/v1`,
        OPENAI_COMPATIBLE_API_KEY: 'sk-or-1',
        OPENAI_COMPATIBLE_MODELS: JSON.stringify({ [TEXT_MODEL]: 'openai/gpt-4o-mini' }),
        ELEVENLABS_API_KEY: el.apiKey,
        ELEVENLABS_BASE_URL: el.url,
        ELEVENLABS_VOICE_MAP: JSON.stringify({ Wise_Woman: VOICE }),
        ELEVENLABS_USD_PER_1K_CHARS: String(USD_PER_1K_CHARS),
        MESHY_API_KEY: meshy.apiKey,
        MESHY_BASE_URL: meshy.url,
        MESHY_USD_PER_CREDIT: String(MESHY_USD_PER_CREDIT),
        SUNO_API_KEY: suno.apiKey,
        SUNO_BASE_URL: suno.url,
        // fal and Suno report no cost: the operator's price per completed job.
        VENDOR_UNIT_PRICES_USD: JSON.stringify({ 'fal fal-ai/flux/schnell': SCHNELL_USD, 'suno V4_5PLUS': SONG_USD }),
        CREDIT_VALUE_USD: String(CREDIT_VALUE_USD),
        VENDOR_POLL_MIN_MS: '100',
        VENDOR_POLL_MAX_MS: '1000',
      },
    });
    studio = await createTeam(server, 100_000, 'studio');
    agency = await createTeam(server, 100_000, 'agency');

    const creditsOf = async (team: TeamFixture, id: string) =>
      (await waitForGeneration(server, team.key, id, 60_000)).credits_used;
    // The model a generation is recorded under (speech is recorded under its TTS model).
    const modelOf = async (id: string) =>
      (await server.pool.query<{ model: string | null }>('select model from generations where id = $1', [id])).rows[0]
        ?.model ?? '(none)';

    // Text on OpenRouter: its usage.cost.
    for (const prompt of ['A fox in one line.', 'A heron in two lines, please.']) {
      const text = await call<{ generation_id: string }>(server, 'POST', '/api/v1/text/generate', {
        token: studio.key,
        body: { prompt, model: TEXT_MODEL, settings: { max_tokens: 200 } },
      });
      assert.equal(text.status, 200, text.text);
      const cost = chat.answers.at(-1)?.usage?.cost;
      assert.equal(typeof cost, 'number');
      runs.push({
        team: studio.id,
        model: TEXT_MODEL,
        vendor: 'openai-compatible',
        credits: await creditsOf(studio, text.body.generation_id),
        cost: cost as number,
      });
    }

    // A 3D preview on Meshy: its consumed_credits at $1 a credit, far above the 8 credits it sells for.
    const model3d = await call<{ generation_id: string }>(server, 'POST', '/api/v1/models-3d/generate', {
      token: studio.key,
      body: { prompt: 'a brass lantern', model: 'meshy-5', settings: { mode: 'preview' } },
    });
    assert.equal(model3d.status, 200, model3d.text);
    runs.push({
      team: studio.id,
      model: 'meshy-5',
      vendor: 'meshy',
      credits: await creditsOf(studio, model3d.body.generation_id),
      cost: 5 * MESHY_USD_PER_CREDIT,
    });

    // Speech on ElevenLabs: the characters it counted at the plan rate.
    const speech = await call<{ generation_id: string }>(server, 'POST', '/api/v2/text-to-speech', {
      token: agency.key,
      body: { voice_id: 'Wise_Woman', text: 'Good evening, and welcome to the show.' },
    });
    assert.equal(speech.status, 200, speech.text);
    const spoken = el.calls.filter((c) => c.path.startsWith('/v1/text-to-speech/')).at(-1);
    const characters = String(spoken?.body?.text ?? '').length;
    assert.ok(characters > 0);
    runs.push({
      team: agency.id,
      model: await modelOf(speech.body.generation_id),
      vendor: 'elevenlabs',
      credits: await creditsOf(agency, speech.body.generation_id),
      cost: (characters * USD_PER_1K_CHARS) / 1000,
    });

    // Images on fal: a priced endpoint (two images), and one with no unit price (cost unknown).
    for (const [model, count, cost] of [
      ['flux-1-schnell', 2, 2 * SCHNELL_USD],
      ['sdxl-lightning', 1, null],
    ] as const) {
      const image = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: agency.key,
        body: { prompt: 'a red fox in the snow', model, batch: count },
      });
      assert.equal(image.status, 200, image.text);
      runs.push({
        team: agency.id,
        model,
        vendor: 'fal',
        credits: await creditsOf(agency, image.body.generation_id),
        cost,
      });
    }
    // A song on Suno (sunoapi.org says no credits used): the operator's unit price per job.
    const song = await call<{ generation_id: string }>(server, 'POST', '/api/v1/music/generate', {
      token: agency.key,
      body: {
        title: 'Harbour Lights',
        style: 'warm indie folk',
        lyrics: '[Verse]\nThe boats come home',
        model: 'V4_5PLUS',
      },
    });
    assert.equal(song.status, 200, song.text);
    const sung = await waitForGeneration(server, agency.key, song.body.generation_id, 60_000);
    assert.equal(sung.status, 'completed', JSON.stringify(sung.items));
    runs.push({
      team: agency.id,
      model: 'V4_5PLUS',
      vendor: 'suno',
      credits: sung.credits_used,
      cost: sung.completed_items * SONG_USD,
    });
    to = new Date(Date.now() + 60_000).toISOString();
  });
  after(async () => {
    await server?.close();
    await Promise.all([fal?.close(), chat?.close(), el?.close(), meshy?.close(), suno?.close()]);
  });

  const report = (query: string) =>
    call<MarginReport>(server, 'GET', `/admin/v1/reports/margin?${query}`, { token: server.adminToken });

  /** What the report should say for each key, summed from the runs. */
  function expected(keyOf: (run: (typeof runs)[number]) => string) {
    const rows = new Map<string, { generations: number; credits: number; cost: number; unpriced: number }>();
    for (const run of runs) {
      const row = rows.get(keyOf(run)) ?? { generations: 0, credits: 0, cost: 0, unpriced: 0 };
      row.generations += 1;
      row.credits += run.credits;
      if (run.cost === null) row.unpriced += 1;
      else row.cost += run.cost;
      rows.set(keyOf(run), row);
    }
    return rows;
  }

  function check(body: MarginReport, keyOf: (run: (typeof runs)[number]) => string) {
    const want = expected(keyOf);
    assert.deepEqual(body.rows.map((r) => r.key).sort(), [...want.keys()].sort());
    for (const row of body.rows) {
      const w = want.get(row.key);
      assert.ok(w, row.key);
      assert.equal(row.generations, w.generations, row.key);
      close(row.credits, w.credits, `${row.key} credits`);
      close(row.vendor_cost_usd, w.cost, `${row.key} cost`);
      close(row.revenue_usd ?? Number.NaN, w.credits * CREDIT_VALUE_USD, `${row.key} revenue`);
      close(row.margin_usd ?? Number.NaN, w.credits * CREDIT_VALUE_USD - w.cost, `${row.key} margin`);
      assert.equal(row.unpriced_attempts, w.unpriced, `${row.key} unpriced attempts`);
    }
  }

  test('by model: the cost is what the vendors reported, revenue the net credits at the credit value', async () => {
    const r = await report(`from=${from}&to=${to}&group_by=model`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.credit_value_usd, CREDIT_VALUE_USD);
    check(r.body, (run) => run.model);
    const total = r.body.rows.reduce((sum, row) => sum + row.vendor_cost_usd, 0);
    const reported = runs.reduce((sum, run) => sum + (run.cost ?? 0), 0);
    close(total, reported, 'the whole cost');
    const lightning = r.body.rows.find((row) => row.key === 'sdxl-lightning');
    assert.equal(lightning?.unpriced_attempts, 1, 'an attempt of unknown cost is counted apart');
    assert.equal(lightning?.vendor_cost_usd, 0);
  });

  test('the rows whose margin is below 0 are listed as negative (a model sold below its vendor cost)', async () => {
    const r = await report(`from=${from}&to=${to}&group_by=model`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.negative.map((row) => row.key),
      r.body.rows.filter((row) => (row.margin_usd ?? 0) < 0).map((row) => row.key),
    );
    assert.ok(
      r.body.negative.some((row) => row.key === 'meshy-5'),
      JSON.stringify(r.body.negative),
    );
  });

  test('by vendor and by team', async () => {
    const byVendor = await report(`from=${from}&to=${to}&group_by=vendor`);
    assert.equal(byVendor.status, 200, byVendor.text);
    check(byVendor.body, (run) => run.vendor);
    const byTeam = await report(`from=${from}&to=${to}&group_by=team`);
    assert.equal(byTeam.status, 200, byTeam.text);
    check(byTeam.body, (run) => run.team);
  });

  test('a range with nothing in it has no rows; the range is [from, to)', async () => {
    const r = await report(`from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z&group_by=team`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.rows, []);
    assert.deepEqual(r.body.negative, []);
  });

  test('as CSV: a header row, then a row per key', async () => {
    const r = await report(`from=${from}&to=${to}&group_by=model&format=csv`);
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = r.text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'key,generations,credits,revenue_usd,vendor_cost_usd,margin_usd,unpriced_attempts');
    const json = await report(`from=${from}&to=${to}&group_by=model`);
    assert.equal(lines.length, json.body.rows.length + 1);
    const meshyLine = lines.find((line) => line.startsWith('meshy-5,'))?.split(',');
    const meshyRow = json.body.rows.find((row) => row.key === 'meshy-5');
    assert.deepEqual(meshyLine, [
      'meshy-5',
      String(meshyRow?.generations),
      String(meshyRow?.credits),
      String(meshyRow?.revenue_usd),
      String(meshyRow?.vendor_cost_usd),
      String(meshyRow?.margin_usd),
      String(meshyRow?.unpriced_attempts),
    ]);
  });

  test('the admin CLI prints the report as JSON, and as the same CSV with --csv', async () => {
    const env = { ...process.env, GMS_URL: server.url, ADMIN_TOKEN: server.adminToken };
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['src/cli/admin.ts', 'reports', 'margin', ...args], { env });
    const json = await cli('--from', from, '--to', to, '--group-by', 'vendor');
    const api = await report(`from=${from}&to=${to}&group_by=vendor`);
    assert.deepEqual(JSON.parse(json.stdout), api.body);
    const csv = await cli('--from', from, '--to', to, '--group-by', 'vendor', '--csv');
    assert.equal(csv.stdout, (await report(`from=${from}&to=${to}&group_by=vendor&format=csv`)).text);
    await assert.rejects(cli('--to', to), (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr, /--from is required/);
      return true;
    });
  });

  test('the operator console shows the report with a bar chart of revenue against cost per row', async () => {
    const browser = new Browser(server);
    assert.equal((await browser.signIn(server.adminToken)).status, 303);
    const day = (iso: string) => iso.slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const shown = await browser.request(
      'GET',
      `/console/operator/margin?from=${day(from)}&to=${day(tomorrow)}&group_by=model`,
    );
    assert.equal(shown.status, 200, shown.text);
    const json = await report(`from=${day(from)}&to=${day(tomorrow)}&group_by=model`);
    assert.equal(json.status, 200, json.text);
    for (const row of json.body.rows) {
      assert.match(shown.text, new RegExp(`<td>${row.key.replace(/[.]/g, '\\.')}</td>\\s*<td>${row.generations}</td>`));
      assert.match(shown.text, new RegExp(`<title>${row.key.replace(/[.]/g, '\\.')} revenue</title>`));
      assert.match(shown.text, new RegExp(`<title>${row.key.replace(/[.]/g, '\\.')} vendor cost</title>`));
    }
    assert.match(shown.text, /<svg id="margin-chart" role="img"/);
    assert.match(shown.text, /<p id="negative">Below cost: [^<]*<strong>meshy-5<\/strong>/);
    assert.match(shown.text, /One credit is worth \$0\.01\./);
    // A refused range is shown with the API's words, under its status.
    const refused = await browser.request('GET', `/console/operator/margin?from=${day(tomorrow)}&to=${day(from)}`);
    assert.equal(refused.status, 400);
    assert.match(refused.text, /must be after from/);
    // A team's session does not open it.
    const teamBrowser = new Browser(server);
    await teamBrowser.signIn(studio.key);
    const forbidden = await teamBrowser.request('GET', '/console/operator/margin');
    assert.notEqual(forbidden.status, 200);
  });

  test('bad input is 400 with the field named; the report is the admin’s only', async () => {
    const cases: Array<[string, string]> = [
      [`from=yesterday&to=${to}&group_by=model`, 'from'],
      [`from=${from}&to=2026-13-45&group_by=model`, 'to'],
      [`from=${to}&to=${from}&group_by=model`, 'to'],
      [`from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&group_by=model`, 'to'],
      [`from=${from}&to=${to}&group_by=workspace`, 'group_by'],
      [`to=${to}&group_by=model`, 'from'],
      [`from=${from}&to=${to}&format=xml`, 'format'],
    ];
    for (const [query, field] of cases) {
      const r = await call<ErrorReply>(server, 'GET', `/admin/v1/reports/margin?${query}`, {
        token: server.adminToken,
      });
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.ok(
        r.body.error.details?.some((d) => d.field.includes(field)) || r.body.error.message.includes(field),
        `${query}: ${r.text}`,
      );
    }
    const teamCall = await call(server, 'GET', `/admin/v1/reports/margin?from=${from}&to=${to}`, {
      token: studio.key,
    });
    assert.equal(teamCall.status, 401);
  });

  test('without CREDIT_VALUE_USD the cost stands and revenue and margin are null, none listed negative', async () => {
    const other = await startTestServer({
      databaseUrl: server.databaseUrl,
      adminToken: server.adminToken,
      worker: false,
    });
    try {
      const r = await call<MarginReport>(
        other,
        'GET',
        `/admin/v1/reports/margin?from=${from}&to=${to}&group_by=model`,
        {
          token: other.adminToken,
        },
      );
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.credit_value_usd, null);
      assert.ok(r.body.rows.length > 0);
      for (const row of r.body.rows) {
        assert.equal(row.revenue_usd, null);
        assert.equal(row.margin_usd, null);
      }
      close(r.body.rows.find((row) => row.key === 'meshy-5')?.vendor_cost_usd ?? 0, 5, 'meshy cost');
      assert.deepEqual(r.body.negative, []);
    } finally {
      await other.close();
    }
  });
});

describe('the margin of Replicate work', () => {
  let replicate: FakeReplicate;
  let server: TestServer;
  let team: TeamFixture;
  const H100_USD_PER_SECOND = 0.001525;

  before(async () => {
    replicate = await startFakeReplicate();
    server = await startTestServer({
      env: {
        REPLICATE_API_TOKEN: replicate.token,
        REPLICATE_BASE_URL: replicate.url,
        // FLUX dev with a LoRA runs on an H100; SDXL's hardware is not named (its cost is unknown).
        REPLICATE_MODEL_HARDWARE: JSON.stringify({ 'black-forest-labs/flux-dev-lora': 'gpu-h100' }),
        CREDIT_VALUE_USD: '0.005',
        VENDOR_POLL_MIN_MS: '100',
        VENDOR_POLL_MAX_MS: '1000',
      },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server?.close();
    await replicate?.close();
  });

  test('a prediction costs its predict time at its hardware’s price; one on unnamed hardware is unpriced', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const credits: Record<string, number> = {};
    for (const [model, batch] of [
      ['flux-1-dev', 3],
      ['sdxl', 1],
    ] as const) {
      const created = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
        token: team.key,
        body: { prompt: 'a lighthouse at dusk', model, batch },
      });
      assert.equal(created.status, 200, created.text);
      const done = await waitForGeneration(server, team.key, created.body.generation_id, 60_000);
      assert.equal(done.status, 'completed', JSON.stringify(done.items));
      credits[model] = done.credits_used;
    }
    assert.deepEqual(
      replicate.submissions.map((s) => s.path).sort(),
      [
        '/v1/models/black-forest-labs/flux-dev-lora/predictions',
        '/v1/models/black-forest-labs/flux-dev-lora/predictions',
        '/v1/models/black-forest-labs/flux-dev-lora/predictions',
        '/v1/predictions',
      ],
      'every image went to Replicate',
    );
    const to = new Date(Date.now() + 60_000).toISOString();
    const r = await call<MarginReport>(server, 'GET', `/admin/v1/reports/margin?from=${from}&to=${to}&group_by=model`, {
      token: server.adminToken,
    });
    assert.equal(r.status, 200, r.text);
    const flux = r.body.rows.find((row) => row.key === 'flux-1-dev');
    // The fake's predictions each say metrics.predict_time 1.25 s.
    close(flux?.vendor_cost_usd ?? Number.NaN, 3 * 1.25 * H100_USD_PER_SECOND, 'flux cost');
    assert.equal(flux?.unpriced_attempts, 0);
    close(
      flux?.margin_usd ?? Number.NaN,
      (credits['flux-1-dev'] ?? 0) * 0.005 - 3 * 1.25 * H100_USD_PER_SECOND,
      'flux margin',
    );
    const sdxl = r.body.rows.find((row) => row.key === 'sdxl');
    assert.equal(sdxl?.vendor_cost_usd, 0);
    assert.equal(sdxl?.unpriced_attempts, 1);
    const attempts = await call<Array<{ cost: number | null }>>(
      server,
      'GET',
      `/admin/v1/generations/${(await server.pool.query<{ id: string }>("select id from generations where model = 'sdxl'")).rows[0]?.id}/attempts`,
      { token: server.adminToken },
    );
    assert.deepEqual(
      attempts.body.map((a) => a.cost),
      [null],
      'an unknown cost is recorded as null, never 0',
    );
  });
});
