// Load: 200 signed slash commands at once against the Slack handler, state on
// dynalite (a real DynamoDB API on loopback, in its own process). None may
// fail, every job is queued and listed, and each command costs exactly its two
// writes (replay check, its own status item): no shared item, no read-modify-
// write, no lost race retried, which is what kept the ack path from Slack's
// 3-second deadline (20 at once failed half of them on the shared item).
// The latencies against that deadline are figures of bench/storm.ts, not a
// timed assertion here. Bounded: one burst of 200, loopback only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import type { Job, JobQueue } from '../../lib/queue/job.ts';
import type { StateStore } from '../../lib/state/state-store.ts';
import { buildSlackHandler } from '../../lib/root/slack.ts';
import { listRunning } from '../../lib/state/activity.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from './helpers/harness.ts';
import { SIGNING_SECRET, slashEvent } from './helpers/signed.ts';

const BURST = 200;

let db: DynaliteHandle;
beforeAll(async () => {
  // DynamoDB is another process, as in AWS: its work does not queue on the handler's event loop.
  db = await startDynalite({ separateProcess: true });
});
afterAll(async () => db.close());

class RecordingQueue implements JobQueue {
  readonly jobs: Job[] = [];
  async enqueue(job: Job): Promise<void> {
    this.jobs.push(job);
  }
}

describe('ack path under a burst', () => {
  it(`${BURST} concurrent signed slash commands: none failed, two writes each, every job queued and listed`, async () => {
    const queue = new RecordingQueue();
    const log = recordingLog();
    const calls = { get: 0, create: 0, replace: 0, put: 0, remove: 0, list: 0, count: 0 };
    const s = db.store;
    const store: StateStore = {
      get: (k) => (calls.get++, s.get(k)),
      create: (k, v, t) => (calls.create++, s.create(k, v, t)),
      replace: (k, e, v, t) => (calls.replace++, s.replace(k, e, v, t)),
      put: (k, v, t, l) => (calls.put++, s.put(k, v, t, l)),
      remove: (k) => (calls.remove++, s.remove(k)),
      list: (l, n) => (calls.list++, s.list(l, n)),
      count: (k, b, t, l) => (calls.count++, s.count(k, b, t, l)),
    };
    const handler = buildSlackHandler({ config: parseConfig(BASE_CONFIG), queue, store, log, signingSecret: SIGNING_SECRET, botToken: 'xoxb-test', slackApiUrl: 'http://127.0.0.1:9/api/' });
    const commands = Array.from({ length: BURST }, (_, i) => (i % 4 === 3 ? `can-restart ${(i % 3) + 1}` : `diagnose sandbox topic-${i}`));
    const results = await Promise.all(
      commands.map(async (text, i) => {
        const res = await handler(slashEvent({ text, user: i % 2 ? 'U0ALICE' : 'U0BOB', responseUrl: `http://127.0.0.1:9/r/${i}` }));
        return { status: res.statusCode, body: res.body };
      }),
    );
    const failed = results.filter((r) => r.status !== 200 || /failed on my side|could not queue/.test(r.body));
    expect(failed).toEqual([]);
    // Per command: one conditional create (replay check), one atomic count per bound (user, channel,
    // cluster: a burst never retries against itself) and one unconditional put (status item), nothing else.
    expect(calls).toEqual({ get: 0, create: BURST, replace: 0, put: BURST, remove: 0, list: 0, count: 3 * BURST });
    expect(queue.jobs).toHaveLength(BURST);
    expect(new Set(queue.jobs.map((j) => j.id)).size).toBe(BURST);
    // Nothing went wrong on our side (Bolt's own "not acknowledged within 3001 ms" notice times this machine, not the path).
    expect(log.records.filter((r) => r.level !== 'info' && !r.message.includes('not acknowledged within'))).toEqual([]);
    // /kafka status lists the newest 100 of them.
    const running = await listRunning(db.store, 'C0OPS');
    expect(running).toHaveLength(100);
    expect(running.every((a) => queue.jobs.some((j) => j.id === a.id))).toBe(true);
  });
});
