// No simulated result is sold as real: once a vendor is configured, or on a deployment with its
// own database, a model no configured vendor serves is refused before any charge (503
// model_unavailable) and listed as unavailable, unless the operator lets the simulator serve it
// (SIMULATOR_MODELS, PROVIDERS=simulator); what the simulator made says so in its status record.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { Browser } from './console-helpers.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call, createTeam, createTestDatabase, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { waitForGeneration } from './media-helpers.ts';

interface ListEntry {
  id: string;
  kind: string;
  default: boolean;
  available: boolean;
  simulator: boolean;
}

interface ErrorAnswer {
  error: { code: string; message: string };
}

const TEXT_MODEL = 'openai/gpt-4o-mini';

/** What the team's rows come to: its balance, its ledger rows and its generations. */
async function footprint(server: TestServer, team: TeamFixture) {
  const balance = await call<number>(server, 'GET', '/api/v1/billing/credits', { token: team.key });
  assert.equal(balance.status, 200, balance.text);
  const ledger = await server.pool.query('select 1 from credit_ledger where team_id = $1', [team.id]);
  const generations = await server.pool.query('select 1 from generations where team_id = $1', [team.id]);
  return { balance: balance.body, ledger: ledger.rowCount, generations: generations.rowCount };
}

async function defaultModel(server: TestServer, team: TeamFixture, kind: string): Promise<ListEntry> {
  const list = await call<{ data: ListEntry[] }>(server, 'GET', `/api/v1/models?kind=${kind}`, { token: team.key });
  assert.equal(list.status, 200, list.text);
  const entry = list.body.data.find((e) => e.default) ?? list.body.data[0];
  assert.ok(entry, `a ${kind} model`);
  return entry;
}

