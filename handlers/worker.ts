// Lambda: the worker, fed by the SQS job queue (FIFO; one job a batch).
import { registerAlertJobs } from '../lib/alerts/triage.ts';
import { loadConfig } from '../lib/config/schema.ts';
import { awsApprovalService, awsStateStore, requireEnv } from '../lib/jobs/aws-runtime.ts';
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
    log,
  };
}

export async function handler(event: SqsEvent, context?: LambdaContext): Promise<SqsBatchResponse> {
  deps ??= build();
  const remaining = context?.getRemainingTimeInMillis ? { remainingMs: () => context.getRemainingTimeInMillis!() } : {};
  return processSqsBatch(event, (job) => runJob(job, { ...deps!, ...remaining }), log);
}
