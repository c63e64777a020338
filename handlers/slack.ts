// Lambda: Slack slash commands and interactivity (HTTP API). Validates,
// authorizes, records, enqueues, acks. Must stay small: see bench/slack-ack.ts.
// Wiring: lib/root/slack.ts.
import { SECRETS, loadDeployedConfig, readSecret } from '../lib/config/secrets.ts';
import { awsApprovalService } from '../lib/approvals/runtime.ts';
import { awsStateStore } from '../lib/state/aws.ts';
import { sqsJobQueue } from '../lib/queue/sqs.ts';
import type { HttpEvent, HttpResult, LambdaContext } from '../lib/runtime/lambda-types.ts';
import { powertoolsLog } from '../lib/runtime/log.ts';
import { errorMessage } from '../lib/runtime/errors.ts';
import type { Plan } from '../lib/operations/types.ts';
import { buildSlackHandler } from '../lib/root/slack.ts';
import type { SlackHandler } from '../lib/slack/app.ts';

const log = powertoolsLog('kafka-responder-slack');

interface Built {
  handler: SlackHandler;
  /** The secrets it was built with: a rotated one (seen once the parameter cache expires) rebuilds it. */
  secrets: string[];
}

const readSecrets = () => Promise.all([readSecret(SECRETS.slackSigningSecret), readSecret(SECRETS.slackBotToken)]);

async function build(): Promise<Built> {
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
  return { handler, secrets };
}

function start(): Promise<Built> {
  const p = build();
  p.catch((err: unknown) => {
    // Reported on each request instead of crashing the container in a loop; the next request tries again.
    log.error('slack handler not configured', { error: errorMessage(err) });
    if (building === p) building = undefined;
  });
  return p;
}

// Started during init (Lambda gives init a full CPU): module loading, the SSM reads and Bolt's set-up overlap.
let building: Promise<Built> | undefined = start();

export async function handler(event: HttpEvent, context?: LambdaContext): Promise<HttpResult> {
  let built: Built;
  try {
    built = await (building ??= start());
    // Within the TTL this is the Powertools cache, no call to SSM.
    const current = await readSecrets();
    if (current.some((v, i) => v !== built.secrets[i])) {
      log.info('a Slack secret was rotated; rebuilding the handler');
      building = start();
      built = await building;
    }
  } catch {
    return { statusCode: 500, body: 'kafka-responder is not configured; see the function logs' };
  }
  return built.handler(event, context);
}
