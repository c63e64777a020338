// A KRaft controller's host is probed like a broker's (the config names it by
// node id): its process start is a controller's (re)start, never a broker's;
// known from the quorum's voters, or the ones kept from the last run while the
// quorum has no leader.
import { describe, expect, it } from 'vitest';
import { whatChanged, type ClusterChange } from '../../lib/diagnose/what-changed.ts';
import { changeLines } from '../../lib/diagnose/render-changes.ts';
import type { HostProbeOutcome } from '../../lib/hosts/types.ts';
import { healthyTopic, probeReport, snapshot } from './fixtures.ts';
import { lostQuorum, quorum } from './quorum-fixtures.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const probe = (brokerId: number, startedAt: string): HostProbeOutcome =>
  ({ brokerId, ok: true, report: probeReport({ brokerId, process: { running: true, pid: 1, startedAt, configPath: null, logsDir: null } }), execution: null }) as unknown as HostProbeOutcome;
const none = { facts: null, changes: [] as ClusterChange[] };

describe('controller (re)starts in what changed', () => {
  it('a probed host that is a voter of the quorum is a controller: "controller 100 (re)started"', () => {
    const snap = snapshot([healthyTopic('orders', 3)], { takenAt: at(60), quorum: quorum({ voters: [100, 101, 102], observers: [1, 2, 3], leader: 101 }) });
    const r = whatChanged(snap, [probe(1, at(40)), probe(100, at(45))], none, [], T0 + 60 * 60_000);
    expect(r.changes).toEqual([
      { code: 'broker-started', broker: 1, at: at(40) },
      { code: 'broker-started', broker: 100, node: 'controller', at: at(45) },
    ]);
    expect(changeLines(r.changes)[1]).toBe('00:45:00 UTC · controller 100 (re)started: its process started at 00:45:00 UTC (host probe)');
    expect(r.keep.facts.controllers).toEqual([100, 101, 102]);
  });

  it('with no quorum leader the voters kept from the last run still tell controllers apart', () => {
    const before = whatChanged(snapshot([healthyTopic('orders', 3)], { takenAt: at(10), quorum: quorum({ voters: [100, 101, 102], observers: [1, 2, 3], leader: 101 }) }), [], none, [], T0 + 10 * 60_000);
    const lost = snapshot([healthyTopic('orders', 3)], { takenAt: at(20), quorum: lostQuorum() });
    const r = whatChanged(lost, [probe(102, at(15))], before.keep, [], T0 + 20 * 60_000);
    expect(r.changes).toContainEqual({ code: 'broker-started', broker: 102, node: 'controller', at: at(15) });
    expect(r.keep.facts.controllers).toEqual([100, 101, 102]);
  });

  it('without a quorum (ZooKeeper mode, or nothing known) a start stays a broker\'s', () => {
    const r = whatChanged(snapshot([healthyTopic('orders', 3)], { takenAt: at(60) }), [probe(100, at(45))], none, [], T0 + 60 * 60_000);
    expect(r.changes).toEqual([{ code: 'broker-started', broker: 100, at: at(45) }]);
  });
});
