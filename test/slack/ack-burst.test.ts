// Load: 200 signed slash commands at once against the Slack handler, state on
// dynalite (a real DynamoDB API on loopback). Every command must be acked
// within Slack's 3-second deadline (Slack drops a slower answer: a functional
// limit, not a speed target; bench/storm.ts prints the latencies) and none may
// fail. Before per-job status records, 20 at once already failed half of them
// on the shared item. Bounded: one burst of 200, loopback only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import type { Job, JobQueue } from '../../lib/queue/job.ts';
import { buildSlackHandler } from '../../lib/root/slack.ts';
import { listRunning } from '../../lib/state/activity.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from './helpers/harness.ts';
import { SIGNING_SECRET, slashEvent } from './helpers/signed.ts';

const BURST = 200;
const SLACK_ACK_DEADLINE_MS = 3000;

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
  it(`${BURST} concurrent signed slash commands: all acked in time, none failed, every job queued and listed`, async () => {
    const queue = new RecordingQueue();
    const log = recordingLog();
    const handler = buildSlackHandler({ config: parseConfig(BASE_CONFIG), queue, store: db.store, log, signingSecret: SIGNING_SECRET, botToken: 'xoxb-test', slackApiUrl: 'http://127.0.0.1:9/api/' });
    const commands = Array.from({ length: BURST }, (_, i) => (i % 4 === 3 ? `can-restart ${(i % 3) + 1}` : `diagnose sandbox topic-${i}`));
    const results = await Promise.all(
      commands.map(async (text, i) => {
        const started = performance.now();
        const res = await handler(slashEvent({ text, user: i % 2 ? 'U0ALICE' : 'U0BOB', responseUrl: `http://127.0.0.1:9/r/${i}` }));
        return { ms: performance.now() - started, status: res.statusCode, body: res.body };
      }),
    );
    const failed = results.filter((r) => r.status !== 200 || /failed on my side|could not queue/.test(r.body));
    expect(failed).toEqual([]);
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(SLACK_ACK_DEADLINE_MS);
    expect(queue.jobs).toHaveLength(BURST);
    expect(new Set(queue.jobs.map((j) => j.id)).size).toBe(BURST);
    expect(log.records.filter((r) => r.level !== 'info')).toEqual([]);
    // /kafka status lists the newest 100 of them.
    const running = await listRunning(db.store);
    expect(running).toHaveLength(100);
    expect(running.every((a) => queue.jobs.some((j) => j.id === a.id))).toBe(true);
  });
});
