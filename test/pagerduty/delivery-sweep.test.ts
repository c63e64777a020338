// A delivery whose first enqueue was lost: listed by /kafka status as pending,
// and queued again by the minute sweep (sweepDeliveries); done ones leave it.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { deliver, deliveryId, outboxRecord, PAGERDUTY_JOB_KINDS, pagerDutyJobs, queueDelivery, REQUEUE_AFTER_MS, sweepDeliveries } from '../../lib/pagerduty/deliveries.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { listDeliveries } from '../../lib/state/activity.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import type { JobContext } from '../../lib/worker/worker.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';

function setup() {
  const store = new MemoryStateStore();
  const enqueued: Job[] = [];
  let down = true;
  const queue = {
    enqueue: async (j: Job) => {
      if (down) throw new Error('SQS unavailable');
      enqueued.push(j);
    },
  };
  const ctx = { store, queue, log: recordingLog(), job: newJob('test', {}, 'kr-sweep'), config: parseConfig(BASE_CONFIG) };
  return { ctx, enqueued, up: () => void (down = false) };
}

const delivery = { target: 'incident-note' as const, incidentId: 'Q0RIJJZL24RC6W', content: 'kafka-responder: no problem found' };

describe('the PagerDuty deliveries sweep', () => {
  it('re-queues a pending delivery whose first enqueue failed, once it is older than the grace; not before', async () => {
    const { ctx, enqueued, up } = setup();
    await expect(queueDelivery(ctx, 'note:lost', delivery, 'note on Q0RIJJZL24RC6W', 'C0INCIDENT')).rejects.toThrow(/SQS unavailable/);
    const id = deliveryId('note:lost');
    // Listed by /kafka status as pending…
    expect((await listDeliveries(ctx.store, 'C0INCIDENT')).map((d) => [d.id, d.state])).toEqual([[id, 'pending']]);
    up();
    // …not re-queued while its own job may still be on its way…
    expect(await sweepDeliveries(ctx, Date.now())).toEqual({ looked: 1, requeued: 0, cleared: 0 });
    expect(enqueued).toHaveLength(0);
    // …and queued again after the grace, in its own FIFO lane.
    expect(await sweepDeliveries(ctx, Date.now() + REQUEUE_AFTER_MS + 1000)).toEqual({ looked: 1, requeued: 1, cleared: 0 });
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]).toMatchObject({ kind: PAGERDUTY_JOB_KINDS.deliver, payload: { id }, group: `pd-${id}` });
  });

  it('leaves a delivery an attempt has touched to its own retries, and forgets one that is done', async () => {
    const { ctx, enqueued, up } = setup();
    up();
    await queueDelivery(ctx, 'note:ok', delivery, 'note', 'C0INCIDENT');
    enqueued.length = 0;
    const id = deliveryId('note:ok');
    // No pagerduty section: the attempt fails for good (needs a human), and the delivery is done with.
    expect(await deliver({ ...ctx, remainingMs: undefined } as unknown as JobContext, id, async () => 'secret')).toBe('failed');
    expect((await outboxRecord(ctx.store, id))?.state).toBe('failed');
    expect(await sweepDeliveries(ctx, Date.now() + REQUEUE_AFTER_MS * 10)).toEqual({ looked: 0, requeued: 0, cleared: 0 });
    expect(enqueued).toHaveLength(0);
  });

  it("is one of PagerDuty's job kinds (the worker's minute sweep runs it)", () => {
    expect(pagerDutyJobs({}).map((j) => j.kind)).toEqual([PAGERDUTY_JOB_KINDS.deliver, PAGERDUTY_JOB_KINDS.sweep]);
  });
});
