// Benchmark: GET /api/v1/generations, a team's history, with a million generations
// (`npm run bench:history`).
//
// What is measured: the latency of the history list (newest first, keyset cursor pagination,
// limit 100) on the real service (src/server.ts as its own process, ROLE=api, on a real embedded
// PostgreSQL) when one team has BENCH_HISTORY_ROWS generations (default 1,000,000, spread over a
// year) and another team has BENCH_HISTORY_OTHER_ROWS (default 100,000, interleaved with them in
// the table, so the team filter matters). Cases: (a) the first page; (b) the page reached by
// following next_cursor 50 times (after 5,000 entries; each page of the walk is timed too);
// (b') the page after 500,000 entries (its cursor made from the row at that depth); (c)
// status=failed; (d) kind=video; (e) model=<the most common model>; (f) created_before=<the
// middle of the year>; (g) a rare model, (h) a rare kind, (i) a rare operation and (j) one of four
// workspaces, each served by its own index. Each case: BENCH_HISTORY_SAMPLES requests (default 200, after 10 warm-up
// requests), p50 and p99; and the same statement run directly on the database (without HTTP),
// p50 and p99, and its EXPLAIN (ANALYZE, BUFFERS), with a check that no plan of ours has a
// sequential scan or a sort. Requests are sequential (latency, not throughput) and the cases take
// turns, one request each per round, so that a change of the machine's load weighs on all alike.
//
// The statement: the bench calls the service's own selectHistory (src/engine/sql/history.ts) with a
// recording stand-in for the pool, which keeps the text and parameters it is given instead of
// running them; so the SQL measured and explained here is byte for byte what the service sends for
// that filter (limit 101: the route asks for one more than the page). It is run with `pg`'s
// extended protocol, unnamed, with the same parameters, as the service runs it (custom plans).
//
// Baseline, in the same run and on the same data: the same page the naive way, the first page's
// statement (same select list, same team filter and order) with LIMIT 100 OFFSET k instead of the
// keyset condition, run directly in SQL: at k = 5,000 (the depth of (b)) and k = 500,000 (the depth
// of (b'); BENCH_HISTORY_SLOW_SAMPLES samples, default 5, as one run takes long). Ratios are ours /
// baseline at p50: ours over HTTP (what a client sees, HTTP and JSON included) and ours in SQL
// (like for like). The keyset pages must hold exactly the rows of the OFFSET pages at that depth.
//
// Data: filled directly with SQL (insert ... select ... from generate_series, deterministic: the
// mix comes from hashes of the row number): a mix of operations and models, ~2% failed, the
// newest 40 rows still processing or queued, ~35% in a workspace, a ~100-character prompt in
// `input`, one generation_items row per generation consistent with the generation's status and
// counters. Then VACUUM (ANALYZE), as autovacuum would have done on a table of that age, so that
// it does not run during the measurements, and a CHECKPOINT. No worker runs: nothing touches the
// rows while they are measured.
//
// Environment: BENCH_HISTORY_ROWS (default 1,000,000), BENCH_HISTORY_OTHER_ROWS (default 100,000),
// BENCH_HISTORY_SAMPLES (default 200), BENCH_HISTORY_SLOW_SAMPLES (default 5); BENCH_QUICK=1: 20,000 and
// 1,000 rows, 5 follows, 3 samples, 1 slow sample (checks that the bench works; see bench/lib.ts).
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { createPool, type Queryable } from '../src/db/pool.ts';
import { type HistoryFilter, selectHistory } from '../src/engine/sql/history.ts';
import { decodeCursor, encodeCursor } from '../src/lib/cursor.ts';
import { newId } from '../src/lib/ids.ts';
import {
  adminPost,
  createTeamWithKey,
  onCleanup,
  positiveIntEnv,
  prepareEnvironment,
  progress,
  quantile,
  quick,
  runBenchmark,
  type Server,
  startOurServer,
  waitUntilHealthy,
} from './lib.ts';

const TEAM_ROWS = positiveIntEnv('BENCH_HISTORY_ROWS', quick(20_000, 1_000_000));
const OTHER_ROWS = positiveIntEnv('BENCH_HISTORY_OTHER_ROWS', quick(1_000, 100_000));
const SAMPLES = positiveIntEnv('BENCH_HISTORY_SAMPLES', quick(3, 200));
const SLOW_SAMPLES = positiveIntEnv('BENCH_HISTORY_SLOW_SAMPLES', quick(1, 5));
const WARMUP = quick(1, 10);
/** The page size asked for; the route asks the database for one more (is there a next page). */
const PAGE = 100;
const DEEP_FOLLOWS = quick(5, 50);
const DEEP_OFFSET = PAGE * DEEP_FOLLOWS;
const FAR_OFFSET = Math.min(500_000, Math.floor(TEAM_ROWS / 2 / PAGE) * PAGE);
const DAYS = 365;
const FAILED_SHARE = 0.02;
/** The newest rows (of both teams) are still running: three in four processing, the rest queued. */
const IN_FLIGHT = 40;
const WORKSPACE_SHARE = 0.35;
const DAY_MS = 86_400_000;
/** A model of about one generation in a hundred: its filter must not walk the whole history. */
const RARE_MODEL = 'meshy-5';

