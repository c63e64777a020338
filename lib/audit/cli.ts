// `kafka-responder audit [--config FILE [--cluster NAME] | --bootstrap LIST] [--format F]`
// The same checks as the scheduled audit; a one-shot run keeps no history, so
// disk and inode trends say "no trend yet". Exit: 0 nothing at warning or worse,
// 3 risks found, 1 could not audit, 2 usage.
import { TARGET_USAGE, parseCommandArgs, resolveClusterTarget, terminalStyle, type CliDefaults } from '../diagnose/cli-support.ts';
import { renderReport } from '../diagnose/render-terminal.ts';
import { renderReportMarkdown } from '../diagnose/render-markdown.ts';
import { runAudit } from './run.ts';

const USAGE = `usage: kafka-responder audit [--config FILE [--cluster NAME] | --bootstrap LIST] [--format text|json|markdown] [--timeout S]
Read-only preventive audit: replication and election settings, lifecycle and compaction,
storage, configuration drift. Each finding names the failure it prevents.
${TARGET_USAGE}
  Exit: 0 no risks, 3 risks at warning or worse, 1 could not audit, 2 usage.`;

export async function run(argv: string[], defaults: CliDefaults = {}): Promise<number> {
  const args = parseCommandArgs(argv, USAGE, { topic: false, positionals: false });
  if (typeof args === 'number') return args;
  const target = await resolveClusterTarget(args, process.env, defaults.noFlagTarget);
  const report = await runAudit(target);
  if (args.format === 'json') console.log(JSON.stringify(report, null, 2));
  else if (args.format === 'markdown') process.stdout.write(renderReportMarkdown(report, { heading: 'Kafka risk audit', nothingFound: 'No risks found: every check passed or was skipped (see below).' }));
  else console.log(renderReport(report, terminalStyle(), 'Audit'));
  return report.findings.some((f) => f.severity !== 'info') ? 3 : 0;
}
