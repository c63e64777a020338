import { describe, expect, it } from 'vitest';
import type { ExecutionResult, Executor, HostTarget, ScriptRun } from '../../lib/hosts/types.ts';
import { digestOf } from '../../lib/approvals/fingerprint.ts';
import { boundSizes, mergeReplicaData, planLeaderOverride, type CommittedGroup, type LeaderOverrideInputs } from '../../lib/operations/kinds/leader-override/plan.ts';
import { gatherLeaderOverrideInputs, type BrokerLogDirs, type LeaderOverrideAdmin } from '../../lib/operations/kinds/leader-override/gather.ts';
import { leaderOverride } from '../../lib/operations/kinds/leader-override/index.ts';
import { candidateLossText, consumerGroupLines, leaderOverrideLossLines, lossHeadline, lossSummary } from '../../lib/operations/kinds/leader-override/loss-text.ts';
import { formatBytes } from '../../lib/runtime/format.ts';
import { preconditionsFor } from '../../lib/operations/registry.ts';
import type { Plan, PlanOf, ReplicaData } from '../../lib/operations/types.ts';

import { codes, plan, reason, refusal, snapshot, warningLines } from './plan-fixtures.ts';

/** Everything the plan message says, as the renderer words it: headline, sections, warnings. */
const rendered = (p: PlanOf<'leader-override'>) =>
  [...leaderOverride.render.headline(p), ...(leaderOverride.render.sections?.(p) ?? []).flatMap((s) => s.lines), ...warningLines(p)].join('\n');

const inputs = (replicaData: ReplicaData[], groups: CommittedGroup[] = [], groupsIncomplete?: string): LeaderOverrideInputs => ({
  replicaData,
  groups,
  ...(groupsIncomplete ? { groupsIncomplete } : {}),
});
const host = (brokerId: number, logEndOffset: number | null, rest: Partial<ReplicaData> = {}): ReplicaData => ({
  brokerId,
  logEndOffset,
  checkpointedHighWatermark: logEndOffset,
  sizeBytes: logEndOffset === null ? null : logEndOffset * 10,
  source: 'host:kafka-dump-log',
  ...rest,
});
const down = (brokerId: number): ReplicaData => ({ brokerId, logEndOffset: null, source: 'host', error: 'host unreachable' });
const group = (groupId: string, committedOffset: number, members = 0, state = members ? 'Stable' : 'Empty'): CommittedGroup => ({ groupId, committedOffset, members, state });
const candidate = (p: Plan, broker: number) => p.impact.candidates!.find((c) => c.brokerId === broker)!;

// The case seen in production: the wiped leader (broker 1, the last in-sync replica) had held 900
// messages; brokers 2 and 3 hold 400 and 700; a consumer group had committed up to 850.
const zkStyle = snapshot([2, 3], { orders: [[-1, [1, 2, 3], [1]]] });
const seenData = [down(1), host(2, 400), host(3, 700)];

