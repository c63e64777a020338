// Lambda: the worker, fed by the SQS job queue (FIFO; one job a batch) and the
// delay queue (a long operation's next tick), and woken every minute by
// EventBridge for the operations sweep.
import { registerAlertJobs } from '../lib/alerts/triage.ts';
import { loadConfig } from '../lib/config/schema.ts';
import { awsApprovalService, awsStateStore, requireEnv, sqsJobQueue } from '../lib/jobs/aws-runtime.ts';
import { newJob } from '../lib/jobs/job.ts';
import { OPS_JOB_KINDS } from '../lib/jobs/ops-kinds.ts';
import { registerCoreJobs } from '../lib/jobs/core-jobs.ts';
import { createDefaultOperations } from '../lib/jobs/ops-backend.ts';
import { registerOpsJobs } from '../lib/jobs/ops-jobs.ts';
import { createDefaultDiagnoser } from '../lib/jobs/diagnoser.ts';
import { executorFactory } from '../lib/jobs/executors.ts';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from '../lib/jobs/lambda-types.ts';
import { powertoolsLog } from '../lib/jobs/log.ts';
import { processSqsBatch } from '../lib/jobs/sqs-batch.ts';
import { jobRegistry, runJob, type WorkerDeps } from '../lib/jobs/worker.ts';
import { groupLister, webApiPoster } from '../lib/slack/web.ts';

const log = powertoolsLog('kafka-responder-worker');
registerCoreJobs(jobRegistry);
registerAlertJobs(jobRegistry);
registerOpsJobs(jobRegistry);

let deps: Omit<WorkerDeps, 'remainingMs'> | undefined;

function build(): Omit<WorkerDeps, 'remainingMs'> {
  const config = loadConfig();
  const token = requireEnv('SLACK_BOT_TOKEN');
  const executors = executorFactory();
  const approvals = awsApprovalService(config, groupLister(token, process.env.SLACK_API_URL));
  return {
    config,
    store: awsStateStore(),
    slack: webApiPoster(token, process.env.SLACK_API_URL),
    diagnoser: createDefaultDiagnoser(executors),
    operations: createDefaultOperations(executors),
    ...(approvals ? { approvals } : {}),
    queue: sqsJobQueue(),
    log,
  };
}

function remainingOf(context?: LambdaContext) {
  return context?.getRemainingTimeInMillis ? { remainingMs: () => context.getRemainingTimeInMillis!() } : {};
}

export async function handler(event: SqsEvent, context?: LambdaContext): Promise<SqsBatchResponse> {
  deps ??= build();
  return processSqsBatch(event, (job) => runJob(job, { ...deps!, ...remainingOf(context) }), log);
}

/** EventBridge, every minute: the operations sweep (lib/jobs/ops-jobs.ts sweepOperations). */
export async function sweep(_event: unknown, context?: LambdaContext): Promise<void> {
  deps ??= build();
  await runJob(newJob(OPS_JOB_KINDS.sweep, {}, `sweep-${Date.now()}`), { ...deps, ...remainingOf(context) });
}
