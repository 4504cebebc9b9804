// Every benchmark (bench/*.ts, `npm run bench:<name>`) runs in its quick mode (BENCH_QUICK=1: few
// samples, short runs) against a database cloned from the tests' migrated template, one after the
// other: a bench that no longer works against the service (a refused comparison, a wrong answer, a
// ledger that does not add up) fails here. Quick figures mean little on a shared machine, so a
// missed performance target does not fail a quick run; every correctness check does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './helpers.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The benches, by the name of their npm script (bench:<name>) and file. */
const BENCHES = [
  'auth',
  'status',
  'create',
  'latency',
  'providers',
  'stream',
  'events',
  'history',
  'door',
  'tracing',
] as const;

/** How long one quick run may take on a busy machine before it counts as hung. */
const RUN_TIMEOUT_MS = 180_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runBench(name: string, databaseUrl: string): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [`bench/${name}.ts`], {
      cwd: ROOT,
      env: { ...process.env, BENCH_QUICK: '1', BENCH_DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-20_000);
    });
    // SIGTERM lets the bench clean up (its servers are its children).
    const timer = setTimeout(() => child.kill('SIGTERM'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr });
    });
  });
}

describe('benchmarks in quick mode', () => {
  for (const name of BENCHES) {
    test(`bench:${name} runs to its end and prints its summary`, { timeout: RUN_TIMEOUT_MS + 30_000 }, async () => {
      const db = await createTestDatabase();
      try {
        const run = await runBench(name, db.url);
        const output = `stdout:\n${run.stdout.slice(-4_000)}\nstderr:\n${run.stderr.slice(-8_000)}`;
        assert.equal(run.signal, null, `bench:${name} was stopped after ${RUN_TIMEOUT_MS} ms\n${output}`);
        assert.equal(run.code, 0, `bench:${name} exited with ${run.code}\n${output}`);
        const summaries = run.stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { bench?: string });
        assert.ok(
          summaries.some((s) => s.bench === name),
          `bench:${name} printed no JSON summary of its own\n${output}`,
        );
      } finally {
        await db.drop();
      }
    });
  }
});
