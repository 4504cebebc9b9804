// Headless Chromium driven by playwright-core (which ships no browser): the system's Chromium when
// there is one, else the build that the @sparticuz/chromium dev dependency carries, so that
// `npm ci && npm test` needs nothing else installed.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Chromium with what this closed network needs (no background connections to
 * the vendor's services). No skipping: a browser that cannot start fails the test.
 */
export async function launchChromium(): Promise<Browser> {
  const system = SYSTEM_CHROMIUM.find((path) => existsSync(path));
  if (system) return chromium.launch({ executablePath: system, args: ARGS });
  const bundled = await bundledChromium();
  return chromium.launch({
    executablePath: bundled.executablePath,
    // WebGL (the console's 3D viewer) the way this build renders it: ANGLE on SwiftShader, on the
    // CPU. With --disable-gpu instead, a page with a WebGL canvas stalls the others.
    args: [
      ...ARGS.filter((arg) => arg !== '--disable-gpu'),
      '--use-gl=angle',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
    ],
    env: { ...process.env, FONTCONFIG_FILE: bundled.fontConfig },
  });
}

interface BundledChromium {
  executablePath: string;
  fontConfig: string;
}

let unpacking: Promise<BundledChromium> | undefined;

/**
 * The Chromium of @sparticuz/chromium, unpacked once per version into the temporary folder. It
 * is unpacked into a folder of its own, then renamed into place, so that test files starting at
 * once never see (or launch) half a browser: the first rename wins, the others throw theirs away.
 */
function bundledChromium(): Promise<BundledChromium> {
  unpacking ??= unpack();
  return unpacking;
}

async function unpack(): Promise<BundledChromium> {
  const entry = import.meta.resolve('@sparticuz/chromium');
  const packageJson = fileURLToPath(new URL('../package.json', entry));
  const { version } = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  const dir = join(tmpdir(), `genmedia-chromium-${version}`);
  const found = { executablePath: join(dir, 'chromium'), fontConfig: join(dir, 'fonts.conf') };
  if (existsSync(found.fontConfig)) return found;

  const staging = await mkdtemp(join(tmpdir(), `genmedia-chromium-${version}-unpacking-`));
  try {
    // The package unpacks into os.tmpdir(): a child process whose TMPDIR is the staging folder.
    const script = `const { default: Chromium } = await import(${JSON.stringify(entry)}); await Chromium.executablePath();`;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, TMPDIR: staging },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`unpacking @sparticuz/chromium failed (${code}): ${stderr}`)),
      );
    });
    // The system's fonts when there are any, and the fonts the package carries in any case.
    await writeFile(
      join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${join(dir, 'fonts', 'fonts')}</dir>
  <cachedir>${join(dir, 'fonts-cache')}</cachedir>
</fontconfig>
`,
    );
    await rename(staging, dir);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    // Another test file unpacked it first (the rename found the folder there).
    if (existsSync(found.fontConfig)) return found;
    throw err;
  }
  return found;
}
