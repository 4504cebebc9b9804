// The systemd units of a one-machine deployment (deploy/systemd/): each starts the service the
// way it stops cleanly (Node directly, SIGTERM to it alone, a stop timeout longer than the
// service's own), in its role, after the migrations; and the example environment file holds the
// service's own settings and makes a valid configuration for each role.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig, SETTING_NAMES } from '../src/config.ts';

const DIR = 'deploy/systemd';

/** A unit file's `Key=value` lines by section; a key given several times keeps every value. */
function readUnit(file: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section: Record<string, string[]> | undefined;
  for (const line of readFileSync(join(DIR, file), 'utf8').split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = {};
      sections[header[1] as string] = section;
      continue;
    }
    const pair = /^(\w+)=(.*)$/.exec(line);
    assert.ok(pair && section, `${file}: ${line}`);
    const key = pair[1] as string;
    section[key] = [...(section[key] ?? []), pair[2] as string];
  }
  return sections;
}

const exampleEnv = Object.fromEntries(
  [...readFileSync(join(DIR, 'genmedia.env.example'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [
    m[1] as string,
    m[2] === '' ? `${(m[1] as string).toLowerCase()}-0123456789abcdef0123456789` : (m[2] as string),
  ]),
);

describe('the systemd units (deploy/systemd)', () => {
  test('the API and worker units run Node directly in their role, stop it alone with SIGTERM, after the migrations', () => {
    const shutdownMs = 10_000;
    for (const [file, role] of [
      ['genmedia-api@.service', 'api'],
      ['genmedia-worker@.service', 'worker'],
    ] as const) {
      const unit = readUnit(file);
      const service = unit.Service ?? {};
      assert.deepEqual(service.ExecStart, ['/opt/genmedia/node_modules/.bin/node src/server.ts']);
      assert.ok(service.Environment?.includes(`ROLE=${role}`), `${file}: ROLE=${role}`);
      assert.deepEqual(service.KillSignal, ['SIGTERM']);
      assert.deepEqual(service.KillMode, ['mixed'], 'the signal goes to node only, once');
      assert.ok(Number(service.TimeoutStopSec?.[0]) * 1000 > shutdownMs, `${file}: outlasts SHUTDOWN_TIMEOUT_MS`);
      assert.ok(service.EnvironmentFile?.includes('/etc/genmedia/genmedia.env'));
      assert.ok(unit.Unit?.Requires?.includes('genmedia-migrate.service'));
      assert.match(unit.Unit?.After?.join(' ') ?? '', /genmedia-migrate\.service/);
      assert.ok(unit.Install?.WantedBy?.includes('multi-user.target'));
      // What the unit runs and where: the entry point of the image too.
      assert.ok(existsSync('src/server.ts'));
    }
    const migrate = readUnit('genmedia-migrate.service').Service ?? {};
    assert.deepEqual(migrate.Type, ['oneshot']);
    assert.deepEqual(migrate.ExecStart, ['/opt/genmedia/node_modules/.bin/node src/cli/migrate.ts']);
    assert.ok(existsSync('src/cli/migrate.ts'));
  });

  test("the example environment file holds the service's settings, valid for an API process and a worker", () => {
    const known = new Set(SETTING_NAMES);
    for (const key of Object.keys(exampleEnv)) assert.ok(known.has(key), `${key} is no setting of the service`);
    for (const role of ['api', 'worker']) {
      const config = loadConfig({ ...exampleEnv, ROLE: role });
      assert.equal(config.role, role);
      assert.ok(config.databaseUrl);
    }
  });
});
