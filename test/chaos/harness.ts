// The chaos run: two API and two worker processes share one standalone PostgreSQL and one storage
// folder while a steady load of generations runs through them; processes are SIGKILLed and the
// database is stopped and hung. Afterwards every invariant a paying user relies on is checked and
// reported as figures. `npm run chaos` runs the full schedule; test/chaos.test.ts a short one.
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.ts';
import { StandaloneDatabase } from './database.ts';
import { type ServiceProcess, startServiceProcess } from './service.ts';

export type Profile = 'short' | 'full';

export interface ChaosReport {
  profile: Profile;
  seconds: number;
  generations: number;
  byStatus: Record<string, number>;
  unfinishedItems: number;
  teamsChecked: number;
  ledgerMismatches: number;
  doubleCharges: number;
  doubleRefunds: number;
  refundMismatches: number;
  webhooksExpected: number;
  webhooksDelivered: number;
  webhooksMissing: number;
  webhookIdsPerEventMax: number;
  unexpectedExits: number;
  clientRequests: number;
  client500: number;
  client503: number;
  clientGaveUp: number;
  sameItemInterruptions: number;
  events: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Proc {
  name: string;
  role: 'api' | 'worker';
  service: ServiceProcess;
  killedByUs: boolean;
}

/** Webhook receiver: records every delivery; answers 503 to a tenth of first attempts. */
class Receiver {
  readonly seen = new Map<string, Set<string>>(); // generation id + type -> webhook-ids
  readonly attempts = new Map<string, number>(); // webhook-id -> deliveries received
  #server: Server;
  url = '';
  constructor() {
    this.#server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = String(req.headers['webhook-id'] ?? '');
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            type: string;
            data: { generation_id: string };
          };
          const key = `${body.data.generation_id} ${body.type}`;
          const ids = this.seen.get(key) ?? new Set<string>();
          ids.add(id);
          this.seen.set(key, ids);
        } catch {
          // counted below all the same
        }
        const n = (this.attempts.get(id) ?? 0) + 1;
        this.attempts.set(id, n);
        const refuse = n === 1 && id.charCodeAt(id.length - 1) % 10 === 0;
        res.writeHead(refuse ? 503 : 200).end();
      });
    });
  }
  async start(): Promise<void> {
    const port = await freePort();
    await new Promise<void>((r) => this.#server.listen(port, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${port}/hook`;
  }
  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((r) => this.#server.close(r));
  }
}

interface ClientStats {
  requests: number;
  status: Map<number, number>;
  networkErrors: number;
  gaveUp: number;
}

/**
 * Runs the chaos schedule and checks the outcome. `log` gets one line per event.
 */
