// Lambda: the worker, fed by the SQS job queue (FIFO; one job a batch) and the
// delay queue (a long operation's next tick), and woken every minute by
// EventBridge for the operations sweep. Wiring: lib/root/worker.ts.
import { awsApprovalService } from '../lib/approvals/runtime.ts';
import { loadConfig } from '../lib/config/schema.ts';
import { OPS_JOB_KINDS } from '../lib/operations/requests.ts';
import type { Plan } from '../lib/operations/types.ts';
import { newJob } from '../lib/queue/job.ts';
import { buildWorker, defaultFeatureDeps, type Worker } from '../lib/root/worker.ts';
import { awsStateStore } from '../lib/state/aws.ts';
import { sqsJobQueue } from '../lib/queue/sqs.ts';
import { requireEnv } from '../lib/runtime/aws.ts';
import type { LambdaContext, SqsBatchResponse, SqsEvent } from '../lib/runtime/lambda-types.ts';
import { powertoolsLog } from '../lib/runtime/log.ts';
import { groupLister, webApiPoster } from '../lib/slack/web.ts';
import { processSqsBatch } from '../lib/worker/sqs-batch.ts';

const log = powertoolsLog('kafka-responder-worker');
let worker: Worker | undefined;

function build(): Worker {
  const config = loadConfig();
  const token = requireEnv('SLACK_BOT_TOKEN');
  const approvals = awsApprovalService<Plan>(config, groupLister(token, process.env.SLACK_API_URL));
  const store = awsStateStore();
  // Messages given up on after their retries are logged and listed by /kafka status.
  const slack = webApiPoster(token, process.env.SLACK_API_URL, { store, log });
  return buildWorker(config, { store, slack, queue: sqsJobQueue(), log }, defaultFeatureDeps(approvals));
}

function remainingOf(context?: LambdaContext) {
  return context?.getRemainingTimeInMillis ? { remainingMs: () => context.getRemainingTimeInMillis!() } : {};
}

export async function handler(event: SqsEvent, context?: LambdaContext): Promise<SqsBatchResponse> {
  const w = (worker ??= build());
  return processSqsBatch(event, (job) => w.run(job, remainingOf(context)), log);
}

/** EventBridge, every minute: the operations sweep (lib/operations/jobs.ts sweepOperations). */
export async function sweep(_event: unknown, context?: LambdaContext): Promise<void> {
  worker ??= build();
  await worker.run(newJob(OPS_JOB_KINDS.sweep, {}, `sweep-${Date.now()}`), remainingOf(context));
}