describe('planLeaderOverride: loss', () => {
  it('the seen case: the last in-sync replica is unmeasured, so the loss is unknown, at least what a group committed beyond the end', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(seenData, [group('billing', 850)])));
    expect(p.params.replica).toBe(3);
    expect(p.impact.estimatedMessagesLost).toBeNull();
    expect(p.impact.loss).toEqual({
      unit: 'messages',
      known: false,
      atLeast: 150,
      end: 700,
      basis: { kind: 'committed-offset', groupId: 'billing', value: 850 },
      unseen: [{ brokerId: 1, role: 'last-isr', problem: 'unmeasured', detail: 'host: host unreachable' }],
    });
    const headline = lossHeadline(p.impact.loss!, 3);
    expect(headline).toBe(
      "Loss: unknown — at least 150 acknowledged messages beyond broker 3's end (offset 700) are gone (group billing committed up to offset 850); " +
        'the last in-sync replica, broker 1, could not be measured, so there may be more',
    );
    // The plan opens with at most three lines: what changes and who leads, the loss, Kafka's own choice; the loss said once.
    const head = leaderOverride.render.headline(p);
    expect(head.length).toBeLessThanOrEqual(3);
    expect(head[0]).toBe('orders-0 has no leader (replicas 1,2,3, ISR 1): broker 3 becomes leader by an unclean election, after its replicas are reordered to 3,2.');
    expect(head[1]).toBe(`${headline}.`);
    expect(rendered(p).split(headline).length).toBe(2);
    expect(lossSummary(p.impact.loss!)).toBe('loss unknown (at least 150 messages)');
    expect(leaderOverrideLossLines(p)[0]).toBe(headline);
    expect(candidate(p, 3)).toMatchObject({ estimatedMessagesLost: null, loss: { known: false, atLeast: 150 } });
    expect(candidateLossText(candidate(p, 3))).toBe('unknown, at least 150 messages');
  });

  it('without any group, the bound is what other replicas and checkpoints show, and may be 0: still unknown, never "0 lost"', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(seenData)));
    expect(p.impact.loss).toMatchObject({ known: false, atLeast: 0, basis: null });
    expect(p.impact.estimatedMessagesLost).toBeNull();
    expect(lossSummary(p.impact.loss!)).toBe('loss unknown');
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/^Loss: unknown — the last in-sync replica, broker 1, could not be measured; nothing else .* beyond broker 3's end \(offset 700\)/);
  });

  it('a checkpointed high watermark beyond the end counts as acknowledged data the chosen replica lacks', () => {
    const data = [down(1), host(2, 400, { checkpointedHighWatermark: 780 }), host(3, 700)];
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(data)));
    expect(p.impact.loss).toMatchObject({ atLeast: 80, basis: { kind: 'checkpointed-high-watermark', brokerId: 2, value: 780 } });
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/at least 80 acknowledged messages .*\(broker 2 checkpointed a high watermark of 780\)/);
  });

  it('ZooKeeper style (ISR keeps the dead leader) and ELR style (empty ISR) both leave the loss unknown while a possible holder is unmeasured', () => {
    const elr = snapshot([2, 3], { orders: [[-1, [1, 2, 3], []]] });
    const p = plan(planLeaderOverride(elr, { topic: 'orders', partition: 0 }, inputs(seenData, [group('billing', 850)])));
    expect(p.impact.loss).toMatchObject({ known: false, atLeast: 150, unseen: [{ brokerId: 1, role: 'maybe-last-isr', problem: 'unmeasured' }] });
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/broker 1, which may have been the last in-sync replica \(the ISR is empty\), could not be measured/);
    // With an empty ISR, every dead replica may be the one the controller re-elects on its return.
    expect(p.warnings).toContainEqual({ code: 'do-not-start', brokers: [1], isrKnown: false });
    expect(warningLines(p).join('\n')).toMatch(/^Do not start broker 1 before this runs: it may be the last in-sync replica \(the ISR is empty/m);
    // An unmeasured replica outside a known ISR holds nothing acknowledged beyond it: no effect on what is known.
    const isr2 = snapshot([1, 3], { orders: [[-1, [1, 2, 3], [1]]] });
    const known = plan(planLeaderOverride(isr2, { topic: 'orders', partition: 0, replica: 3 }, inputs([host(1, 900), down(2), host(3, 700)])));
    expect(known.impact.loss).toMatchObject({ known: true, atLeast: 200 });
    expect(rendered(known)).toMatch(/broker 2 \(out of ISR, down\): log end \?, checkpointed HW \? \(not measured: host: host unreachable\)/);
  });

  it('ELR style with every replica measured: the loss is known', () => {
    const elr = snapshot([1, 2, 3], { orders: [[-1, [1, 2, 3], []]] });
    const p = plan(planLeaderOverride(elr, { topic: 'orders', partition: 0 }, inputs([host(1, 900), host(2, 400), host(3, 700)])));
    expect(p.params.replica).toBe(1);
    expect(p.impact.loss).toMatchObject({ known: true, atLeast: 0 });
    expect(p.impact.estimatedMessagesLost).toBe(0);
    expect(lossHeadline(p.impact.loss!, 1)).toMatch(/^Loss: none — no replica, checkpoint or consumer group goes beyond broker 1's end \(offset 900\)/);
  });

  it('all replicas measured (the dead leader\'s disk is readable): the loss is known and estimated against its log end', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs([host(1, 900, { checkpointedHighWatermark: 880 }), host(2, 400), host(3, 700)])));
    expect(p.params.replica).toBe(3);
    expect(p.impact.estimatedMessagesLost).toBe(200);
    expect(p.impact.loss).toMatchObject({ known: true, atLeast: 200, basis: { kind: 'replica-log-end', brokerId: 1, value: 900 }, unseen: [] });
    expect(lossHeadline(p.impact.loss!, 3)).toBe("Loss: ≈200 messages — beyond broker 3's end (offset 700): broker 1's log ends at offset 900");
    expect(lossSummary(p.impact.loss!)).toBe('≈200 messages lost');
    expect(candidate(p, 2)).toMatchObject({ estimatedMessagesLost: 500, defaultChoice: true });
    expect(candidate(p, 1)).toMatchObject({ estimatedMessagesLost: 0, ineligible: 'broker 1 is not live' });
  });

  it('the dead leader\'s host shows transaction markers past the chosen end: approvers are told the election drops them, and the run checks after it', () => {
    const markers = { markers: [{ producerId: 7, offset: 650 }, { producerId: 7, offset: 720 }, { producerId: 9, offset: 880 }], open: [] };
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs([host(1, 900, { lastSegmentTransactions: markers }), host(2, 400), host(3, 700)])));
    expect(p.params.replica).toBe(3);
    // 720 and 880 lie past broker 3's end (700); 650 is kept.
    expect(rendered(p)).toContain("Transactions: broker 1's log holds 2 COMMIT/ABORT markers from offset 720 on (producers 7, 9), past broker 3's end: the election drops them");
    expect(p.steps.map((s) => s.action)).toContain('check-transactions');
    // Markers all within the chosen replica's log: nothing is dropped, nothing said.
    const kept = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs([host(1, 900, { lastSegmentTransactions: { markers: [{ producerId: 7, offset: 650 }], open: [] } }), host(2, 400), host(3, 700)])));
    expect(rendered(kept)).not.toMatch(/COMMIT\/ABORT marker/);
  });

  it('a last in-sync replica measured shorter than what was written (wiped, recreated empty) does not make the loss known', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs([host(1, 0, { sizeBytes: 0 }), host(2, 400), host(3, 700)], [group('billing', 850)])));
    expect(p.impact.loss).toMatchObject({ known: false, atLeast: 150, unseen: [{ brokerId: 1, role: 'last-isr', problem: 'shorter' }] });
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/the last in-sync replica, broker 1, holds less than was written \(wiped or truncated\)/);
    expect(rendered(p)).toMatch(/broker 1 \(in ISR, down\): log end 0,/);
    // With an empty ISR only an empty log next to data elsewhere is suspect; a replica that merely lagged is not.
    const elr = snapshot([1, 2, 3], { orders: [[-1, [1, 2, 3], []]] });
    const wiped = plan(planLeaderOverride(elr, { topic: 'orders', partition: 0 }, inputs([host(1, 0, { sizeBytes: 0 }), host(2, 400), host(3, 700)])));
    expect(wiped.impact.loss).toMatchObject({ known: false, unseen: [{ brokerId: 1, role: 'maybe-last-isr', problem: 'shorter' }] });
    const lagged = plan(planLeaderOverride(elr, { topic: 'orders', partition: 0 }, inputs([host(1, 650), host(2, 400), host(3, 700)])));
    expect(lagged.impact.loss).toMatchObject({ known: true, atLeast: 0 });
  });

  it('the chosen replica itself unmeasured: loss unknown with no bound, and every committed group may be beyond its end', () => {
    const data = [down(1), { brokerId: 2, logEndOffset: null, source: 'host', error: 'timed out' }, host(3, 700)];
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0, replica: 2 }, inputs(data, [group('billing', 850), group('api', 300, 2)])));
    expect(p.impact.loss).toMatchObject({ known: false, atLeast: null, end: null });
    expect(p.impact.estimatedMessagesLost).toBeNull();
    expect(lossHeadline(p.impact.loss!, 2)).toBe(
      'Loss: unknown — broker 2, the chosen replica, could not be measured: everything beyond its end is gone, however much that is, ' +
        'and the last in-sync replica, broker 1, could not be measured',
    );
    expect(rendered(p)).toMatch(/broker 2 \(chosen, default unclean choice, out of ISR, live\): log end \?, .*\(not measured: host: timed out\) — lost if it leads: unknown/);
    expect(p.impact.groupsBeyondEnd!.map((g) => [g.groupId, g.certain, g.committedByPlan])).toEqual([
      ['api', false, false],
      ['billing', false, true],
    ]);
    expect(p.steps.find((s) => s.action === 'commit-offsets')).toMatchObject({ groups: ['billing'] });
    expect(rendered(p)).toMatch(/may be beyond it: .*with active members \(or of unknown state\).* api \(at 300; Stable, 2 members\)/);
  });

  it('compares with the default unclean choice (first live replica)', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(seenData, [group('billing', 850)])));
    expect(candidate(p, 2)).toMatchObject({ defaultChoice: true, loss: { known: false, atLeast: 450 } });
    expect(rendered(p)).toMatch(/would pick broker 2, which holds 300 fewer messages than broker 3 \(its loss: unknown, at least 450 messages\)/);
    const known = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs([host(1, 900), host(2, 400), host(3, 700)])));
    expect(rendered(known)).toMatch(/would pick broker 2, which holds 300 fewer messages than broker 3 \(its loss: ≈500 messages\)/);
    // Choosing the default itself: no comparison.
    const same = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0, replica: 2 }, inputs(seenData)));
    expect(rendered(same)).not.toMatch(/without the reorder/);
  });
});