export async function runChaos(profile: Profile, log: (line: string) => void = () => undefined): Promise<ChaosReport> {
  const started = Date.now();
  const events: string[] = [];
  const event = (line: string) => {
    const stamped = `[${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`;
    events.push(stamped);
    log(stamped);
  };
  const dir = await mkdtemp(join(tmpdir(), 'genmedia-chaos-'));
  await chmod(dir, 0o755); // the database runs as its own user when we are root
  const database = new StandaloneDatabase(join(dir, 'db'));
  const db = await database.start();
  const receiver = new Receiver();
  await receiver.start();
  const adminToken = `gma_${randomBytes(30).toString('base64url')}`;
  const procs: Proc[] = [];
  const logFile = createWriteStream(join(dir, 'processes.log'));
  let check: pg.Pool | undefined;

  const spawnProc = async (name: string, role: 'api' | 'worker', port?: number): Promise<Proc> => {
    const service = await startServiceProcess({
      role,
      databaseUrl: db.url,
      adminToken,
      dataDir: join(dir, 'data'),
      port,
      env: {
        SIMULATOR_DELAY_MS: '1200',
        WORKER_CONCURRENCY: '6',
        WORKER_DEAD_AFTER_MS: '3000',
        ITEM_LEASE_MS: '5000',
        SWEEP_INTERVAL_MS: '1000',
        WEBHOOK_RETRY_DELAYS_S: '1,2,3,5,5,5,5,5,5,5',
        RATE_LIMIT_PER_MINUTE: '0',
        RATE_LIMIT_WRITES_PER_MINUTE: '0',
        // API processes would log every request at info (a worker needs info to say it started).
        ...(role === 'api' ? { LOG_LEVEL: 'warn' } : {}),
      },
      onOutput: (text) => logFile.write(`${name}: ${text}`),
    });
    const proc: Proc = { name, role, service, killedByUs: false };
    service.child.on('exit', (code, signal) => {
      if (!proc.killedByUs) event(`UNEXPECTED: ${name} exited (${code ?? signal})`);
    });
    procs.push(proc);
    return proc;
  };
  const ready = (proc: Proc) => proc.service.ready(30_000);
  const kill = async (proc: Proc) => {
    proc.killedByUs = true;
    await proc.service.kill();
    procs.splice(procs.indexOf(proc), 1);
  };
  const replace = async (proc: Proc) => {
    await kill(proc);
    return spawnProc(proc.name, proc.role, proc.role === 'api' ? Number(new URL(proc.service.url).port) : undefined);
  };

  try {
    check = new pg.Pool({ connectionString: db.url, max: 3 });
    check.on('error', () => undefined);
    const apiPorts = [await freePort(), await freePort()];
    const api = [await spawnProc('api-1', 'api', apiPorts[0]), await spawnProc('api-2', 'api', apiPorts[1])];
    await Promise.all(api.map(ready));
    const workers = [await spawnProc('worker-1', 'worker'), await spawnProc('worker-2', 'worker')];
    await Promise.all(workers.map(ready));
    event('2 API and 2 worker processes ready');

    // Two teams, each with a key.
    const admin = (path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${apiPorts[0]}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<Record<string, string>>);
    const keys: string[] = [];
    for (const name of ['chaos-a', 'chaos-b']) {
      const team = await admin('/admin/v1/teams', { name, credits: 1_000_000 });
      keys.push((await admin(`/admin/v1/teams/${team.id}/api-keys`, { name: 'load' })).key as string);
    }

    // The load: clients that retry like a careful client would (same Idempotency-Key, the other
    // API process, Retry-After honoured) until their request is answered.
    const stats: ClientStats = { requests: 0, status: new Map(), networkErrors: 0, gaveUp: 0 };
    const created = new Map<string, string>(); // generation id -> key
    let loading = true;
    const send = async (n: number): Promise<void> => {
      const key = keys[n % keys.length] as string;
      const body: Record<string, unknown> = {
        prompt: n % 7 === 0 ? `chaos ${n} [simulate:fail]` : `chaos ${n}`,
        batch: 1 + (n % 2),
      };
      if (n % 3 === 0) body.webhook = receiver.url;
      const idempotencyKey = randomUUID();
      const deadline = Date.now() + 150_000;
      let last = '';
      for (let attempt = 0; Date.now() < deadline; attempt++) {
        const port = apiPorts[(n + attempt) % 2];
        stats.requests += 1;
        let wait = 300;
        try {
          const r = await fetch(`http://127.0.0.1:${port}/api/v1/images/generate`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'idempotency-key': idempotencyKey,
            },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(30_000),
          });
          stats.status.set(r.status, (stats.status.get(r.status) ?? 0) + 1);
          const text = await r.text();
          if (r.status === 200) {
            created.set((JSON.parse(text) as { generation_id: string }).generation_id, key);
            // Read it back now and then, as clients poll.
            if (n % 4 === 0) {
              const s = await fetch(
                `http://127.0.0.1:${apiPorts[(n + 1) % 2]}/api/v1/generations/${JSON.parse(text).generation_id}/status`,
                {
                  headers: { authorization: `Bearer ${key}` },
                },
              ).catch(() => undefined);
              if (s) {
                stats.requests += 1;
                stats.status.set(s.status, (stats.status.get(s.status) ?? 0) + 1);
                await s.text();
              }
            }
            return;
          }
          if (r.status === 500) {
            event(`client saw 500: ${text.slice(0, 200)}`);
            return;
          }
          if (r.status !== 503 && r.status !== 409 && r.status !== 429) {
            event(`client saw ${r.status}: ${text.slice(0, 200)}`);
            return;
          }
          wait = 1000 * Number(r.headers.get('retry-after') ?? '1');
          last = `${r.status} ${text.slice(0, 200)}`;
        } catch (err) {
          stats.networkErrors += 1;
          last = String(err);
        }
        await sleep(Math.min(wait, 2000));
      }
      stats.gaveUp += 1;
      event(`client gave up after 150 s; last answer: ${last}`);
    };
    let counter = 0;
    const clients = Array.from({ length: 3 }, async () => {
      while (loading) {
        await send(counter++);
        await sleep(250);
      }
    });

    // The schedule.
    const killAndReplace = async (role: 'api' | 'worker', which: number) => {
      const proc = procs.filter((p) => p.role === role)[which] as Proc;
      event(`SIGKILL ${proc.name}`);
      const next = await replace(proc);
      await ready(next);
      event(`${next.name} back`);
    };
    const outage = async (seconds: number) => {
      event(`database stopped (pg_ctl stop -m fast) for ${seconds} s`);
      await database.stop();
      await sleep(seconds * 1000);
      await database.start();
      event('database started again');
    };
    const hang = async (seconds: number) => {
      event(`database hung (SIGSTOP) for ${seconds} s`);
      await database.signal('SIGSTOP');
      await sleep(seconds * 1000);
      await database.signal('SIGCONT');
      event('database resumed (SIGCONT)');
    };
    // Kills every worker while one chosen item runs, three times, so the same item is
    // interrupted three times; it must still end (completed, or failed and refunded).
    let sameItemInterruptions = 0;
    const tripleKill = async () => {
      const r = await fetch(`http://127.0.0.1:${apiPorts[0]}/api/v1/images/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'chaos: the item that is interrupted three times' }),
      });
      const generationId = ((await r.json()) as { generation_id: string }).generation_id;
      created.set(generationId, keys[0] as string);
      for (let round = 1; round <= 3; round++) {
        for (let i = 0; i < 600; i++) {
          const { rows } = await (check as pg.Pool).query<{ status: string; attempts: number }>(
            'select status, attempts from generation_items where generation_id = $1',
            [generationId],
          );
          if (rows[0]?.status === 'PROCESSING' && rows[0].attempts === round) break;
          await sleep(50);
        }
        event(`SIGKILL both workers while item of ${generationId} runs (round ${round})`);
        const current = procs.filter((p) => p.role === 'worker');
        for (const proc of current) await kill(proc);
        sameItemInterruptions += 1;
        const fresh = [await spawnProc('worker-1', 'worker'), await spawnProc('worker-2', 'worker')];
        await Promise.all(fresh.map(ready));
      }
      event('workers back after the third round');
    };

    await sleep(3000);
    await killAndReplace('worker', 0);
    await sleep(2000);
    if (profile === 'full') await tripleKill();
    await sleep(1000);
    await killAndReplace('api', 0);
    await sleep(3000);
    if (profile === 'short') {
      await outage(10);
    } else {
      await outage(15);
      await sleep(5000);
      await outage(60);
      await sleep(5000);
      await hang(20);
    }
    await sleep(5000);
    loading = false;
    await Promise.all(clients);
    event(`load stopped: ${created.size} generations accepted`);

    // Drain: every generation reaches an end, every webhook is delivered.
    const drainUntil = Date.now() + 120_000;
    let unfinished = Number.POSITIVE_INFINITY;
    let pendingHooks = Number.POSITIVE_INFINITY;
    while (Date.now() < drainUntil) {
      const { rows } = await check.query<{ n: number }>(
        `select count(*)::int as n from generation_items where status in ('QUEUED', 'PROCESSING')`,
      );
      const { rows: hooks } = await check.query<{ n: number }>(
        `select count(*)::int as n from webhook_deliveries where state = 'pending'`,
      );
      const previous = `${unfinished} ${pendingHooks}`;
      unfinished = rows[0]?.n ?? 0;
      pendingHooks = hooks[0]?.n ?? 0;
      if (unfinished === 0 && pendingHooks === 0) break;
      if (previous !== `${unfinished} ${pendingHooks}`) {
        event(`draining: ${unfinished} unfinished items, ${pendingHooks} pending webhooks`);
      }
      await sleep(500);
    }
    event(`drained: ${unfinished} unfinished items, ${pendingHooks} pending webhooks`);

    // The checks.
    const ids = [...created.keys()];
    const { rows: statuses } = await check.query<{ status: string; n: number }>(
      'select status, count(*)::int as n from generations where id = any($1) group by status',
      [ids],
    );
    const byStatus = Object.fromEntries(statuses.map((r) => [r.status, r.n]));
    const { rows: totalGenerations } = await check.query<{ n: number }>('select count(*)::int as n from generations');
    const { rows: ledger } = await check.query<{ n: number }>(
      `select count(*)::int as n from teams t
       where t.credits <> coalesce((select sum(amount) from credit_ledger l where l.team_id = t.id), 0)`,
    );
    const { rows: teams } = await check.query<{ n: number }>('select count(*)::int as n from teams');
    const { rows: charges } = await check.query<{ n: number }>(
      `select count(*)::int as n from (select generation_id from credit_ledger where kind = 'charge'
         group by generation_id having count(*) > 1) x`,
    );
    const { rows: refunds } = await check.query<{ n: number }>(
      `select count(*)::int as n from (select reason from credit_ledger where kind = 'refund'
         group by generation_id, reason having count(*) > 1) x`,
    );
    const { rows: refundSums } = await check.query<{ n: number }>(
      `select count(*)::int as n from generations g
       where g.credits_refunded <> coalesce((select sum(amount) from credit_ledger l
                                             where l.generation_id = g.id and l.kind = 'refund'), 0)
          or g.credits_refunded <> coalesce((select sum(price) from generation_items i
                                             where i.generation_id = g.id and i.status = 'FAILED'), 0)`,
    );
    const { rows: hookRows } = await check.query<{
      id: string;
      generation_id: string;
      event_type: string;
      state: string;
    }>(
      `select d.id, d.generation_id, d.event_type, d.state from webhook_deliveries d
       join generations g on g.id = d.generation_id where g.webhook_url is not null`,
    );
    const { rows: expected } = await check.query<{ n: number }>(
      `select count(*)::int as n from generations where webhook_url is not null and status in ('completed', 'failed')`,
    );
    let missing = 0;
    let maxIds = 0;
    for (const d of hookRows) {
      const ids = receiver.seen.get(`${d.generation_id} ${d.event_type}`);
      if (!ids?.has(d.id)) missing += 1;
      maxIds = Math.max(maxIds, ids?.size ?? 0);
    }
    missing += (expected[0]?.n ?? 0) - hookRows.length;
    const status = (code: number) => stats.status.get(code) ?? 0;
    return {
      profile,
      seconds: Math.round((Date.now() - started) / 1000),
      generations: totalGenerations[0]?.n ?? 0,
      byStatus,
      unfinishedItems: unfinished,
      teamsChecked: teams[0]?.n ?? 0,
      ledgerMismatches: ledger[0]?.n ?? 0,
      doubleCharges: charges[0]?.n ?? 0,
      doubleRefunds: refunds[0]?.n ?? 0,
      refundMismatches: refundSums[0]?.n ?? 0,
      webhooksExpected: expected[0]?.n ?? 0,
      webhooksDelivered: hookRows.filter((d) => d.state === 'delivered').length,
      webhooksMissing: missing,
      webhookIdsPerEventMax: maxIds,
      unexpectedExits: events.filter((e) => e.includes('UNEXPECTED')).length,
      clientRequests: stats.requests,
      client500: status(500),
      client503: status(503),
      clientGaveUp: stats.gaveUp,
      sameItemInterruptions,
      events,
    };
  } finally {
    for (const proc of [...procs]) {
      proc.killedByUs = true;
      await proc.service.kill();
    }
    await check?.end().catch(() => undefined);
    await receiver.stop();
    await database.signal('SIGCONT').catch(() => undefined);
    await database.stop().catch(() => undefined);
    logFile.end();
    if (!process.env.CHAOS_KEEP) await rm(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  }
}

/** The report as a person reads it. */
export function formatReport(r: ChaosReport): string {
  const rows: Array<[string, string | number]> = [
    ['profile', r.profile],
    ['duration (s)', r.seconds],
    ['generations accepted', r.generations],
    [
      '  by status',
      Object.entries(r.byStatus)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ],
    ['items still QUEUED/PROCESSING', r.unfinishedItems],
    ['teams whose ledger sum != balance', `${r.ledgerMismatches} of ${r.teamsChecked}`],
    ['generations charged twice', r.doubleCharges],
    ['items refunded twice', r.doubleRefunds],
    ['generations whose refunds != failed items', r.refundMismatches],
    [
      'webhooks expected / delivered / missing',
      `${r.webhooksExpected} / ${r.webhooksDelivered} / ${r.webhooksMissing}`,
    ],
    ['most webhook-ids for one event', r.webhookIdsPerEventMax],
    ['processes that exited unasked', r.unexpectedExits],
    [
      'client requests / 500 / 503 / gave up',
      `${r.clientRequests} / ${r.client500} / ${r.client503} / ${r.clientGaveUp}`,
    ],
    ['same-item interruptions', r.sameItemInterruptions],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

/** What the run must show; each broken invariant is one line. */
export function violations(r: ChaosReport): string[] {
  const out: string[] = [];
  if (r.generations === 0) out.push('no generation was accepted: the load did not run');
  if (r.unfinishedItems > 0) out.push(`${r.unfinishedItems} items were left unfinished`);
  if ((r.byStatus.processing ?? 0) + (r.byStatus.queued ?? 0) > 0) out.push('generations were left unfinished');
  if (r.ledgerMismatches > 0) out.push(`${r.ledgerMismatches} teams' ledgers do not add up to their balance`);
  if (r.doubleCharges > 0) out.push(`${r.doubleCharges} generations were charged twice`);
  if (r.doubleRefunds > 0) out.push(`${r.doubleRefunds} items were refunded twice`);
  if (r.refundMismatches > 0) out.push(`${r.refundMismatches} generations' refunds do not match their failed items`);
  if (r.webhooksExpected === 0) out.push('no webhook was expected: the load sent none');
  if (r.webhooksMissing > 0) out.push(`${r.webhooksMissing} webhooks were never delivered`);
  if (r.webhookIdsPerEventMax > 1) out.push('one event was delivered under more than one webhook-id');
  if (r.unexpectedExits > 0) out.push(`${r.unexpectedExits} processes exited without being killed`);
  if (r.client500 > 0) out.push(`clients saw ${r.client500} answers of 500`);
  if (r.clientGaveUp > 0) out.push(`${r.clientGaveUp} client requests were never answered`);
  return out;
}
