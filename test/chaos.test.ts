// The short chaos schedule (one kill of each kind, one 10 s database outage) under load, with
// every check of `npm run chaos`. The full schedule is `npm run chaos` (README).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatReport, runChaos, violations } from './chaos/harness.ts';

test('under kills and a database outage no paid-for work or webhook is lost and no client sees a 500', {
  timeout: 300_000,
}, async (t) => {
  const report = await runChaos('short');
  t.diagnostic(`\n${formatReport(report)}`);
  assert.deepEqual(violations(report), [], `${report.events.join('\n')}\n${formatReport(report)}`);
  assert.ok(report.client503 > 0, 'the outage was seen by clients (503), so it really happened');
  assert.ok((report.byStatus.failed ?? 0) > 0 && (report.byStatus.completed ?? 0) > 0);
});
