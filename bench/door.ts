// `npm run bench:door`: the OpenAI-compatible door (POST /v1/chat/completions) next to Portkey's
// open-source gateway and the upstream called directly, in one run on one machine.
//
// Processes, each its own Node process on 127.0.0.1 with a clean environment:
//   - the upstream (bench/door-upstream.ts): an OpenAI-compatible chat server that answers at once
//     (`plain`), or makes its answer as 20 chunks 25 ms apart (`slow`: streamed as they are made
//     with `stream: true`, sent whole when the last one is made without it); every answer reports
//     the same usage, so each request's charge is known;
//   - Portkey's gateway (`@portkey-ai/gateway`, a devDependency: bench/portkey-gateway.ts, which
//     starts its build/start-server.js with one fix for streaming (read there), --port
//     --headless, NODE_ENV=production), sent to the upstream per request with its headers
//     `x-portkey-provider: openai` and `x-portkey-custom-host: <upstream>/v1`;
//   - the floor (bench/door-floor.ts): a raw node:http server that does only the database work of a
//     charged, recorded request (accept_generation, the upstream call, finish_item; no framework,
//     authentication, validation, tokenizer or stored file), on its own team;
//   - the service (src/server.ts, ROLE=all, on a real embedded PostgreSQL, one team and one API
//     key), its text route pointed at the upstream with the settings a user would set
//     (OPENAI_COMPATIBLE_BASE_URL, OPENAI_COMPATIBLE_API_KEY, OPENAI_COMPATIBLE_MODELS naming two
//     catalog models for the two forms), and ElevenLabs pointed at test/fakes/elevenlabs.ts
//     (ELEVENLABS_BASE_URL, ELEVENLABS_API_KEY, ELEVENLABS_VOICE_MAP).
//
// What is printed, for plain and streamed chat (`stream: true` with `stream_options.include_usage`
// on the slow form), for direct / Portkey / ours:
//   - latency of BENCH_DOOR_REQUESTS (default 300) sequential requests per side, the sides taking
//     turns request by request so that a change of the machine's load weighs on all alike: p50,
//     p99, and the overhead over the direct call (p50 − direct p50, p99 − direct p99); for the
//     streamed form also the time to the first byte of the body;
//   - requests per second at 16 connections for BENCH_DURATION seconds (default 10; autocannon,
//     after a 2 s warm-up; every answer must be a 2xx holding the whole answer);
//   - the ratios against the targets: our overhead p50 at most 1.5x Portkey's, our requests per
//     second at least 0.5x Portkey's, our streamed first byte within 5 ms of the direct call's.
// Then the floor, plain chat only, the same way (sequential requests in turn with direct ones, then
// 16 connections): what the database's work for each request costs by itself, next to Portkey's
// figures and ours (no target: it shows how much of our overhead is the database's); its team's
// generations are checked (each completed, charged and settled as the floor does, balance = ledger).
// Then speech (TTS v2) against the ElevenLabs-shaped fake: BENCH_DOOR_TTS_SAMPLES (default 300)
// sequential requests each to the fake directly, through the door (POST /v1/audio/speech, model
// tts-v2, the audio in the answer) and natively (POST /api/v2/text-to-speech), with the same
// overhead figures and target (overhead p50 at most 1.5x Portkey's plain chat overhead p50).
// Text that is not truly streamed by the door yet is simply measured as it is.
//
// At the end, the ledger: every generation of the team is settled, its ledger rows add up to its
// net charge, every chat generation that was answered is charged exactly what its model's price
// makes of the upstream's usage, every speech generation what the first one was, the upstream got
// exactly one call per chat generation (none for a request cut before its call), the balance equals the ledger's sum, and the team's history
// (GET /api/v1/generations, page by page) lists every generation. A request cut by the end of a
// load run may be settled otherwise (at most 16 per run); the report counts them. Any wrong answer
// or ledger fails the run; a missed target fails it too, except in quick mode.
//
// Environment: BENCH_DOOR_REQUESTS, BENCH_DOOR_TTS_SAMPLES, BENCH_DURATION; BENCH_QUICK=1: 5
// sequential requests and speech samples, load runs of 2 requests per connection
// without warm-up (checks that the bench works; see bench/lib.ts).
import { Agent, request as httpRequest } from 'node:http';
import pg from 'pg';
import { loadMediaCatalog } from '../src/catalog/media-models.ts';
import { tokenCredits } from '../src/lib/tokens.ts';
import { type FakeElevenLabs, startFakeElevenLabs } from '../test/fakes/elevenlabs.ts';
import { FLOOR_CHARGE, FLOOR_KEPT } from './door-floor.ts';
import { ANSWER, CHUNK_INTERVAL_MS, CHUNKS, COMPLETION_TOKENS, PROMPT_TOKENS } from './door-upstream.ts';
import {
  createTeamWithKey,
  durationSeconds,
  failUnlessTargetMet,
  load,
  onCleanup,
  POOL_SIZE,
  positiveIntEnv,
  prepareEnvironment,
  progress,
  QUICK,
  quantile,
  quick,
  type RunFigures,
  runBenchmark,
  type Server,
  startOurServer,
  startServer,
  waitUntilAnswering,
  waitUntilHealthy,
} from './lib.ts';