/** What the generations are: operation, model, share, price and run time, where the prompt goes. */
interface MixEntry {
  operation: string;
  model: string | null;
  weight: number;
  credits: number;
  seconds: number;
  field: 'prompt' | 'text';
}

const MIX: MixEntry[] = [
  { operation: 'image.generate', model: 'flux-1-dev', weight: 22, credits: 4, seconds: 8, field: 'prompt' },
  { operation: 'image.generate', model: 'flux-1-schnell', weight: 8, credits: 2, seconds: 3, field: 'prompt' },
  { operation: 'image.generate', model: 'flux-1.1-pro', weight: 6, credits: 6, seconds: 10, field: 'prompt' },
  { operation: 'image.generate', model: 'imagen-4', weight: 4, credits: 6, seconds: 12, field: 'prompt' },
  { operation: 'image.edit', model: 'flux-kontext-pro', weight: 6, credits: 5, seconds: 10, field: 'prompt' },
  { operation: 'video.generate', model: 'kling-2.1-standard', weight: 6, credits: 40, seconds: 120, field: 'prompt' },
  { operation: 'video.generate', model: 'kling-2.5-turbo-pro', weight: 4, credits: 60, seconds: 90, field: 'prompt' },
  { operation: 'video.generate', model: 'veo-3', weight: 2, credits: 120, seconds: 180, field: 'prompt' },
  { operation: 'video.lipsync', model: 'lipsync-2', weight: 1.5, credits: 30, seconds: 60, field: 'prompt' },
  { operation: 'speech.tts', model: 'tts-v2', weight: 10, credits: 2, seconds: 4, field: 'text' },
  { operation: 'text.generate', model: 'openai/gpt-4o-mini', weight: 8, credits: 1, seconds: 3, field: 'prompt' },
  { operation: 'text.generate', model: 'openai/gpt-4.1-mini', weight: 4, credits: 1, seconds: 4, field: 'prompt' },
  { operation: 'text.generate', model: 'openai/gpt-5-mini', weight: 3, credits: 2, seconds: 6, field: 'prompt' },
  { operation: 'music.generate', model: 'V4_5', weight: 3, credits: 10, seconds: 45, field: 'prompt' },
  { operation: 'music.generate', model: 'V5', weight: 2, credits: 12, seconds: 50, field: 'prompt' },
  { operation: 'model3d.generate', model: 'meshy-5', weight: 1, credits: 25, seconds: 90, field: 'prompt' },
];

// Prompts: one phrase of each list, ~100 characters.
const SUBJECTS = [
  'a red fox',
  'an old lighthouse keeper',
  'a glass teapot',
  'two astronauts',
  'a sleepy tabby cat',
  'a vintage motorbike',
  'a paper crane',
  'a street musician',
];
const ACTIONS = [
  'walking slowly through',
  'resting quietly beside',
  'floating high above',
  'dancing in the middle of',
  'hiding behind',
  'looking out over',
  'racing across',
  'sleeping under',
];
const PLACES = [
  'a misty pine forest',
  'a neon-lit Tokyo alley',
  'a frozen mountain lake',
  'a crowded spice market',
  'an abandoned train station',
  'a sunflower field',
  'a coral reef',
  'a rooftop garden',
];
const STYLES = [
  'cinematic lighting',
  'watercolor style',
  'shot on 35mm film',
  'isometric 3d render',
  'soft pastel palette',
  'dramatic chiaroscuro',
  'studio photography',
  'ukiyo-e woodblock print',
];
const EXTRAS = [
  'golden hour, highly detailed',
  'wide angle, shallow depth of field',
  'at dusk, light rain',
  'morning fog, muted colors',
  'symmetrical composition, 4k',
  'long exposure, vivid colors',
  'overcast sky, film grain',
  'backlit, warm tones',
];

/** A deterministic uniform number in [0, 1) for row `s.i`, one per seed. */
const uniform = (seed: number) => `((hashint8extended(s.i::bigint, ${seed}) & 1048575)::float8 / 1048576)`;
const pick = (param: string, seed: number) =>
  `(${param}::text[])[1 + floor(${uniform(seed)} * cardinality(${param}::text[]))::int]`;

