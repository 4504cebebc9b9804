// What every adapter test needs: the ProviderError a call ends with, and a port nothing listens on.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkError } from '../src/lib/errors.ts';
import type { ProviderError } from '../src/providers/types.ts';

/** The ProviderError a call ends with (the test fails when it ends otherwise). */
export async function failure(call: () => unknown): Promise<ProviderError> {
  try {
    await call();
  } catch (err) {
    assert.ok(err instanceof WorkError, String(err));
    return err;
  }
  assert.fail('expected a ProviderError');
}

/** A port that was free a moment ago: a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}