describe('planLeaderOverride: without host access (sizes in bytes)', () => {
  const sizes = (entries: [number, number | null][]): ReplicaData[] =>
    entries.map(([brokerId, sizeBytes]) => ({ brokerId, logEndOffset: null, sizeBytes, source: 'describe-log-dirs', ...(sizeBytes === null ? { error: 'broker is not reachable' } : {}) }));

  it('estimates in bytes; a dead broker cannot report its size, so the loss is unknown', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(sizes([[1, null], [2, 4_000_000], [3, 7_000_000]]), [group('billing', 850), group('api', 810, 3)])));
    expect(p.params.replica).toBe(3);
    expect(p.impact.loss).toMatchObject({ unit: 'bytes', known: false, atLeast: 0, end: 7_000_000, unseen: [{ brokerId: 1, problem: 'unmeasured' }] });
    expect(p.impact.estimatedMessagesLost).toBeNull();
    expect(codes(p)).toContain('loss-in-bytes');
    expect(warningLines(p).join('\n')).toMatch(/losses are estimated from DescribeLogDirs replica sizes in bytes/);
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/^Loss: unknown — the last in-sync replica, broker 1, could not be measured; .* broker 3's data \(6\.7 MiB\)/);
    // Committed offsets cannot be compared with a size: every group may be beyond the new end, found out after the election.
    expect(p.impact.groupsBeyondEnd!.every((g) => !g.certain)).toBe(true);
    expect(p.steps.find((s) => s.action === 'commit-offsets')).toMatchObject({ groups: ['billing'] });
  });

  it('a named smaller replica: at least the difference in bytes; all holders live and sized: a known estimate, said to be one', () => {
    const named = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0, replica: 2 }, inputs(sizes([[1, null], [2, 4 * 1024 * 1024], [3, 7 * 1024 * 1024]]))));
    expect(named.impact.loss).toMatchObject({ unit: 'bytes', known: false, atLeast: 3 * 1024 * 1024, basis: { kind: 'replica-size', brokerId: 3 } });
    expect(lossHeadline(named.impact.loss!, 2)).toMatch(/^Loss: unknown — at least 3\.0 MiB beyond broker 2's data \(4\.0 MiB\) are gone \(broker 3 holds 7\.0 MiB\)/);
    const allLive = snapshot([1, 2, 3], { orders: [[-1, [1, 2, 3], [3]]] });
    const known = plan(planLeaderOverride(allLive, { topic: 'orders', partition: 0, replica: 1 }, inputs(sizes([[1, 2048], [2, 1024], [3, 4096]]))));
    expect(known.impact.loss).toMatchObject({ unit: 'bytes', known: true, atLeast: 2048 });
    expect(lossHeadline(known.impact.loss!, 1)).toMatch(/^Loss: ≈2\.0 KiB \(an estimate from replica sizes/);
    expect(lossSummary(known.impact.loss!)).toBe('≈2.0 KiB lost (estimate by size)');
  });
});