// Both teams' generations in one statement, in order of created_at (the other team's rows
// interleaved evenly: row i is theirs when floor(i·B/total) steps), so the heap is laid out as a
// real table's would be. Ids have the shape of ours (gen_ + 26 characters of our alphabet, the
// first 12 the creation time in ms), sortable by time like ours.
const FILL_GENERATIONS = `
insert into generations
  (id, team_id, workspace_id, operation, model, status, input, credits_charged, credits_refunded, total_items,
   completed_items, failed_items, estimated_seconds, error, created_at, updated_at, completed_at)
select 'gen_' || lpad(to_hex(floor(extract(epoch from r.t) * 1000)::bigint), 12, '0') || substr(md5(r.i::text), 1, 14),
       case when r.other then $4::text else $3::text end,
       case when r.u_ws < ${WORKSPACE_SHARE} then
         case when r.other then ($14::text[])[1 + floor(r.u_ws / ${WORKSPACE_SHARE} * cardinality($14::text[]))::int]
              else ($13::text[])[1 + floor(r.u_ws / ${WORKSPACE_SHARE} * cardinality($13::text[]))::int] end
       end,
       ($8::text[])[r.b],
       ($9::text[])[r.b],
       r.status,
       jsonb_build_object(($12::text[])[r.b], r.prompt,
                          'settings', jsonb_build_object('seed', r.seed, 'aspect_ratio', '16:9')),
       ($10::int[])[r.b],
       case when r.status = 'failed' then ($10::int[])[r.b] else 0 end,
       1,
       (r.status = 'completed')::int,
       (r.status = 'failed')::int,
       ($11::float8[])[r.b],
       case when r.status = 'failed' then 'The provider refused the request: it breaks its content policy' end,
       r.t,
       case when r.status in ('completed', 'failed') then r.t + ($11::float8[])[r.b] * (0.5 + r.u_took) * interval '1 second'
            else r.t end,
       case when r.status in ('completed', 'failed') then r.t + ($11::float8[])[r.b] * (0.5 + r.u_took) * interval '1 second' end
from (
  select s.i,
         (s.i::bigint * $2::bigint / $1::bigint) <> ((s.i - 1)::bigint * $2::bigint / $1::bigint) as other,
         $5::timestamptz + ((s.i - 1) + ${uniform(1)}) * $6::float8 * interval '1 second' as t,
         width_bucket(${uniform(2)}, $7::float8[]) as b,
         case when s.i > $1::int - ${IN_FLIGHT} then case when ${uniform(3)} < 0.75 then 'processing' else 'queued' end
              when ${uniform(3)} < ${FAILED_SHARE} then 'failed'
              else 'completed' end as status,
         ${uniform(4)} as u_ws,
         ${uniform(5)} as u_took,
         format('%s %s %s, %s, %s', ${pick('$15', 6)}, ${pick('$16', 7)}, ${pick('$17', 8)}, ${pick('$18', 9)},
                ${pick('$19', 10)}) as prompt,
         hashint8extended(s.i::bigint, 11) & 2147483647 as seed
  from generate_series(1, $1::int) as s(i)
) r`;

// One item per generation, as the engine writes them and the worker finishes them: COMPLETED with
// its URL and result, FAILED (refunded) with the error, or still PROCESSING/QUEUED.
const FILL_ITEMS = `
insert into generation_items
  (id, generation_id, position, type, model, status, input, price, refunded, storage_token, url, result, error,
   error_kind, attempts, failures, progress, created_at, updated_at)
select 'item_' || substr(g.id, 5), g.id, 0, x.type, g.model, upper(g.status), g.input -> 'settings', g.credits_charged,
       g.status = 'failed', md5(g.id),
       case when g.status = 'completed' then $1::text || '/' || g.id || '/item_' || substr(g.id, 5) || '-' || md5(g.id) ||
                                             '.' || x.ext end,
       case when g.status = 'completed' then x.result end,
       g.error,
       case when g.status = 'failed' then 'content_policy' end,
       case when g.status = 'queued' then 0 else 1 end,
       case when g.status = 'failed' then 1 else 0 end,
       case when g.status = 'processing' then 0.4::real end,
       g.created_at, g.updated_at
from generations g
cross join lateral (
  select case split_part(g.operation, '.', 1) when 'image' then 'image' when 'video' then 'video'
           when 'text' then 'text' when 'model3d' then 'model' else 'audio' end as type,
         case split_part(g.operation, '.', 1) when 'image' then 'png' when 'video' then 'mp4'
           when 'text' then 'txt' when 'model3d' then 'glb' else 'mp3' end as ext,
         case split_part(g.operation, '.', 1) when 'image' then '{"width": 1344, "height": 768}'::jsonb
           when 'text' then '{"tokens": 412}'::jsonb else '{"duration_seconds": 8.04}'::jsonb end as result
) x`;

interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The statement the service's selectHistory (src/engine/sql/history.ts) sends for this filter and limit,
 * captured by handing it a stand-in for the pool that records instead of running.
 */
async function historyStatement(teamId: string, filter: HistoryFilter, limit: number): Promise<Statement> {
  const box: { statement?: Statement } = {};
  const recorder = {
    query: async (text: string, values: unknown[]) => {
      box.statement = { text, values };
      return { rows: [], rowCount: 0 };
    },
  };
  await selectHistory(recorder as unknown as Queryable, teamId, filter, limit);
  if (!box.statement) throw new Error('selectHistory sent no statement');
  return box.statement;
}

/** The naive page: the first page's statement (limit 100) with OFFSET k. */
function offsetStatement(firstPage: Statement, offset: number): Statement {
  const text = firstPage.text.trimEnd();
  if (!/limit \$\d+::int$/.test(text))
    throw new Error(`selectHistory's statement no longer ends with its limit:\n${text}`);
  return { text: `${text} offset ${offset}`, values: [...firstPage.values.slice(0, -1), PAGE] };
}