/** Asserts an answer is the refusal of `model`, and that nothing was written or charged. */
async function assertRefused(
  server: TestServer,
  team: TeamFixture,
  before: Awaited<ReturnType<typeof footprint>>,
  answer: { status: number; body: unknown; text: string },
  model: string,
) {
  assert.equal(answer.status, 503, answer.text);
  const { error } = answer.body as ErrorAnswer;
  assert.equal(error.code, 'model_unavailable');
  assert.match(error.message, new RegExp(model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.deepEqual(await footprint(server, team), before);
}

test('the simulator serves everything on the local start, and only what the operator allows elsewhere', () => {
  assert.deepEqual(loadConfig({}).providers.simulator, { all: true, models: [] });
  assert.deepEqual(loadConfig({ FAL_KEY: 'k' }).providers.simulator, { all: false, models: [] });
  const production = { DATABASE_URL: 'postgres://db/genmedia', PAYMENT_PROVIDER: 'builtin' };
  assert.deepEqual(loadConfig(production).providers.simulator, { all: false, models: [] });
  assert.equal(loadConfig({ ...production, PROVIDERS: 'simulator' }).providers.simulator.all, true);
  assert.equal(loadConfig({ ...production, SIMULATOR_MODELS: '*' }).providers.simulator.all, true);
  assert.deepEqual(
    loadConfig({ FAL_KEY: 'k', SIMULATOR_MODELS: 'image:flux-dev, kling-2.6,text:openai/gpt-4o-mini' }).providers
      .simulator,
    { all: false, models: ['image:flux-dev', 'kling-2.6', 'text:openai/gpt-4o-mini'] },
  );
  assert.throws(() => loadConfig({ SIMULATOR_MODELS: 'image:flux dev' }), /SIMULATOR_MODELS/);
});

describe('with a vendor configured and no simulator allowance', () => {
  let chat: FakeOpenAiCompatible;
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    chat = await startFakeOpenAiCompatible({ apiKey: 'sk-local-1' });
    server = await startTestServer({
      env: {
        SIMULATOR_MODELS: '',
        ...chat.env({ [TEXT_MODEL]: 'llama3.2:3b' }),
      },
    });
    team = await createTeam(server, 10_000);
  });
  after(async () => {
    await server.close();
    await chat.close();
  });

  test('a model only the simulator could serve is refused before any charge, naming the model', async () => {
    const image = await defaultModel(server, team, 'image');
    const before = await footprint(server, team);
    const answer = await call(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dawn', model: image.id },
    });
    await assertRefused(server, team, before, answer, image.id);
    // The synchronous speech endpoint (its preset voice has no configured route here) likewise.
    const speech = await call(server, 'POST', '/api/v2/text-to-speech', {
      token: team.key,
      body: { text: 'Hello there.', voice_id: 'Wise_Woman' },
    });
    await assertRefused(server, team, before, speech, 'Wise_Woman');
  });

  test('a quote and a dry run say the model is unavailable', async () => {
    const image = await defaultModel(server, team, 'image');
    const before = await footprint(server, team);
    const quote = await call(server, 'POST', '/api/v1/quote', {
      token: team.key,
      body: { endpoint: '/api/v1/images/generate', body: { prompt: 'a lighthouse', model: image.id } },
    });
    await assertRefused(server, team, before, quote, image.id);
    const dryRun = await call(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      headers: { prefer: 'dry-run' },
      body: { prompt: 'a lighthouse', model: image.id },
    });
    await assertRefused(server, team, before, dryRun, image.id);
  });

  test('the OpenAI-compatible door refuses it too, without a charge', async () => {
    const image = await defaultModel(server, team, 'image');
    const before = await footprint(server, team);
    const answer = await call<{ error: { code: string; message: string } }>(server, 'POST', '/v1/images/generations', {
      token: team.key,
      body: { prompt: 'a lighthouse', model: image.id },
    });
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.body.error.code, 'model_unavailable');
    assert.match(answer.body.error.message, new RegExp(image.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(answer.headers.get('x-should-retry'), 'false');
    assert.deepEqual(await footprint(server, team), before);
  });

  test('the model list marks what no vendor serves unavailable, and what a vendor serves available', async () => {
    const list = await call<{ data: ListEntry[] }>(server, 'GET', '/api/v1/models', { token: team.key });
    assert.equal(list.status, 200, list.text);
    const images = list.body.data.filter((e) => e.kind === 'image');
    assert.ok(images.length > 0);
    for (const entry of images) assert.equal(entry.available, false, entry.id);
    const text = list.body.data.find((e) => e.kind === 'text' && e.id === TEXT_MODEL);
    assert.equal(text?.available, true);
    assert.equal(text?.simulator, false);
    // The OpenAI-compatible door lists only what can be made.
    const door = await call<{ data: Array<{ id: string }> }>(server, 'GET', '/v1/models', { token: team.key });
    assert.equal(door.status, 200, door.text);
    const doorIds = door.body.data.map((m) => m.id);
    assert.ok(doorIds.includes(TEXT_MODEL), TEXT_MODEL);
    for (const entry of images) assert.ok(!doorIds.includes(entry.id), entry.id);
    // Voices the service makes itself (a clone's profile) need no vendor.
    const clone = list.body.data.find((e) => e.id === 'voice-clone-v1');
    assert.equal(clone?.available, true);
  });

  test("the console's playground shows those models as unavailable and does not offer them", async () => {
    const image = await defaultModel(server, team, 'image');
    const browser = new Browser(server);
    assert.equal((await browser.signIn(team.key)).status, 303);
    const form = await browser.request('GET', '/console/playground/images-generate');
    assert.equal(form.status, 200);
    const option = new RegExp(
      `<option value="${image.id.replace(/[.]/g, '\\.')}" disabled>[^<]*· unavailable</option>`,
    );
    assert.match(form.text, option);
    const card = await browser.request('GET', `/console/playground/images-generate/model?model=${image.id}`);
    assert.equal(card.status, 200);
    assert.match(card.text, /Unavailable: no provider configured on this service serves it/);
  });

  test("the service's own work is not refused: a voice it designs, and speech in that voice", async () => {
    const voice = await call<{ voice_id: string }>(server, 'POST', '/api/v1/voices/generate', {
      token: team.key,
      body: { method: 'design', prompt: 'a calm narrator', name: 'Own Narrator' },
    });
    assert.equal(voice.status, 200, voice.text);
    const speech = await call<{ audio_url: string }>(server, 'POST', '/api/v2/text-to-speech', {
      token: team.key,
      body: { text: 'Spoken by the service itself.', voice_id: voice.body.voice_id },
    });
    assert.equal(speech.status, 200, speech.text);
  });

  test('a model a vendor serves still runs there', async () => {
    const answer = await call<{ text: string }>(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Say hello.', model: TEXT_MODEL, settings: { max_tokens: 50 } },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(chat.submissions.length, 1);
  });
});

describe('on a deployment with its own database and no vendor', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    // startTestServer always sets DATABASE_URL; no SIMULATOR_MODELS: the production default.
    server = await startTestServer({ env: { SIMULATOR_MODELS: '' } });
    team = await createTeam(server, 10_000);
  });
  after(() => server.close());

  test('every vendor model is refused before any charge and listed unavailable', async () => {
    const video = await defaultModel(server, team, 'video');
    assert.equal(video.available, false);
    const before = await footprint(server, team);
    const answer = await call(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: { prompt: 'waves on a beach', model: video.id },
    });
    await assertRefused(server, team, before, answer, video.id);
    const text = await defaultModel(server, team, 'text');
    const textAnswer = await call(server, 'POST', '/api/v1/text/generate', {
      token: team.key,
      body: { prompt: 'Say hello.', model: text.id },
    });
    await assertRefused(server, team, before, textAnswer, text.id);
  });
});

