// No job of ours can delay an approved execute job: the plan message's updates
// (ops.refresh) travel in their own FIFO message group, so an update that keeps
// failing (Slack down) holds back only later updates of that request, never its
// run. Driven through the real approve-button handler, delivered the way SQS
// FIFO delivers (test/queue/fifo-model.ts, serverless.yml's queue settings).
import { describe, expect, it } from 'vitest';
import { approveAction } from '../../lib/operations/slack.ts';
import { OPS_JOB_KINDS } from '../../lib/operations/requests.ts';
import { updatesGroup } from '../../lib/queue/groups.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import type { OpsAckDeps } from '../../lib/operations/slack.ts';
import { FifoModelQueue } from './fifo-model.ts';

const VISIBILITY_MS = 1_080_000;
const APPROVAL_LIFETIME_MS = 30 * 60_000;

function depsWith(queue: FifoModelQueue): OpsAckDeps {
  const approvals = {
    async approve() {
      return { ok: true, readyToExecute: true, message: 'approved by <@UBOB>: two of two', request: { id: 'req1', status: 'APPROVED', context: { cluster: 'prod' } } };
    },
  };
  const log = { info() {}, warn() {}, error() {}, debug() {} };
  return { approvals, queue, log } as unknown as OpsAckDeps;
}

describe('FIFO message groups of an operation', () => {
  it('an update that keeps failing does not hold back the approved execute job', async () => {
    const queue = new FifoModelQueue({ visibilityTimeoutMs: VISIBILITY_MS, maxReceiveCount: 3 });
    const reply = await approveAction.run({ actionId: 'ops.approve', value: 'req1', userId: 'UBOB', correlationId: 'c1', payload: {} }, depsWith(queue));
    expect(reply).toBeUndefined();
    const executedAt: number[] = [];
    await queue.drain(async (job: Job) => {
      if (job.kind === OPS_JOB_KINDS.refresh) throw new Error('slack: ratelimited');
      if (job.kind === OPS_JOB_KINDS.execute) executedAt.push(queue.now);
    });
    expect(executedAt).toEqual([0]);
    expect(executedAt[0]!).toBeLessThan(APPROVAL_LIFETIME_MS);
    // The update itself was retried, then dead-lettered: best effort, in its own lane.
    expect(queue.deadLetters.map((j) => j.kind)).toEqual([OPS_JOB_KINDS.refresh]);
  });

  it("updates of one request keep their order among themselves", async () => {
    const queue = new FifoModelQueue({ visibilityTimeoutMs: VISIBILITY_MS, maxReceiveCount: 3 });
    const group = updatesGroup('ops-req1');
    for (const n of [1, 2, 3]) await queue.enqueue(newJob(OPS_JOB_KINDS.refresh, { requestId: 'req1', line: `line ${n}` }, 'c', group));
    let failOnce = true;
    const seen: string[] = [];
    await queue.drain(async (job) => {
      const line = (job.payload as { line: string }).line;
      if (line === 'line 2' && failOnce) {
        failOnce = false;
        throw new Error('slack 500');
      }
      seen.push(line);
    });
    expect(seen).toEqual(['line 1', 'line 2', 'line 3']);
  });
});
