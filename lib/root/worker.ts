// The worker's composition root: every job kind, by feature, and the
// dependencies they run with. The worker Lambda (handlers/worker.ts), `serve`
// (lib/local/server.ts) and the test harness all build their worker here.
// Worker side only: the Slack ack bundle imports lib/root/slack.ts, never this.
import { alertJobs } from '../alerts/triage.ts';
import { auditJobs, createDefaultAuditor, type Auditor } from '../audit/jobs.ts';
import type { ApprovalService } from '../approvals/service.ts';
import { ConfigError, configuredSourceNames, type Config } from '../config/schema.ts';
import { ALERT_SOURCES, unknownSourceNames } from '../alerts/sources/index.ts';
import { assessRestart } from '../diagnose/can-restart.ts';
import { createDefaultDiagnoser, type Diagnoser } from '../diagnose/diagnoser.ts';
import { diagnoseJobs } from '../diagnose/jobs.ts';
import { singleFlightDiagnoser } from '../diagnose/single-flight.ts';
import { executorFactory } from '../hosts/executors.ts';
import { createDefaultOperations, type OperationsBackend } from '../operations/backend.ts';
import { operationsJobs } from '../operations/jobs.ts';
import type { ChangeFeed } from '../operations/job-context.ts';
import { pagerDutyJobs, type PagerDutySecret } from '../pagerduty/deliveries.ts';
import { pagerDutyChangeFeed } from '../pagerduty/operations-feed.ts';
import { timelineGraph } from '../timeline/graph.ts';
import { timelineJobs, type TimelineAttachments } from '../timeline/jobs.ts';
import type { Plan } from '../operations/types.ts';
import { JobRegistry, runJob, type JobHandler, type WorkerDeps } from '../worker/worker.ts';

/** What the features need beyond the worker's infrastructure. */
export interface FeatureDeps {
  diagnoser: Diagnoser;
  /** The preventive audit (the real one when absent). */
  auditor?: Auditor;
  /** Two-person approvals; operation jobs fail permanently without them. */
  approvals?: ApprovalService<Plan>;
  /** Plans and runs operations on a cluster; operation jobs fail permanently without it. */
  operations?: OperationsBackend;
  /** Files posted with an incident's timeline; absent: the metrics graph of the incident's cluster (none without a metrics source). */
  timelineAttachments?: TimelineAttachments;
  /** Where approved operations are recorded besides the thread; absent: PagerDuty's change events when configured. */
  changeFeed?: ChangeFeed;
  /** PagerDuty's routing key and API token; absent: the SecureString parameters (variables locally). */
  pagerdutySecret?: PagerDutySecret;
}

/**
 * Every job kind the worker runs, one entry per feature. A new kind is one
 * entry in its feature's list; a new feature is one line here.
 */
export const FEATURE_JOBS: readonly ((deps: FeatureDeps) => JobHandler[])[] = [diagnoseJobs, alertJobs, operationsJobs, auditJobs, timelineJobs, pagerDutyJobs];

/** The real diagnosis and operations backends, reaching hosts through SSM or the local executor. */
export function defaultFeatureDeps(approvals?: ApprovalService<Plan>): FeatureDeps {
  const executors = executorFactory();
  return {
    diagnoser: createDefaultDiagnoser(executors),
    auditor: createDefaultAuditor(executors),
    operations: createDefaultOperations(executors, { assessRestart }),
    ...(approvals ? { approvals } : {}),
  };
}

/** The worker's infrastructure, without the per-invocation limits. */
export type WorkerInfra = Omit<WorkerDeps, 'config' | 'remainingMs' | 'signal'>;

export interface Worker {
  /** Infrastructure and feature dependencies together (tests call feature functions with them). */
  deps: WorkerDeps & FeatureDeps;
  registry: JobRegistry;
  /** Runs one job; `extra` adds per-invocation limits (remaining time, kill signal) or the queue. */
  run(job: unknown, extra?: Partial<WorkerDeps>): Promise<void>;
}

export function buildWorker(config: Config, infra: WorkerInfra, features: FeatureDeps): Worker {
  // The config takes any name-shaped source name (it cannot import the table): one the table lacks is a typo.
  const unknown = unknownSourceNames(configuredSourceNames(config));
  if (unknown.length) throw new ConfigError(`alerts: no alert source named ${unknown.join(', ')} (sources: ${ALERT_SOURCES.map((s) => s.name).join(', ')})`);
  // Concurrent requests (users, an alert storm) for one cluster and scope share one diagnosis.
  const shared: FeatureDeps = {
    ...features,
    diagnoser: singleFlightDiagnoser(features.diagnoser, { store: infra.store, log: infra.log }),
    timelineAttachments: features.timelineAttachments ?? timelineGraph(config),
  };
  const changeFeed = features.changeFeed ?? pagerDutyChangeFeed(config);
  if (changeFeed) shared.changeFeed = changeFeed;
  const registry = new JobRegistry(FEATURE_JOBS.flatMap((jobs) => jobs(shared)));
  const deps: WorkerDeps & FeatureDeps = { config, ...infra, ...shared };
  return { deps, registry, run: (job, extra = {}) => runJob(job, { ...deps, ...extra }, registry) };
}
