// A stop as supervisors send it: `npm start` in a process group of its own, the whole group
// signalled once (systemd's default, `timeout`, container runtimes, a terminal's Ctrl-C). The
// service then gets the signal twice within milliseconds (from the supervisor, and from npm,
// which passes it on): that is one stop, and in-flight work finishes. A stop that takes too
// long is forced; the embedded PostgreSQL is stopped either way.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, postmasterPid } from '../src/db/embedded.ts';
import { type FakeOpenAiCompatible, startFakeOpenAiCompatible } from './fakes/openai-compatible.ts';
import { call } from './helpers.ts';

const MODEL = 'openai/gpt-4o-mini';

interface Group {
  child: ChildProcess;
  output: () => string;
  waitFor: (pattern: RegExp) => Promise<void>;
  /** npm's exit code, once every process holding its output is gone. */
  exited: Promise<number | null>;
  signal: (name: NodeJS.Signals) => void;
}

const groups = new Set<Group>();

/** `npm start` as the leader of a new process group. */
function npmStart(env: Record<string, string>): Group {
  const child = spawn('npm', ['start'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const group: Group = {
    child,
    output: () => output,
    exited,
    signal: (name) => process.kill(-(child.pid as number), name),
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output)) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        exited.then(() => {
          listeners.delete(check);
          if (!pattern.test(output)) reject(new Error(`exited before ${pattern}; output:\n${output}`));
        });
        check();
      }),
  };
  groups.add(group);
  exited.then(() => groups.delete(group));
  return group;
}

/** Whether a process is running (a zombie, ended but not yet reaped by its parent, is not). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

describe('a stop signalled to the process group of `npm start`', () => {
  let chat: FakeOpenAiCompatible;
  let dataDir: string;
  let port: number;
  let apiKey: string | undefined;

  before(async () => {
    chat = await startFakeOpenAiCompatible();
    dataDir = await mkdtemp(join(tmpdir(), 'genmedia-signals-'));
    port = await freePort();
  });
  after(async () => {
    for (const group of groups) group.signal('SIGKILL');
    chat.release();
    await chat.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * Starts the service, puts a text generation in flight (the chat server holds it) and signals
   * the group once; returns the answer to come, the group and the database's process.
   */
  async function signalWithWorkInFlight(signal: NodeJS.Signals, env: Record<string, string> = {}) {
    const group = npmStart({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ALLOW_PRIVATE_URLS: 'true',
      OPENAI_COMPATIBLE_BASE_URL: `${chat.url}/v1`,
      OPENAI_COMPATIBLE_MODELS: JSON.stringify({ [MODEL]: 'llama3.2:3b' }),
      ...env,
    });
    await group.waitFor(/Server listening/);
    // The first start prints the default team's key; later ones reuse the data folder.
    apiKey ??= /API key:\s+(gms_\S+)/.exec(group.output())?.[1];
    assert.ok(apiKey, group.output());
    const postgres = postmasterPid(join(dataDir, 'postgres'));
    assert.ok(postgres !== undefined && running(postgres), 'the embedded PostgreSQL runs');

    const answer = call<{ text: string; generation_id: string }>(
      { url: `http://127.0.0.1:${port}` },
      'POST',
      '/api/v1/text/generate',
      {
        token: apiKey,
        body: { prompt: `Tell a story [oai:held] (${signal})`, model: MODEL, settings: { max_tokens: 200 } },
      },
    );
    // The forced stop drops it: its failure is looked at (or not) later.
    answer.catch(() => undefined);
    await chat.untilHeld(1);
    group.signal(signal);
    await group.waitFor(/shutting down: finishing in-flight work/);
    return { group, answer, postgres };
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} once to the group: the generation in flight completes, exit 0, PostgreSQL stopped`, async () => {
      const { group, answer, postgres } = await signalWithWorkInFlight(signal);
      // npm passes the signal on: the service sees it twice, and takes it for one stop.
      await group.waitFor(/the same stop signalled again/);
      chat.release();

      const reply = await answer;
      assert.equal(reply.status, 200, reply.text);
      assert.match(reply.body.text, /\S/);
      assert.equal(await group.exited, 0, group.output());
      assert.match(group.output(), /stopped cleanly/);
      assert.doesNotMatch(group.output(), /second signal|took too long/);
      assert.ok(!existsSync(join(dataDir, 'postgres', 'postmaster.pid')), 'postmaster.pid is left');
      assert.ok(!running(postgres), `PostgreSQL (pid ${postgres}) still runs`);
    });
  }

  test('a stop that outlasts SHUTDOWN_TIMEOUT_MS is forced (exit 1), and PostgreSQL is stopped all the same', async () => {
    const { group, answer, postgres } = await signalWithWorkInFlight('SIGTERM', { SHUTDOWN_TIMEOUT_MS: '1000' });
    try {
      assert.equal(await group.exited, 1, group.output());
      assert.match(group.output(), /shutdown took too long: exiting/);
      assert.ok(!existsSync(join(dataDir, 'postgres', 'postmaster.pid')), 'postmaster.pid is left');
      assert.ok(!running(postgres), `PostgreSQL (pid ${postgres}) still runs`);
    } finally {
      chat.release();
      // The request in flight was dropped with the process: its connection is gone.
      await answer.catch(() => undefined);
    }
  });
});