describe('with a vendor configured and the simulator allowed for one model', () => {
  let server: TestServer;
  let team: TeamFixture;
  let allowed: string;

  before(async () => {
    // The image catalog's default model, read from the local start's list.
    const probe = await startTestServer({ worker: false });
    const probeTeam = await createTeam(probe, 10);
    allowed = (await defaultModel(probe, probeTeam, 'image')).id;
    await probe.close();
    server = await startTestServer({
      env: { SIMULATOR_MODELS: `image:${allowed}`, OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    team = await createTeam(server, 10_000);
  });
  after(() => server.close());

  test('the allowed model runs on the simulator, charged, and its status says provider simulator', async () => {
    const entry = await defaultModel(server, team, 'image');
    assert.equal(entry.id, allowed);
    assert.equal(entry.available, true);
    assert.equal(entry.simulator, true);
    const answer = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dawn', model: allowed },
    });
    assert.equal(answer.status, 200, answer.text);
    const status = (await waitForGeneration(server, team.key, answer.body.generation_id)) as unknown as {
      status: string;
      items: Array<{ status: string; provider: string | null }>;
    };
    assert.equal(status.status, 'completed');
    assert.deepEqual(
      status.items.map((i) => i.provider),
      ['simulator'],
    );
  });

  test("the operator's provider list shows the simulator serving only the allowed model", async () => {
    const list = await call<Array<{ id: string; routes: Array<{ kind: string; model: string }> }>>(
      server,
      'GET',
      '/admin/v1/providers',
      { token: server.adminToken },
    );
    assert.equal(list.status, 200, list.text);
    const simulator = list.body.find((p) => p.id === 'simulator');
    assert.deepEqual(
      simulator?.routes.map((r) => `${r.kind}:${r.model}`),
      [`image:${allowed}`],
    );
  });

  test('a model the allowance does not name is still refused', async () => {
    const video = await defaultModel(server, team, 'video');
    assert.equal(video.available, false);
    const before = await footprint(server, team);
    const answer = await call(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: { prompt: 'waves', model: video.id },
    });
    await assertRefused(server, team, before, answer, video.id);
  });
});

describe('with PROVIDERS=simulator', () => {
  let server: TestServer;
  let team: TeamFixture;

  before(async () => {
    server = await startTestServer({ env: { SIMULATOR_MODELS: '', PROVIDERS: 'simulator', FAL_KEY: 'unused' } });
    team = await createTeam(server, 10_000);
  });
  after(() => server.close());

  test('everything runs on the simulator and says so', async () => {
    const video = await defaultModel(server, team, 'video');
    assert.equal(video.available, true);
    assert.equal(video.simulator, true);
    const answer = await call<{ generation_id: string }>(server, 'POST', '/api/v1/videos/generate', {
      token: team.key,
      body: { prompt: 'waves on a beach', model: video.id },
    });
    assert.equal(answer.status, 200, answer.text);
    const status = (await waitForGeneration(server, team.key, answer.body.generation_id)) as unknown as {
      status: string;
      items: Array<{ provider: string | null }>;
    };
    assert.equal(status.status, 'completed');
    assert.equal(status.items[0]?.provider, 'simulator');
  });
});

describe('a model that loses its last route after its generation was accepted', () => {
  test('fails when a worker runs it, with the reason, and is refunded', async () => {
    const database = await createTestDatabase();
    // Accepted by a process that let the simulator serve everything, and ran none of it.
    const first = await startTestServer({ databaseUrl: database.url, worker: false });
    const team = await createTeam(first, 1000);
    const image = await defaultModel(first, team, 'image');
    const accepted = await call<{ generation_id: string }>(first, 'POST', '/api/v1/images/generate', {
      token: team.key,
      body: { prompt: 'a lighthouse at dawn', model: image.id },
    });
    assert.equal(accepted.status, 200, accepted.text);
    await first.close();
    // Run by a worker of a process the simulator may no longer serve it on.
    const second = await startTestServer({
      databaseUrl: database.url,
      adminToken: first.adminToken,
      env: { SIMULATOR_MODELS: '', OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    try {
      const status = (await waitForGeneration(second, team.key, accepted.body.generation_id)) as unknown as {
        status: string;
        credits_used: number;
        items: Array<{ status: string; error: string | null; provider: string | null }>;
      };
      assert.equal(status.status, 'failed');
      assert.equal(status.credits_used, 0);
      assert.match(status.items[0]?.error ?? '', new RegExp(`Model '${image.id}' \\(image\\) is not available`));
      assert.equal(status.items[0]?.provider, null);
      const balance = await call<number>(second, 'GET', '/api/v1/billing/credits', { token: team.key });
      assert.equal(balance.body, 1000);
    } finally {
      await second.close();
      await database.drop();
    }
  });
});
