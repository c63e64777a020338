// The timeline export retried after its worker died right after an upload:
// the timeline file and its graph are each in the thread once (each upload's
// flag is written right after Slack accepted it). Real worker, Slack stub,
// state on dynalite; the kill is test/worker/kill.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import { newJob } from '../../lib/queue/job.ts';
import { incidentIdOf, openIncident, recordIncidentEvent } from '../../lib/state/incident-log.ts';
import { timelineJobs } from '../../lib/timeline/jobs.ts';
import { TIMELINE_JOB_KIND, type TimelineJob } from '../../lib/timeline/slack.ts';
import { JobRegistry } from '../../lib/worker/worker.ts';
import type { Harness } from '../slack/helpers/harness.ts';
import { killedThenRetried, type KillPoint } from './kill.ts';
import { useWorkerRetryWorld } from './retry-world.ts';

const world = useWorkerRetryWorld();
const { stub } = world;
let h: Harness;
beforeEach(() => {
  h = world.harness();
});

const thread = { channel: 'C0INCIDENT', threadTs: '1764400000.000100' };
const registry = new JobRegistry(timelineJobs({ timelineAttachments: async () => [{ filename: 'metrics.png', title: 'Metrics', content: new Uint8Array([137, 80, 78, 71]) }] }));

async function exportKilledAt(at: KillPoint) {
  const now = Date.now();
  await openIncident(world.db.store, { ...thread, title: 'Under-replicated partitions', cluster: 'sandbox', openedAt: new Date(now - 600_000).toISOString(), origin: 'alert' });
  await recordIncidentEvent(world.db.store, thread, { type: 'alert', at: new Date(now - 600_000).toISOString(), status: 'firing', source: 'alertmanager', alertname: 'URP', title: 'URP', cluster: 'sandbox', count: 1 });
  const job = newJob(TIMELINE_JOB_KIND, { incidentId: incidentIdOf(thread.channel, thread.threadTs), origin: { channelId: thread.channel, userId: 'U0ALICE' } } satisfies TimelineJob, 'kr-retry-timeline');
  await killedThenRetried({ worker: h.worker, jobs: registry }, job, at);
}

const named = (suffix: string) => stub.uploads.filter((u) => (u.filename ?? '').endsWith(suffix));

/** Dies right after the job wrote down that the upload `suffix` was done (the store write that follows it). */
function afterRecorded(suffix: string): KillPoint {
  let uploaded = false;
  return { upload: (f) => ((uploaded ||= f.filename.endsWith(suffix)), false), write: (key) => uploaded && key.startsWith('job-posted:') };
}

describe('the timeline export retried after its worker died', () => {
  it('killed after the timeline was uploaded and recorded: the retry uploads the graph, not the timeline again', async () => {
    await exportKilledAt(afterRecorded('.md'));
    expect(named('.md')).toHaveLength(1);
    expect(named('.png')).toHaveLength(1);
  });

  it('killed after the graph was uploaded and recorded: nothing is uploaded twice', async () => {
    await exportKilledAt(afterRecorded('.png'));
    expect(named('.md')).toHaveLength(1);
    expect(named('.png')).toHaveLength(1);
  });

  it('killed between the upload and its record: that file is uploaded twice (a file carries no metadata to look for), the graph once', async () => {
    await exportKilledAt({ upload: (f) => f.filename.endsWith('.md') });
    expect(named('.md')).toHaveLength(2);
    expect(named('.png')).toHaveLength(1);
  });
});
