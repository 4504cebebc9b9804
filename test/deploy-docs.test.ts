// docs/deploy.md names real things: the metrics it says to watch are the ones the service
// registers, and the files it points to under deploy/ exist.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const doc = readFileSync('docs/deploy.md', 'utf8');

/** Every source file's text under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

describe('docs/deploy.md', () => {
  test("the service's metrics it names are registered in src", () => {
    const src = sources('src').join('\n');
    const named = new Set([...doc.matchAll(/`((?:genmedia|http)_[a-z_]+)`/g)].map((m) => m[1] as string));
    assert.ok(named.size >= 10);
    for (const metric of named) assert.ok(src.includes(`name: '${metric}'`), `${metric} is no metric of the service`);
  });

  test('the deployment files it names exist', () => {
    const files = [...doc.matchAll(/`((?:deploy\/[\w./-]+)|(?:[\w-]+(?:\.yaml|\.service|\.example|\.mjs)))`/g)].map(
      (m) => m[1] as string,
    );
    assert.ok(files.length >= 10);
    const everything = readdirSync('deploy', { recursive: true }).map(String);
    for (const file of files) {
      const found = file.startsWith('deploy/') ? existsSync(file) : everything.some((f) => f.endsWith(file));
      assert.ok(found, `${file} is not under deploy/`);
    }
  });
});
