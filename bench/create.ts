// Benchmark: POST /api/v1/images/generate, accepting generations under load (`npm run bench:create`).
//
// What is measured: requests/s and latency of accepting a text-to-image generation
// ({prompt, model: 'flux-1-schnell'}) on the real service (src/server.ts as its own process,
// ROLE=api so no worker competes for the CPUs: the jobs just queue up, on a real embedded
// PostgreSQL), against a baseline that does the same work the simplest way: a raw node:http
// server with a `pg` pool (bench/baseline-create-server.ts) that checks the key with one query,
// parses the body, and in one transaction charges the team with the service's credit-change
// statement, inserts the generation and its item and queues the item's graphile-worker job. The
// ratio ours/baseline shows what the service's stack (Fastify, hooks, auth, validation, the
// declarative endpoint engine, idempotency and URL checks, metrics, serialisation) costs against
// that bare transaction; the target is at least 0.5.
//
// Correctness under load: every response must be 200 with the service's body shape (checked on
// every response), and after every run (warm-ups included) the database is read directly: each
// side's team must have a balance equal to the sum of its ledger, exactly one charge of the
// model's price per generation, one item per generation, and every item its queued job.
//
// Fairness: both are single Node processes on the same machine and database, with the same pool
// size; each side charges its own team, so every request of a side takes that team's row lock, as
// one customer sending many requests does. The service trusts a verified key for up to
// AUTH_CACHE_TTL_MS (part of what is measured); the baseline checks it on every request. Sides
// alternate with a warm-up before every measured run; each side's best run counts.
//
// Environment: BENCH_DURATION (seconds per measured run, default 10), BENCH_QUICK=1 (one round of
// 1 s warm-up + 1 s per side: checks that the bench works; see bench/lib.ts).
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { loadModelCatalog } from '../src/catalog/models.ts';
import { createPool } from '../src/db/pool.ts';
import {
  alternateRounds,
  createTeamWithKey,
  durationSeconds,
  failUnlessTargetMet,
  load,
  onCleanup,
  prepareEnvironment,
  printComparison,
  progress,
  quick,
  runBenchmark,
  SERVICE_DEFAULTS,
  type Server,
  type Side,
  startBaseline,
  startOurServer,
  waitUntilHealthy,
} from './lib.ts';

const PATH = '/api/v1/images/generate';
const MODEL = 'flux-1-schnell';
const CONNECTIONS = 20;
const WARMUP_SECONDS = quick(1, 2);
const ROUNDS = quick(1, 2);
const TARGET_RATIO = 0.5;
const TEAM_CREDITS = 1_000_000_000;
const REQUEST_BODY = JSON.stringify({ prompt: 'bench create: a red circle on a blue sky', model: MODEL });
const GENERATION_ID = /"generation_id":"gen_[0-9a-z]{26}"/;

interface LedgerCheck {
  side: Side;
  phase: string;
  balance: number;
  ledger_sum: number;
  generations: number;
  charged: number;
  items: number;
  ok: boolean;
}

async function post(server: Server, authorization: string | undefined): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.baseUrl}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: REQUEST_BODY,
  });
  return { status: res.status, text: await res.text() };
}

/**
 * Checks, before any load, that a generation is accepted with the expected body and that a
 * missing or unknown key is refused. Returns the body with its generation id blanked, which
 * every response under load must then match.
 */
async function verify(server: Server, key: string, price: number, estimatedSeconds: number): Promise<string> {
  const ok = await post(server, `Bearer ${key}`);
  if (ok.status !== 200) throw new Error(`${server.name}: expected 200, got ${ok.status}: ${ok.text}`);
  const body = JSON.parse(ok.text) as Record<string, unknown>;
  const expected = { status: 'queued', images: [], estimated_time: estimatedSeconds, credits_used: price };
  const { generation_id: id, ...rest } = body;
  if (
    typeof id !== 'string' ||
    !GENERATION_ID.test(ok.text) ||
    JSON.stringify(rest) !== JSON.stringify(expected) ||
    Object.keys(body)[0] !== 'generation_id'
  ) {
    throw new Error(`${server.name}: unexpected body ${ok.text}`);
  }
  const unknownKey = `gms_${randomBytes(30).toString('base64url')}`;
  for (const authorization of [undefined, `Bearer ${unknownKey}`]) {
    const refused = await post(server, authorization);
    if (refused.status !== 401) {
      throw new Error(
        `${server.name}: expected 401 for ${authorization ? 'an unknown key' : 'no key'}, got ${refused.status}`,
      );
    }
  }
  return ok.text.replace(GENERATION_ID, '"generation_id":""');
}

