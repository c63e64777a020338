// The worker side of the audit: `/kafka audit [cluster]` posts the full
// report in the channel it came from; the schedule audits every configured
// cluster and posts to the audit channel only what is new or changed since its
// last report (by fingerprint), or everything for the weekly summary.
// Both post once per job (and the schedule once per cluster) however often SQS
// delivers the job: lib/worker/post-once.ts.
import type { ClusterConfig, Config } from '../config/schema.ts';
import { executorFactory, type ExecutorFactory } from '../hosts/executors.ts';
import { renderFailure } from '../slack/blocks.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { JobContext, JobHandler } from '../worker/worker.ts';
import { oncePoster } from '../worker/post-once.ts';
import type { OutgoingMessage } from '../slack/web.ts';
import { answerInOneMessage } from '../diagnose/jobs.ts';
import { targetForCluster } from '../diagnose/target.ts';
import { withClusterSlot } from '../diagnose/cluster-slots.ts';
import type { StateStore } from '../state/state-store.ts';
import type { Log } from '../runtime/log.ts';
import { AUDIT_JOB_KINDS, auditJobSchema, scheduledAuditSchema, type AuditJob, type ScheduledAuditJob } from './kinds.ts';
import { diffReport, isEmptyDiff, lastReportStore, recordOf, storageHistoryStore } from './last-report.ts';
import { renderAudit, renderAuditChanges } from './render.ts';
import type { AuditReport, StorageHistoryStore } from './run.ts';

export interface Auditor {
  audit(cluster: ClusterConfig, opts?: { storage?: StorageHistoryStore | null }): Promise<AuditReport>;
}

/** The real audit (lib/audit/run.ts), loaded on first use like the diagnosis. */
export function createDefaultAuditor(executorFor: ExecutorFactory): Auditor {
  return {
    async audit(cluster, opts = {}) {
      const { runAudit } = await import('./run.ts');
      return runAudit(await targetForCluster(cluster, executorFor), { storage: opts.storage ?? null });
    },
  };
}

export function scheduledClusters(config: Config): ClusterConfig[] {
  const names = config.audit.clusters;
  return names ? config.clusters.filter((c) => names.includes(c.name)) : config.clusters;
}

/**
 * An audit reads the whole cluster (snapshot and host probes): it takes one of
 * the cluster's places among reads in flight (load.maxSnapshotsInFlight, across
 * workers), waiting at most one read's budget; past it, ClusterBusyError says when to try again.
 */
function boundedAudit(auditor: Auditor, store: StateStore, log: Log, cluster: ClusterConfig): Promise<AuditReport> {
  const leaseMs = cluster.diagnosisTimeoutMs + 30_000;
  return withClusterSlot(cluster, { store, log, deadline: Date.now() + cluster.diagnosisTimeoutMs, leaseMs }, () =>
    auditor.audit(cluster, { storage: storageHistoryStore(store, cluster.name) }),
  );
}

export function auditJobs(deps: { auditor?: Auditor }): JobHandler[] {
  const auditor = deps.auditor ?? createDefaultAuditor(executorFactory());

  const onDemand: JobHandler<AuditJob> = {
    kind: AUDIT_JOB_KINDS.audit,
    schema: auditJobSchema,
    run: (payload, ctx: JobContext) =>
      answerInOneMessage(ctx, payload, `Audit of ${payload.cluster}`, async (cluster) => {
        const report = await boundedAudit(auditor, ctx.store, ctx.log, cluster);
        ctx.log.info('audit done', { cluster: cluster.name, findings: report.findings.length });
        return renderAudit(report, { correlationId: ctx.job.correlationId });
      }),
  };

  const scheduled: JobHandler<ScheduledAuditJob> = {
    kind: AUDIT_JOB_KINDS.scheduled,
    schema: scheduledAuditSchema,
    async run(payload, ctx: JobContext) {
      const channel = ctx.config.audit.channel ?? ctx.config.slack.incidentChannel;
      // Per cluster, once per job: a retry (its worker died) skips the clusters already saved and
      // finds the report it posted for the one it died in, instead of posting all of them again.
      const once = await oncePoster(ctx, ctx.job.id);
      for (const cluster of scheduledClusters(ctx.config)) {
        if (once.done(`saved:${cluster.name}`)) continue;
        const last = lastReportStore(ctx.store, cluster.name);
        await once.postBuilt(`report:${cluster.name}`, () => auditMessage(ctx, cluster, last, payload.mode, channel));
        // Saved after posting: a post that failed is posted again next time.
        await last.promote(ctx.job.id);
        await once.mark(`saved:${cluster.name}`);
      }
    },
  };

  /** The cluster's report or changes (null: nothing changed), staged to be saved once posted; a failure message when it could not be audited. */
  async function auditMessage(ctx: JobContext, cluster: ClusterConfig, last: ReturnType<typeof lastReportStore>, mode: ScheduledAuditJob['mode'], channel: string): Promise<OutgoingMessage | null> {
    let report: AuditReport;
    try {
      report = await boundedAudit(auditor, ctx.store, ctx.log, cluster);
    } catch (err) {
      // One unreachable cluster must not silence the others; nothing to save (a dead attempt's staged report is not this post's).
      ctx.log.warn('scheduled audit failed', { cluster: cluster.name, error: errorMessage(err) });
      await last.stage(ctx.job.id, null);
      return { channel, ...renderFailure(`Scheduled audit of ${cluster.name}`, errorMessage(err), ctx.job.correlationId) };
    }
    const diff = diffReport(await last.load(), report.findings);
    ctx.log.info('scheduled audit', { cluster: cluster.name, mode, added: diff.added.length, changed: diff.changed.length, resolved: diff.resolved.length });
    await last.stage(ctx.job.id, recordOf(report.startedAt, report.findings));
    if (mode === 'summary') return { channel, ...renderAudit(report, { correlationId: ctx.job.correlationId, weekly: true }) };
    return isEmptyDiff(diff) ? null : { channel, ...renderAuditChanges(report, diff, { correlationId: ctx.job.correlationId }) };
  }
  return [onDemand, scheduled];
}
