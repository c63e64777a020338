// `kafka-responder can-restart <broker-id> [--bootstrap host:port,...] [--json] [--timeout S]`
// Exit codes: 0 yes, 3 no, 1 the cluster could not be read, 2 usage.

import { parseCommandArgs, parseTimeout, resolveClusterTarget } from './cli-support.ts';
import { collectDiagnosisInputs } from './run.ts';
import { assessRestart } from './can-restart.ts';
import { renderRestart } from './render-terminal.ts';

const USAGE = `usage: kafka-responder can-restart <broker-id> [--bootstrap host:port,...] [--json] [--timeout seconds]
  Exit: 0 yes, 3 no, 1 could not read the cluster.`;

export async function run(argv: string[]): Promise<number> {
  const values = parseCommandArgs(argv, USAGE, { topic: false, positionals: true });
  if (typeof values === 'number') return values;
  const [idText, ...extra] = values.positionals;
  if (idText === undefined || extra.length > 0 || !/^\d{1,9}$/.test(idText)) {
    console.error(`expected exactly one broker id (a non-negative integer)\n\n${USAGE}`);
    return 2;
  }
  const brokerId = Number(idText);
  const target = await resolveClusterTarget(values.bootstrap);
  const inputs = await collectDiagnosisInputs({
    cluster: target.name,
    connection: target.connection,
    executor: target.executor,
    // Only this broker's host matters for "is it still recovering?".
    hostTargets: target.hostTargets.filter((t) => t.brokerId === brokerId),
    timeoutMs: parseTimeout(values.timeout),
  });
  const probe = inputs.probes.find((p) => p.brokerId === brokerId);
  const assessment = assessRestart(inputs.snapshot, brokerId, probe?.ok ? probe.report : null);
  if (probe && !probe.ok) assessment.notes.push(`Host probe of broker ${brokerId} failed (${probe.reason}): ${probe.message}`);
  if (values.json) console.log(JSON.stringify(assessment, null, 2));
  else console.log(renderRestart(assessment, { color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }));
  return assessment.verdict === 'yes' ? 0 : 3;
}
