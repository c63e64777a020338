// An alert job retried after its worker died right after a write: the
// group's parent, the digest reply, the flapping callout, the diagnosis's
// progress message and the unknown-cluster note are each in Slack once, and a
// transition reply the dead attempt never posted is posted by the retry.
// Real worker, Slack stub, state on dynalite; the kill is test/worker/kill.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import { parseAlertmanager } from '../../lib/alerts/alertmanager.ts';
import { ALERT_JOB_KIND } from '../../lib/alerts/event.ts';
import { groupStateKey } from '../../lib/alerts/triage.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { incidentEvents, incidentIdOf } from '../../lib/state/incident-log.ts';
import { runJob } from '../../lib/worker/worker.ts';
import { alertmanagerPayload } from '../alerts/fixtures/samples.ts';
import type { Harness } from '../slack/helpers/harness.ts';
import { killedThenRetried as retried, type KillPoint } from './kill.ts';
import { useWorkerRetryWorld } from './retry-world.ts';

const world = useWorkerRetryWorld();
const { stub } = world;
let h: Harness;
let group = 0;
beforeEach(() => {
  h = world.harness();
  group++;
});

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

/** One alert job of this test's group: `alerts` alerts (more than one: a digest), on `cluster`, started and ended minutes ago. */
function alertJob(status: 'firing' | 'resolved', opts: { alerts?: number; cluster?: string; startedMsAgo?: number; endedMsAgo?: number } = {}): Job {
  const base = alertmanagerPayload(status);
  const cluster = opts.cluster ?? 'sandbox';
  const one = base.alerts[0]!;
  const alerts = Array.from({ length: opts.alerts ?? 1 }, (_, i) => ({
    ...one,
    labels: { ...one.labels, cluster, broker: `kafka-${i + 1}:9092` },
    fingerprint: `fp-${group}-${i}`,
    startsAt: iso(opts.startedMsAgo ?? 120_000),
    endsAt: status === 'firing' ? '0001-01-01T00:00:00Z' : iso(opts.endedMsAgo ?? 0),
  }));
  const payload = { ...base, groupKey: `${base.groupKey}#retry-${group}`, alerts, groupLabels: { ...base.groupLabels, cluster }, commonLabels: { ...base.commonLabels, cluster } };
  const events = parseAlertmanager(JSON.stringify(payload));
  if (!events.ok) throw new Error('fixture did not parse');
  return newJob(ALERT_JOB_KIND, events.value, `am-retry-${group}`, `g-${group}`);
}

const killedThenRetried = (job: Job, at: KillPoint) => retried(h, job, at);

const run = (job: Job) => runJob(job, h.worker, h.jobs);
const parent = () => {
  const top = stub.topLevel('C0INCIDENT');
  expect(top).toHaveLength(1);
  return top[0]!;
};
const replies = (match: RegExp) => stub.thread(parent().ts).filter((m) => match.test(m.text));

describe('an alert job retried after its worker died', () => {
  it('killed right after posting the parent: the retry finds it; one thread, one diagnosis in it', async () => {
    await killedThenRetried(alertJob('firing'), { post: (m) => !m.thread_ts });
    expect(replies(/finding|Diagnosing/)).toHaveLength(1);
    const p = parent();
    const events = await incidentEvents(world.db.store, incidentIdOf(p.channel, p.ts));
    expect(events.filter((e) => e.type === 'alert')).toHaveLength(1);
  });

  it('killed right after posting the digest reply: one digest reply', async () => {
    await killedThenRetried(alertJob('firing', { alerts: 3 }), { post: (m) => /^This group holds/.test(m.text) });
    expect(replies(/^This group holds/)).toHaveLength(1);
  });

  it('killed right after posting the flapping callout: one callout', async () => {
    await run(alertJob('firing', { startedMsAgo: 600_000 }));
    await run(alertJob('resolved', { startedMsAgo: 600_000, endedMsAgo: 500_000 }));
    await run(alertJob('firing', { startedMsAgo: 400_000 }));
    await killedThenRetried(alertJob('resolved', { startedMsAgo: 400_000, endedMsAgo: 300_000 }), { post: (m) => m.text === 'This alert is flapping' });
    expect(replies(/^This alert is flapping$/)).toHaveLength(1);
  });

  it("killed right after posting the diagnosis's progress message: one progress message, finished", async () => {
    await killedThenRetried(alertJob('firing'), { post: (m) => /^Diagnosing/.test(m.text) });
    const progress = replies(/finding|Diagnosing/);
    expect(progress).toHaveLength(1);
    expect(progress[0]!.text).toMatch(/finding/);
  });

  it('an alert for an unknown cluster delivered twice: one note', async () => {
    const job = alertJob('firing', { cluster: 'nowhere' });
    await run(job);
    await run(job);
    expect(replies(/unknown cluster/)).toHaveLength(1);
  });

  it('killed right after saving the resolution, before saying so: the retry posts the transition reply and records it once', async () => {
    await run(alertJob('firing', { startedMsAgo: 600_000 }));
    const key = groupStateKey((alertJob('resolved').payload as { groupKey: string }).groupKey);
    await killedThenRetried(alertJob('resolved', { startedMsAgo: 600_000, endedMsAgo: 60_000 }), { write: (k) => k === key });
    expect(replies(/^Resolved/)).toHaveLength(1);
    const p = parent();
    const events = await incidentEvents(world.db.store, incidentIdOf(p.channel, p.ts));
    expect(events.filter((e) => e.type === 'alert' && e.status === 'resolved')).toHaveLength(1);
  });
});
