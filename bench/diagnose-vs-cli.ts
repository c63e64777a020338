// `diagnose --json` on the sandbox next to the four kafka-topics.sh filters an
// operator would run by hand on the same cluster. Target: our full diagnosis,
// host probes included, takes less time than those four runs.
//
//   npx tsx bench/diagnose-vs-cli.ts [scenario]     (default: rf1-broker-down)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Sandbox } from '../sandbox/cluster.ts';
import { runScenario } from '../sandbox/scenarios.ts';

const exec = promisify(execFile);
const ROUNDS = 3;
const FILTERS = ['--unavailable-partitions', '--under-replicated-partitions', '--under-min-isr-partitions', '--at-min-isr-partitions'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const sandbox = new Sandbox(undefined, () => {});
await sandbox.up();
const scenario = process.argv[2] ?? 'rf1-broker-down';
await runScenario(sandbox, scenario);

const ours: number[] = [];
const theirs: number[] = [];
let findings = 0;
for (let round = 0; round < ROUNDS; round++) {
  // A fresh process each time, as an operator runs it: Node start, module load, snapshot, host probes.
  ours.push(await timed(async () => {
    const { stdout } = await exec(process.execPath, ['bin/kafka-responder.js', 'diagnose', '--json']).catch((e: { stdout: string }) => e);
    findings = (JSON.parse(stdout) as { findings: unknown[] }).findings.length;
  }));
  theirs.push(await timed(async () => {
    for (const filter of FILTERS) {
      await exec(`${sandbox.binDir}/kafka-topics.sh`, ['--bootstrap-server', sandbox.bootstrapServers, '--describe', filter]);
    }
  }));
}
console.log(`scenario ${scenario}: ${findings} findings`);
console.log(`kafka-responder diagnose --json (host probes included): median ${median(ours).toFixed(0)} ms  [${ours.map((x) => x.toFixed(0)).join(', ')}]`);
console.log(`kafka-topics.sh x4 filters:                           median ${median(theirs).toFixed(0)} ms  [${theirs.map((x) => x.toFixed(0)).join(', ')}]`);
console.log(`ratio: ${(median(ours) / median(theirs)).toFixed(2)} (target < 1)`);
