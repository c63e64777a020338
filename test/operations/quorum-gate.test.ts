// Operations respect the KRaft quorum: while it has no leader no plan is made
// (every kind, through the backend's one gate) and an approved run pauses at
// its precondition check until a leader is back and an approver resumes. The
// cluster is scripted (FakeCluster) with a quorum view as DescribeQuorum makes
// it; the same on the real sandbox: quorum.int.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/service.ts';
import type { QuorumView } from '../../lib/kafka/quorum-view.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { leaderOverride } from '../../lib/operations/kinds/leader-override/index.ts';
import { planDrain } from '../../lib/operations/kinds/drain-broker/index.ts';
import { QuorumMemory, planUnlessQuorumLost, quorumRefusal } from '../../lib/operations/quorum-gate.ts';
import { kindOf } from '../../lib/operations/registry.ts';
import { noticeText, refusalText } from '../../lib/operations/render-text.ts';
import { runTick, type RunReporter } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { answeredQuorum, lostQuorum, QUORUM_AT } from '../helpers/quorum-fixtures.ts';
import { FakeCluster } from './fake-cluster.ts';

/** A scripted cluster whose snapshots carry a quorum view. */
class QuorumCluster extends FakeCluster {
  quorum: QuorumView = answeredQuorum(101, [100, 101, 102]);
  override async snapshot(topics: string[] | null): Promise<ClusterSnapshot> {
    return { ...(await super.snapshot(topics)), quorum: this.quorum };
  }
}

/** A leaderless orders-0 (its leader, broker 1, is down): what a leader override is for. */
function leaderlessCluster(): QuorumCluster {
  const c = new QuorumCluster();
  c.addTopic('orders', [[1, 2, 3]], 700);
  const p = c.partition('orders', 0);
  p.leader = -1;
  p.isr = [1];
  c.live.delete(1);
  return c;
}

describe('planning while the quorum has no leader', () => {
  it('a leader-override request is refused with the reason, before anything is measured', async () => {
    const cluster = leaderlessCluster();
    const memory = new QuorumMemory();
    // Seen whole once (a diagnosis, an earlier plan), then the quorum lost its leader.
    const first = await planUnlessQuorumLost((io) => leaderOverride.plan(io, { topic: 'orders', partition: 0 }), cluster, memory);
    expect(first.ok).toBe(true);
    const adminsBefore = cluster.adminsOpen;
    cluster.quorum = lostQuorum();
    const planned = await planUnlessQuorumLost((io) => leaderOverride.plan(io, { topic: 'orders', partition: 0 }), cluster, memory);
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.refusal).toMatchObject({
      code: 'quorum-no-leader',
      stage: 'plan',
      voters: [100, 101, 102],
      notFetching: null,
      since: QUORUM_AT + 30_000,
      lastLeader: { id: 101, epoch: 7, at: QUORUM_AT },
      asked: [{ broker: 1, outcome: 'no answer within 3000 ms' }, { broker: 2, outcome: 'no answer within 3000 ms' }],
    });
    // Nothing was measured after the snapshot said so.
    expect(cluster.adminsOpen).toBe(adminsBefore);
    const text = refusalText(planned.refusal, 'leader-override');
    expect(text).toMatch(/^The KRaft controller quorum has no leader \(seen without one since 10:00:30 UTC; last seen with a leader, controller 101 in epoch 7, at 10:00:00 UTC\)\./);
    expect(text).toContain('Voters: 100, 101, 102');
    expect(text).toContain('Until a majority of the controllers (2 of 3) is back, no leader election, reassignment, topic creation or config change can happen.');
    expect(text).toContain('Brokers keep serving with the leaders they have');
    expect(text).toMatch(/No plan can be made: bring the controllers back/);
  });

  it('refuses every kind the same way (one gate, not one per kind)', async () => {
    const cluster = new QuorumCluster().addTopic('orders', [[1, 2], [2, 3], [3, 1]]) as QuorumCluster;
    cluster.quorum = lostQuorum();
    const requests: Record<string, Record<string, unknown>> = {
      'drain-broker': { broker: 3, partial: true },
      'raise-replication-factor': { topic: 'orders', replicationFactor: 3 },
      'preferred-election': { topic: 'orders' },
    };
    for (const [kind, request] of Object.entries(requests)) {
      const planned = await planUnlessQuorumLost((io) => kindOf(kind).plan(io, request), cluster, new QuorumMemory());
      expect(planned, kind).toMatchObject({ ok: false, refusal: { code: 'quorum-no-leader', voters: [] } });
      if (!planned.ok) expect(refusalText(planned.refusal, kind)).toMatch(/Its voters are not known here/);
    }
  });

  it('an answer that names no leader lists its voters: those not fetching are named, with their last fetch', () => {
    const cluster = leaderlessCluster();
    const s = { takenAt: new Date(QUORUM_AT).toISOString(), clusterId: 'fake', quorum: answeredQuorum(null, [{ id: 100 }, { id: 101, fetchAgo: 40_000 }, { id: 102, fetchAgo: null }]) } as ClusterSnapshot;
    const notice = quorumRefusal(s, 'run', new QuorumMemory());
    expect(notice).toMatchObject({ voters: [100, 101, 102], notFetching: [{ id: 101, lastFetchAgeMs: 40_000 }, { id: 102, lastFetchAgeMs: null }], lastLeader: null });
    const text = noticeText(notice!);
    expect(text).toContain('Voters: 100, 101, 102; not fetching: 101 (last fetch 40 s ago), 102 (never fetched from the last leader).');
    expect(text).toMatch(/The run does not start or go on: it is paused\. .*Resume checks again\.$/);
    expect(cluster.calls).toEqual([]);
  });

  it('a quorum with a leader, or none read at all (ZooKeeper mode, older snapshots), plans as before', async () => {
    const s = (quorum?: QuorumView) => ({ takenAt: new Date(QUORUM_AT).toISOString(), clusterId: 'c', ...(quorum ? { quorum } : {}) }) as ClusterSnapshot;
    const memory = new QuorumMemory();
    expect(quorumRefusal(s(answeredQuorum(100, [100, 101, 102])), 'plan', memory)).toBeNull();
    expect(quorumRefusal(s(), 'plan', memory)).toBeNull();
    expect(quorumRefusal(s({ ...lostQuorum(), status: 'unavailable' }), 'plan', memory)).toBeNull();
    expect(quorumRefusal(s({ ...lostQuorum(), status: 'failed' }), 'plan', memory)).toBeNull();
  });
});

