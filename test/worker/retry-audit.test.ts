// The audit retried after its worker died right after a write: `/kafka audit`
// answers once; the scheduled audit posts each cluster's report once and
// still saves it (the next run posts only what changed). Real worker, Slack
// stub, state on dynalite; the kill is test/worker/kill.ts.
import { describe, expect, it } from 'vitest';
import type { Auditor } from '../../lib/audit/jobs.ts';
import { AUDIT_JOB_KINDS, type AuditJob, type ScheduledAuditJob } from '../../lib/audit/kinds.ts';
import type { AuditReport } from '../../lib/audit/run.ts';
import { newJob } from '../../lib/queue/job.ts';
import { runJob } from '../../lib/worker/worker.ts';
import { finding, type Harness } from '../slack/helpers/harness.ts';
import { killedThenRetried } from './kill.ts';
import { useWorkerRetryWorld } from './retry-world.ts';

const world = useWorkerRetryWorld();
const { stub } = world;

/** Two findings on every cluster; counts the audits it runs. */
class CountingAuditor implements Auditor {
  audits: string[] = [];
  async audit(cluster: { name: string }): Promise<AuditReport> {
    this.audits.push(cluster.name);
    return { cluster: cluster.name, startedAt: new Date().toISOString(), durationMs: 1, findings: [finding(1), finding(2)], skippedChecks: [], partial: false, checks: [] };
  }
}

function harness(auditor: Auditor): Harness {
  return world.harness({ auditor });
}

const scheduled = (mode: ScheduledAuditJob['mode'] = 'changes') => newJob(AUDIT_JOB_KINDS.scheduled, { mode } satisfies ScheduledAuditJob, 'kr-retry-audit');
const reportsOf = (cluster: string) => stub.topLevel('C0INCIDENT').filter((m) => m.text.startsWith(`Risk audit: ${cluster}`));

describe('/kafka audit retried after its worker died', () => {
  it('killed right after posting the report: the retry finds it, posts no second one and audits no second time', async () => {
    const auditor = new CountingAuditor();
    const h = harness(auditor);
    const job = newJob(AUDIT_JOB_KINDS.audit, { cluster: 'sandbox', origin: { channelId: 'C0OPS', userId: 'U0ALICE' } } satisfies AuditJob, 'kr-retry-audit-1');
    await killedThenRetried(h, job, { post: () => true });
    expect(stub.topLevel('C0OPS')).toHaveLength(1);
    expect(auditor.audits).toEqual(['sandbox']);
  });
});

describe('the scheduled audit retried after its worker died', () => {
  it('killed right after posting the second cluster: the first is not posted again', async () => {
    const auditor = new CountingAuditor();
    const h = harness(auditor);
    await killedThenRetried(h, scheduled(), { post: (m) => m.text.startsWith('Risk audit: other') });
    expect(reportsOf('sandbox')).toHaveLength(1);
    expect(reportsOf('other')).toHaveLength(1);
  });

  it('killed right after posting the first cluster, before saving its report: posted once, saved (the next run posts nothing)', async () => {
    const h = harness(new CountingAuditor());
    await killedThenRetried(h, scheduled(), { post: (m) => m.text.startsWith('Risk audit: sandbox') });
    expect(reportsOf('sandbox')).toHaveLength(1);
    expect(reportsOf('other')).toHaveLength(1);
    const before = stub.topLevel('C0INCIDENT').length;
    await runJob(scheduled(), h.worker, h.jobs);
    expect(stub.topLevel('C0INCIDENT')).toHaveLength(before);
  });

  it('killed after recording where the first cluster was posted, before saving its report: saved by the retry', async () => {
    const h = harness(new CountingAuditor());
    let posted = false;
    await killedThenRetried(h, scheduled(), {
      post: (m) => ((posted ||= m.text.startsWith('Risk audit: sandbox')), false),
      write: (key) => posted && key.startsWith('job-posted:'),
    });
    expect(reportsOf('sandbox')).toHaveLength(1);
    expect(reportsOf('other')).toHaveLength(1);
    const before = stub.topLevel('C0INCIDENT').length;
    await runJob(scheduled(), h.worker, h.jobs);
    expect(stub.topLevel('C0INCIDENT')).toHaveLength(before);
  });

  it('the weekly summary killed after its first cluster: each cluster once', async () => {
    const h = harness(new CountingAuditor());
    await killedThenRetried(h, scheduled('summary'), { post: (m) => m.text.startsWith('Weekly risk audit: sandbox') });
    expect(stub.topLevel('C0INCIDENT').filter((m) => m.text.startsWith('Weekly risk audit: sandbox'))).toHaveLength(1);
    expect(stub.topLevel('C0INCIDENT').filter((m) => m.text.startsWith('Weekly risk audit: other'))).toHaveLength(1);
  });
});
