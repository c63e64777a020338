// Lambda: the worker, fed by the SQS job queue (FIFO; one job a batch) and the
// delay queue (a long operation's next tick), and woken every minute by
// EventBridge for the operations sweep.
import { registerAlertJobs } from '../lib/alerts/triage.ts';
import { loadConfig } from '../lib/config/schema.ts';
import { awsApprovalService } from '../lib/approvals/runtime.ts';
import type { Plan } from '../lib/operations/types.ts';
import { awsStateStore, requireEnv, sqsJobQueue } from '../lib/runtime/aws.ts';
import { newJob } from '../lib/queue/job.ts';
import { OPS_JOB_KINDS } from '../lib/operations/requests.ts';
import { registerCoreJobs } from '../lib/diagnose/jobs.ts';
import { createDefaultOperations } from '../lib/operations/backend.ts';
import { registerOpsJobs } from '../lib/operations/jobs.ts';
import { createDefaultDiagnoser } from '../lib/diagnose/diagnoser.ts';
import { executorFactory } from '../lib/hosts/executors.ts';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from '../lib/runtime/lambda-types.ts';
import { powertoolsLog } from '../lib/runtime/log.ts';
import { processSqsBatch } from '../lib/queue/sqs-batch.ts';
import { jobRegistry, runJob, type WorkerDeps } from '../lib/queue/worker.ts';
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
  const approvals = awsApprovalService<Plan>(config, groupLister(token, process.env.SLACK_API_URL));
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

/** EventBridge, every minute: the operations sweep (lib/operations/jobs.ts sweepOperations). */
export async function sweep(_event: unknown, context?: LambdaContext): Promise<void> {
  deps ??= build();
  await runJob(newJob(OPS_JOB_KINDS.sweep, {}, `sweep-${Date.now()}`), { ...deps, ...remainingOf(context) });
}