const SIDES = ['direct', 'portkey', 'ours'] as const;
type DoorSide = (typeof SIDES)[number];
const FORMS = ['plain', 'streamed'] as const;
type Form = (typeof FORMS)[number];

const CONNECTIONS = 16;
/** Seconds of load before each measured run (none in quick mode). */
const WARMUP_SECONDS = quick(0, 2);
const WARMUP_REQUESTS = quick(1, 20);
const UPSTREAM_KEY = 'sk-bench-upstream';
/** The catalog models the two forms are asked for through our door (priced, so a charge shows). */
const MODEL_OF: Record<Form, string> = { plain: 'anthropic/claude-opus-4.1', streamed: 'anthropic/claude-sonnet-4' };
/** The upstream's model names: its form (plain answers at once, slow over 20 chunks) @ the caller. */
const UPSTREAM_FORM: Record<Form, 'plain' | 'slow'> = { plain: 'plain', streamed: 'slow' };
const MAX_TOKENS = 4_000;
const PROMPT = 'Tell me about the lighthouse keeper and the lost whale.';
const TTS_TEXT = 'Good evening, and welcome to the lighthouse.';
const ELEVENLABS_VOICE = 'JBFqnCBsd6RMkjVDRZzb';
const TTS_VOICE = 'Wise_Woman';
const SETTLE_TIMEOUT_MS = 30_000;

const TARGET_OVERHEAD_RATIO = 1.5;
const TARGET_RPS_RATIO = 0.5;
const TARGET_FIRST_BYTE_MS = 5;

