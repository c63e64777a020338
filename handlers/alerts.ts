// Lambdas: Alertmanager webhooks (HTTP API, bearer token) and CloudWatch
// alarms through SNS. Both validate and enqueue; the worker triages. The state
// table keeps a payload too large for a queue message (lib/queue/oversize.ts).
import { createAlertmanagerHandler, createSnsHandler, type SnsIntakeResult } from '../lib/alerts/intake.ts';
import { sqsJobQueue } from '../lib/queue/sqs.ts';
import { awsStateStore } from '../lib/state/aws.ts';
import { SECRETS, readSecret } from '../lib/config/secrets.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../lib/runtime/lambda-types.ts';
import { json } from '../lib/runtime/lambda-types.ts';
import { powertoolsLog } from '../lib/runtime/log.ts';
import { errorMessage } from '../lib/runtime/errors.ts';

const log = powertoolsLog('kafka-responder-alerts');
let alertmanagerHandler: { token: string; handle: (e: HttpEvent) => Promise<HttpResult> } | undefined;
let snsHandler: ((e: SnsEvent) => Promise<SnsIntakeResult>) | undefined;

export async function alertmanager(event: HttpEvent): Promise<HttpResult> {
  let token: string;
  try {
    // The SecureString parameter through the Powertools cache: a rotated token is honoured within its TTL.
    token = await readSecret(SECRETS.alertmanagerToken);
  } catch (err) {
    log.error('alertmanager endpoint not configured', { error: errorMessage(err) });
    return json(500, { error: 'not configured; see the function logs' });
  }
  if (alertmanagerHandler?.token !== token) alertmanagerHandler = { token, handle: createAlertmanagerHandler({ queue: sqsJobQueue(), store: awsStateStore(), log, bearerToken: token }) };
  return alertmanagerHandler.handle(event);
}

export async function sns(event: SnsEvent): Promise<SnsIntakeResult> {
  snsHandler ??= createSnsHandler({ queue: sqsJobQueue(), store: awsStateStore(), log });
  return snsHandler(event);
}
