// Debian's Chromium, driven by playwright-core (which ships no browser; .ci/run installs it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches headless Chromium with what this closed network needs (no background connections to
 * the vendor's services). No skipping: without the browser a test fails and says how to get it.
 */
export async function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM),
    `Chromium is missing at ${CHROMIUM}: install Debian's package with ` +
      '`apt-get update && apt-get install -y --no-install-recommends chromium` (.ci/run does this)',
  );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