// ---------------------------------------------------------------------------------------------
// Measuring.

interface Entry {
  generation_id: string;
  status: string;
  kind: string;
  operation: string;
  model: string | null;
  workspace_id: string | null;
  prompt: string | null;
  created_at: string;
  items: unknown[];
}

interface Page {
  data: Entry[];
  next_cursor: string | null;
}

async function getPage(
  server: Server,
  key: string,
  query: Record<string, string>,
): Promise<{ ms: number; page: Page }> {
  const url = `${server.baseUrl}/api/v1/generations?${new URLSearchParams({ limit: String(PAGE), ...query })}`;
  const start = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const text = await res.text();
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text}\n${server.output()}`);
  return { ms, page: JSON.parse(text) as Page };
}

/**
 * Runs `rounds` rounds of `warmup` + `samples` in which every task runs once in turn, so that a
 * machine whose load changes (other processes, a checkpoint) weighs on all of them alike; returns
 * each task's measured times (ms).
 */
async function interleaved(tasks: Array<() => Promise<unknown>>, samples: number, warmup: number): Promise<number[][]> {
  for (let round = 0; round < warmup; round++) for (const task of tasks) await task();
  const times = tasks.map((): number[] => []);
  for (let round = 0; round < samples; round++) {
    for (const [i, task] of tasks.entries()) {
      const start = performance.now();
      await task();
      times[i]?.push(performance.now() - start);
    }
  }
  return times;
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

// ---------------------------------------------------------------------------------------------
// Plans.

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

interface PlanSummary {
  /** How the generations are read, e.g. `Index Scan using generations_team_history_idx`. */
  scan: string;
  /** Generations rows the scan read: returned plus removed by its filter. */
  rowsRead: number;
  removedByFilter: number;
  /** Executions of the items subquery (one per generation row the scan produced). */
  itemLookups: number;
  seqScan: boolean;
  sort: boolean;
  sharedHit: number;
  sharedRead: number;
  executionMs: number;
}

function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

function summarise(plan: { Plan: PlanNode; 'Execution Time': number }): PlanSummary {
  const all = nodes(plan.Plan);
  const scan = all.find((n) => n['Relation Name'] === 'generations');
  if (!scan) throw new Error('no scan of generations in the plan');
  const items = all.find((n) => n['Relation Name'] === 'generation_items');
  const removed = (scan['Rows Removed by Filter'] ?? 0) * scan['Actual Loops'];
  return {
    scan: `${scan['Node Type']}${scan['Scan Direction'] === 'Backward' ? ' Backward' : ''}${scan['Index Name'] ? ` using ${scan['Index Name']}` : ''}`,
    rowsRead: scan['Actual Rows'] * scan['Actual Loops'] + removed,
    removedByFilter: removed,
    itemLookups: items ? items['Actual Loops'] : 0,
    seqScan: all.some((n) => n['Node Type'] === 'Seq Scan'),
    sort: all.some((n) => n['Node Type'] === 'Sort' || n['Node Type'] === 'Incremental Sort'),
    sharedHit: plan.Plan['Shared Hit Blocks'] ?? 0,
    sharedRead: plan.Plan['Shared Read Blocks'] ?? 0,
    executionMs: plan['Execution Time'],
  };
}

async function explain(client: pg.PoolClient, statement: Statement): Promise<{ text: string; summary: PlanSummary }> {
  const json = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode; 'Execution Time': number }> }>(
    `explain (analyze, buffers, format json) ${statement.text}`,
    statement.values,
  );
  const plan = json.rows[0]?.['QUERY PLAN'][0];
  if (!plan) throw new Error('EXPLAIN gave no plan');
  const text = await client.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers) ${statement.text}`,
    statement.values,
  );
  return { text: text.rows.map((r) => r['QUERY PLAN']).join('\n'), summary: summarise(plan) };
}

// ---------------------------------------------------------------------------------------------

interface Case {
  id: string;
  label: string;
  query: Record<string, string>;
  filter: HistoryFilter;
  /** Every entry of the page must pass this. */
  matches: (entry: Entry) => boolean;
  http?: Stats;
  sql?: Stats;
  plan?: { text: string; summary: PlanSummary };
}

interface Baseline {
  id: string;
  label: string;
  offset: number;
  statement: Statement;
  /** The ours case at the same depth. */
  ours: Case;
  sql?: Stats;
  plan?: { text: string; summary: PlanSummary };
}