interface Target {
  server: Server;
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface Timed {
  status: number;
  firstByteMs: number;
  totalMs: number;
  body: Buffer;
  contentType: string;
}

const agents = new Map<string, Agent>();

/** One request on a kept-alive connection per origin: the time to the first byte of the body and to its end. */
function timed(baseUrl: string, path: string, headers: Record<string, string>, body: string): Promise<Timed> {
  let agent = agents.get(baseUrl);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.set(baseUrl, agent);
  }
  return new Promise((resolveTimed, reject) => {
    const start = performance.now();
    const req = httpRequest(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        let firstByteMs = -1;
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => {
          if (firstByteMs < 0) firstByteMs = performance.now() - start;
          parts.push(part);
        });
        res.on('end', () =>
          resolveTimed({
            status: res.statusCode ?? 0,
            firstByteMs,
            totalMs: performance.now() - start,
            body: Buffer.concat(parts),
            contentType: String(res.headers['content-type'] ?? ''),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The text of a chat answer: a chat.completion's message, or a stream's deltas (which must end with [DONE]). */
function answerText(form: Form, body: string): string | undefined {
  try {
    if (form === 'plain') {
      return (JSON.parse(body) as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message
        ?.content;
    }
    const events = body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    if (events.at(-1) !== '[DONE]') return undefined;
    return events
      .slice(0, -1)
      .map((e) => (JSON.parse(e) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content)
      .join('');
  } catch {
    return undefined;
  }
}

interface Stats {
  p50: number;
  p99: number;
  samples: number;
}

function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 100) / 100;
  return { p50: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)), samples: values.length };
}

/** Sequential requests to every side in turn; every answer is checked. */
async function sequential<S extends string>(
  sides: readonly S[],
  count: number,
  warmup: number,
  send: (side: S) => Promise<Timed>,
  check: (side: S, answer: Timed) => string | undefined,
): Promise<Record<S, Timed[]>> {
  const samples = Object.fromEntries(sides.map((s) => [s, [] as Timed[]])) as Record<S, Timed[]>;
  for (let i = -warmup; i < count; i++) {
    for (const side of sides) {
      const answer = await send(side);
      const problem = answer.status >= 200 && answer.status < 300 ? check(side, answer) : `status ${answer.status}`;
      if (problem) throw new Error(`${side}: ${problem}: ${answer.body.toString('utf8').slice(0, 500)}`);
      if (i >= 0) samples[side].push(answer);
    }
  }
  return samples;
}

interface FormResult {
  latency: Record<DoorSide, Stats>;
  firstByte: Record<DoorSide, Stats>;
  rps: Record<DoorSide, RunFigures>;
}

async function main(): Promise<void> {
  const requests = positiveIntEnv('BENCH_DOOR_REQUESTS', quick(5, 300));
  const ttsSamples = positiveIntEnv('BENCH_DOOR_TTS_SAMPLES', quick(5, 300));
  const seconds = durationSeconds();
  const media = loadMediaCatalog();
  const priceOf = (id: string) => {
    const model = media.text.find((m) => m.id === id);
    if (!model) throw new Error(`no text model ${id} in the catalog`);
    return tokenCredits(PROMPT_TOKENS, COMPLETION_TOKENS, model.price);
  };
  const expectedCharge: Record<string, number> = Object.fromEntries(
    Object.values(MODEL_OF).map((id) => [id, priceOf(id)]),
  );

  const env = await prepareEnvironment();
  const upstream = await startServer('upstream', 'bench/door-upstream.ts', {});
  const portkey = await startServer('portkey', 'bench/portkey-gateway.ts', { NODE_ENV: 'production' }, (port) => [
    `--port=${port}`,
    '--headless',
  ]);
  const el: FakeElevenLabs = await startFakeElevenLabs();
  onCleanup(() => el.close());
  // Ours is given the upstream's address: the upstream answers first (it may have moved to another
  // port if its first was taken).
  await waitUntilHealthy(upstream);
  const ours = await startOurServer(env, {
    role: 'all',
    env: {
      OPENAI_COMPATIBLE_BASE_URL: `${upstream.baseUrl}/v1`,
      OPENAI_COMPATIBLE_API_KEY: UPSTREAM_KEY,
      OPENAI_COMPATIBLE_MODELS: JSON.stringify({
        [MODEL_OF.plain]: `${UPSTREAM_FORM.plain}@ours`,
        [MODEL_OF.streamed]: `${UPSTREAM_FORM.streamed}@ours`,
      }),
      ELEVENLABS_API_KEY: el.apiKey,
      ELEVENLABS_BASE_URL: el.url,
      ELEVENLABS_VOICE_MAP: JSON.stringify({ [TTS_VOICE]: ELEVENLABS_VOICE }),
      ALLOW_PRIVATE_URLS: 'true',
      TEAM_MAX_CONCURRENT_ITEMS: '1000000',
    },
  });
  await Promise.all([waitUntilAnswering(portkey, '/'), waitUntilHealthy(ours)]);
  const startingCredits = 1_000_000_000;
  const { teamId, key } = await createTeamWithKey(ours, env.adminToken, 'bench door', startingCredits);
  const servers: Record<DoorSide, Server> = { direct: upstream, portkey, ours };
  const floorTeam = await createTeamWithKey(ours, env.adminToken, 'bench door floor', startingCredits);
  const floor = await startServer('floor', 'bench/door-floor.ts', {
    DATABASE_URL: env.databaseUrl,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    UPSTREAM_URL: upstream.baseUrl,
    FLOOR_TEAM_ID: floorTeam.teamId,
  });
  await waitUntilHealthy(floor);

  const target = (side: DoorSide, form: Form): Target => {
    const stream = form === 'streamed';
    const model = side === 'ours' ? MODEL_OF[form] : `${UPSTREAM_FORM[form]}@${side}`;
    const headers: Record<string, string> =
      side === 'ours'
        ? { authorization: `Bearer ${key}` }
        : side === 'portkey'
          ? {
              authorization: `Bearer ${UPSTREAM_KEY}`,
              'x-portkey-provider': 'openai',
              'x-portkey-custom-host': `${upstream.baseUrl}/v1`,
            }
          : { authorization: `Bearer ${UPSTREAM_KEY}` };
    const body = JSON.stringify({
      model,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: MAX_TOKENS,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
    return { server: servers[side], path: '/v1/chat/completions', headers, body };
  };
  /** Answers our door gave (sequential and under load): each is a generation that must be charged. */
  let oursAnswered = 0;
  let loadRunsOnOurs = 0;

  progress(
    `upstream, Portkey ${portkey.baseUrl}, ours ${ours.baseUrl}; ${requests} sequential requests per side and form, ` +
      `${CONNECTIONS} connections × ${seconds} s`,
  );
  const results = {} as Record<Form, FormResult>;
  for (const form of FORMS) {
    progress(`${form}: ${WARMUP_REQUESTS} warm-up + ${requests} sequential requests per side, in turn…`);
    const samples = await sequential(
      SIDES,
      requests,
      WARMUP_REQUESTS,
      (side) => {
        const t = target(side, form);
        return timed(t.server.baseUrl, t.path, t.headers, t.body);
      },
      (side, answer) => {
        if (side === 'ours') oursAnswered += 1;
        const text = answerText(form, answer.body.toString('utf8'));
        return text === ANSWER ? undefined : `not the upstream's answer (${JSON.stringify(text)})`;
      },
    );
    const rps = {} as Record<DoorSide, RunFigures>;
    for (const side of SIDES) {
      const t = target(side, form);
      const run = (runSeconds: number, phase: string) =>
        load(
          t.server,
          {
            path: t.path,
            method: 'POST',
            connections: CONNECTIONS,
            seconds: runSeconds,
            headers: { ...t.headers, 'content-type': 'application/json' },
            body: t.body,
            verifyBody: (body) => answerText(form, body) === ANSWER,
          },
          `${form} ${phase}`,
        );
      const warm = WARMUP_SECONDS > 0 ? (await run(WARMUP_SECONDS, 'warm-up')).requests : 0;
      rps[side] = await run(seconds, 'load');
      if (side === 'ours') {
        loadRunsOnOurs += WARMUP_SECONDS > 0 ? 2 : 1;
        oursAnswered += warm + rps[side].requests;
      }
      progress(
        `${form} ${side.padEnd(8)} ${rps[side].requestsPerSecond.toFixed(1).padStart(8)} req/s at ${CONNECTIONS} ` +
          `connections (p50 ${rps[side].latencyP50Ms} ms, p99 ${rps[side].latencyP99Ms} ms)`,
      );
    }
    results[form] = {
      latency: mapSides((side) => stats(samples[side].map((s) => s.totalMs))),
      firstByte: mapSides((side) => stats(samples[side].map((s) => s.firstByteMs))),
      rps,
    };
  }

  // The floor -------------------------------------------------------------------------------------
  progress(`floor: ${WARMUP_REQUESTS} warm-up + ${requests} sequential requests to it and to the upstream, in turn…`);
  const FLOOR_SIDES = ['direct', 'floor'] as const;
  const floorTarget = (side: (typeof FLOOR_SIDES)[number]): Target =>
    side === 'direct' ? target('direct', 'plain') : { ...target('direct', 'plain'), server: floor, headers: {} };
  const floorSamples = await sequential(
    FLOOR_SIDES,
    requests,
    WARMUP_REQUESTS,
    (side) => {
      const t = floorTarget(side);
      return timed(t.server.baseUrl, t.path, t.headers, t.body);
    },
    (_side, answer) => (answerText('plain', answer.body.toString('utf8')) === ANSWER ? undefined : 'not the answer'),
  );
  const floorLoad = async (runSeconds: number, phase: string) =>
    load(
      floor,
      {
        path: '/v1/chat/completions',
        method: 'POST',
        connections: CONNECTIONS,
        seconds: runSeconds,
        headers: { 'content-type': 'application/json' },
        body: floorTarget('floor').body,
        verifyBody: (body) => answerText('plain', body) === ANSWER,
      },
      `floor ${phase}`,
    );
  if (WARMUP_SECONDS > 0) await floorLoad(WARMUP_SECONDS, 'warm-up');
  const floorRps = await floorLoad(seconds, 'load');
  progress(`floor    ${floorRps.requestsPerSecond.toFixed(1).padStart(8)} req/s at ${CONNECTIONS} connections`);
  const floorLatency = {
    direct: stats(floorSamples.direct.map((s) => s.totalMs)),
    floor: stats(floorSamples.floor.map((s) => s.totalMs)),
  };
  const floorLedger = await checkFloorLedger(env.databaseUrl, floorTeam.teamId, startingCredits);

  // Speech ---------------------------------------------------------------------------------------
  progress(`speech: ${WARMUP_REQUESTS} warm-up + ${ttsSamples} sequential requests each: direct, door, native…`);
  const TTS_SIDES = ['direct', 'door', 'native'] as const;
  type TtsSide = (typeof TTS_SIDES)[number];
  let ttsCharge: number | undefined;
  let speechAnswered = 0;
  const tts = await sequential(
    TTS_SIDES,
    ttsSamples,
    WARMUP_REQUESTS,
    (side) => {
      if (side === 'direct') {
        return timed(
          el.url,
          `/v1/text-to-speech/${ELEVENLABS_VOICE}?output_format=mp3_44100_128`,
          { 'xi-api-key': el.apiKey },
          JSON.stringify({ text: TTS_TEXT, model_id: 'eleven_multilingual_v2' }),
        );
      }
      if (side === 'door') {
        return timed(
          ours.baseUrl,
          '/v1/audio/speech',
          { authorization: `Bearer ${key}` },
          JSON.stringify({ model: 'tts-v2', voice: TTS_VOICE, input: TTS_TEXT, response_format: 'mp3' }),
        );
      }
      return timed(
        ours.baseUrl,
        '/api/v2/text-to-speech',
        { authorization: `Bearer ${key}` },
        JSON.stringify({ voice_id: TTS_VOICE, text: TTS_TEXT, output_format: 'mp3' }),
      );
    },
    (side, answer) => {
      if (side === 'native') {
        speechAnswered += 1;
        const record = JSON.parse(answer.body.toString('utf8')) as { audio_url?: string; credits_used?: number };
        if (typeof record.audio_url !== 'string' || typeof record.credits_used !== 'number') return 'no audio_url';
        ttsCharge ??= record.credits_used;
        return record.credits_used === ttsCharge ? undefined : `charged ${record.credits_used}, not ${ttsCharge}`;
      }
      if (side === 'door') speechAnswered += 1;
      if (!answer.contentType.startsWith('audio/mpeg')) return `content-type ${answer.contentType}`;
      return answer.body.equals(el.mp3) ? undefined : "not the vendor's audio";
    },
  );
  const ttsLatency = Object.fromEntries(
    TTS_SIDES.map((side) => [side, stats(tts[side].map((s) => s.totalMs))]),
  ) as Record<TtsSide, Stats>;

  // Ledger and history ----------------------------------------------------------------------------
  progress('checking the ledger and the history…');
  const ledger = await checkLedger({
    env,
    ours,
    upstream,
    key,
    teamId,
    startingCredits,
    expectedCharge,
    ttsCharge,
    chatAnswered: oursAnswered,
    speechAnswered,
    cutAllowance: loadRunsOnOurs * CONNECTIONS,
  });

  // Report -------------------------------------------------------------------------------------------
  const overhead = (form: Form, side: DoorSide) => ({
    p50: round2(results[form].latency[side].p50 - results[form].latency.direct.p50),
    p99: round2(results[form].latency[side].p99 - results[form].latency.direct.p99),
  });
  // A ratio to an overhead of Portkey's that is not above zero (noise) has no meaning: it is shown as n/a.
  const ratioTo = (ours: number, theirs: number) => (theirs > 0 ? round2(ours / theirs) : null);
  const checks: Array<{ name: string; value: number | null; target: string; pass: boolean }> = [];
  for (const form of FORMS) {
    checks.push({
      name: `${form} overhead p50, ours / Portkey's`,
      value: ratioTo(overhead(form, 'ours').p50, overhead(form, 'portkey').p50),
      target: `≤ ${TARGET_OVERHEAD_RATIO}x`,
      pass: overhead(form, 'ours').p50 <= TARGET_OVERHEAD_RATIO * Math.max(0, overhead(form, 'portkey').p50),
    });
    const rpsRatio = results[form].rps.ours.requestsPerSecond / results[form].rps.portkey.requestsPerSecond;
    checks.push({
      name: `${form} req/s, ours / Portkey's`,
      value: round2(rpsRatio),
      target: `≥ ${TARGET_RPS_RATIO}x`,
      pass: rpsRatio >= TARGET_RPS_RATIO,
    });
  }
  const firstByteGap = round2(results.streamed.firstByte.ours.p50 - results.streamed.firstByte.direct.p50);
  checks.push({
    name: 'streamed first byte p50, ours − direct (ms)',
    value: firstByteGap,
    target: `≤ ${TARGET_FIRST_BYTE_MS} ms`,
    pass: firstByteGap <= TARGET_FIRST_BYTE_MS,
  });
  const portkeyPlainOverhead = overhead('plain', 'portkey').p50;
  const ttsOverhead = (side: TtsSide) => ({
    p50: round2(ttsLatency[side].p50 - ttsLatency.direct.p50),
    p99: round2(ttsLatency[side].p99 - ttsLatency.direct.p99),
  });
  for (const side of ['door', 'native'] as const) {
    checks.push({
      name: `speech ${side} overhead p50 / Portkey's plain chat overhead p50`,
      value: ratioTo(ttsOverhead(side).p50, portkeyPlainOverhead),
      target: `≤ ${TARGET_OVERHEAD_RATIO}x`,
      pass: ttsOverhead(side).p50 <= TARGET_OVERHEAD_RATIO * Math.max(0, portkeyPlainOverhead),
    });
  }

  const floorOverhead = {
    p50: round2(floorLatency.floor.p50 - floorLatency.direct.p50),
    p99: round2(floorLatency.floor.p99 - floorLatency.direct.p99),
  };
  const cell = (v: number, width = 10) => v.toFixed(1).padStart(width);
  const lines = [''];
  for (const form of FORMS) {
    const r = results[form];
    lines.push(
      form === 'plain'
        ? `plain chat (the upstream answers at once): ${requests} sequential requests per side, then ${CONNECTIONS} connections × ${seconds} s`
        : `streamed chat (the upstream streams ${CHUNKS} chunks ${CHUNK_INTERVAL_MS} ms apart): ${requests} sequential requests per side, then ${CONNECTIONS} connections × ${seconds} s`,
      `${''.padEnd(10)}${['p50 ms', 'p99 ms', '+p50 ms', '+p99 ms', 'req/s', ...(form === 'streamed' ? ['1st byte p50', '1st byte p99'] : [])].map((h) => h.padStart(h.startsWith('1st') ? 14 : 10)).join('')}`,
      ...SIDES.map(
        (side) =>
          side.padEnd(10) +
          cell(r.latency[side].p50) +
          cell(r.latency[side].p99) +
          cell(overhead(form, side).p50) +
          cell(overhead(form, side).p99) +
          cell(r.rps[side].requestsPerSecond) +
          (form === 'streamed' ? cell(r.firstByte[side].p50, 14) + cell(r.firstByte[side].p99, 14) : ''),
      ),
      '',
    );
  }
  lines.push(
    `floor (plain chat): a raw server doing only the database work of a charged, recorded request (bench/door-floor.ts): ${requests} sequential requests, in turn with direct ones, then ${CONNECTIONS} connections × ${seconds} s`,
    `${''.padEnd(10)}${['p50 ms', 'p99 ms', '+p50 ms', '+p99 ms', 'req/s'].map((h) => h.padStart(10)).join('')}`,
    `${'direct'.padEnd(10)}${cell(floorLatency.direct.p50)}${cell(floorLatency.direct.p99)}${cell(0)}${cell(0)}${''.padStart(10)}`,
    `${'floor'.padEnd(10)}${cell(floorLatency.floor.p50)}${cell(floorLatency.floor.p99)}${cell(floorOverhead.p50)}${cell(floorOverhead.p99)}${cell(floorRps.requestsPerSecond)}`,
    `  floor / Portkey (plain): overhead p50 ${ratioTo(floorOverhead.p50, overhead('plain', 'portkey').p50) ?? 'n/a'}x, ` +
      `req/s ${round2(floorRps.requestsPerSecond / results.plain.rps.portkey.requestsPerSecond)}x; ` +
      `ours / floor: overhead p50 ${ratioTo(overhead('plain', 'ours').p50, floorOverhead.p50) ?? 'n/a'}x, ` +
      `req/s ${round2(results.plain.rps.ours.requestsPerSecond / floorRps.requestsPerSecond)}x`,
    `  floor ledger: ${floorLedger.generations} generations, each charged ${FLOOR_CHARGE} and kept ${FLOOR_KEPT}; balance = ledger sum`,
    '',
    `speech (TTS v2) against an ElevenLabs-shaped fake: ${ttsSamples} sequential requests per side`,
    `${''.padEnd(10)}${['p50 ms', 'p99 ms', '+p50 ms', '+p99 ms'].map((h) => h.padStart(10)).join('')}`,
    ...TTS_SIDES.map(
      (side) =>
        side.padEnd(10) +
        cell(ttsLatency[side].p50) +
        cell(ttsLatency[side].p99) +
        cell(ttsOverhead(side).p50) +
        cell(ttsOverhead(side).p99),
    ),
    '  (direct: POST /v1/text-to-speech/{voice} on the fake; door: POST /v1/audio/speech; native: POST /api/v2/text-to-speech)',
    '',
    'targets:',
    ...checks.map(
      (c) =>
        `  ${c.name.padEnd(62)} ${String(c.value ?? 'n/a').padStart(8)}   target ${c.target.padEnd(8)} ${c.pass ? 'PASS' : 'FAIL'}`,
    ),
    '',
    `ledger: ${ledger.generations} generations (${ledger.chat} chat, ${ledger.speech} speech), all settled and in the ` +
      `history; ${ledger.exact} charged exactly (chat ${Object.entries(expectedCharge)
        .map(([m, c]) => `${m} ${c}`)
        .join(', ')} credits; speech ${ttsCharge}), ${ledger.cut} cut by the end of a load run; upstream calls ` +
      `${ledger.upstreamCalls} for ${ledger.chat} chat generations (a cut one may have none); balance ${ledger.balance} = ledger sum`,
    QUICK ? '(quick mode: the figures only show that the bench works)' : '',
    '',
  );
  process.stdout.write(lines.join('\n'));
  const pass = checks.every((c) => c.pass);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'door',
      requests,
      connections: CONNECTIONS,
      duration_s: seconds,
      tts_samples: ttsSamples,
      chat: Object.fromEntries(
        FORMS.map((form) => [
          form,
          Object.fromEntries(
            SIDES.map((side) => [
              side,
              {
                p50_ms: results[form].latency[side].p50,
                p99_ms: results[form].latency[side].p99,
                overhead_p50_ms: overhead(form, side).p50,
                overhead_p99_ms: overhead(form, side).p99,
                rps: round2(results[form].rps[side].requestsPerSecond),
                first_byte_p50_ms: results[form].firstByte[side].p50,
              },
            ]),
          ),
        ]),
      ),
      floor: {
        direct_p50_ms: floorLatency.direct.p50,
        p50_ms: floorLatency.floor.p50,
        p99_ms: floorLatency.floor.p99,
        overhead_p50_ms: floorOverhead.p50,
        overhead_p99_ms: floorOverhead.p99,
        rps: round2(floorRps.requestsPerSecond),
        generations: floorLedger.generations,
      },
      speech: Object.fromEntries(
        TTS_SIDES.map((side) => [
          side,
          { p50_ms: ttsLatency[side].p50, p99_ms: ttsLatency[side].p99, overhead_p50_ms: ttsOverhead(side).p50 },
        ]),
      ),
      checks,
      ledger,
      pass,
    })}\n`,
  );
  failUnlessTargetMet(pass);
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

function mapSides<T>(f: (side: DoorSide) => T): Record<DoorSide, T> {
  return Object.fromEntries(SIDES.map((side) => [side, f(side)])) as Record<DoorSide, T>;
}

/**
 * The floor's team, once every generation is settled: each completed, charged FLOOR_CHARGE and kept
 * FLOOR_KEPT, its ledger rows adding up to that, and its balance the ledger's sum. Throws otherwise.
 */
async function checkFloorLedger(databaseUrl: string, teamId: string, startingCredits: number) {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    // The requests a load run's end cut are still settled by the floor: wait for them.
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    const unsettled = async () =>
      (
        await db.query<{ n: number }>(
          `select count(*)::int as n from generations where team_id = $1::text and status not in ('completed', 'failed')`,
          [teamId],
        )
      ).rows[0]?.n ?? 0;
    while ((await unsettled()) > 0) {
      if (Date.now() > deadline) throw new Error(`floor: generations not settled after ${SETTLE_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const { rows } = await db.query<{
      generations: number;
      wrong: number;
      ledger: string;
      charged: string;
      balance: string;
    }>(
      `select (select count(*) from generations where team_id = $1::text)::int as generations,
              (select count(*) from generations g where g.team_id = $1::text
                 and (g.status <> 'completed' or g.credits_charged - g.credits_refunded <> $2::int))::int as wrong,
              (select coalesce(sum(amount), 0) from credit_ledger where team_id = $1::text)::bigint as ledger,
              (select coalesce(sum(amount), 0) from credit_ledger
                 where team_id = $1::text and generation_id is not null)::bigint as charged,
              (select credits from teams where id = $1::text)::bigint as balance`,
      [teamId, FLOOR_KEPT],
    );
    const r = rows[0];
    if (!r) throw new Error('floor: no team');
    const ledger = Number(r.ledger);
    const charged = -Number(r.charged);
    const balance = Number(r.balance);
    if (
      r.wrong > 0 ||
      balance !== ledger ||
      charged !== r.generations * FLOOR_KEPT ||
      balance !== startingCredits - charged
    ) {
      throw new Error(
        `floor: ${r.wrong} of ${r.generations} generations not completed at ${FLOOR_KEPT} credits; ledger sum ${ledger}, ` +
          `charged ${charged}, balance ${balance}`,
      );
    }
    return { generations: r.generations };
  } finally {
    await db.end();
  }
}

interface LedgerInput {
  env: { databaseUrl: string };
  ours: Server;
  upstream: Server;
  key: string;
  teamId: string;
  startingCredits: number;
  expectedCharge: Record<string, number>;
  ttsCharge: number | undefined;
  /** Chat answers our door gave; each must be a generation charged exactly. */
  chatAnswered: number;
  speechAnswered: number;
  /** How many requests the ends of the load runs may have cut (settled, but maybe charged otherwise). */
  cutAllowance: number;
}

/**
 * Waits until every generation of the team is settled and the upstream's count of our calls stops
 * moving, then checks the charges, the ledger and the history; throws on any discrepancy.
 */
async function checkLedger(input: LedgerInput) {
  const db = new pg.Pool({ connectionString: input.env.databaseUrl, max: 1 });
  onCleanup(() => db.end());
  interface Row {
    id: string;
    operation: string;
    model: string | null;
    status: string;
    net: number;
    ledger_net: number;
    charges: number;
  }
  const read = async () =>
    (
      await db.query<Row>(
        `select g.id, g.operation, g.model, g.status, (g.credits_charged - g.credits_refunded)::int as net,
                coalesce((select -sum(l.amount) from credit_ledger l where l.generation_id = g.id), 0)::int as ledger_net,
                (select count(*) from credit_ledger l where l.generation_id = g.id and l.kind = 'charge')::int as charges
         from generations g where g.team_id = $1::text`,
        [input.teamId],
      )
    ).rows;
  const upstreamCalls = async () => {
    const counts = (await (await fetch(`${input.upstream.baseUrl}/counts`)).json()) as Record<string, number>;
    return Object.entries(counts)
      .filter(([model]) => model.endsWith('@ours'))
      .reduce((n, [, c]) => n + c, 0);
  };
  const isChat = (r: Row) => r.operation.startsWith('text.');
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let rows = await read();
  let calls = await upstreamCalls();
  // A request cut by the end of a load run may have been left by its client before its upstream
  // call was made (its generation then has none): once all are settled, the count of calls is
  // taken when it stops moving, and checked against the cut ones below.
  let previousCalls = -1;
  while (
    rows.some((r) => r.status !== 'completed' && r.status !== 'failed') ||
    (calls !== rows.filter(isChat).length && calls !== previousCalls)
  ) {
    if (Date.now() > deadline) {
      const open = rows.filter((r) => r.status !== 'completed' && r.status !== 'failed').length;
      throw new Error(
        `after ${SETTLE_TIMEOUT_MS} ms: ${open} generations not settled; the upstream got ${calls} calls for ` +
          `${rows.filter(isChat).length} chat generations`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
    rows = await read();
    previousCalls = calls;
    calls = await upstreamCalls();
  }

  const problems: string[] = [];
  let exact = 0;
  let cut = 0;
  for (const r of rows) {
    if (r.ledger_net !== r.net) problems.push(`${r.id}: ledger ${r.ledger_net} ≠ net charge ${r.net}`);
    if (r.charges !== 1) problems.push(`${r.id}: ${r.charges} charge rows`);
    const expected = isChat(r) ? input.expectedCharge[r.model ?? ''] : input.ttsCharge;
    if (expected === undefined) problems.push(`${r.id}: unexpected ${r.operation} of ${r.model}`);
    else if (r.status === 'completed' && r.net === expected) exact += 1;
    else cut += 1;
  }
  const chat = rows.filter(isChat).length;
  const chatCut = rows.filter(
    (r) => isChat(r) && !(r.status === 'completed' && r.net === input.expectedCharge[r.model ?? '']),
  ).length;
  if (calls > chat) problems.push(`the upstream got ${calls} calls for ${chat} chat generations`);
  else if (chat - calls > chatCut) {
    problems.push(`${chat - calls} chat generations without an upstream call, but only ${chatCut} cut`);
  }
  const speech = rows.length - chat;
  const answered = input.chatAnswered + input.speechAnswered;
  if (exact < answered) problems.push(`${exact} generations charged exactly, but ${answered} requests were answered`);
  if (cut > input.cutAllowance)
    problems.push(`${cut} generations not charged exactly (at most ${input.cutAllowance} cut)`);
  if (speech !== input.speechAnswered)
    problems.push(`${speech} speech generations for ${input.speechAnswered} answers`);

  const { rows: team } = await db.query<{ balance: number; ledger_sum: number }>(
    `select t.credits::bigint as balance,
            (select coalesce(sum(amount), 0) from credit_ledger l where l.team_id = t.id)::bigint as ledger_sum
     from teams t where t.id = $1::text`,
    [input.teamId],
  );
  const balance = Number(team[0]?.balance);
  const ledgerSum = Number(team[0]?.ledger_sum);
  const spent = rows.reduce((n, r) => n + r.net, 0);
  if (balance !== ledgerSum) problems.push(`balance ${balance} ≠ ledger sum ${ledgerSum}`);
  if (input.startingCredits - balance !== spent) {
    problems.push(`the team spent ${input.startingCredits - balance}, its generations ${spent}`);
  }

  // The history, page by page, through the API.
  const listed = new Set<string>();
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const res = await fetch(`${input.ours.baseUrl}/api/v1/generations?${query}`, {
      headers: { authorization: `Bearer ${input.key}` },
    });
    if (res.status !== 200) throw new Error(`GET /api/v1/generations answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { data: Array<{ generation_id: string }>; next_cursor: string | null };
    for (const entry of page.data) listed.add(entry.generation_id);
    cursor = page.next_cursor;
  } while (cursor);
  const missing = rows.filter((r) => !listed.has(r.id)).length;
  if (missing > 0 || listed.size !== rows.length) {
    problems.push(`the history lists ${listed.size} generations, ${missing} of the team's ${rows.length} missing`);
  }

  if (problems.length > 0) throw new Error(`the ledger check failed:\n  ${problems.slice(0, 20).join('\n  ')}`);
  return { generations: rows.length, chat, speech, exact, cut, upstreamCalls: calls, balance, ledger_sum: ledgerSum };
}

await runBenchmark('door', main);
