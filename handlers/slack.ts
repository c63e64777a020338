// Lambda: Slack slash commands and interactivity (HTTP API). Validates,
// authorizes, records, enqueues, acks. Must stay small: see bench/slack-ack.ts.
// Wiring: lib/root/slack.ts.
import { loadConfig } from '../lib/config/schema.ts';
import { awsApprovalService } from '../lib/approvals/runtime.ts';
import { awsStateStore } from '../lib/state/aws.ts';
import { sqsJobQueue } from '../lib/queue/sqs.ts';
import { requireEnv } from '../lib/runtime/aws.ts';
import type { HttpEvent, HttpResult, LambdaContext } from '../lib/runtime/lambda-types.ts';
import { powertoolsLog } from '../lib/runtime/log.ts';
import { errorMessage } from '../lib/runtime/errors.ts';
import type { Plan } from '../lib/operations/types.ts';
import { buildSlackHandler } from '../lib/root/slack.ts';
import type { SlackHandler } from '../lib/slack/app.ts';

const log = powertoolsLog('kafka-responder-slack');
let built: SlackHandler | undefined;

function build(): SlackHandler {
  const config = loadConfig();
  return buildSlackHandler({
    config,
    // Approve / Reject / Cancel are single conditional writes on the approvals table.
    ...(process.env.APPROVALS_TABLE ? { approvals: (listGroup: (id: string) => Promise<string[]>) => awsApprovalService<Plan>(config, listGroup)! } : {}),
    store: awsStateStore(),
    queue: sqsJobQueue(),
    log,
    signingSecret: requireEnv('SLACK_SIGNING_SECRET'),
    botToken: requireEnv('SLACK_BOT_TOKEN'),
    ...(process.env.SLACK_API_URL ? { slackApiUrl: process.env.SLACK_API_URL } : {}),
  });
}

// Built during init (Lambda gives init a full CPU); a broken configuration is
// reported on each request instead of crashing the container in a loop.
try {
  built = build();
} catch (err) {
  log.error('slack handler not configured', { error: errorMessage(err) });
}

export async function handler(event: HttpEvent, context?: LambdaContext): Promise<HttpResult> {
  if (!built) {
    try {
      built = build();
    } catch (err) {
      log.error('slack handler not configured', { error: errorMessage(err) });
      return { statusCode: 500, body: 'kafka-responder is not configured; see the function logs' };
    }
  }
  return built(event, context);
}
