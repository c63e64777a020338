// `kafka-responder transactions [topic] [--config FILE [--cluster NAME] | --bootstrap LIST] [--format F]`
// The open and hanging transactions of a cluster or one topic, with the same
// evidence as the diagnosis (hanging-transaction, lso-stalled); what
// `/kafka transactions` posts. No host probe runs: it is all Kafka protocol.
// Exit codes: 0 nothing hangs or stalls, 3 findings, 1 could not read, 2 usage.
import { isTopicName, TOPIC_NAME_RULE } from '../kafka/names.ts';
import { transactionVerdict } from '../kafka/transactions.ts';
import { isRegisteredBrokersSkippedCheck } from '../kafka/registered-brokers-view.ts';
import type { TransactionsView } from '../kafka/types.ts';
import { TARGET_USAGE, parseCommandArgs, resolveClusterTarget, terminalStyle } from './cli-support.ts';
import { formatDuration, TRANSACTION_FINDING_KINDS } from './checks/transactions.ts';
import { renderReport } from './render-terminal.ts';
import { renderReportMarkdown } from './render-markdown.ts';
import { collectDiagnosisInputs, buildReport, diagnosisInputFor } from './run.ts';
import type { DiagnosisReport } from './types.ts';

const USAGE = `usage: kafka-responder transactions [topic] [--config FILE [--cluster NAME] | --bootstrap LIST] [--format text|json|markdown] [--timeout S]
${TARGET_USAGE}
  Exit: 0 nothing hanging or stalled, 3 findings, 1 could not read the cluster, 2 usage.`;

/** One line per open transaction: where, who, since when, what the coordinator says, the verdict. */
export function openTransactionLines(view: TransactionsView): string[] {
  if (view.status !== 'ok') return [`Transactions: ${view.reason}`];
  const lines: string[] = [];
  for (const p of view.partitions) {
    const s = p.samples.at(-1);
    for (const t of p.openTransactions) {
      const v = transactionVerdict(t, view.maxTransactionTimeoutMs, view.at);
      const c = t.coordinatorView;
      const coord = c.lookup === 'found' ? `${c.transactionalId} ${c.state}${c.includesPartition ? '' : ' (not on this partition)'}` : c.lookup === 'not-found' ? 'unknown to every coordinator' : `unknown (${c.reason})`;
      lines.push(
        `${p.topic}-${p.partition}  producer ${t.producerId}/${t.producerEpoch}  from offset ${t.firstOffset}  last write ${formatDuration(view.at - t.lastTimestamp)} ago  ` +
          `LSO ${s?.lastStableOffset ?? '?'} / HW ${s?.highWatermark ?? '?'}  coordinator: ${coord}  → ${v.verdict.toUpperCase()}`,
      );
    }
  }
  return lines.length > 0 ? lines : ['No open transaction.'];
}

export async function transactionsReport(argsTopic: string | null, target: Awaited<ReturnType<typeof resolveClusterTarget>>): Promise<{ report: DiagnosisReport; view: TransactionsView | null }> {
  const started = Date.now();
  const inputs = await collectDiagnosisInputs({ ...diagnosisInputFor(target), executor: null, hostTargets: [], topic: argsTopic });
  const report = buildReport(target.name, started, Date.now() - started, { ...inputs, probes: [], skippedChecks: inputs.skippedChecks.filter((s) => !s.startsWith('No host access') && !isRegisteredBrokersSkippedCheck(s)) });
  report.findings = report.findings.filter((f) => (TRANSACTION_FINDING_KINDS as readonly string[]).includes(f.kind));
  return { report, view: inputs.snapshot.transactions ?? null };
}

export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, USAGE, { topic: true, positionals: true });
  if (typeof args === 'number') return args;
  const [positional, ...extra] = args.positionals;
  const topic = args.topic ?? positional ?? null;
  if (extra.length > 0 || (args.topic !== undefined && positional !== undefined)) {
    console.error(`expected at most one topic\n\n${USAGE}`);
    return 2;
  }
  if (topic !== null && !isTopicName(topic)) {
    console.error(`invalid topic name ${JSON.stringify(topic)}: ${TOPIC_NAME_RULE}`);
    return 2;
  }
  const target = await resolveClusterTarget(args);
  const { report, view } = await transactionsReport(topic, target);
  if (args.format === 'json') console.log(JSON.stringify({ transactions: view, report }, null, 2));
  else if (args.format === 'markdown') process.stdout.write(renderReportMarkdown(report));
  else {
    if (view) console.log(openTransactionLines(view).join('\n') + '\n');
    console.log(renderReport(report, terminalStyle()));
  }
  return report.findings.length > 0 ? 3 : 0;
}
