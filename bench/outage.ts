// The outage end to end, as users run it: the installed `kafka-responder serve`
// (README env, host access by default), signed slash commands and Approve clicks
// from two approvers, the outages built on the sandbox, and a client polling
// Metadata every 50 ms plus a producer retrying an acks=all write every ~50 ms.
// Per round, for:
//   override   `/kafka elect-leader orders 0 3` on isr-one-leader-lost, and in the
//              same run on the same outage Kafka's `kafka-leader-election.sh
//              --election-type unclean` (t0 = spawn): leader seen, first acks=all write;
//   preferred  `/kafka preferred-election <topic>:0` on a partition led by broker 1
//              whose preferred replica is 2, and Kafka's `--election-type preferred`;
//   drain      `/kafka drain 3 partial`: second approval → the first partition's
//              replica set no longer holds broker 3 (Metadata), and → summary.
// Ours: t0 = when the second Approve request is sent. The run's own phases are
// parsed from its summary (`re-checked 120 ms · elected 310 ms · …`), '?' when absent.
// Prints the Kafka version and mode, medians and every round, and ours/Kafka's.
//
//   npx tsx bench/outage.ts [--rounds N] [--only override,preferred,drain] [--no-hosts]
//     (default 5 rounds of each; env KR_BENCH_ROUNDS, KR_BENCH_ONLY likewise;
//      --no-hosts: serve with KR_HOST_EXECUTOR=none, as on Amazon MSK)
//   e.g. KR_SANDBOX_HOME=/tmp/kr-bench KR_SANDBOX_PORT_BASE=27090 npx tsx bench/outage.ts --rounds 3
//   ZooKeeper: KAFKA_VERSION=3.9.1 KR_SANDBOX_MODE=zookeeper npx tsx bench/outage.ts
// Runs the installed bin (bin/kafka-responder.js): `npm run build` first. Brings the
// sandbox up if it is not; leaves it up (`sandbox down --purge` removes it).
import { parseArgs } from 'node:util';
import { Sandbox } from '../sandbox/cluster.ts';
import { Bot } from './outage/bot.ts';
import { report, type OperationResult } from './outage/report.ts';
import { OPERATIONS, type RoundContext, type Sample, type Side } from './outage/rounds.ts';
import { deleteTopics, healthy } from './outage/setups.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: process.env.KR_BENCH_ROUNDS ?? '5' },
    only: { type: 'string', default: process.env.KR_BENCH_ONLY ?? Object.keys(OPERATIONS).join(',') },
    'no-hosts': { type: 'boolean', default: false },
    'max-minutes': { type: 'string', default: '90' },
  },
});
const ROUNDS = Number(values.rounds);
const ONLY = values.only.split(',').map((s) => s.trim()).filter(Boolean);
for (const o of ONLY) if (!OPERATIONS[o]) throw new Error(`--only: unknown operation ${o}; one of ${Object.keys(OPERATIONS).join(', ')}`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: a positive integer, not ${values.rounds}`);

const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 23)}] ${line}`);
const sandbox = new Sandbox(undefined, () => {});
const s = sandbox.settings;
log(`sandbox ${s.home}: Kafka ${s.kafkaVersion} (${s.mode}), bringing it up if needed`);
await sandbox.up();

const bot = await Bot.start(values['no-hosts'] ? { KR_HOST_EXECUTOR: 'none' } : {});
// Whatever happens, serve and its clients stop: a watchdog ends the whole run.
const watchdog = setTimeout(() => {
  log(`--max-minutes ${values['max-minutes']} reached: stopping`);
  void bot.stop().finally(() => process.exit(2));
}, Number(values['max-minutes']) * 60_000);
watchdog.unref();
process.once('SIGINT', () => void bot.stop().finally(() => process.exit(130)));

const ctx: RoundContext = { sandbox, bot, log };
const results: OperationResult[] = [];
let failed = 0;
try {
  for (const name of ONLY) {
    const op = OPERATIONS[name]!;
    const result: OperationResult = { op, ours: [], kafka: [] };
    results.push(result);
    if (name !== 'override') await healthy(sandbox);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of (op.kafka ? ['ours', 'kafka'] : ['ours']) as Side[]) {
        log(`${name} round ${round}/${ROUNDS}, ${side}: building the setup`);
        const sample = await op.run(ctx, side, round).catch((err: unknown): Sample => {
          failed++;
          return { figures: {}, pollMs: NaN, note: `failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1_500) };
        });
        log(`${name} round ${round}, ${side}: ${JSON.stringify(sample.figures)}${sample.phases?.size ? ` run's own ${JSON.stringify(Object.fromEntries(sample.phases))}` : ''}${sample.note ? ` (${sample.note})` : ''}`);
        (side === 'ours' ? result.ours : result.kafka).push(sample);
      }
    }
  }
} finally {
  await bot.stop();
  await deleteTopics(sandbox, 'bench-');
}

const header = [
  `Kafka ${s.kafkaVersion} (${s.mode} mode), sandbox ${s.home}, ${sandbox.bootstrapServers}`,
  `serve: ${bot.startupLine}`,
  `host access: ${values['no-hosts'] ? 'none (KR_HOST_EXECUTOR=none)' : 'local executor on the sandbox nodes (the default)'}; ${ROUNDS} rounds; client polls Metadata every 50 ms, acks=all write retried every ~50 ms`,
];
console.log(report(results, header));
process.exit(failed ? 1 : 0);
