// Lambdas: Alertmanager webhooks (HTTP API, bearer token) and CloudWatch
// alarms through SNS. Both validate and enqueue; the worker triages. The state
// table keeps a payload too large for a queue message (lib/queue/oversize.ts).
import { createAlertmanagerHandler, createSnsHandler, type SnsIntakeResult } from '../alerts/intake.ts';
import { sqsJobQueue } from '../queue/sqs.ts';
import { awsStateStore } from '../state/aws.ts';
import { SECRETS, readSecret } from '../config/secrets.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../runtime/lambda-types.ts';
import { json } from '../runtime/lambda-types.ts';
import { powertoolsLog } from '../runtime/log.ts';
import { rotatingBuild } from '../runtime/rotating-build.ts';

const log = powertoolsLog('kafka-responder-alerts');
let snsHandler: ((e: SnsEvent) => Promise<SnsIntakeResult>) | undefined;

// The SecureString parameter through the Powertools cache: a rotated token is honoured within its TTL.
const alertmanagerHandler = rotatingBuild<(e: HttpEvent) => Promise<HttpResult>>({
  name: 'alertmanager endpoint',
  log,
  readSecrets: async () => [await readSecret(SECRETS.alertmanagerToken)],
  async build() {
    const token = await readSecret(SECRETS.alertmanagerToken);
    return { value: createAlertmanagerHandler({ queue: sqsJobQueue(), store: awsStateStore(), log, bearerToken: token }), secrets: [token] };
  },
});

export async function alertmanager(event: HttpEvent): Promise<HttpResult> {
  let handle: (e: HttpEvent) => Promise<HttpResult>;
  try {
    handle = await alertmanagerHandler();
  } catch {
    return json(500, { error: 'not configured; see the function logs' });
  }
  return handle(event);
}

export async function sns(event: SnsEvent): Promise<SnsIntakeResult> {
  snsHandler ??= createSnsHandler({ queue: sqsJobQueue(), store: awsStateStore(), log });
  return snsHandler(event);
}
