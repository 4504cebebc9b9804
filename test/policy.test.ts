// The failure policy's decisions, case by case (the end-to-end behaviour is in
// vendor-failover.test.ts and vendor-fal.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextPollDelay } from '../src/engine/vendor.ts';
import { decide, type FailureSituation, isRefusalKind, MAX_RETRY_DELAY_MS, redact } from '../src/providers/policy.ts';
import { ProviderError, type ProviderErrorKind } from '../src/providers/types.ts';

const base: FailureSituation = {
  accepted: false,
  routeFailures: 0,
  maxAttempts: 3,
  alternative: true,
  routeCooling: false,
  mayRetry: true,
};
const error = (kind: ProviderErrorKind, retryable: boolean, retryAfterMs?: number) =>
  new ProviderError(kind, retryable, { kind, retryAfterMs });

test('refusals and cancellations end the item at once; a synchronous request only fails over', () => {
  for (const kind of ['invalid_input', 'content_policy', 'canceled'] as const) {
    assert.deepEqual(decide(error(kind, false), base), { action: 'fail' }, kind);
    assert.deepEqual(decide(error(kind, true), base), { action: 'fail' }, `${kind}, even if retryable`);
  }
  const sync = { ...base, mayRetry: false };
  assert.deepEqual(decide(error('unavailable', true), { ...sync, alternative: false }), { action: 'fail' });
  assert.deepEqual(decide(error('unavailable', true), sync), { action: 'failover' }, 'no wait on the same route');
  assert.deepEqual(decide(error('quota', false), sync), { action: 'failover' });
  assert.deepEqual(decide(error('invalid_input', false), sync), { action: 'fail' });
  assert.deepEqual(decide(error('rate_limited', true, 2000), { ...sync, accepted: true }), { action: 'fail' });
});

test('a retryable failure is retried on its route after Retry-After while attempts remain, then fails over', () => {
  assert.deepEqual(decide(error('rate_limited', true, 2000), base), { action: 'retry', delayMs: 2000 });
  assert.deepEqual(decide(error('unavailable', true), { ...base, routeFailures: 1 }), { action: 'retry', delayMs: 0 });
  assert.deepEqual(decide(error('unavailable', true), { ...base, routeFailures: 2 }), { action: 'failover' });
  assert.deepEqual(decide(error('unavailable', true), { ...base, routeFailures: 2, alternative: false }), {
    action: 'fail',
  });
});

test('a synchronous request waits out a Retry-After that ends within its time, otherwise moves on at once', () => {
  const sync = { ...base, mayRetry: false, waitLeftMs: 5000 };
  assert.deepEqual(decide(error('rate_limited', true, 1000), sync), { action: 'retry', delayMs: 1000 });
  assert.deepEqual(decide(error('rate_limited', true, 6000), sync), { action: 'failover' });
  assert.deepEqual(decide(error('rate_limited', true, 6000), { ...sync, alternative: false }), { action: 'fail' });
  assert.deepEqual(decide(error('unavailable', true), sync), { action: 'failover' }, 'no Retry-After: no wait');
  assert.deepEqual(decide(error('rate_limited', true, 1000), { ...sync, routeFailures: 2 }), { action: 'failover' });
  // The item's next job, run by a worker, retries only what starts within the request's time.
  const next = { ...base, waitLeftMs: 5000 };
  assert.deepEqual(decide(error('unavailable', true), next), { action: 'retry', delayMs: 0 });
  assert.deepEqual(decide(error('rate_limited', true, 9000), next), { action: 'failover' });
  // A worker's job waits at most MAX_RETRY_DELAY_MS, whatever the vendor asks.
  assert.deepEqual(decide(error('rate_limited', true, 86_400_000), base), {
    action: 'retry',
    delayMs: MAX_RETRY_DELAY_MS,
  });
});

test('a cooling route or a failure that will not pass there moves on at once', () => {
  assert.deepEqual(decide(error('unavailable', true), { ...base, routeCooling: true }), { action: 'failover' });
  assert.deepEqual(decide(error('auth', false), base), { action: 'failover' });
  assert.deepEqual(decide(error('quota', false), base), { action: 'failover' });
  assert.deepEqual(decide(error('auth', false), { ...base, alternative: false }), { action: 'fail' });
  assert.deepEqual(decide(error('internal', false), base), { action: 'fail' }, 'internal does not fail over');
});

test('once a vendor accepted the job only an infrastructure failure moves it elsewhere', () => {
  const accepted = { ...base, accepted: true, routeFailures: 2 };
  assert.deepEqual(decide(error('unavailable', true), accepted), { action: 'failover' });
  assert.deepEqual(decide(error('timeout', true), accepted), { action: 'fail' });
  assert.deepEqual(decide(error('rate_limited', true), accepted), { action: 'fail' });
  assert.deepEqual(decide(error('timeout', true), { ...accepted, routeFailures: 0 }), { action: 'retry', delayMs: 0 });
});

test('refusal kinds and redaction', () => {
  assert.ok(isRefusalKind('invalid_input') && isRefusalKind('content_policy'));
  assert.ok(!isRefusalKind('unavailable') && !isRefusalKind(null) && !isRefusalKind(undefined));
  assert.equal(
    redact('Key abc123secret refused; abc123secret again', ['abc123secret']),
    'Key [redacted] refused; [redacted] again',
  );
  assert.equal(redact('nothing here', ['abc123secret', '']), 'nothing here');
});

test('polls back off with the job’s age, within the settings', () => {
  const poll = { minMs: 1000, maxMs: 60_000 };
  const now = Date.parse('2026-01-01T00:10:00Z');
  const acceptedAgo = (ms: number) => new Date(now - ms);
  assert.equal(nextPollDelay(500, acceptedAgo(2000), poll, now), 1000, 'never sooner than the minimum');
  assert.equal(nextPollDelay(2000, acceptedAgo(2000), poll, now), 2000, 'the vendor’s suggestion');
  assert.equal(nextPollDelay(1000, acceptedAgo(100_000), poll, now), 10_000, 'a tenth of the age');
  assert.equal(nextPollDelay(1000, acceptedAgo(3_600_000), poll, now), 60_000, 'never later than the maximum');
  assert.equal(nextPollDelay(1000, null, poll, now), 1000);
});
