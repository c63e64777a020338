// Lambda: the worker, fed by the SQS job queue (FIFO; one job a batch).
import { registerAlertJobs } from '../lib/alerts/triage.ts';
import { loadConfig } from '../lib/config/schema.ts';
import { awsStateStore, requireEnv } from '../lib/jobs/aws-runtime.ts';
import { registerCoreJobs } from '../lib/jobs/core-jobs.ts';
import { createDefaultDiagnoser } from '../lib/jobs/diagnoser.ts';
import { executorFactory } from '../lib/jobs/executors.ts';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from '../lib/jobs/lambda-types.ts';
import { powertoolsLog } from '../lib/jobs/log.ts';
import { processSqsBatch } from '../lib/jobs/sqs-batch.ts';
import { jobRegistry, runJob, type WorkerDeps } from '../lib/jobs/worker.ts';
import { webApiPoster } from '../lib/slack/web.ts';

const log = powertoolsLog('kafka-responder-worker');
registerCoreJobs(jobRegistry);
registerAlertJobs(jobRegistry);

let deps: Omit<WorkerDeps, 'remainingMs'> | undefined;

function build(): Omit<WorkerDeps, 'remainingMs'> {
  return {
    config: loadConfig(),
    store: awsStateStore(),
    slack: webApiPoster(requireEnv('SLACK_BOT_TOKEN'), process.env.SLACK_API_URL),
    diagnoser: createDefaultDiagnoser(executorFactory()),
    log,
  };
}

export async function handler(event: SqsEvent, context?: LambdaContext): Promise<SqsBatchResponse> {
  deps ??= build();
  const remaining = context?.getRemainingTimeInMillis ? { remainingMs: () => context.getRemainingTimeInMillis!() } : {};
  return processSqsBatch(event, (job) => runJob(job, { ...deps!, ...remaining }), log);
}
