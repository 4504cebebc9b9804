// The `genmedia` command-line tool (packages/cli) run as a user runs it: a child process against
// the real server, with a config folder of its own per test. It checks what a user sees: exit
// codes, the config file and its modes, downloaded files that decode, JSON output, and progress
// drawn as a bar on a terminal and as plain lines in a pipe.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import sharp from 'sharp';
import { call, createTeam, startTestServer, type TeamFixture, type TestServer } from './helpers.ts';
import { balanceOf, type StatusRecord, waitForGeneration } from './media-helpers.ts';

const MAIN = resolve('packages/cli/dist/main.js');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// The escape byte: what a terminal is drawn with, and what a pipe must never get.
const ESCAPE = '\u001b';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end with stdin closed; answers its exit code and output. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** A POSIX shell word holding `text` as is. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

describe('the genmedia CLI', () => {
  let server: TestServer;
  let team: TeamFixture;
  let configDir: string;
  let workDir: string;

  before(async () => {
    // Each simulated call takes 1 s: long enough to see progress and to cancel, short enough to be quick.
    server = await startTestServer({ env: { SIMULATOR_DELAY_MS: '1000' } });
    team = await createTeam(server, 100_000);
  });
  after(async () => {
    await server.close();
  });
  beforeEach(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'genmedia-cli-config-'));
    workDir = await mkdtemp(join(tmpdir(), 'genmedia-cli-out-'));
  });
  afterEach(async () => {
    await rm(configDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  });

  /** The environment of a run: never the user's own config or credentials, even as a fallback. */
  const envOf = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('GENMEDIA_')) delete env[name];
    return { ...env, HOME: workDir, XDG_CONFIG_HOME: workDir, GENMEDIA_CONFIG_DIR: configDir, ...extra };
  };
  /** genmedia with the config folder of the test and no credentials but those given. */
  const bare = (args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, [MAIN, ...args], envOf(extra));
  /** genmedia logged in as `as` through the environment. */
  const genmedia = (args: string[], as: TeamFixture = team) =>
    bare(args, { GENMEDIA_API_KEY: as.key, GENMEDIA_BASE_URL: server.url });
  const json = <T>(r: Run): T => {
    try {
      return JSON.parse(r.stdout) as T;
    } catch {
      assert.fail(`stdout is not JSON (exit ${r.code}): ${r.stdout}\nstderr: ${r.stderr}`);
    }
  };
  const submitImage = async (prompt: string, as: TeamFixture = team, batch = 1) => {
    const r = await call<{ generation_id: string }>(server, 'POST', '/api/v1/images/generate', {
      token: as.key,
      body: { prompt, batch },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.generation_id;
  };

  describe('login and credentials', () => {
    test('login checks the key, then stores the URL and key readable by the user only', async () => {
      // A folder that does not exist yet: login makes it, 0700.
      const dir = join(configDir, 'genmedia');
      const r = await bare(['login', '--key', team.key, '--url', server.url], { GENMEDIA_CONFIG_DIR: dir });
      assert.equal(r.code, 0, r.stderr);
      const credits = await balanceOf(server, team.key);
      assert.equal(r.stdout, `Logged in to ${server.url} (${credits} credits); saved in ${join(dir, 'config.json')}\n`);
      const file = join(dir, 'config.json');
      assert.equal((await stat(dir)).mode & 0o777, 0o700);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(dir), ['config.json'], 'no leftover temporary file');
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { base_url: server.url, api_key: team.key });

      // The stored login is what the next commands use.
      const balance = await bare(['balance', '--json'], { GENMEDIA_CONFIG_DIR: dir });
      assert.equal(balance.code, 0, balance.stderr);
      assert.deepEqual(json(balance), { credits });
    });

    test('login without --url checks and stores the GENMEDIA_BASE_URL of the environment', async () => {
      const r = await bare(['login', '--key', team.key], { GENMEDIA_BASE_URL: server.url });
      assert.equal(r.code, 0, r.stderr);
      const stored = JSON.parse(await readFile(join(configDir, 'config.json'), 'utf8')) as { base_url: string };
      assert.equal(stored.base_url, server.url);
    });

    test('a wrong key exits 3 and stores nothing', async () => {
      const r = await bare(['login', '--key', 'gms_wrong_key_0000000000000000', '--url', server.url]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /genmedia: /);
      assert.deepEqual(await readdir(configDir), []);
    });

    test('GENMEDIA_API_KEY and GENMEDIA_BASE_URL override the stored login', async () => {
      const other = await createTeam(server, 77, 'other');
      // A stored login whose URL answers nothing useful and whose key is another team's.
      await writeFile(
        join(configDir, 'config.json'),
        JSON.stringify({ base_url: `${server.url}/nowhere`, api_key: team.key }),
        { mode: 0o600 },
      );
      const stored = await bare(['balance']);
      assert.notEqual(stored.code, 0, 'the stored URL does not lead to the service');

      const url = await bare(['balance', '--json'], { GENMEDIA_BASE_URL: server.url });
      assert.equal(url.code, 0, url.stderr);
      assert.equal(
        json<{ credits: number }>(url).credits,
        await balanceOf(server, team.key),
        'the stored key, at the URL of the environment',
      );

      const both = await bare(['balance', '--json'], { GENMEDIA_BASE_URL: server.url, GENMEDIA_API_KEY: other.key });
      assert.equal(both.code, 0, both.stderr);
      assert.equal(json<{ credits: number }>(both).credits, 77, 'the key of the environment');
    });
  });

  describe('generations', () => {
    test('image -n 2 --out downloads two PNGs and names them on stdout', async () => {
      const out = join(workDir, 'images');
      const r = await genmedia(['image', 'a lighthouse at dusk', '-n', '2', '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      const names = (await readdir(out)).sort();
      assert.equal(names.length, 2, names.join(', '));
      for (const name of names) {
        assert.match(name, /^gen_\w+-[12]\.png$/);
        const path = join(out, name);
        assert.ok(r.stdout.includes(path), `stdout names ${path}: ${r.stdout}`);
        const bytes = await readFile(path);
        assert.deepEqual(bytes.subarray(0, 8), PNG_SIGNATURE, `${name} is a PNG`);
        const meta = await sharp(bytes).metadata();
        assert.equal(meta.format, 'png');
        assert.ok((meta.width ?? 0) >= 64 && (meta.height ?? 0) >= 64, `${meta.width}x${meta.height}`);
      }
      assert.match(r.stdout, /completed: 2\/2 items/);
    });

    test('a failed generation exits 1; with --json stdout is its status record, failed', async () => {
      const [human, machine] = await Promise.all([
        genmedia(['image', 'a storm [simulate:fail]']),
        genmedia(['--json', 'image', 'a storm [simulate:fail]']),
      ]);
      assert.equal(human.code, 1, human.stderr);
      assert.match(human.stdout, /failed: 0\/1 items/);
      assert.match(human.stdout, /failed: .*simulate:fail/);
      assert.equal(machine.code, 1, machine.stderr);
      const status = json<StatusRecord>(machine);
      assert.equal(status.status, 'failed');
      assert.equal(status.failed_items, 1);
      assert.deepEqual(status.result_urls, []);
    });

    test('text prints the generated text on stdout', async () => {
      const r = await genmedia(['text', 'Write a haiku about tides.']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.trim().length > 10, `some text: ${JSON.stringify(r.stdout)}`);
      assert.ok(!r.stdout.includes('{'), 'text, not JSON');
    });

    test('speech with a preset voice downloads the audio file', async () => {
      const voices = await call<Array<{ voice_id: string; type: string }>>(server, 'GET', '/api/v2/voices', {
        token: team.key,
      });
      assert.equal(voices.status, 200, voices.text);
      const preset = voices.body.find((v) => v.type === 'builtin');
      assert.ok(preset, 'a builtin preset voice');
      const out = join(workDir, 'speech');
      const r = await genmedia(['speech', 'Hello from the command line.', '--voice', preset.voice_id, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      const names = await readdir(out);
      assert.equal(names.length, 1, names.join(', '));
      const [name] = names as [string];
      assert.equal(r.stdout.trim(), join(out, name));
      const bytes = await readFile(join(out, name));
      assert.ok(bytes.length > 1000, `${bytes.length} bytes`);
      const head = bytes.subarray(0, 4).toString('latin1');
      const isMp3 = head.startsWith('ID3') || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
      const isWav = head === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WAVE';
      assert.ok(isMp3 || isWav, `audio, not ${bytes.subarray(0, 12).toString('hex')}`);
      assert.match(name, isMp3 ? /\.mp3$/ : /\.wav$/);
    });

    test('cancel on a running generation exits 0 and its status then shows the failed items', async () => {
      // One item at a time for this team: a batch of four takes about 4 s, so the cancel finds work.
      const slow = await createTeam(server, 1000, 'slow');
      const patched = await call(server, 'PATCH', `/admin/v1/teams/${slow.id}`, {
        token: server.adminToken,
        body: { max_concurrent_items: 1 },
      });
      assert.equal(patched.status, 200, patched.text);
      const id = await submitImage('four boats to cancel', slow, 4);
      const r = await genmedia(['cancel', id], slow);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^${id} failed: [1-4] item\\(s\\) cancelled and refunded`));

      const status = await genmedia(['status', id, '--json'], slow);
      assert.equal(status.code, 0, status.stderr);
      const record = json<StatusRecord>(status);
      assert.equal(record.status, 'failed');
      assert.ok(record.failed_items >= 1, `failed items: ${record.failed_items}`);
      assert.ok(record.items.some((item) => item.error === 'canceled'));

      // A second cancel finds it finished: not a success.
      const again = await genmedia(['cancel', id], slow);
      assert.notEqual(again.code, 0);
    });

    test('wait on a finished generation exits 0 and prints its results', async () => {
      const id = await submitImage('a quiet harbour');
      await waitForGeneration(server, team.key, id);
      const r = await genmedia(['wait', id, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const record = json<StatusRecord>(r);
      assert.equal(record.generation_id, id);
      assert.equal(record.status, 'completed');
      assert.equal(record.result_urls.length, 1);
    });
  });

  describe('progress', () => {
    test('on a terminal a bar is drawn up to 100%; in a pipe, plain lines on stderr', async () => {
      const command = [process.execPath, MAIN, 'video', 'waves at dusk', '-m', 'ltx-video-13b', '-d', '1']
        .map(shellQuote)
        .join(' ');
      const [tty, piped] = await Promise.all([
        run(
          'script',
          ['-qfec', command, '/dev/null'],
          envOf({ GENMEDIA_API_KEY: team.key, GENMEDIA_BASE_URL: server.url }),
        ),
        genmedia(['video', 'waves at dusk', '-m', 'ltx-video-13b', '-d', '1']),
      ]);

      assert.equal(tty.code, 0, tty.stdout);
      assert.ok(tty.stdout.includes(`${ESCAPE}[`), 'drawn with escape codes: a terminal');
      assert.match(tty.stdout, /[█░]/, 'bar characters');
      const drawn = [...tty.stdout.matchAll(/\[([█░]+)\] (\d+)%/g)];
      assert.ok(drawn.length >= 2, `the bar is drawn more than once: ${JSON.stringify(tty.stdout)}`);
      assert.equal(drawn[0]?.[2], '0', 'it starts at 0%');
      const last = drawn.at(-1);
      assert.equal(last?.[2], '100', 'it ends at 100%');
      assert.ok(!last?.[1]?.includes('░'), 'the last bar is full');
      assert.match(tty.stdout, /\] 100% \| completed, 1\/1 items/);
      assert.match(tty.stdout, /completed: 1\/1 items/);

      assert.equal(piped.code, 0, piped.stderr);
      assert.ok(!piped.stderr.includes(ESCAPE), `no escape codes: ${JSON.stringify(piped.stderr)}`);
      assert.ok(!piped.stdout.includes(ESCAPE));
      assert.doesNotMatch(piped.stderr, /[█░]/);
      const lines = piped.stderr.trim().split('\n');
      for (const line of lines) assert.match(line, /^gen_\w+: (queued|processing|completed)\b.*, \d+%$/);
      assert.match(lines.at(-1) ?? '', /: completed, 1\/1 items, 100%$/);
      // stdout holds only the result: the status line and the video's URL.
      assert.match(piped.stdout, /^gen_\w+ completed: 1\/1 items, \d+ credits\nhttps?:\/\/\S+\.mp4\n$/);
    });
  });

  describe('--json', () => {
    test('balance, models, list, status and plans print JSON of their shapes', async () => {
      const own = await createTeam(server, 5000, 'json');
      const ids: string[] = [];
      for (const n of [1, 2, 3]) ids.push(await submitImage(`listed ${n}`, own));

      const [balance, models, list, status, plans] = await Promise.all([
        genmedia(['balance', '--json'], own),
        genmedia(['--json', 'models', '--kind', 'text'], own),
        genmedia(['list', '--limit', '2', '--json'], own),
        genmedia(['status', ids[0] as string, '--json'], own),
        genmedia(['plans', '--json'], own),
      ]);
      for (const r of [balance, models, list, status, plans]) assert.equal(r.code, 0, r.stderr);

      assert.deepEqual(json(balance), { credits: await balanceOf(server, own.key) });

      const modelList = json<{ data: Array<{ id: string; kind: string; endpoint: string }> }>(models);
      assert.ok(modelList.data.length > 0);
      for (const m of modelList.data) {
        assert.equal(m.kind, 'text', m.id);
        assert.equal(typeof m.endpoint, 'string');
      }

      const page = json<{ data: Array<{ generation_id: string }>; next_cursor: string | null }>(list);
      assert.deepEqual(
        page.data.map((g) => g.generation_id),
        [ids[2], ids[1]],
        'the two newest, newest first',
      );
      assert.equal(typeof page.next_cursor, 'string');

      const record = json<StatusRecord>(status);
      assert.equal(record.generation_id, ids[0]);
      assert.equal(record.total_items, 1);
      assert.ok(['queued', 'processing', 'completed'].includes(record.status), record.status);

      const planList = json<Array<{ id: string; name: string; variants: Array<{ id: string; price: number }> }>>(plans);
      assert.ok(planList.length > 0);
      for (const plan of planList) {
        assert.equal(typeof plan.id, 'string');
        assert.equal(typeof plan.name, 'string');
        assert.ok(plan.variants.length > 0, plan.id);
      }
    });

    test('an error with --json is {"error": {...}} on stdout', async () => {
      const r = await bare(['--json', '--api-key', 'gms_nope', '--base-url', server.url, 'balance']);
      assert.equal(r.code, 3);
      const { error } = json<{ error: { code: string; status: number; message: string } }>(r);
      assert.equal(error.code, 'unauthorized');
      assert.equal(error.status, 401);
    });
  });

  describe('exit codes', () => {
    test('a missing argument or an unknown option is a usage error: exit 2', async () => {
      const missing = await genmedia(['image']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /missing required argument 'prompt'/);
      const unknown = await genmedia(['image', 'x', '--bogus']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown option '--bogus'/);
      const noCommand = await genmedia(['paint', 'x']);
      assert.equal(noCommand.code, 2);
      const badSet = await genmedia(['image', 'x', '--set', 'novalue']);
      assert.equal(badSet.code, 2);
      assert.match(badSet.stderr, /expected key=value/);
    });

    test('a field the API refuses is a usage error: exit 2, the field named', async () => {
      const before = await balanceOf(server, team.key);
      const r = await genmedia(['image', 'x', '--set', 'bogus=1']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /bogus/);
      const model = await genmedia(['image', 'x', '--model', 'no-such-model']);
      assert.equal(model.code, 2, model.stderr);
      assert.equal(await balanceOf(server, team.key), before, 'nothing charged');
    });

    test('a wrong --api-key, or none at all, is exit 3', async () => {
      const wrong = await bare(['--api-key', 'gms_wrong', '--base-url', server.url, 'balance']);
      assert.equal(wrong.code, 3, wrong.stderr);
      const none = await bare(['balance'], { GENMEDIA_BASE_URL: server.url });
      assert.equal(none.code, 3, none.stderr);
      assert.match(none.stderr, /genmedia login/);
    });

    test('too few credits is exit 4 and the message says how to top up', async () => {
      const broke = await createTeam(server, 0, 'broke');
      const r = await genmedia(['image', 'a lighthouse'], broke);
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /genmedia top-up <plan_id>/);
      assert.equal(r.stdout, '');
    });
  });

  describe('top-up', () => {
    test('top-up <plan_id> --no-open prints the checkout URL', async () => {
      const plans = await call<Array<{ id: string }>>(server, 'GET', '/api/v1/billing/plans', { token: team.key });
      assert.equal(plans.status, 200, plans.text);
      const plan = plans.body[0];
      assert.ok(plan, 'a plan on sale');
      const r = await genmedia(['top-up', plan.id, '--no-open']);
      assert.equal(r.code, 0, r.stderr);
      const match = /^Pay at: (\S+)\n$/.exec(r.stdout);
      assert.ok(match?.[1], r.stdout);
      const url = new URL(match[1]);
      assert.equal(url.origin, server.url);
      // The URL leads to a checkout page of the service.
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Continue to payment|checkout/i);

      const unknown = await genmedia(['top-up', 'platinum', '--no-open']);
      assert.equal(unknown.code, 1, unknown.stderr);
      assert.match(unknown.stderr, /platinum/);
    });
  });
});
