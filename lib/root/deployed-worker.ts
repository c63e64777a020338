// Lambda: the worker, fed by the SQS job queue (FIFO; one job a batch) and the
// delay queue (a long operation's next tick), and woken every minute by
// EventBridge for the operations sweep. The worker itself is built by ./worker.ts.
import { awsApprovalService } from '../approvals/runtime.ts';
import { SECRETS, loadDeployedConfig, readScramCredentials, readSecret } from '../config/secrets.ts';
import { findCluster, type Config } from '../config/schema.ts';
import { attachScramCredentials } from '../kafka/cluster-connection.ts';
import { OPS_JOB_KINDS } from '../operations/requests.ts';
import { PAGERDUTY_JOB_KINDS } from '../pagerduty/deliveries.ts';
import { AUDIT_JOB_KINDS } from '../audit/kinds.ts';
import type { Plan } from '../operations/types.ts';
import { newJob } from '../queue/job.ts';
import { buildWorker, defaultFeatureDeps, type Worker } from './worker.ts';
import { awsStateStore } from '../state/aws.ts';
import { sqsJobQueue } from '../queue/sqs.ts';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from '../runtime/lambda-types.ts';
import { powertoolsLog } from '../runtime/log.ts';
import { groupLister, webApiPoster } from '../slack/web.ts';
import { processSqsBatch } from '../worker/sqs-batch.ts';
import { rotatingBuild } from '../runtime/rotating-build.ts';

const log = powertoolsLog('kafka-responder-worker');

/** SCRAM credentials of the SASL/SCRAM clusters onto their connections (cached reads within the TTL). */
async function attachCredentials(config: Config): Promise<void> {
  for (const [name, credentials] of await readScramCredentials(config)) attachScramCredentials(findCluster(config, name)!, credentials);
}

/**
 * The worker, built once per container; a rotated bot token rebuilds it
 * (lib/runtime/rotating-build.ts), rotated SCRAM credentials are attached for
 * the next connections on each invocation.
 */
const built = rotatingBuild<{ worker: Worker; config: Config }>({
  name: 'worker',
  log,
  readSecrets: async () => [await readSecret(SECRETS.slackBotToken)],
  async build() {
    // Config, bot token and SCRAM credentials from SSM (in AWS), decrypted and cached by Powertools.
    const [config, token] = await Promise.all([loadDeployedConfig(), readSecret(SECRETS.slackBotToken)]);
    await attachCredentials(config);
    const approvals = awsApprovalService<Plan>(config, groupLister(token, process.env.SLACK_API_URL));
    const store = awsStateStore();
    // Messages given up on after their retries are logged and listed by /kafka status.
    const slack = webApiPoster(token, process.env.SLACK_API_URL, { store, log });
    const worker = buildWorker(config, { store, slack, queue: sqsJobQueue(), log }, defaultFeatureDeps(approvals));
    return { value: { worker, config }, secrets: [token] };
  },
});

async function current(): Promise<Worker> {
  const b = await built();
  await attachCredentials(b.config);
  return b.worker;
}

function remainingOf(context?: LambdaContext) {
  return context?.getRemainingTimeInMillis ? { remainingMs: () => context.getRemainingTimeInMillis!() } : {};
}

export async function handler(event: SqsEvent, context?: LambdaContext): Promise<SqsBatchResponse> {
  const w = await current();
  return processSqsBatch(event, (job) => w.run(job, remainingOf(context)), log);
}

/** EventBridge, every minute: the operations sweep (lib/operations/jobs.ts sweepOperations), then PagerDuty's deliveries'. */
export async function sweep(_event: unknown, context?: LambdaContext): Promise<void> {
  const w = await current();
  try {
    await w.run(newJob(OPS_JOB_KINDS.sweep, {}, `sweep-${Date.now()}`), remainingOf(context));
  } finally {
    // PagerDuty deliveries whose first enqueue was lost are queued again (lib/pagerduty/deliveries.ts sweepDeliveries).
    if (w.deps.config.pagerduty) await w.run(newJob(PAGERDUTY_JOB_KINDS.sweep, {}, `sweep-pd-${Date.now()}`), remainingOf(context));
  }
}

/**
 * EventBridge, daily (changes) and weekly (summary): the scheduled risk audit
 * (lib/audit/jobs.ts). The event's input ({ mode }) is validated by the job's schema.
 */
export async function auditSchedule(event: unknown, context?: LambdaContext): Promise<void> {
  const w = await current();
  const mode = (event as { mode?: unknown } | null)?.mode;
  await w.run(newJob(AUDIT_JOB_KINDS.scheduled, { mode }, `audit-${Date.now()}`), remainingOf(context));
}
