// The image's recipe (Containerfile), read as a container builder reads it (dockerfile-ast):
// what `deploy/image/build.sh` builds and `deploy/image/try.sh` runs (beside this suite: they
// need podman) must keep its promises: a non-root user, the health check on /readyz, Node
// started directly (a stop signal reaches the service once), production dependencies only.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { describe, test } from 'node:test';
import { type Dockerfile, DockerfileParser, type Instruction, Keyword } from 'dockerfile-ast';

const recipe = readFileSync('Containerfile', 'utf8');
const dockerfile: Dockerfile = DockerfileParser.parse(recipe);
const instructions = dockerfile.getInstructions();

/** The instructions of the last stage (the image that runs). */
function finalStage(): Instruction[] {
  const froms = instructions.filter((i) => i.getKeyword() === Keyword.FROM);
  const last = froms.at(-1);
  assert.ok(last, 'no FROM');
  return instructions.filter((i) => i.getRange().start.line >= last.getRange().start.line);
}

const args = (i: Instruction) => i.getArguments().map((a) => a.getValue());

/** The JSON (exec) form's strings of an instruction, or undefined in shell form. */
function execForm(i: Instruction): string[] | undefined {
  const raw = i.getRawArgumentsContent() ?? '';
  const json = raw.slice(raw.indexOf('['));
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) && parsed.every((p) => typeof p === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

describe('the image recipe (Containerfile)', () => {
  test('parses, with known instructions only, and is multi-stage on a base chosen by a build argument', () => {
    assert.ok(instructions.length > 10);
    const known = new Set<string>(Object.values(Keyword));
    for (const i of instructions) assert.ok(known.has(i.getKeyword()), `unknown instruction ${i.getKeyword()}`);
    const froms = dockerfile.getFROMs();
    assert.ok(froms.length >= 2, 'one stage installs, another runs');
    assert.ok(froms[0]?.getBuildStage(), 'the install stage is named');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the recipe's own build argument
    for (const from of froms) assert.equal(from.getImage(), '${BASE}');
    const base = dockerfile.getInitialARGs().find((a) => a.getProperty()?.getName() === 'BASE');
    assert.match(
      base?.getProperty()?.getValue() ?? '',
      /^docker\.io\/library\/node:24[-.\w]*$/,
      'a standard node image by default',
    );
  });

  test('runs as a non-root user', () => {
    const users = finalStage().filter((i) => i.getKeyword() === Keyword.USER);
    assert.equal(users.length, 1);
    const user = args(users[0] as Instruction)[0] ?? '';
    const name = user.split(':')[0] ?? '';
    assert.ok(name !== '' && name !== 'root' && name !== '0', `USER ${user}`);
    const entry = finalStage().findIndex((i) => i.getKeyword() === Keyword.ENTRYPOINT);
    assert.ok(finalStage().indexOf(users[0] as Instruction) < entry, 'USER comes before the entry point');
  });

  test('checks its health on /readyz, and stops on SIGTERM', () => {
    const checks = finalStage().filter((i) => i.getKeyword() === Keyword.HEALTHCHECK);
    assert.equal(checks.length, 1);
    const check = checks[0] as Instruction;
    assert.match(check.getRawArgumentsContent() ?? '', /\bCMD\b/);
    assert.match(check.getRawArgumentsContent() ?? '', /\/readyz/);
    const stop = finalStage().find((i) => i.getKeyword() === Keyword.STOPSIGNAL);
    assert.deepEqual(stop && args(stop), ['SIGTERM']);
  });

  test('starts Node directly on the server (no npm or shell to pass a signal on twice); ROLE comes from the environment', () => {
    const entries = finalStage().filter((i) => i.getKeyword() === Keyword.ENTRYPOINT);
    assert.equal(entries.length, 1);
    const exec = execForm(entries[0] as Instruction);
    assert.ok(exec, 'the entry point is in exec (JSON) form');
    assert.match(exec[0] ?? '', /\/node$/);
    assert.deepEqual(exec.slice(1), ['src/server.ts']);
    assert.equal(finalStage().filter((i) => i.getKeyword() === Keyword.CMD).length, 0, 'no CMD to add arguments');
    const env = finalStage()
      .filter((i) => i.getKeyword() === Keyword.ENV)
      .flatMap((i) => args(i));
    assert.ok(env.includes('ROLE=all'), 'ROLE has a default the environment overrides');
    assert.ok(env.includes('NODE_ENV=production'));
  });

  test('installs production dependencies only, and nothing from the build context but sources and manifests', () => {
    const installs = instructions.filter(
      (i) => i.getKeyword() === Keyword.RUN && /\bnpm (ci|install|i)\b/.test(i.getRawArgumentsContent() ?? ''),
    );
    assert.ok(installs.length > 0);
    for (const install of installs) assert.match(install.getRawArgumentsContent() ?? '', /--omit=dev/);
    for (const copy of finalStage().filter((i) => i.getKeyword() === Keyword.COPY)) {
      const text = copy.toString();
      if (/node_modules/.test(text)) assert.match(text, /--from=deps/, 'node_modules come from the install stage');
    }
    // The host's node_modules (development dependencies included) never reach the build.
    const ignore = readFileSync('.containerignore', 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#'));
    assert.equal(ignore[0], '*', 'everything is left out but what is named');
    assert.ok(!ignore.some((l) => l.includes('node_modules')));
  });

  test('the build and try scripts are there and executable', () => {
    for (const script of ['deploy/image/build.sh', 'deploy/image/try.sh']) {
      assert.ok((statSync(script).mode & 0o111) !== 0, `${script} is not executable`);
    }
  });
});
