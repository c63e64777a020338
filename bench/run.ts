// `npm run bench`: every benchmark in turn, each in its own process, figures to stdout.
// The sandbox-based ones bring up the default sandbox (~/.kafka-responder/sandbox).
import { spawnSync } from 'node:child_process';

const BENCHES = ['detectors.ts', 'transactions.ts', 'metrics.ts', 'audit.ts', 'probe.ts', 'approvals.ts', 'slack-ack.ts', 'storm.ts', 'alert-intake.ts', 'diagnose-vs-cli.ts', 'cli-vs-kafka-topics.ts', 'operations.ts', 'restart.ts', 'fleet.ts'];
const only = process.argv.slice(2);
let failed = 0;
for (const bench of BENCHES.filter((b) => !only.length || only.some((o) => b.startsWith(o)))) {
  console.log(`\n=== bench/${bench}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${bench}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
