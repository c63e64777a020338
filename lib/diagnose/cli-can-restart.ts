// `kafka-responder can-restart <broker-id> [--config FILE [--cluster NAME] | --bootstrap LIST] [--format F]`
// The same check as `/kafka can-restart` (lib/diagnose/run.ts checkRestart).
// Exit codes: 0 yes, 3 no, 1 the cluster could not be read, 2 usage.

import { parseBrokerId } from '../kafka/names.ts';
import { TARGET_USAGE, parseCommandArgs, resolveClusterTarget, terminalStyle, type CliDefaults } from './cli-support.ts';
import { checkRestart } from './run.ts';
import { renderRestart } from './render-terminal.ts';
import { renderRestartMarkdown } from './render-markdown.ts';

const USAGE = `usage: kafka-responder can-restart <broker-id> [--config FILE [--cluster NAME] | --bootstrap LIST] [--format text|json|markdown] [--timeout S]
${TARGET_USAGE}
  <broker-id>: a broker, or a KRaft controller (judged by what its stop costs the controller quorum).
  Exit: 0 yes, 3 no, 1 could not read the cluster, 2 usage.`;

export async function run(argv: string[], defaults: CliDefaults = {}): Promise<number> {
  const args = parseCommandArgs(argv, USAGE, { topic: false, positionals: true });
  if (typeof args === 'number') return args;
  const [idText, ...extra] = args.positionals;
  const brokerId = idText === undefined ? null : parseBrokerId(idText);
  if (brokerId === null || extra.length > 0) {
    console.error(`expected exactly one broker id (a non-negative integer)\n\n${USAGE}`);
    return 2;
  }
  const target = await resolveClusterTarget(args, process.env, defaults.noFlagTarget);
  const assessment = await checkRestart(target, brokerId);
  if (args.format === 'json') console.log(JSON.stringify(assessment, null, 2));
  else if (args.format === 'markdown') process.stdout.write(renderRestartMarkdown(target.name, assessment));
  else console.log(renderRestart(assessment, terminalStyle()));
  return assessment.verdict === 'yes' ? 0 : 3;
}