/** Reads a team's balance, ledger and generations straight from the database. */
async function checkLedger(
  pool: pg.Pool,
  side: Side,
  phase: string,
  teamId: string,
  price: number,
): Promise<LedgerCheck> {
  const { rows } = await pool.query<{
    balance: number;
    ledger_sum: number;
    generations: number;
    charges: number;
    charged: number;
    items: number;
    jobs: number;
  }>(
    `select t.credits as balance,
            (select coalesce(sum(amount), 0)::bigint from credit_ledger l where l.team_id = t.id) as ledger_sum,
            (select count(*)::int from generations g where g.team_id = t.id) as generations,
            (select count(*)::int from credit_ledger l where l.team_id = t.id and l.kind = 'charge') as charges,
            (select coalesce(-sum(amount), 0)::bigint from credit_ledger l
              where l.team_id = t.id and l.kind = 'charge') as charged,
            (select count(*)::int from generation_items i join generations g on g.id = i.generation_id
              where g.team_id = t.id) as items,
            (select count(*)::int from graphile_worker._private_jobs j
               join generation_items i on i.id = j.payload->>'item_id'
               join generations g on g.id = i.generation_id
              where g.team_id = t.id) as jobs
     from teams t where t.id = $1::text`,
    [teamId],
  );
  const r = rows[0];
  if (!r) throw new Error(`team ${teamId} not found`);
  const ok =
    r.balance === r.ledger_sum &&
    r.charges === r.generations &&
    r.charged === r.generations * price &&
    TEAM_CREDITS - r.balance === r.charged &&
    r.items === r.generations &&
    r.jobs === r.items;
  const check = {
    side,
    phase,
    balance: r.balance,
    ledger_sum: r.ledger_sum,
    generations: r.generations,
    charged: r.charged,
    items: r.items,
    ok,
  };
  if (!ok) {
    throw new Error(
      `${side} ${phase}: ledger check failed: balance ${r.balance}, ledger sum ${r.ledger_sum}, ` +
        `${r.generations} generations, ${r.charges} charges totalling ${r.charged} (price ${price}), ` +
        `${r.items} items, ${r.jobs} queued jobs`,
    );
  }
  return check;
}

function describe(check: LedgerCheck): string {
  return (
    `ledger ${check.ok ? 'OK' : 'MISMATCH'}: balance ${check.balance} = ledger sum ${check.ledger_sum}; ` +
    `${check.generations} generations, ${check.charged} credits charged, ${check.items} items, each with its job`
  );
}

async function main(): Promise<void> {
  const seconds = durationSeconds();
  const env = await prepareEnvironment();
  const model = loadModelCatalog().find('image', MODEL);
  if (!model) throw new Error(`model ${MODEL} is not in the catalog`);
  const price = model.price.credits_per_image;

  const servers: Record<Side, Server> = {
    ours: await startOurServer(env, { role: 'api' }),
    baseline: await startBaseline(env, 'bench/baseline-create-server.ts'),
  };
  await Promise.all(Object.values(servers).map(waitUntilHealthy));
  const teams = {
    baseline: await createTeamWithKey(servers.ours, env.adminToken, 'bench-baseline', TEAM_CREDITS),
    ours: await createTeamWithKey(servers.ours, env.adminToken, 'bench-ours', TEAM_CREDITS),
  };
  const pool = createPool(env.databaseUrl, 2, () => undefined, { applicationName: 'genmedia-bench-check' });
  onCleanup(() => pool.end());

  const templates: Partial<Record<Side, string>> = {};
  for (const side of ['baseline', 'ours'] as const) {
    templates[side] = await verify(servers[side], teams[side].key, price, model.estimated_seconds);
    progress(`${side}: ${describe(await checkLedger(pool, side, 'verification', teams[side].teamId, price))}`);
  }
  if (templates.baseline !== templates.ours) {
    throw new Error(`the bodies differ:\n  ours:     ${templates.ours}\n  baseline: ${templates.baseline}`);
  }
  const template = templates.ours ?? '';
  const verifyBody = (body: string) => body.replace(GENERATION_ID, '"generation_id":""') === template;
  progress(
    `servers ready (pool size ${SERVICE_DEFAULTS.databasePoolSize}, ours ROLE=api: jobs queue up); ` +
      `${ROUNDS} rounds of ${WARMUP_SECONDS} s warm-up + ${seconds} s measured per side`,
  );

  const checks: LedgerCheck[] = [];
  const runs = await alternateRounds({
    servers,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
    seconds,
    run: (server, runSeconds, phase) =>
      load(
        server,
        {
          path: PATH,
          method: 'POST',
          connections: CONNECTIONS,
          seconds: runSeconds,
          headers: {
            authorization: `Bearer ${teams[server.name as Side].key}`,
            'content-type': 'application/json',
          },
          body: REQUEST_BODY,
          verifyBody,
        },
        phase,
      ),
    afterRun: async (side, phase) => {
      const check = await checkLedger(pool, side, phase, teams[side].teamId, price);
      checks.push(check);
      return `ledger ${check.ok ? 'OK' : 'MISMATCH'} (balance ${check.balance} = ledger sum ${check.ledger_sum})`;
    },
  });

  const final = {
    baseline: await checkLedger(pool, 'baseline', 'end', teams.baseline.teamId, price),
    ours: await checkLedger(pool, 'ours', 'end', teams.ours.teamId, price),
  };
  const pass = printComparison({
    bench: 'create',
    endpoint: `POST ${PATH}`,
    title: `POST ${PATH} {prompt, model: '${MODEL}'} (ours ROLE=api)`,
    connections: CONNECTIONS,
    seconds,
    rounds: ROUNDS,
    target: TARGET_RATIO,
    runs,
    notes: [
      `every response 200 with the expected body; ledger checked after each of ${checks.length} runs: ` +
        `${checks.every((c) => c.ok) ? 'all OK' : 'MISMATCH'}`,
      ...(['baseline', 'ours'] as const).map((side) => `${side.padEnd(8)}  ${describe(final[side])}`),
    ],
    extra: {
      model: MODEL,
      ledger_ok: checks.every((c) => c.ok) && final.baseline.ok && final.ours.ok,
      ledger: {
        baseline: {
          balance: final.baseline.balance,
          ledger_sum: final.baseline.ledger_sum,
          generations: final.baseline.generations,
        },
        ours: { balance: final.ours.balance, ledger_sum: final.ours.ledger_sum, generations: final.ours.generations },
      },
    },
  });
  failUnlessTargetMet(pass);
}

await runBenchmark('create', main);
