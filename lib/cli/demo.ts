// `npx kafka-responder demo [scenario] [diagnose flags]`: the README's first
// command. Brings the sandbox up, reproduces an incident, shows Kafka's own
// view of it, then diagnoses it the way the bot would.
import { Sandbox } from '../../sandbox/cluster.ts';
import { kafkaTool } from '../../sandbox/client.ts';
import { SCENARIOS, runScenario } from '../../sandbox/scenarios.ts';

export async function run(argv: string[]): Promise<number> {
  const scenario = argv[0] && !argv[0].startsWith('-') ? argv[0] : 'isr-one-leader-lost';
  const rest = argv[0] === scenario ? argv.slice(1) : argv;
  if (!(scenario in SCENARIOS)) {
    console.error(`unknown scenario ${scenario}; one of: ${Object.keys(SCENARIOS).join(', ')}`);
    return 2;
  }
  const sandbox = new Sandbox();
  await sandbox.up();
  const result = await runScenario(sandbox, scenario);
  console.log(`\n== scenario ${scenario} (${(result.durationMs / 1000).toFixed(1)} s)`);
  for (const action of result.actions) console.log(`  - ${action}`);
  console.log('\n== Kafka\'s own view: kafka-topics.sh --describe --unavailable-partitions');
  const unavailable = await kafkaTool(sandbox.binDir, 'kafka-topics.sh', ['--bootstrap-server', sandbox.bootstrapServers, '--describe', '--unavailable-partitions']);
  console.log(unavailable.trim() || '  (none)');
  console.log('\n== kafka-responder diagnose');
  const diagnose = await import('../diagnose/cli-diagnose.ts');
  const { sandboxTarget } = await import('./sandbox-target.ts');
  const code = await diagnose.run(rest, { noFlagTarget: sandboxTarget });
  // Findings are the point of the demo; a non-zero "problems found" code is not a failure here.
  return code === 2 ? 2 : 0;
}
