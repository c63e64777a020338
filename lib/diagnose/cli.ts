// `kafka-responder diagnose [--bootstrap host:port,...] [--topic T] [--json] [--timeout S]`
// Exit codes: 0 nothing at warning or worse, 3 findings at warning or worse,
// 1 the cluster could not be diagnosed (main.ts prints the reason), 2 usage.

import { parseCommandArgs, parseTimeout, resolveClusterTarget } from './cli-support.ts';
import { runDiagnosis } from './run.ts';
import { renderReport } from './render-terminal.ts';

const USAGE = `usage: kafka-responder diagnose [--bootstrap host:port,...] [--topic T] [--json] [--timeout seconds]
  Without --bootstrap, diagnoses the local sandbox and probes its broker hosts.
  Auth from the environment: KAFKA_SSL=1, KAFKA_SSL_CA/CERT/KEY, KAFKA_SASL_MECHANISM
  (scram-sha-256|scram-sha-512|aws-msk-iam), KAFKA_SASL_USERNAME/PASSWORD, AWS_REGION.
  Exit: 0 healthy, 3 findings at warning or worse, 1 could not diagnose.`;

export async function run(argv: string[]): Promise<number> {
  const values = parseCommandArgs(argv, USAGE, { topic: true, positionals: false });
  if (typeof values === 'number') return values;
  if (values.topic !== undefined && !/^[A-Za-z0-9._-]{1,249}$/.test(values.topic)) {
    console.error(`invalid topic name: ${JSON.stringify(values.topic)}`);
    return 2;
  }
  const timeoutMs = parseTimeout(values.timeout);
  const target = await resolveClusterTarget(values.bootstrap);
  const report = await runDiagnosis({
    cluster: target.name,
    connection: target.connection,
    executor: target.executor,
    hostTargets: target.hostTargets,
    topic: values.topic ?? null,
    timeoutMs,
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else console.log(renderReport(report, { color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR }));
  return report.findings.some((f) => f.severity !== 'info') ? 3 : 0;
}
