// The audit's quorum checks: the quorum's shape from the snapshot's quorum view.
import { describe, expect, it } from 'vitest';
import { runAuditChecks, type AuditInput } from '../../lib/audit/preventive.ts';
import { quorumViewWithout, type QuorumView } from '../../lib/kafka/quorum-view.ts';
import { healthyTopic, snapshot } from '../diagnose/fixtures.ts';
import { LEADER_NOW, quorum } from '../diagnose/quorum-fixtures.ts';

function input(q: QuorumView | undefined): AuditInput {
  return {
    snapshot: snapshot([healthyTopic('clean', 3)], q ? { quorum: q } : {}),
    probes: [],
    hostAccess: false,
    brokerConfigs: null,
    storageHistory: null,
    nowMs: LEADER_NOW,
  };
}
const found = (q: QuorumView | undefined) => runAuditChecks(input(q)).map((f) => [f.kind, f.severity]);

describe('audit: controller quorum', () => {
  it('three dynamic voters: nothing', () => {
    expect(found(quorum({ voters: [100, 101, 102], dynamic: true }))).toEqual([]);
  });

  it('three static voters on a line that answers v2 (3.9+): quorum-static-voters, naming them', () => {
    const [f] = runAuditChecks(input(quorum({ voters: [100, 101, 102] })));
    expect([f!.kind, f!.severity, f!.affected.controllers]).toEqual(['quorum-static-voters', 'warning', [100, 101, 102]]);
    expect(f!.title).toBe('Static controller quorum (kraft.version 0) of 3 voters: 100, 101, 102');
    expect(f!.evidence[0]!.value).toBe('100=AAAAAAAAAAAAAAAAAAAAAA, 101=AAAAAAAAAAAAAAAAAAAAAA, 102=AAAAAAAAAAAAAAAAAAAAAA');
    expect(f!.prevents).toMatch(/rolling the cluster/);
  });

  it('a static quorum on a line before 3.9 (v1 answers): nothing to move to', () => {
    expect(found(quorum({ voters: [100, 101, 102], version: 1 }))).toEqual([]);
  });

  it('one voter: quorum-size-unsafe (error), and static where the line could be dynamic', () => {
    expect(found(quorum({ voters: [100] }))).toEqual([
      ['quorum-size-unsafe', 'error'],
      ['quorum-static-voters', 'warning'],
    ]);
    const f = runAuditChecks(input(quorum({ voters: [100], dynamic: true })))[0]!;
    expect(f.title).toBe('The controller quorum is one voter (controller 100)');
    expect(f.summary).toMatch(/alone holds the metadata quorum/);
  });

  it('two or four voters: quorum-size-unsafe (warning), with the failures tolerated', () => {
    const two = runAuditChecks(input(quorum({ voters: [100, 101], dynamic: true })))[0]!;
    expect([two.kind, two.severity]).toEqual(['quorum-size-unsafe', 'warning']);
    expect(two.evidence[0]!.value).toBe('100, 101 (majority 2, tolerates 0 failures)');
    const four = runAuditChecks(input(quorum({ voters: [100, 101, 102, 103], dynamic: true })))[0]!;
    expect(four.summary).toBe('4 voters need 3 for a majority and so survive 1 failure, no more than 3 would: the extra voter is one more node that can fail.');
    expect(found(quorum({ voters: [100, 101, 102, 103, 104], dynamic: true }))).toEqual([]);
  });

  it('ZooKeeper mode, no leader, a failed read, or no quorum read at all: no shape finding', () => {
    for (const status of ['unavailable', 'no-leader', 'failed'] as const) expect(found(quorumViewWithout(status, 'x', LEADER_NOW))).toEqual([]);
    expect(found(undefined)).toEqual([]);
  });
});
