// "What changed": KRaft controller failovers, from the quorum leader and epoch
// of this snapshot and the last kept one (as ZooKeeper-mode controller changes
// are listed from Metadata's controller id).
import { describe, expect, it } from 'vitest';
import { factsOf, parseChanges, whatChanged, type ClusterChange, type ClusterFacts } from '../../lib/diagnose/what-changed.ts';
import { changeLines } from '../../lib/diagnose/render-changes.ts';
import { quorumViewWithout, type QuorumView } from '../../lib/kafka/quorum-view.ts';
import { healthyTopic, snapshot } from './fixtures.ts';
import { lostQuorum, quorum } from './quorum-fixtures.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const snap = (min: number, q: QuorumView | undefined, controllerId = 1) => snapshot([healthyTopic('orders', 3)], { takenAt: at(min), controllerId, ...(q ? { quorum: q } : {}) });

function changesBetween(before: QuorumView | undefined, after: QuorumView | undefined, beforeController = 1, afterController = 1): ClusterChange[] {
  const kept = { facts: factsOf(snap(0, before, beforeController), []), changes: [] };
  return whatChanged(snap(10, after, afterController), [], kept, [], T0 + 10 * 60_000).changes;
}
const w = { at: at(10), since: at(0) };

describe('what changed: controller failovers in KRaft mode', () => {
  it('the quorum leader moved: listed with both epochs, said in words', () => {
    const changes = changesBetween(quorum({ voters: [100, 101, 102], epoch: 4 }), quorum({ voters: [100, 101, 102], leader: 101, epoch: 5 }));
    expect(changes).toEqual([{ code: 'quorum-leader-changed', from: 100, to: 101, fromEpoch: 4, toEpoch: 5, ...w }]);
    expect(changeLines(changes)).toEqual(['00:10:00 UTC · the active controller moved from controller 100 (epoch 4) to controller 101 (epoch 5) between 00:00:00 UTC and 00:10:00 UTC']);
  });

  it('the same controller re-elected in a new epoch is a failover too', () => {
    const changes = changesBetween(quorum({ voters: [100], epoch: 1 }), quorum({ voters: [100], epoch: 2 }));
    expect(changeLines(changes)[0]).toMatch(/controller 100 was re-elected quorum leader \(epoch 1 → 2\)/);
  });

  it('lost, then found again', () => {
    const lost = changesBetween(quorum({ voters: [100], epoch: 1 }), lostQuorum());
    expect(lost).toEqual([{ code: 'quorum-leader-changed', from: 100, to: null, fromEpoch: 1, toEpoch: null, ...w }]);
    expect(changeLines(lost)[0]).toMatch(/the controller quorum lost its leader \(controller 100, epoch 1\)/);
    const back = changesBetween(lostQuorum(), quorum({ voters: [100], epoch: 2 }));
    expect(changeLines(back)[0]).toMatch(/controller 100 was elected quorum leader \(epoch 2\) after a time without one/);
    expect(changesBetween(lostQuorum(), lostQuorum())).toEqual([]);
  });

  it('no change, an unread quorum (failed, ZooKeeper mode) or none kept: nothing listed', () => {
    expect(changesBetween(quorum({ voters: [100] }), quorum({ voters: [100] }))).toEqual([]);
    expect(changesBetween(quorum({ voters: [100] }), quorumViewWithout('failed', 'x', T0))).toEqual([]);
    expect(changesBetween(undefined, quorum({ voters: [100] }))).toEqual([]);
  });

  it('with the quorum read the cluster is KRaft: Metadata\'s (random) controller id is not compared', () => {
    const q = quorum({ voters: [100] });
    expect(factsOf(snap(0, q), [])).toMatchObject({ kraft: true, quorum: { leaderId: 100, epoch: 4 } });
    expect(changesBetween(q, q, 1, 3)).toEqual([]);
    // ZooKeeper mode (the quorum is "unavailable"): controller changes as before.
    const zk = quorumViewWithout('unavailable', 'ZooKeeper mode', T0);
    expect(changesBetween(zk, zk, 1, 3).map((c) => c.code)).toEqual(['controller-changed']);
  });

  it('kept facts read back from storage are checked: a malformed quorum entry is ignored, stored changes parse back', () => {
    const facts = { ...factsOf(snap(0, undefined), []), quorum: { leaderId: 'x', epoch: {} } } as unknown as ClusterFacts;
    const r = whatChanged(snap(10, quorum({ voters: [100] })), [], { facts, changes: [] }, [], T0 + 10 * 60_000);
    expect(r.changes).toEqual([]);
    const stored = [{ code: 'quorum-leader-changed', from: 100, to: null, fromEpoch: 1, toEpoch: null, ...w }];
    expect(parseChanges(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  });
});
