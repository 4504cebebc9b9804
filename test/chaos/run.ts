// `npm run chaos`: the full chaos schedule (kills of each kind, the same item interrupted three
// times, database outages of 15 s and 60 s, a 20 s hang), then the checks as figures.
// `npm run chaos -- --short` runs the schedule of the test suite.
import { formatReport, runChaos, violations } from './harness.ts';

const profile = process.argv.includes('--short') ? 'short' : 'full';
const report = await runChaos(profile, (line) => process.stdout.write(`${line}\n`));
process.stdout.write(`\n${formatReport(report)}\n`);
const broken = violations(report);
if (broken.length > 0) {
  process.stdout.write(`\nFAILED:\n  ${broken.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write('\nEvery check passed.\n');