const thousands = (n: number) => n.toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Checks a page of the history: full, matching its filter, newest first, all of the team's. */
async function verifyPage(pool: pg.Pool, teamId: string, label: string, page: Page, matches: (e: Entry) => boolean) {
  if (page.data.length !== PAGE) throw new Error(`${label}: ${page.data.length} entries, not ${PAGE}`);
  let previous: Entry | undefined;
  for (const entry of page.data) {
    if (!matches(entry)) throw new Error(`${label}: an entry does not match the filter: ${JSON.stringify(entry)}`);
    if (entry.items.length !== 1 || (entry.prompt ?? '').length < 60) {
      throw new Error(`${label}: an entry without its item or prompt: ${JSON.stringify(entry)}`);
    }
    if (previous && previous.created_at < entry.created_at) throw new Error(`${label}: not newest first`);
    previous = entry;
  }
  const ids = page.data.map((e) => e.generation_id);
  const { rows } = await pool.query<{ n: number }>(
    'select count(*)::int as n from generations where id = any($1::text[]) and team_id = $2::text',
    [ids, teamId],
  );
  if (new Set(ids).size !== PAGE || rows[0]?.n !== PAGE) throw new Error(`${label}: entries of another team, or twice`);
}

async function main(): Promise<void> {
  if (TEAM_ROWS < 10 * DEEP_OFFSET) throw new Error(`BENCH_HISTORY_ROWS must be at least ${10 * DEEP_OFFSET}`);
  const env = await prepareEnvironment();
  const ours = await startOurServer(env, { role: 'api' });
  await waitUntilHealthy(ours);
  const { teamId, key } = await createTeamWithKey(ours, env.adminToken, 'bench history', 1_000_000);
  const other = await adminPost<{ id: string }>(ours.baseUrl, env.adminToken, '/admin/v1/teams', {
    name: 'bench history (other team)',
    credits: 1_000,
  });

  const pool = createPool(env.databaseUrl, 2, () => undefined, { applicationName: 'genmedia-bench-history' });
  onCleanup(() => pool.end());

  // ---- Fill.
  const workspaces = { ours: [0, 1, 2, 3].map(() => newId('ws')), other: [0, 1].map(() => newId('ws')) };
  await pool.query(
    `insert into workspaces (id, team_id, name)
     select w.id, case when w.n <= 4 then $2::text else $3::text end, 'workspace ' || w.n
     from unnest($1::text[]) with ordinality as w(id, n)`,
    [[...workspaces.ours, ...workspaces.other], teamId, other.id],
  );
  const total = TEAM_ROWS + OTHER_ROWS;
  const nowMs = Date.now();
  const startMs = nowMs - DAYS * DAY_MS;
  const totalWeight = MIX.reduce((sum, m) => sum + m.weight, 0);
  const lowerBounds: number[] = [];
  let cumulative = 0;
  for (const m of MIX) {
    lowerBounds.push(cumulative / totalWeight);
    cumulative += m.weight;
  }
  progress(
    `filling ${thousands(TEAM_ROWS)} generations of the team and ${thousands(OTHER_ROWS)} of another team, ` +
      'one item each…',
  );
  const fillStart = performance.now();
  const generations = await pool.query(FILL_GENERATIONS, [
    total,
    OTHER_ROWS,
    teamId,
    other.id,
    new Date(startMs).toISOString(),
    (DAYS * DAY_MS) / 1000 / total,
    lowerBounds,
    MIX.map((m) => m.operation),
    MIX.map((m) => m.model),
    MIX.map((m) => m.credits),
    MIX.map((m) => m.seconds),
    MIX.map((m) => m.field),
    workspaces.ours,
    workspaces.other,
    SUBJECTS,
    ACTIONS,
    PLACES,
    STYLES,
    EXTRAS,
  ]);
  const generationsMs = performance.now() - fillStart;
  progress(`  ${thousands(generations.rowCount ?? 0)} generations in ${seconds(generationsMs)}`);
  const itemsStart = performance.now();
  const items = await pool.query(FILL_ITEMS, [`${ours.baseUrl}/media`]);
  const itemsMs = performance.now() - itemsStart;
  progress(`  ${thousands(items.rowCount ?? 0)} items in ${seconds(itemsMs)}`);
  const vacuumStart = performance.now();
  await pool.query('vacuum (analyze) generations, generation_items');
  await pool.query('checkpoint');
  const vacuumMs = performance.now() - vacuumStart;
  progress(`  vacuum (analyze) and checkpoint in ${seconds(vacuumMs)}`);

  const { rows: sizes } = await pool.query<{ table_size: string; indexes_size: string; items_size: string }>(
    `select pg_size_pretty(pg_table_size('generations')) as table_size,
            pg_size_pretty(pg_indexes_size('generations')) as indexes_size,
            pg_size_pretty(pg_total_relation_size('generation_items')) as items_size`,
  );
  const { rows: shares } = await pool.query<{ status: string; n: number }>(
    'select status, count(*)::int as n from generations where team_id = $1::text group by status order by n desc',
    [teamId],
  );
  const { rows: models } = await pool.query<{ model: string; n: number }>(
    `select model, count(*)::int as n from generations where team_id = $1::text
     group by model order by n desc limit 1`,
    [teamId],
  );
  const { rows: kinds } = await pool.query<{ video: number; in_workspace: number }>(
    `select count(*) filter (where operation like 'video.%')::int as video,
            count(*) filter (where workspace_id is not null)::int as in_workspace
     from generations where team_id = $1::text`,
    [teamId],
  );
  const teamRows = shares.reduce((sum, s) => sum + s.n, 0);
  if (teamRows !== TEAM_ROWS) throw new Error(`the team has ${teamRows} generations, not ${TEAM_ROWS}`);
  const commonModel = models[0]?.model ?? 'flux-1-dev';
  const share = (n: number | undefined) => `${(((n ?? 0) / TEAM_ROWS) * 100).toFixed(1)}%`;
  const shareOf = (status: string) => share(shares.find((s) => s.status === status)?.n);
  const midpoint = new Date(startMs + (DAYS * DAY_MS) / 2).toISOString();

  // ---- Cases.
  const loadAtStart = loadavg()[0] ?? 0;
  const firstPage = await getPage(ours, key, {});
  await verifyPage(pool, teamId, '(a)', firstPage.page, () => true);
  progress('walking 50 pages by next_cursor…');
  const walk: number[] = [firstPage.ms];
  let cursor = firstPage.page.next_cursor;
  let deepPage: Page | undefined;
  for (let follow = 1; follow <= DEEP_FOLLOWS; follow++) {
    if (!cursor) throw new Error(`page ${follow} has no next_cursor`);
    const next = await getPage(ours, key, { cursor });
    walk.push(next.ms);
    await verifyPage(pool, teamId, `page ${follow + 1}`, next.page, () => true);
    if (follow === DEEP_FOLLOWS) deepPage = next.page;
    else cursor = next.page.next_cursor;
  }
  if (!cursor || !deepPage) throw new Error('the walk did not reach its page');
  const deepCursor = cursor;

  const { rows: farKey } = await pool.query<{ created_key: string; id: string }>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key, id
     from generations where team_id = $1::text order by created_at desc, id desc offset $2::int limit 1`,
    [teamId, FAR_OFFSET - 1],
  );
  const far = farKey[0];
  if (!far) throw new Error(`no row at depth ${FAR_OFFSET}`);
  const farCursor = encodeCursor({ createdAt: far.created_key, id: far.id });

  const cases: Case[] = [
    { id: 'a', label: '(a) first page', query: {}, filter: {}, matches: () => true },
    {
      id: 'b',
      label: `(b) page ${DEEP_FOLLOWS + 1} (after ${DEEP_FOLLOWS} next_cursor)`,
      query: { cursor: deepCursor },
      filter: { before: decodeCursor(deepCursor) },
      matches: () => true,
    },
    {
      id: 'b_far',
      label: `(b') after ${thousands(FAR_OFFSET)} (a cursor)`,
      query: { cursor: farCursor },
      filter: { before: decodeCursor(farCursor) },
      matches: () => true,
    },
    {
      id: 'c',
      label: '(c) status=failed',
      query: { status: 'failed' },
      filter: { status: 'failed' },
      matches: (e) => e.status === 'failed',
    },
    {
      id: 'd',
      label: '(d) kind=video',
      query: { kind: 'video' },
      filter: { kind: 'video' },
      matches: (e) => e.kind === 'video' && e.operation.startsWith('video.'),
    },
    {
      id: 'e',
      label: `(e) model=${commonModel}`,
      query: { model: commonModel },
      filter: { model: commonModel },
      matches: (e) => e.model === commonModel,
    },
    {
      id: 'g',
      label: `(g) model=${RARE_MODEL} (rare)`,
      query: { model: RARE_MODEL },
      filter: { model: RARE_MODEL },
      matches: (e) => e.model === RARE_MODEL,
    },
    {
      id: 'h',
      label: '(h) kind=model3d (rare)',
      query: { kind: 'model3d' },
      filter: { kind: 'model3d' },
      matches: (e) => e.operation.startsWith('model3d.'),
    },
    {
      id: 'i',
      label: '(i) operation=video.lipsync (rare)',
      query: { operation: 'video.lipsync' },
      filter: { operation: 'video.lipsync' },
      matches: (e) => e.operation === 'video.lipsync',
    },
    {
      id: 'j',
      label: '(j) workspace_id=<one of four>',
      query: { workspace_id: workspaces.ours[0] as string },
      filter: { workspaceId: workspaces.ours[0] as string },
      matches: (e) => e.workspace_id === workspaces.ours[0],
    },
    {
      id: 'f',
      label: '(f) created_before=<mid-year>',
      query: { created_before: midpoint },
      filter: { createdBefore: midpoint },
      matches: (e) => e.created_at < midpoint,
    },
  ];
  const byId = (id: string) => cases.find((c) => c.id === id) as Case;

  for (const c of cases) {
    const { page } = await getPage(ours, key, c.query);
    await verifyPage(pool, teamId, c.label, page, c.matches);
    if (
      c.id === 'b' &&
      page.data.map((e) => e.generation_id).join() !== deepPage.data.map((e) => e.generation_id).join()
    ) {
      throw new Error('the deep page differs from the one the walk reached');
    }
  }
  progress(`http: ${WARMUP} warm-up + ${SAMPLES} rounds of one request per case…`);
  const httpTimes = await interleaved(
    cases.map((c) => () => getPage(ours, key, c.query)),
    SAMPLES,
    WARMUP,
  );
  for (const [i, c] of cases.entries()) c.http = stats(httpTimes[i] ?? []);

  // ---- The same statements directly in SQL, the baselines, and the plans.
  const client = await pool.connect();
  try {
    const firstStatement = await historyStatement(teamId, {}, PAGE);
    const baselines: Baseline[] = [
      {
        id: 'offset_deep',
        label: `baseline OFFSET ${thousands(DEEP_OFFSET)} (SQL)`,
        offset: DEEP_OFFSET,
        statement: offsetStatement(firstStatement, DEEP_OFFSET),
        ours: byId('b'),
      },
      {
        id: 'offset_far',
        label: `baseline OFFSET ${thousands(FAR_OFFSET)} (SQL)`,
        offset: FAR_OFFSET,
        statement: offsetStatement(firstStatement, FAR_OFFSET),
        ours: byId('b_far'),
      },
    ];
    // The route asks for one more row than the page (is there a next page).
    const statements = new Map<Case, Statement>();
    for (const c of cases) statements.set(c, await historyStatement(teamId, c.filter, PAGE + 1));
    const run = (statement: Statement) => () => client.query(statement.text, statement.values);
    // The keyset page and the OFFSET page at the same depth hold the same rows.
    for (const b of baselines) {
      const keyset = await run(statements.get(b.ours) as Statement)();
      const offset = await run(b.statement)();
      const keysetIds = keyset.rows
        .slice(0, PAGE)
        .map((r: { id: string }) => r.id)
        .join();
      if (offset.rows.length !== PAGE || keysetIds !== offset.rows.map((r: { id: string }) => r.id).join()) {
        throw new Error(`${b.ours.label} and ${b.label} do not hold the same rows`);
      }
    }
    const [deepBaseline, farBaseline] = baselines as [Baseline, Baseline];
    progress(`sql: ${WARMUP} warm-up + ${SAMPLES} rounds of one run per case and of ${deepBaseline.label}…`);
    const sqlTimes = await interleaved(
      [...cases.map((c) => run(statements.get(c) as Statement)), run(deepBaseline.statement)],
      SAMPLES,
      WARMUP,
    );
    for (const [i, c] of cases.entries()) c.sql = stats(sqlTimes[i] ?? []);
    deepBaseline.sql = stats(sqlTimes[cases.length] ?? []);
    progress(`${farBaseline.label}: 1 warm-up + ${SLOW_SAMPLES} runs…`);
    farBaseline.sql = stats((await interleaved([run(farBaseline.statement)], SLOW_SAMPLES, 1))[0] ?? []);
    progress('EXPLAIN (ANALYZE, BUFFERS)…');
    for (const c of cases) c.plan = await explain(client, statements.get(c) as Statement);
    for (const b of baselines) b.plan = await explain(client, b.statement);

    // ---- Report.
    const loadAtEnd = loadavg()[0] ?? 0;
    const ms = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2)).padStart(10);
    const row = (label: string, http: Stats | undefined, sql: Stats | undefined, plan: PlanSummary | undefined) =>
      label.padEnd(42) +
      ms(http?.p50) +
      ms(http?.p99) +
      ms(sql?.p50) +
      ms(sql?.p99) +
      (plan ? thousands(plan.rowsRead) : '-').padStart(11);
    const sortedWalk = [...walk.slice(1)].sort((a, b) => a - b);
    const walkLines: string[] = [];
    for (let i = 0; i < walk.length; i += 10) {
      walkLines.push(
        `  pages ${String(i + 1).padStart(2)}-${String(Math.min(walk.length, i + 10)).padStart(2)}: ` +
          walk
            .slice(i, i + 10)
            .map((v) => v.toFixed(1).padStart(6))
            .join(''),
      );
    }
    // Three significant digits, and how many times slower the baseline is.
    const ratio = (a: number, b: number) => `${(a / b).toPrecision(3)}x (1/${thousands(Math.round(b / a))})`;
    const oursPlans = cases.map((c) => c.plan?.summary as PlanSummary);
    const anySeq = oursPlans.some((p) => p.seqScan);
    const anySort = oursPlans.some((p) => p.sort);
    const planLine = (label: string, p: PlanSummary) =>
      `${label.padEnd(42)}${p.scan}: ${thousands(p.rowsRead)} rows read (${thousands(p.removedByFilter)} removed by ` +
      `filter), ${thousands(p.itemLookups)} item lookups, buffers hit ${thousands(p.sharedHit)} read ` +
      `${thousands(p.sharedRead)}, ${p.executionMs.toFixed(2)} ms; seq scan: ${p.seqScan ? 'YES' : 'no'}, ` +
      `sort: ${p.sort ? 'YES' : 'no'}`;

    const lines = [
      '',
      `GET /api/v1/generations, history of one team with ${thousands(TEAM_ROWS)} generations over ${DAYS} days ` +
        `(+${thousands(OTHER_ROWS)} of another team, interleaved), limit ${PAGE}`,
      `fill: ${seconds(generationsMs + itemsMs)} (generations ${seconds(generationsMs)}, items ${seconds(itemsMs)}), ` +
        `then vacuum (analyze) + checkpoint ${seconds(vacuumMs)}; generations ${sizes[0]?.table_size} + indexes ` +
        `${sizes[0]?.indexes_size}, generation_items ${sizes[0]?.items_size}`,
      `the team's mix: completed ${shareOf('completed')}, failed ${shareOf('failed')}, processing ` +
        `${shares.find((s) => s.status === 'processing')?.n ?? 0} rows, queued ${shares.find((s) => s.status === 'queued')?.n ?? 0} rows; ` +
        `video ${share(kinds[0]?.video)}, ${commonModel} ${share(models[0]?.n)}, in a workspace ${share(kinds[0]?.in_workspace)}`,
      `sequential requests, one at a time, the cases in turn: ${WARMUP} warm-up + ${SAMPLES} per case (http: the whole request from ` +
        `this process; sql: selectHistory's statement, limit ${PAGE + 1}, run directly with pg)`,
      `machine: ${availableParallelism()} CPUs, 1-minute load average ${loadAtStart.toFixed(1)} when the measurements ` +
        `began, ${loadAtEnd.toFixed(1)} when they ended (the bench, its server and PostgreSQL, and anything else running)`,
      '',
      `${''.padEnd(42)}${['http p50', 'http p99', 'sql p50', 'sql p99', 'rows read'].map((h) => h.padStart(h === 'rows read' ? 11 : 10)).join('')}   (ms)`,
      ...cases.map((c) => row(c.label, c.http, c.sql, c.plan?.summary)),
      ...baselines.map((b) => row(`${b.label} ×${b.sql?.samples}`, undefined, b.sql, b.plan?.summary)),
      '',
      ...baselines.map((b) => {
        const base = b.sql as Stats;
        const o = b.ours;
        return (
          `ours / baseline at depth ${thousands(b.offset)}: p50 http ${ratio((o.http as Stats).p50, base.p50)}, ` +
          `sql ${ratio((o.sql as Stats).p50, base.p50)};  p99 http ${ratio((o.http as Stats).p99, base.p99)}, ` +
          `sql ${ratio((o.sql as Stats).p99, base.p99)}`
        );
      }),
      '',
      `next_cursor walk, ms per page (page 1 = the first page, then ${DEEP_FOLLOWS} pages by next_cursor, each once):`,
      ...walkLines,
      `  pages 2-${DEEP_FOLLOWS + 1}: p50 ${quantile(sortedWalk, 0.5).toFixed(2)} ms, max ` +
        `${(sortedWalk.at(-1) as number).toFixed(2)} ms; page 1: ${(walk[0] as number).toFixed(2)} ms (first request ` +
        `of the run, cold)`,
      '',
      'plans (EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON); the text plans below are a second EXPLAIN run):',
      ...cases.map((c) => planLine(c.label, c.plan?.summary as PlanSummary)),
      ...baselines.map((b) => planLine(b.label, b.plan?.summary as PlanSummary)),
      `ours: sequential scan in any plan: ${anySeq ? 'YES' : 'no'}; sort in any plan: ${anySort ? 'YES' : 'no'}`,
      '',
      ...cases.flatMap((c) => [`--- ${c.label}`, c.plan?.text ?? '', '']),
      ...baselines.flatMap((b) => [`--- ${b.label}`, b.plan?.text ?? '', '']),
    ];
    process.stdout.write(lines.join('\n'));

    const figures = (s: Stats | undefined) => s && { p50_ms: s.p50, p99_ms: s.p99, samples: s.samples };
    const planFigures = (p: PlanSummary | undefined) =>
      p && {
        scan: p.scan,
        rows_read: p.rowsRead,
        item_lookups: p.itemLookups,
        seq_scan: p.seqScan,
        sort: p.sort,
        execution_ms: p.executionMs,
      };
    const summary = {
      bench: 'history',
      endpoint: 'GET /api/v1/generations',
      rows: TEAM_ROWS,
      other_rows: OTHER_ROWS,
      limit: PAGE,
      fill_s: Math.round((generationsMs + itemsMs) / 100) / 10,
      cases: Object.fromEntries(
        cases.map((c) => [c.id, { http: figures(c.http), sql: figures(c.sql), plan: planFigures(c.plan?.summary) }]),
      ),
      baselines: Object.fromEntries(
        baselines.map((b) => [
          b.id,
          {
            offset: b.offset,
            sql: figures(b.sql),
            plan: planFigures(b.plan?.summary),
            ratio_http_p50: Number(((b.ours.http as Stats).p50 / (b.sql as Stats).p50).toPrecision(3)),
            ratio_sql_p50: Number(((b.ours.sql as Stats).p50 / (b.sql as Stats).p50).toPrecision(3)),
          },
        ]),
      ),
      walk_ms: walk.map((v) => Math.round(v * 100) / 100),
      load_average: [Math.round(loadAtStart * 10) / 10, Math.round(loadAtEnd * 10) / 10],
      seq_scan: anySeq,
      sort: anySort,
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    client.release();
  }
}

await runBenchmark('history', main);