describe('planLeaderOverride: consumer groups', () => {
  it('groups beyond the new end: idle ones are committed at it by the plan, active ones are warned about', () => {
    const groups = [group('billing', 850), group('api', 810, 3), group('audit', 700), group('reports', 300), { groupId: 'odd', state: 'Unknown', members: null, committedOffset: 900 }];
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(seenData, groups)));
    // audit (at the end) and reports (below it) read on normally.
    expect(p.impact.groupsBeyondEnd).toEqual([
      { groupId: 'api', committedOffset: 810, state: 'Stable', members: 3, certain: true, committedByPlan: false, adminCommit: 'refused-members' },
      { groupId: 'billing', committedOffset: 850, state: 'Empty', members: 0, certain: true, committedByPlan: true, adminCommit: 'accepted' },
      { groupId: 'odd', committedOffset: 900, state: 'Unknown', members: null, certain: true, committedByPlan: false, adminCommit: 'unknown' },
    ]);
    // Writable first: restoring the replicas and committing offsets come after the partition takes acks=all writes.
    expect(p.steps.map((s) => s.action)).toEqual(['reassign', 'elect-leaders', 'verify-leaders', 'verify-writable', 'wait-reassignment', 'commit-offsets']);
    expect(p.steps[4]).toMatchObject({ action: 'wait-reassignment', reassignStep: 0 });
    expect(p.steps[5]).toMatchObject({ action: 'commit-offsets', topic: 'orders', partition: 0, groups: ['billing'] });
    // Each fact once: the groups that will reset are in the consumer-group lines, not repeated as a warning.
    expect(codes(p)).toEqual(['replicas-dropped', 'do-not-start']);
    // The odd group's 900 is the highest figure: the bound rests on it.
    expect(p.impact.loss).toMatchObject({ atLeast: 200, basis: { kind: 'committed-offset', groupId: 'odd' } });
    const lines = leaderOverrideLossLines(p);
    expect(lines.join('\n')).toMatch(/without active members: the plan commits them at the new end — billing \(at 850; Empty, 0 members\)/);
    expect(lines.join('\n')).toMatch(/with active members \(or of unknown state\) will hit OFFSET_OUT_OF_RANGE .* api \(at 810; Stable, 3 members\), odd \(at 900; Unknown, members unknown\)/);
    expect(rendered(p).match(/OFFSET_OUT_OF_RANGE/g)).toHaveLength(1);
  });

  it('no commit step without idle groups beyond the end; unreadable offsets are said, never taken as 0', () => {
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, inputs(seenData, [group('api', 810, 3), { groupId: 'lost', state: 'Empty', members: 0, committedOffset: null }], '2 of 9 consumer group(s) did not give their committed offset in time: x, y')));
    expect(p.steps.map((s) => s.action)).not.toContain('commit-offsets');
    expect(p.impact.groupsUnread).toBe('2 of 9 consumer group(s) did not give their committed offset in time: x, y; no committed offset could be read for lost');
    expect(leaderOverrideLossLines(p).at(-1)).toMatch(/^Committed offsets could not all be read .*the loss bound ignores them/);
  });

  it('says so when no group is beyond the end', () => {
    expect(consumerGroupLines([], 3)).toEqual(["No consumer group has committed beyond broker 3's end."]);
    const many = Array.from({ length: 12 }, (_, i) => ({ groupId: `g${i}`, committedOffset: 900, state: 'Empty', members: 0, certain: true, committedByPlan: true }));
    expect(consumerGroupLines(many, 3)[0]).toMatch(/g9 \(at 900; Empty, 0 members\) and 2 more\.$/);
  });
});

// The sandbox reproduction (LEADER-OVERRIDE.md): leader 1 wiped and down, 2 and 3 out of ISR with 1000 and 2000.
const leaderless = zkStyle;
const measured: ReplicaData[] = [
  { brokerId: 1, logEndOffset: null, source: 'host-probe', error: 'host down' },
  { brokerId: 2, logEndOffset: 1000, checkpointedHighWatermark: 1000, sizeBytes: 10_887, source: 'host-probe' },
  { brokerId: 3, logEndOffset: 2000, checkpointedHighWatermark: 2000, sizeBytes: 22_882, source: 'host-probe' },
];

