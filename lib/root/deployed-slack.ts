// Lambda: Slack slash commands and interactivity (HTTP API). Validates,
// authorizes, records, enqueues, acks. Must stay small: see bench/slack-ack.ts.
// The handler itself is built by ./slack.ts; this file reads what AWS holds.
import { SECRETS, loadDeployedConfig, readSecret } from '../config/secrets.ts';
import { awsApprovalService } from '../approvals/runtime.ts';
import { awsStateStore } from '../state/aws.ts';
import { sqsJobQueue } from '../queue/sqs.ts';
import type { HttpEvent, HttpResult, LambdaContext } from '../runtime/lambda-types.ts';
import { powertoolsLog } from '../runtime/log.ts';
import { rotatingBuild } from '../runtime/rotating-build.ts';
import type { Plan } from '../operations/types.ts';
import { buildSlackHandler } from './slack.ts';
import type { SlackHandler } from '../slack/app.ts';

const log = powertoolsLog('kafka-responder-slack');

const readSecrets = () => Promise.all([readSecret(SECRETS.slackSigningSecret), readSecret(SECRETS.slackBotToken)]);

// Started during init (Lambda gives init a full CPU): module loading, the SSM reads and Bolt's set-up overlap.
const current = rotatingBuild<SlackHandler>({
  name: 'slack handler',
  log,
  readSecrets,
  eager: true,
  async build() {
    // The config and both secrets from SSM at once (in AWS), each cached by Powertools.
    const [config, secrets] = await Promise.all([loadDeployedConfig(), readSecrets()]);
    const [signingSecret, botToken] = secrets;
    const handler = buildSlackHandler({
      config,
      // Approve / Reject / Cancel are single conditional writes on the approvals table.
      ...(process.env.APPROVALS_TABLE ? { approvals: (listGroup: (id: string) => Promise<string[]>) => awsApprovalService<Plan>(config, listGroup)! } : {}),
      store: awsStateStore(),
      queue: sqsJobQueue(),
      log,
      signingSecret,
      botToken,
      ...(process.env.SLACK_API_URL ? { slackApiUrl: process.env.SLACK_API_URL } : {}),
    });
    return { value: handler, secrets };
  },
});

export async function handler(event: HttpEvent, context?: LambdaContext): Promise<HttpResult> {
  let slack: SlackHandler;
  try {
    slack = await current();
  } catch {
    // Reported on each request instead of crashing the container in a loop; the next request tries again.
    return { statusCode: 500, body: 'kafka-responder is not configured; see the function logs' };
  }
  return slack(event, context);
}
