// Lambdas: Alertmanager webhooks (HTTP API, bearer token) and CloudWatch
// alarms through SNS. Both validate and enqueue; the worker triages.
import { createAlertmanagerHandler, createSnsHandler, type SnsIntakeResult } from '../lib/alerts/intake.ts';
import { sqsJobQueue } from '../lib/queue/sqs.ts';
import { requireEnv } from '../lib/runtime/aws.ts';
import type { HttpEvent, HttpResult, SnsEvent } from '../lib/runtime/lambda-types.ts';
import { json } from '../lib/runtime/lambda-types.ts';
import { powertoolsLog } from '../lib/runtime/log.ts';
import { errorMessage } from '../lib/runtime/errors.ts';

const log = powertoolsLog('kafka-responder-alerts');
let alertmanagerHandler: ((e: HttpEvent) => Promise<HttpResult>) | undefined;
let snsHandler: ((e: SnsEvent) => Promise<SnsIntakeResult>) | undefined;

export async function alertmanager(event: HttpEvent): Promise<HttpResult> {
  try {
    alertmanagerHandler ??= createAlertmanagerHandler({ queue: sqsJobQueue(), log, bearerToken: requireEnv('ALERTMANAGER_TOKEN') });
  } catch (err) {
    log.error('alertmanager endpoint not configured', { error: errorMessage(err) });
    return json(500, { error: 'not configured; see the function logs' });
  }
  return alertmanagerHandler(event);
}

export async function sns(event: SnsEvent): Promise<SnsIntakeResult> {
  snsHandler ??= createSnsHandler({ queue: sqsJobQueue(), log });
  return snsHandler(event);
}
