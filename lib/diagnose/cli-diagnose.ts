// `kafka-responder diagnose [--config FILE [--cluster NAME] | --bootstrap LIST] [--topic T] [--format F]`
// Exit codes: 0 nothing at warning or worse, 3 findings at warning or worse,
// 1 the cluster could not be diagnosed (main.ts prints the reason), 2 usage.

import { TARGET_USAGE, parseCommandArgs, resolveClusterTarget, terminalStyle, type CliDefaults } from './cli-support.ts';
import { diagnosisInputFor, startHostProbes } from './host-probes.ts';

const USAGE = `usage: kafka-responder diagnose [--config FILE [--cluster NAME] | --bootstrap LIST] [--topic T] [--format text|json|markdown] [--timeout S]
${TARGET_USAGE}
  --topic T         diagnose one topic only
  Exit: 0 healthy, 3 findings at warning or worse, 1 could not diagnose, 2 usage.`;

export async function run(argv: string[], defaults: CliDefaults = {}): Promise<number> {
  const args = parseCommandArgs(argv, USAGE, { topic: true, positionals: false });
  if (typeof args === 'number') return args;
  if (args.topic !== undefined) {
    // (Loaded only here: names.ts builds zod schemas, and the probes wait for what loads before them.)
    const { isTopicName, TOPIC_NAME_RULE } = await import('../kafka/names.ts');
    if (!isTopicName(args.topic)) {
      console.error(`invalid topic name ${JSON.stringify(args.topic)}: ${TOPIC_NAME_RULE}`);
      return 2;
    }
  }
  // The host probes first: they run in their own processes (or on SSM) while
  // this one validates the connection and loads the diagnosis, the checks
  // and the Kafka client; a target whose hosts are known before the rest of it
  // (the sandbox) has them started then.
  // With --topic, not before the topic is known to exist: run.ts asks the metadata first and starts them then.
  let probing: ReturnType<typeof startHostProbes> | undefined;
  const early = args.topic === undefined;
  const target = await resolveClusterTarget(args, process.env, defaults.noFlagTarget, (hosts) => (probing = early ? startHostProbes(hosts) : undefined));
  if (early) probing ??= startHostProbes(target);
  const input = { ...diagnosisInputFor(target), topic: args.topic ?? null };
  const { runDiagnosis } = await import('./run.ts');
  // A cluster whose config names a metrics source: read it as the worker does (loaded only then).
  const report = target.cluster?.metrics ? await (await import('./metrics/diagnose.ts')).runDiagnosisWithMetrics(target.cluster, { ...input, probing }) : await runDiagnosis({ ...input, probing });
  if (args.format === 'json') console.log(JSON.stringify(report, null, 2));
  else if (args.format === 'markdown') process.stdout.write((await import('./render-markdown.ts')).renderReportMarkdown(report));
  else console.log((await import('./render-terminal.ts')).renderReport(report, terminalStyle()));
  return report.findings.some((f) => f.severity !== 'info') ? 3 : 0;
}
