// The whole bot wired for tests: real signed requests into the real handlers,
// a dynalite state table, the in-process queue running the real worker, and a
// Slack Web API stub recording what the bot says.
import { parseConfig, type Config } from '../../../lib/config/schema.ts';
import type { DiagnosisReport, Finding } from '../../../lib/diagnose/types.ts';
import type { DiagnoseRequest, Diagnoser } from '../../../lib/diagnose/diagnoser.ts';
import type { RestartAssessment } from '../../../lib/diagnose/can-restart.ts';
import { restartAssessment } from '../../diagnose/fixtures.ts';
import { recordingLog } from '../../helpers/recording-log.ts';
import { InProcessJobQueue } from '../../../lib/queue/queue.ts';
import type { StateStore } from '../../../lib/state/state-store.ts';
import type { JobRegistry, WorkerDeps } from '../../../lib/worker/worker.ts';
import { buildWorker, type FeatureDeps } from '../../../lib/root/worker.ts';
import type { Auditor } from '../../../lib/audit/jobs.ts';
import { buildSlackHandler } from '../../../lib/root/slack.ts';
import type { OperationsBackend } from '../../../lib/operations/backend.ts';
import type { ApprovalService } from '../../../lib/approvals/service.ts';
import type { Plan } from '../../../lib/operations/types.ts';
import { SlackRegistry } from '../../../lib/slack/registry.ts';
import { webApiPoster } from '../../../lib/slack/web.ts';
import { SIGNING_SECRET } from './signed.ts';
import type { SlackStub } from './slack-stub.ts';

export const BASE_CONFIG = {
  clusters: [
    // Tests here count the diagnoses they ask for: no sharing across tests (test/diagnose/single-flight.test.ts tests sharing).
    { name: 'sandbox', bootstrap: ['127.0.0.1:19091'], aliases: ['prod-msk'], hosts: { executor: 'local', hostDirs: { '1': '/tmp/b1', '2': '/tmp/b2', '3': '/tmp/b3' } }, load: { shareDiagnosisSeconds: 0, maxSnapshotsInFlight: 10 } },
    { name: 'other', bootstrap: ['10.0.0.1:9092'] },
  ],
  defaultCluster: 'sandbox',
  slack: { allowedTeams: ['T0TEST'], allowedChannels: ['C0OPS', 'C0INCIDENT'], allowedUsers: ['U0ALICE', 'U0BOB'], allowedUserGroup: 'S0ONCALL', incidentChannel: 'C0INCIDENT' },
  alerts: { flappingWindowSeconds: 3600, flappingCycles: 2 },
  // Tests here send many commands as one user on one table: the bounds are tested in test/slack/command-budget.test.ts.
  commandLimits: { perUser: { requests: 10_000 }, perChannel: { requests: 10_000 }, perCluster: { requests: 10_000 } },
};

export function finding(i: number, overrides: Partial<Finding> = {}): Finding {
  return {
    kind: 'offline-partition',
    severity: 'critical',
    title: `Partition orders-${i} has no leader`,
    summary: `Leader -1; ISR [1] and broker 1 is down.`,
    affected: { partitions: [{ topic: 'orders', partition: i }], brokers: [1], groups: [] },
    evidence: [{ label: 'isr', value: '[1]', source: 'metadata' }],
    runbook: 'offline-partition',
    nextActions: ['Bring broker 1 back', 'or elect an unclean leader'],
    fingerprint: `offline-partition:orders-${i}`,
    ...overrides,
  };
}

export function report(findings: Finding[], cluster = 'sandbox'): DiagnosisReport {
  return { cluster, startedAt: '2026-11-29T07:00:00.000Z', durationMs: 1234, findings, skippedChecks: [], partial: false };
}

/** A scripted diagnoser: reports progress over six brokers, then returns `result`. */
export class ScriptedDiagnoser implements Diagnoser {
  readonly requests: DiagnoseRequest[] = [];
  constructor(
    public result: DiagnosisReport | Error = report([finding(0)]),
    public assessment: RestartAssessment = restartAssessment({ brokerId: 2, verdict: 'no', reasons: ['1 partition would go offline: broker 2 is their only live in-sync replica (orders-3).'], wouldGoOffline: [{ topic: 'orders', partition: 3 }] }),
  ) {}
  async diagnose(req: DiagnoseRequest): Promise<DiagnosisReport> {
    this.requests.push(req);
    for (let done = 0; done <= 6; done++) {
      req.onProgress?.({ stage: 'brokers probed', done, total: 6, brokerId: done, commandId: done ? `cmd-${done}` : null });
      await new Promise((r) => setTimeout(r, 5));
    }
    if (this.result instanceof Error) throw this.result;
    return this.result;
  }
  async canRestart(): Promise<RestartAssessment> {
    return this.assessment;
  }
}

/** Stands in for snapshot + probes: counts how often the cluster would be read; each read takes `ms`. */
export class CountingDiagnoser implements Diagnoser {
  snapshots = 0;
  constructor(private readonly ms = 300) {}
  async diagnose(): Promise<DiagnosisReport> {
    this.snapshots++;
    await new Promise((r) => setTimeout(r, this.ms));
    return report([finding(1)]);
  }
  async canRestart(): Promise<never> {
    throw new Error('not used');
  }
}

export interface Harness {
  config: Config;
  queue: InProcessJobQueue;
  log: ReturnType<typeof recordingLog>;
  handler: ReturnType<typeof buildSlackHandler>;
  worker: WorkerDeps & FeatureDeps;
  registry: SlackRegistry;
  jobs: JobRegistry;
}

export function buildHarness(opts: {
  stub: SlackStub;
  store: StateStore;
  diagnoser?: Diagnoser;
  config?: unknown;
  approvals?: ApprovalService<Plan>;
  operations?: OperationsBackend;
  auditor?: Auditor;
  /** Least time between posts in one channel (Slack's pace is about 1000 ms; 0 for speed). */
  postIntervalMs?: number;
  /** More feature deps (a PagerDuty secret, a change feed). */
  features?: Partial<FeatureDeps>;
}): Harness {
  const config = parseConfig(opts.config ?? BASE_CONFIG);
  const log = recordingLog();
  const built = buildWorker(
    config,
    { store: opts.store, slack: webApiPoster('xoxb-test', opts.stub.apiUrl, { postIntervalMs: opts.postIntervalMs ?? 0, store: opts.store, log }), log },
    {
      diagnoser: opts.diagnoser ?? new ScriptedDiagnoser(),
      // Never the real audit: it would reach for a cluster from inside a unit test.
      auditor: opts.auditor ?? {
        audit: async (cluster) => ({ cluster: cluster.name, startedAt: new Date(0).toISOString(), durationMs: 1, findings: [], skippedChecks: [], partial: false, checks: [] }),
      },
      ...(opts.approvals ? { approvals: opts.approvals } : {}),
      ...(opts.operations ? { operations: opts.operations } : {}),
      ...opts.features,
    },
  );
  const queue: InProcessJobQueue = new InProcessJobQueue((job, limits) => built.run(job, { ...limits, queue }), log);
  const registry = new SlackRegistry();
  const handler = buildSlackHandler({
    config,
    queue,
    store: opts.store,
    log,
    signingSecret: SIGNING_SECRET,
    botToken: 'xoxb-test',
    slackApiUrl: opts.stub.apiUrl,
    registry,
    ...(opts.approvals ? { approvals: opts.approvals } : {}),
  });
  return { config, queue, log, handler, worker: built.deps, registry, jobs: built.registry };
}
