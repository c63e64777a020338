// A delivery whose first enqueue was lost: listed by /kafka status as pending,
// and queued again by the minute sweep (sweepDeliveries), as is a retry whose
// delayed job was lost; done ones leave it.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { deliver, deliveryId, outboxRecord, PAGERDUTY_JOB_KINDS, pagerDutyJobs, queueDelivery, REQUEUE_AFTER_MS, sweepDeliveries } from '../../lib/pagerduty/deliveries.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { listDeliveries } from '../../lib/state/activity.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import type { JobContext } from '../../lib/worker/worker.ts';
import { closedPort } from '../helpers/net.ts';
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

  it('re-queues a retrying delivery whose delayed job was lost, once its retry is past due by the grace; not before', async () => {
    const { ctx, enqueued, up } = setup();
    up();
    const config = parseConfig({ ...BASE_CONFIG, pagerduty: { changeEvents: { source: 'kafka-responder-test' }, eventsApiUrl: `http://127.0.0.1:${await closedPort()}`, delivery: { firstRetryMs: 60_000, maxAttempts: 3, timeoutMs: 1000 } } });
    const body = { routing_key: 'unused', payload: { summary: 'Approved', timestamp: new Date().toISOString(), source: 'kafka-responder-test', custom_details: {} }, links: [] };
    await queueDelivery(ctx, 'change:lost-retry', { target: 'change-event', body } as never, 'approved', 'C0OPS');
    const id = deliveryId('change:lost-retry');
    // The first attempt finds PagerDuty unreachable: a retry is due in a minute, as a delayed job…
    expect(await deliver({ ...ctx, config } as unknown as JobContext, id, async () => 'routing-key')).toBe('retrying');
    const dueAt = Date.parse((await outboxRecord(ctx.store, id))!.dueAt!);
    expect(dueAt).toBeGreaterThan(Date.now() + 50_000);
    // …which is lost.
    enqueued.length = 0;
    expect(await sweepDeliveries(ctx, dueAt)).toEqual({ looked: 1, requeued: 0, cleared: 0 });
    expect(await sweepDeliveries(ctx, dueAt + REQUEUE_AFTER_MS + 1000)).toEqual({ looked: 1, requeued: 1, cleared: 0 });
    expect(enqueued[0]).toMatchObject({ kind: PAGERDUTY_JOB_KINDS.deliver, payload: { id } });
  });

  it("is one of PagerDuty's job kinds (the worker's minute sweep runs it)", () => {
    expect(pagerDutyJobs({}).map((j) => j.kind)).toEqual([PAGERDUTY_JOB_KINDS.deliver, PAGERDUTY_JOB_KINDS.sweep]);
  });
});