describe('planLeaderOverride: choice and steps', () => {
  it('picks the live replica with the most data; with the last in-sync replica unmeasured, no choice claims a known loss', () => {
    const p = plan(planLeaderOverride(leaderless, { topic: 'orders', partition: 0 }, inputs(measured)));
    expect(p.kind).toBe('leader-override');
    expect(p.params.replica).toBe(3);
    expect(p.dryRun).toBe(true);
    expect(candidate(p, 3)).toMatchObject({ live: true, logEndOffset: 2000, estimatedMessagesLost: null, defaultChoice: false, loss: { atLeast: 0, known: false } });
    expect(candidate(p, 2)).toMatchObject({ live: true, logEndOffset: 1000, estimatedMessagesLost: null, defaultChoice: true, loss: { atLeast: 1000, known: false } });
    expect(candidate(p, 1)).toMatchObject({ live: false, logEndOffset: null, estimatedMessagesLost: null, loss: { atLeast: null } });
    expect(p.impact.estimatedMessagesLost).toBeNull();
    expect(rendered(p)).toMatch(/would pick broker 2, which holds 1,000 fewer messages than broker 3/);
  });

  it('reorders so the chosen replica is first (dead ones leave), then an unclean election, verify the leader, then writes, wait', () => {
    const p = plan(planLeaderOverride(leaderless, { topic: 'orders', partition: 0 }, inputs(measured)));
    expect(p.steps.map((s) => s.action)).toEqual(['reassign', 'elect-leaders', 'verify-leaders', 'verify-writable', 'wait-reassignment']);
    expect(p.steps[0]).toEqual({
      action: 'reassign',
      description: 'reorder orders-0 replicas to 3,2 so broker 3 is first (dead broker 1 leaves the list)',
      partitions: [{ topic: 'orders', partition: 0, replicas: [3, 2] }],
      throttleBytesPerSec: null,
    });
    expect(p.steps[1]).toMatchObject({ action: 'elect-leaders', electionType: 'unclean', partitions: [{ topic: 'orders', partition: 0 }] });
    expect(p.steps[2]).toMatchObject({ expected: [{ topic: 'orders', partition: 0, leader: 3 }] });
    expect(p.steps[3]).toMatchObject({ action: 'verify-writable', topic: 'orders', partition: 0, leader: 3 });
    expect(p.steps[4]).toMatchObject({ action: 'wait-reassignment', reassignStep: 0 });
    expect(p.warnings).toEqual([
      { code: 'replicas-dropped', brokers: [1], from: 3, to: 2 },
      { code: 'do-not-start', brokers: [1], isrKnown: true },
    ]);
    expect(warningLines(p)[0]).toBe('broker 1 leaves the replica list (a reassignment accepts only live brokers): replication factor drops from 3 to 2; re-add with a reassignment once back');
    expect(warningLines(p)[1]).toMatch(/^Do not start broker 1 before this runs: it is the last in-sync replica, and the controller elects it even with unclean election disabled, since it is still in the ISR/);
  });

  it('honours a named replica, even one with less data, and says what it costs', () => {
    const p = plan(planLeaderOverride(leaderless, { topic: 'orders', partition: '0', replica: '2' }, inputs(measured)));
    expect(p.params).toMatchObject({ replica: 2, requestedReplica: 2 });
    expect(p.impact.loss).toMatchObject({ atLeast: 1000, known: false, basis: { kind: 'checkpointed-high-watermark', brokerId: 3, value: 2000 } });
    // 2 is already the first live replica: the election picks it without a reorder, and the replication factor stays.
    expect(p.steps.map((s) => s.action)).toEqual(['elect-leaders', 'verify-leaders', 'verify-writable']);
    expect(codes(p)).not.toContain('replicas-dropped');
  });

  it('skips the reorder when the chosen replica already comes first and every replica is live', () => {
    // leader -1 with all brokers live: e.g. the last ISR member returned with ELR cleared.
    const s = snapshot([1, 2, 3], { t: [[-1, [2, 1, 3], [2]]] });
    const p = plan(planLeaderOverride(s, { topic: 't', partition: 0, replica: 2 }, inputs([])));
    expect(p.steps.map((x) => x.action)).toEqual(['elect-leaders', 'verify-leaders', 'verify-writable']);
    expect(rendered(p)).toMatch(/could not be measured/);
    expect(codes(p)).not.toContain('do-not-start');
  });

  it('treats a leader that is not a live broker as no leader, and as a holder of the acknowledged data', () => {
    const s = snapshot([2, 3], { t: [[1, [1, 2, 3], [3]]] });
    const p = plan(planLeaderOverride(s, { topic: 't', partition: 0 }, inputs(measured)));
    expect(p.params.replica).toBe(3);
    expect(p.impact.loss!.unseen).toEqual([{ brokerId: 1, role: 'last-leader', problem: 'unmeasured', detail: 'host-probe: host down' }]);
    expect(lossHeadline(p.impact.loss!, 3)).toMatch(/the last leader, broker 1, could not be measured/);
  });

  it('refuses: partition has a leader, replica not in the assignment, replica not live, nothing measurable', () => {
    const led = snapshot([1, 2, 3], { t: [[2, [1, 2, 3], [2]]] });
    expect(refusal(planLeaderOverride(led, { topic: 't', partition: 0 }, inputs(measured)))).toEqual({ code: 'partition-has-leader', partition: 't-0', leader: 2 });
    expect(reason(planLeaderOverride(led, { topic: 't', partition: 0 }, inputs(measured)))).toMatch(/has a leader \(broker 2\)/);
    expect(refusal(planLeaderOverride(leaderless, { topic: 'orders', partition: 0, replica: 7 }, inputs(measured)))).toEqual({ code: 'replica-not-assigned', broker: 7, partition: 'orders-0', replicas: [1, 2, 3] });
    expect(refusal(planLeaderOverride(leaderless, { topic: 'orders', partition: 0, replica: 1 }, inputs(measured)))).toEqual({ code: 'replica-not-live', broker: 1 });
    expect(refusal(planLeaderOverride(leaderless, { topic: 'orders', partition: 0 }, inputs([])))).toEqual({ code: 'no-measured-replica', partition: 'orders-0' });
    expect(reason(planLeaderOverride(leaderless, { topic: 'orders', partition: 0 }, inputs([])))).toMatch(/could be measured .*; name the replica/);
    const allDead = snapshot([4], { t: [[-1, [1, 2], [1]]] });
    expect(refusal(planLeaderOverride(allDead, { topic: 't', partition: 0 }, inputs([]))).code).toBe('no-live-replica');
  });

  it('refuses unknown topics/partitions and invalid input before anything else', () => {
    expect(refusal(planLeaderOverride(leaderless, { topic: 'nope', partition: 0 }, inputs(measured)))).toEqual({ code: 'topic-not-found', topic: 'nope' });
    expect(reason(planLeaderOverride(leaderless, { topic: 'orders', partition: 9 }, inputs(measured)))).toBe('topic orders has no partition 9 (it has 1 partition)');
    for (const topic of ['a b', 'x;rm -rf /', '..', '.', '', 'a'.repeat(250), 'é']) {
      expect(reason(planLeaderOverride(leaderless, { topic, partition: 0 }, inputs(measured)))).toMatch(/topic/);
    }
    expect(reason(planLeaderOverride(leaderless, { topic: 'orders', partition: -1 }, inputs(measured)))).toMatch(/partition/);
    expect(reason(planLeaderOverride(leaderless, { topic: 'orders', partition: '1; reboot' }, inputs(measured)))).toMatch(/integer/);
    expect(reason(planLeaderOverride(leaderless, { topic: 'orders', partition: 0, replica: 1.5 }, inputs(measured)))).toMatch(/integer/);
  });

  it('fingerprints cluster id, topic, partition, leader, replicas, ISR, live brokers and each replica\'s size', () => {
    const p = plan(planLeaderOverride(leaderless, { topic: 'orders', partition: 0 }, inputs(measured)));
    expect(p.fingerprint).toBe(digestOf(p.preconditions));
    // Sizes, not log ends: read over the Kafka protocol, the re-check before the election never starts a host tool.
    const ends = { unit: 'bytes', sizes: [{ broker: 1, bytes: null }, { broker: 2, bytes: 10_887 }, { broker: 3, bytes: 22_882 }] };
    expect(p.preconditions).toEqual({ kind: 'leader-override', clusterId: 'c1', topic: 'orders', partition: 0, leader: -1, replicas: [1, 2, 3], isr: [1], liveBrokers: [2, 3], measured: ends });
    const recovered = snapshot([2, 3], { orders: [[2, [1, 2, 3], [2]]] });
    expect(digestOf(preconditionsFor(p, recovered, ends))).not.toBe(p.fingerprint);
    const brokerBack = snapshot([1, 2, 3], { orders: [[-1, [1, 2, 3], [1]]] });
    expect(digestOf(preconditionsFor(p, brokerBack, ends))).not.toBe(p.fingerprint);
    // The same state read again (other topics changing, fields in another order) fingerprints the same.
    const again = snapshot([3, 2], { zzz: [[3, [3], [3]]], orders: [[-1, [1, 2, 3], [1]]] });
    expect(digestOf(preconditionsFor(p, again, ends))).toBe(p.fingerprint);
    // Another cluster in the same state is not this plan's cluster.
    expect(digestOf(preconditionsFor(p, { ...again, clusterId: 'c2' }, ends))).not.toBe(p.fingerprint);
  });

  it('a replica wiped and back before approval (same metadata, another size) no longer matches the fingerprint', () => {
    const p = plan(planLeaderOverride(leaderless, { topic: 'orders', partition: 0 }, inputs(measured)));
    const wiped = leaderOverride.preconditions(p.params, leaderless, boundSizes([1, 2, 3], [{ brokerId: 2, sizeBytes: 10_887 }, { brokerId: 3, sizeBytes: 0 }]));
    expect(digestOf(wiped)).not.toBe(p.fingerprint);
    const same = leaderOverride.preconditions(p.params, leaderless, boundSizes([1, 2, 3], [{ brokerId: 2, sizeBytes: 10_887 }, { brokerId: 3, sizeBytes: 22_882 }]));
    expect(digestOf(same)).toBe(p.fingerprint);
  });

  it('merges host and DescribeLogDirs figures per broker, keeping why a figure is missing', () => {
    const merged = mergeReplicaData([
      { brokerId: 1, logEndOffset: null, source: 'host', error: 'host unreachable' },
      { brokerId: 1, logEndOffset: null, sizeBytes: null, source: 'describe-log-dirs', error: 'not reachable' },
      { brokerId: 2, logEndOffset: null, source: 'host', error: 'timed out' },
      { brokerId: 2, logEndOffset: null, sizeBytes: 500, source: 'describe-log-dirs' },
      { brokerId: 3, logEndOffset: 70, checkpointedHighWatermark: 69, sizeBytes: 700, source: 'host:kafka-dump-log' },
      { brokerId: 3, logEndOffset: null, sizeBytes: 710, source: 'describe-log-dirs' },
    ]);
    expect(merged.get(1)).toEqual({ brokerId: 1, logEndOffset: null, checkpointedHighWatermark: null, sizeBytes: null, source: 'host+describe-log-dirs', error: 'host: host unreachable; describe-log-dirs: not reachable' });
    expect(merged.get(2)).toEqual({ brokerId: 2, logEndOffset: null, checkpointedHighWatermark: null, sizeBytes: 500, source: 'describe-log-dirs', error: 'host: timed out' });
    expect(merged.get(3)).toEqual({ brokerId: 3, logEndOffset: 70, checkpointedHighWatermark: 69, sizeBytes: 700, source: 'host:kafka-dump-log+describe-log-dirs' });
  });

  it('formats byte amounts', () => {
    expect([0, 1023, 1024, 1536, 5 * 1024 ** 3].map(formatBytes)).toEqual(['0 B', '1023 B', '1.0 KiB', '1.5 KiB', '5.0 GiB']);
  });
});

