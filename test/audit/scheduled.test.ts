import { describe, expect, it } from 'vitest';
import { auditJobs, type Auditor } from '../../lib/audit/jobs.ts';
import { AUDIT_JOB_KINDS } from '../../lib/audit/kinds.ts';
import { diffReport, recordOf } from '../../lib/audit/last-report.ts';
import type { AuditReport } from '../../lib/audit/run.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { makeFinding } from '../../lib/diagnose/finding.ts';
import type { Finding } from '../../lib/diagnose/types.ts';
import { newJob } from '../../lib/queue/job.ts';
import type { SlackPoster } from '../../lib/slack/web.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { JobRegistry, runJob } from '../../lib/worker/worker.ts';
import { recordingLog } from '../helpers/recording-log.ts';

const unclean = (topic: string): Finding =>
  makeFinding({ kind: 'unclean-election-enabled', severity: 'warning', title: `Topic ${topic} allows unclean leader election`, summary: 's', identity: [`topic:${topic}`] });
const minIsr = (topic: string, n: number): Finding =>
  makeFinding({ kind: 'min-isr-not-below-rf', severity: 'warning', title: `Topic ${topic}: min.insync.replicas ${n} ≥ replication factor 3`, summary: 's', identity: [`topic:${topic}`] });

function report(findings: Finding[]): AuditReport {
  return { cluster: 'prod', startedAt: new Date().toISOString(), durationMs: 5, findings, skippedChecks: [], partial: false, checks: [] };
}

function harness() {
  const posts: { channel: string; text: string }[] = [];
  const slack: SlackPoster = {
    async post(m) {
      posts.push({ channel: m.channel, text: m.text ?? '' });
      return { channel: m.channel, ts: String(posts.length) };
    },
    async update() {},
    async upload() {},
    async respond() {},
  };
  let next: Finding[] = [];
  const auditor: Auditor = { audit: async () => report(next) };
  const config = parseConfig({
    clusters: [{ name: 'prod', bootstrap: ['b:9092'] }],
    slack: { incidentChannel: 'CINCIDENT', allowEveryone: true },
    audit: { channel: 'CAUDIT' },
  });
  const registry = new JobRegistry(auditJobs({ auditor }));
  const deps = { config, slack, store: new MemoryStateStore(), log: recordingLog() };
  const run = (mode: 'changes' | 'summary') => runJob(newJob(AUDIT_JOB_KINDS.scheduled, { mode }, `t-${mode}`), deps, registry);
  return { posts, run, deps, registry, set: (f: Finding[]) => (next = f) };
}

describe('scheduled audit', () => {
  it('posts the first report, nothing on an unchanged second run, then only the one change', async () => {
    const h = harness();
    h.set([unclean('a'), minIsr('b', 3)]);
    await h.run('changes');
    expect(h.posts).toHaveLength(1);
    expect(h.posts[0]!.channel).toBe('CAUDIT');
    expect(h.posts[0]!.text).toContain('2 new');

    await h.run('changes');
    expect(h.posts).toHaveLength(1);

    h.set([unclean('a'), minIsr('b', 3), unclean('c')]);
    await h.run('changes');
    expect(h.posts).toHaveLength(2);
    expect(h.posts[1]!.text).toContain('1 new since the last report (3 open in total)');

    h.set([unclean('a'), minIsr('b', 4), unclean('c')]);
    await h.run('changes');
    expect(h.posts[2]!.text).toContain('1 changed since the last report');

    h.set([unclean('a'), minIsr('b', 4)]);
    await h.run('changes');
    expect(h.posts[3]!.text).toContain('1 resolved');
  });

  it('the weekly summary posts everything, even when nothing changed', async () => {
    const h = harness();
    h.set([unclean('a')]);
    await h.run('changes');
    await h.run('summary');
    expect(h.posts).toHaveLength(2);
    expect(h.posts[1]!.text).toMatch(/^Weekly risk audit: prod/);
  });

  it('rejects an unknown mode without posting', async () => {
    const h = harness();
    await expect(runJob(newJob(AUDIT_JOB_KINDS.scheduled, { mode: 'everything' }, 't'), h.deps, h.registry)).rejects.toThrow();
    expect(h.posts).toHaveLength(0);
  });
});

describe('diffReport', () => {
  it('compares by fingerprint: same identity with a new title is changed, not new', () => {
    const prev = recordOf('t', [minIsr('b', 3)]);
    const d = diffReport(prev, [minIsr('b', 4)]);
    expect([d.added.length, d.changed.length, d.resolved.length]).toEqual([0, 1, 0]);
  });
});