describe('an approved run while the quorum has no leader', () => {
  let dynamo: LocalDynamo;
  let approvals: ApprovalService<Plan>;
  let table = 0;
  let paused: string[];
  const reporter: RunReporter = {
    step: async () => {},
    progress: async () => {},
    finished: async () => {},
    async paused(reason) {
      paused.push(reason);
    },
  };
  beforeAll(async () => {
    dynamo = await startLocalDynamo();
  });
  afterAll(async () => {
    await dynamo.close();
  });
  beforeEach(async () => {
    ({ approvals } = await approvalsOn(dynamo.client, `quorum-${++table}`));
    paused = [];
  });
  const tick = (cluster: QuorumCluster, requestId: string) =>
    runTick({ approvals, io: cluster, requestId, workerId: `w-${Math.random().toString(36).slice(2, 8)}`, deadline: Date.now() + 60_000, pollMs: 1, scheduleNext: async () => {}, report: reporter, sleep: async () => {} });

  it('re-checked before step 1, it pauses with the reason; only Resume goes on, and it checks again', async () => {
    const cluster = new QuorumCluster().addTopic('orders', [[1, 2], [2, 3], [3, 1], [1, 3]]) as QuorumCluster;
    const planned = planDrain(await cluster.snapshot(null), { broker: 3, partial: true }, { throttleBytesPerSec: 1_048_576 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const id = await approvedByTwo(approvals, planned.plan, 'fake');

    cluster.quorum = lostQuorum();
    expect(await tick(cluster, id)).toMatchObject({ kind: 'parked' });
    const held = (await approvals.get(id))!;
    expect(held.status).toBe('EXECUTING');
    expect(held.run?.checked).toBe(false);
    expect(held.run?.data?.pause).toMatchObject({ cursor: 0, notice: { code: 'quorum-no-leader', stage: 'run' } });
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatch(/^The KRaft controller quorum has no leader/);
    expect(paused[0]).toContain('no leader election, reassignment, topic creation or config change can happen');
    // Nothing was asked of the cluster: no reassignment, no throttle.
    expect(cluster.calls).toEqual([]);

    // A sweep's or scheduled tick: still paused, quietly.
    expect(await tick(cluster, id)).toMatchObject({ kind: 'parked' });
    expect(paused).toHaveLength(1);

    // Resumed while the quorum is still without a leader: checked again, paused again.
    await approvals.requestResume(id, 'UALICE');
    expect(await tick(cluster, id)).toMatchObject({ kind: 'parked' });
    expect(paused).toHaveLength(2);
    expect(cluster.calls).toEqual([]);

    // A leader is back; an approver resumes: the fingerprint is checked and the drain runs to its end.
    cluster.quorum = answeredQuorum(102, [100, 101, 102]);
    await approvals.requestResume(id, 'UBOB');
    let result = await tick(cluster, id);
    for (let i = 0; i < 10 && result.kind === 'parked'; i++) result = await tick(cluster, id);
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    const done = (await approvals.get(id))!;
    expect(done.events.filter((e) => e.type === 'step').map((e) => e.data?.name)[0]).toBe('check preconditions');
  });
});