// ---------------------------------------------------------------- gathering

const never = <T>() => new Promise<T>(() => {});

function fakeAdmin(opts: {
  sizes?: Record<number, number | 'dead' | 'offline-dir' | 'absent'>;
  groups?: Record<string, { offset: number | 'hang' | 'error'; state?: string; members?: number }>;
  listFails?: boolean;
  describeFails?: boolean;
}): LeaderOverrideAdmin & { logDirCalls: number[][] } {
  const logDirCalls: number[][] = [];
  return {
    logDirCalls,
    async describeLogDirs(brokerIds, partitions) {
      logDirCalls.push(brokerIds);
      const out = new Map<number, BrokerLogDirs>();
      for (const id of brokerIds) {
        const s = opts.sizes?.[id];
        if (s === 'dead') return never();
        if (s === undefined) continue;
        const tp = partitions![0]!;
        out.set(id, {
          error: null,
          logDirs: [
            { path: '/data/a', errorCode: s === 'offline-dir' ? 57 : 0, partitions: [] },
            {
              path: '/data/b',
              errorCode: 0,
              partitions: typeof s === 'number' ? [{ ...tp, sizeBytes: s + 1, offsetLag: 0, isFuture: true }, { ...tp, sizeBytes: s, offsetLag: 0, isFuture: false }] : [],
            },
          ],
        });
      }
      return out;
    },
    async listGroups() {
      if (opts.listFails) throw new Error('COORDINATOR_LOAD_IN_PROGRESS');
      return Object.keys(opts.groups ?? {}).map((groupId) => ({ groupId, protocolType: 'consumer' }));
    },
    async describeGroups(ids) {
      if (opts.describeFails) throw new Error('timed out');
      return ids.map((groupId) => ({ groupId, errorCode: 0, state: opts.groups![groupId]!.state ?? 'Empty', protocolType: 'consumer', members: opts.groups![groupId]!.members ?? 0 }));
    },
    async fetchCommittedOffsets(groupId, partitions) {
      const g = opts.groups![groupId]!;
      if (g.offset === 'hang') return never();
      const tp = partitions![0]!;
      return [{ ...tp, offset: g.offset === 'error' ? -1 : g.offset, errorCode: g.offset === 'error' ? 14 : 0 }];
    },
  };
}

