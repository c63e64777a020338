// One reassignment-type operation per cluster at a time: a lock in the
// approvals table (a DynamoDB conditional write on dynalite), taken by the
// run before its "no other reassignment" check and released at its end.
// Two workers claim two approved plans on one cluster at the same instant:
// exactly one runs; the other waits (EXECUTING, parked, never FAILED) and runs
// once the first has finished.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import type { KafkaAdmin } from '../../lib/kafka/admin.ts';
import { planRaiseReplicationFactor } from '../../lib/operations/kinds/raise-replication-factor/index.ts';
import { runTick, type RunReporter, type TickResult } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { FakeCluster } from '../operations/fake-cluster.ts';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb.ts';
import { approvalsOn, approvedByTwo, twoApproverPolicy } from './two-approvers.ts';

let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let store: ApprovalStore;
let cluster: FakeCluster;
let table = 0;
const POLICY = twoApproverPolicy();

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  ({ store, approvals } = await approvalsOn(dynamo.client, `cluster-lock-${++table}`));
  cluster = new FakeCluster().addTopic('orders', [[1], [2]]).addTopic('logs', [[1], [2]]);
});

const progress: Record<string, string[]> = {};
const reporter = (id: string): RunReporter => ({
  async step() {},
  async progress(text) {
    (progress[id] ??= []).push(text);
  },
  async finished() {},
});

async function approved(topic: string, clusterName = 'prod'): Promise<string> {
  const planned = planRaiseReplicationFactor(await cluster.snapshot([topic]), { topic, replicationFactor: 2 }, {});
  if (!planned.ok) throw new Error(planned.refusal.code);
  return approvedByTwo(approvals, planned.plan, clusterName);
}

/**
 * The cluster as both workers see it, with the race window held open: each
 * worker's "is another reassignment running?" listing waits until the other
 * worker has asked too (or 300 ms pass), so both check before either submits.
 */
function racingIo(): FakeCluster {
  let waiting: (() => void) | null = null;
  const io = Object.create(cluster) as FakeCluster;
  io.openAdmin = async () => {
    const admin = await cluster.openAdmin();
    const list = admin.listPartitionReassignments.bind(admin);
    return Object.assign(Object.create(admin) as KafkaAdmin, {
      async listPartitionReassignments(partitions: Parameters<KafkaAdmin['listPartitionReassignments']>[0]) {
        if (partitions === null) {
          if (waiting) {
            waiting();
            waiting = null;
          } else await new Promise<void>((r) => ((waiting = r), setTimeout(r, 300)));
        }
        return list(partitions);
      },
    });
  };
  return io;
}

/** One invocation: the time its polls wait passes on its own clock, so it parks after a few polls, not a second of them. */
function tick(id: string, worker: string, io: FakeCluster = cluster): Promise<TickResult> {
  let slept = 0;
  return runTick({
    approvals, io, requestId: id, workerId: worker, deadline: Date.now() + 6_000, pollMs: 100, scheduleNext: async () => {}, report: reporter(id),
    now: () => Date.now() + slept,
    sleep: async (ms) => void (slept += ms),
  });
}

/** Topics whose reassignment was submitted (AlterPartitionReassignments with targets), in order. */
const submitted = () => cluster.calls.filter((c) => c.startsWith('alter ') && !c.includes(':cancel')).map((c) => c.slice(6).split('-')[0]!);

describe('cluster operation lock', () => {
  it('two approved reassignments claimed at once on one cluster: one runs, the other waits, then runs once the first has finished', async () => {
    cluster.pollsToFinish = 1_000;
    const a = await approved('orders');
    const b = await approved('logs');
    const io = racingIo();
    const [ra, rb] = await Promise.all([tick(a, 'worker-a', io), tick(b, 'worker-b', io)]);
    const results = { [a]: ra, [b]: rb };
    // Exactly one reassignment was submitted; neither run failed.
    expect(Object.values(results).map((r) => r.kind === 'finished' && r.status)).not.toContain('FAILED');
    expect(submitted(), JSON.stringify(results)).toHaveLength(1);
    const first = submitted()[0] === 'orders' ? a : b;
    const second = first === a ? b : a;
    cluster.pollsToFinish = 3;
    const waiter = (await approvals.get(second))!;
    expect(waiter.status).toBe('EXECUTING');
    expect(waiter.lease?.parked).toBe(true);
    expect(progress[second]?.at(-1)).toMatch(new RegExp(`cluster prod is busy with request ${first} \\(raise \\w+ to RF 2|cluster prod is busy with request ${first}`));

    // The first runs to its end; the second keeps waiting meanwhile.
    let r: TickResult = results[first]!;
    for (let i = 0; i < 20 && r.kind !== 'finished'; i++) {
      expect((await tick(second, 'worker-b2')).kind).toBe('parked');
      r = await tick(first, 'worker-a2');
    }
    expect(r).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    // Now the second takes the lock and runs.
    let s: TickResult = await tick(second, 'worker-b3');
    for (let i = 0; i < 20 && s.kind !== 'finished'; i++) s = await tick(second, 'worker-b4');
    expect(s).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect(submitted()).toHaveLength(2);
  });

  it('another cluster is not held back', async () => {
    const a = await approved('orders', 'prod');
    const b = await approved('logs', 'staging');
    cluster.pollsToFinish = 1_000;
    const [ra, rb] = await Promise.all([tick(a, 'wa'), tick(b, 'wb')]);
    expect(submitted().sort(), JSON.stringify([ra, rb])).toEqual(['logs', 'orders']);
  });

  it('a holder that is no longer running (abandoned after its worker died) does not keep the lock', async () => {
    cluster.pollsToFinish = 1_000;
    const a = await approved('orders');
    expect((await tick(a, 'wa')).kind).toBe('parked');
    expect(await approvals.lockCluster('prod', 'someone-else')).toMatchObject({ ok: false, heldBy: a });
    // An hour later its lease has run out and a human marks it failed.
    const later = new ApprovalService<Plan>({ store, policy: POLICY, now: () => Date.now() + 3_600_000 });
    expect((await later.abandon(a, 'UALICE', 'worker gone')).ok).toBe(true);
    // The sweep's cleanup stopped the dead run's reassignment; the next approved run takes the lock over and starts.
    cluster.moving.clear();
    const b = await approved('logs');
    expect((await tick(b, 'wb')).kind).toBe('parked');
    expect(submitted()).toEqual(['orders', 'logs']);
    // A stale holder's release does not free the new holder's lock.
    await approvals.unlockCluster('prod', a);
    expect(await approvals.lockCluster('prod', 'someone-else')).toMatchObject({ ok: false, heldBy: b });
  });
});