class FakeExecutor implements Executor {
  readonly kind = 'local' as const;
  constructor(private readonly out: Record<number, string | null>) {}
  async run(targets: HostTarget[], _run: ScriptRun): Promise<ExecutionResult[]> {
    return targets.map((target) => {
      const stdout = this.out[target.brokerId];
      return {
        target,
        status: stdout === null || stdout === undefined ? 'Unreachable' : 'Success',
        outcome: stdout === null || stdout === undefined ? 'not-delivered' : 'completed',
        exitCode: stdout === null ? null : 0,
        stdout: stdout ?? '',
        stderr: '',
        truncated: false,
        commandId: null,
        durationMs: 1,
        ...(stdout === null ? { detail: 'host unreachable' } : {}),
      };
    });
  }
}

const fast = { logDirsMs: 50, groupsMs: 300, perGroupMs: 50, hostsMs: 1_000 };

describe('gatherLeaderOverrideInputs', () => {
  it('without host access: sizes from DescribeLogDirs per broker (a dead one stays unknown), every group\'s committed offset with its state', async () => {
    const admin = fakeAdmin({
      sizes: { 1: 'dead', 2: 4000, 3: 7000 },
      groups: { billing: { offset: 850 }, api: { offset: 810, state: 'Stable', members: 3 }, other: { offset: -1 } },
    });
    const got = await gatherLeaderOverrideInputs({ admin, timeouts: fast }, 'orders', 0, [1, 2, 3]);
    expect(admin.logDirCalls).toEqual([[1], [2], [3]]);
    expect(got.replicaData).toEqual([
      { brokerId: 1, logEndOffset: null, checkpointedHighWatermark: null, sizeBytes: null, source: 'describe-log-dirs', error: 'describe-log-dirs: DescribeLogDirs on broker 1: no answer within 50 ms' },
      { brokerId: 2, logEndOffset: null, checkpointedHighWatermark: null, sizeBytes: 4000, source: 'describe-log-dirs' },
      { brokerId: 3, logEndOffset: null, checkpointedHighWatermark: null, sizeBytes: 7000, source: 'describe-log-dirs' },
    ]);
    expect(got.groups).toEqual([
      { groupId: 'billing', committedOffset: 850, state: 'Empty', members: 0 },
      { groupId: 'api', committedOffset: 810, state: 'Stable', members: 3 },
    ]);
    expect(got.groupsIncomplete).toBeUndefined();
    // Straight into the planner: an estimate in bytes, loss unknown because broker 1 is down.
    const p = plan(planLeaderOverride(zkStyle, { topic: 'orders', partition: 0 }, got));
    expect(p.impact.loss).toMatchObject({ unit: 'bytes', known: false });
  });

  it('a replica on no healthy log dir is 0 bytes; one that may be on an offline dir is unknown', async () => {
    const got = await gatherLeaderOverrideInputs({ admin: fakeAdmin({ sizes: { 1: 'absent', 2: 'offline-dir' } }), timeouts: fast }, 'orders', 0, [1, 2, 4]);
    expect(got.replicaData.map((d) => [d.brokerId, d.sizeBytes, d.error ?? null])).toEqual([
      [1, 0, null],
      [2, null, 'describe-log-dirs: a log dir is offline: the replica may be on it'],
      [4, null, 'describe-log-dirs: no answer'],
    ]);
  });

  it('groups that do not answer are counted as unread, never as 0; a failed listing is said too', async () => {
    const admin = fakeAdmin({ sizes: { 2: 1 }, groups: { slow: { offset: 'hang' }, broken: { offset: 'error' }, ok: { offset: 5 } } });
    const got = await gatherLeaderOverrideInputs({ admin, timeouts: fast }, 'orders', 0, [2]);
    expect(got.groups.map((g) => g.groupId)).toEqual(['ok']);
    expect(got.groupsIncomplete).toBe('2 of 3 consumer group(s) did not give their committed offset in time: broken, slow');
    const listing = await gatherLeaderOverrideInputs({ admin: fakeAdmin({ listFails: true }), timeouts: fast }, 'orders', 0, [2]);
    expect(listing).toMatchObject({ groups: [], groupsIncomplete: 'listing consumer groups failed: COORDINATOR_LOAD_IN_PROGRESS' });
    const undescribed = await gatherLeaderOverrideInputs({ admin: fakeAdmin({ groups: { g: { offset: 9 } }, describeFails: true }), timeouts: fast }, 'orders', 0, [2]);
    expect(undescribed.groups).toEqual([{ groupId: 'g', committedOffset: 9, state: 'Unknown', members: null }]);
  });

  it('with host access: log end offsets from the hosts, merged with DescribeLogDirs sizes', async () => {
    const executor = new FakeExecutor({
      1: null,
      2: '{"found":true,"dir":"/data/orders-0","sizeBytes":4100,"logEndOffset":400,"checkpointedHighWatermark":400,"leoSource":"kafka-dump-log"}',
      3: '{"found":false}',
    });
    const replicas = [1, 2, 3].map((brokerId) => ({ target: { brokerId, address: `/hosts/${brokerId}` }, logDirs: ['/data'], kafkaBin: '/opt/kafka/bin' }));
    const got = await gatherLeaderOverrideInputs({ admin: fakeAdmin({ sizes: { 1: 'dead', 2: 4000, 3: 7000 } }), hosts: { executor, replicas }, timeouts: fast }, 'orders', 0, [1, 2, 3]);
    expect(got.replicaData.map((d) => [d.brokerId, d.logEndOffset, d.sizeBytes])).toEqual([
      [1, null, null],
      [2, 400, 4100],
      [3, null, 7000],
    ]);
    expect(got.replicaData[0]!.error).toMatch(/^host: host unreachable; describe-log-dirs: .*no answer within/);
    expect(got.replicaData[2]!.error).toBe('host: no orders-0 directory on this broker');
  });

  it('rejects an invalid topic or partition before any I/O', async () => {
    const admin = fakeAdmin({});
    await expect(gatherLeaderOverrideInputs({ admin }, 'a;b', 0, [1])).rejects.toThrow(/topic/);
    await expect(gatherLeaderOverrideInputs({ admin }, 'orders', -1, [1])).rejects.toThrow(/partition/);
    expect(admin.logDirCalls).toEqual([]);
  });
});
