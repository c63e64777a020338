// quorum-at-risk, quorum-lost and metadata-log-lag: pure functions of the
// snapshot's quorum view (lib/kafka/quorum-read.ts reads it through the brokers).
import { describe, expect, it } from 'vitest';
import { detectQuorumFindings, followHealth, quorumSkippedCheck } from '../../lib/diagnose/checks/controller-quorum.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import { quorumViewWithout } from '../../lib/kafka/quorum-view.ts';
import { renderReport } from '../../lib/diagnose/render-terminal.ts';
import { renderReportMarkdown } from '../../lib/diagnose/render-markdown.ts';
import { reportAsText } from '../../lib/diagnose/render-slack.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { healthyCluster } from './fixtures.ts';
import { LEADER_NOW, lostQuorum, quorum } from './quorum-fixtures.ts';
import type { QuorumView } from '../../lib/kafka/quorum-view.ts';

const withQuorum = (q: QuorumView) => ({ ...healthyCluster(), quorum: q });
const kinds = (q: QuorumView) => detectQuorumFindings(withQuorum(q)).map((f) => f.kind);

describe('quorum detectors', () => {
  it('a healthy quorum of three, its brokers following: nothing', () => {
    expect(detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, 102] })))).toEqual([]);
  });

  it('three voters, one not fetching: quorum-at-risk naming it, no separate lag finding for it', () => {
    const findings = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, { id: 102, behind: 900, fetchedAgo: 42_000 }] })));
    expect(findings.map((f) => f.kind)).toEqual(['quorum-at-risk']);
    const f = findings[0]!;
    expect(f.severity).toBe('error');
    expect(f.title).toBe('Controller quorum one failure from losing its majority: controller 102 is not following');
    expect(f.affected.controllers).toEqual([102]);
    expect(f.affected.brokers).toEqual([]);
    expect(f.summary).toMatch(/2 of 3 controllers follow the leader, exactly the 2 a majority needs/);
    expect(f.evidence).toContainEqual({ label: 'quorum', value: 'leader 100, epoch 4, high watermark 49998; 3 voters, majority 2', source: 'DescribeQuorum v2 via broker 1' });
    expect(f.evidence).toContainEqual({ label: 'controller 102', value: 'not fetching: last fetch 42 s ago, caught up 42 s ago; log end 49100, 900 records behind the leader', source: 'leader:100' });
    expect(f.nextActions[1]).toMatch(/Do not stop, restart or roll any other controller/);
    expect(f.runbook).toBe('quorum-at-risk');
  });

  it('a voter that never fetched from this leader (log end -1) is not fetching', () => {
    const q = quorum({ voters: [100, 101, { id: 102, behind: null }] });
    expect(followHealth(q, q.voters[2]!)).toBe('not-fetching');
    expect(kinds(q)).toEqual(['quorum-at-risk']);
  });

  it('a voter fetching but behind counts against the majority too', () => {
    const f = detectQuorumFindings(withQuorum(quorum({ voters: [100, { id: 101, behind: 20_000, fetchedAgo: 300, caughtUpAgo: 60_000 }, 102] })))[0]!;
    expect(f.kind).toBe('quorum-at-risk');
    expect(f.title).toMatch(/controller 101 is behind$/);
  });

  it('five voters, one down: still a margin of one, so metadata-log-lag (warning) for it, not quorum-at-risk', () => {
    const findings = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, 102, 103, { id: 104, fetchedAgo: 30_000 }] })));
    expect(findings.map((f) => [f.kind, f.severity, f.affected.controllers])).toEqual([['metadata-log-lag', 'warning', [104]]]);
    expect(findings[0]!.summary).toMatch(/can still lose 1 more voter before it has no leader/);
  });

  it('five voters, two down: quorum-at-risk naming both', () => {
    const f = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, 102, { id: 103, fetchedAgo: 30_000 }, { id: 104, fetchedAgo: 30_000 }] })))[0]!;
    expect([f.kind, f.affected.controllers]).toEqual(['quorum-at-risk', [103, 104]]);
    expect(f.title).toMatch(/controller 103, controller 104 are not following/);
  });

  it('three voters, two gone while the leader still answers: critical, below the majority', () => {
    const f = detectQuorumFindings(withQuorum(quorum({ voters: [100, { id: 101, fetchedAgo: 9_000 }, { id: 102, fetchedAgo: 9_000 }] })))[0]!;
    expect([f.kind, f.severity]).toEqual(['quorum-at-risk', 'critical']);
    expect(f.title).toMatch(/below its majority: 1 of 3 voters following/);
  });

  it('one voter, or two, all following: no diagnosis finding (the audit names the shape)', () => {
    expect(kinds(quorum({ voters: [100] }))).toEqual([]);
    expect(kinds(quorum({ voters: [100, 101] }))).toEqual([]);
  });

  it('no leader: quorum-lost, critical, says what stops and that brokers keep serving', () => {
    const findings = detectQuorumFindings(withQuorum(lostQuorum()));
    expect(findings.map((f) => [f.kind, f.severity])).toEqual([['quorum-lost', 'critical']]);
    const f = findings[0]!;
    expect(f.summary).toMatch(/Brokers keep serving reads and writes with the partition leaders they have/);
    for (const stops of ['no leader election', 'no reassignment', 'no topic creation', 'config', 'cannot register, be fenced or unfenced']) expect(f.summary).toContain(stops);
    expect(f.evidence.filter((e) => e.source?.startsWith('broker:')).map((e) => e.value)).toEqual(['no answer within 3000 ms', 'no answer within 3000 ms']);
    expect(f.evidence).toContainEqual({ label: 'brokers still serving', value: '3 brokers listed, 62 partitions with a leader', source: 'metadata' });
    expect(f.nextActions.some((a) => /Do not restart or stop brokers/.test(a))).toBe(true);
  });

  it('an observer (broker) fetching but behind, or live and not fetching: metadata-log-lag on that broker', () => {
    const behind = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, 102], observers: [1, { id: 2, behind: 5_000, fetchedAgo: 100, caughtUpAgo: 25_000 }, 3] })));
    expect(behind.map((f) => [f.kind, f.affected.brokers, f.title])).toEqual([['metadata-log-lag', [2], 'Broker 2 is behind on the metadata log by 5000 records']]);
    expect(behind[0]!.summary).toMatch(/serves metadata as of its last fetch/);
    const stuck = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, 102], observers: [1, 2, { id: 3, fetchedAgo: 20_000 }] })));
    expect(stuck.map((f) => f.title)).toEqual(['Broker 3 is not fetching the metadata log']);
    expect(stuck[0]!.evidence[0]).toEqual({ label: 'broker 3', value: 'not fetching: last fetch 20 s ago, caught up 20 s ago; log end 50000, 0 records behind the leader', source: 'leader:100' });
  });

  it('an observer that stopped fetching and is no live broker (a stopped broker the leader still lists): left to the broker findings', () => {
    const s = withQuorum(quorum({ voters: [100, 101, 102], observers: [1, 2, 3, { id: 4, fetchedAgo: 60_000 }] }));
    expect(detectQuorumFindings(s)).toEqual([]);
  });

  it('v0 answers (no timestamps): behind by records alone', () => {
    const q = quorum({ version: 0, voters: [100, 101, { id: 102, behind: 5_000 }] });
    expect(q.voters[2]!.lastFetchAgeMs).toBeNull();
    expect(kinds(q)).toEqual(['quorum-at-risk']);
    expect(kinds(quorum({ version: 0, voters: [100, 101, { id: 102, behind: 10 }] }))).toEqual([]);
  });

  it('ZooKeeper mode or a failed read: no finding; said once among the skipped checks', () => {
    const zk = quorumViewWithout('unavailable', 'the brokers do not serve DescribeQuorum (ZooKeeper mode): there is no KRaft quorum to check', LEADER_NOW);
    expect(detectQuorumFindings(withQuorum(zk))).toEqual([]);
    expect(quorumSkippedCheck(withQuorum(zk))).toBe(
      'Quorum checks (quorum-at-risk, quorum-lost, metadata-log-lag): the brokers do not serve DescribeQuorum (ZooKeeper mode): there is no KRaft quorum to check.',
    );
    expect(quorumSkippedCheck(withQuorum(quorumViewWithout('failed', 'DescribeQuorum could not be read (broker 1: boom)', LEADER_NOW)))).toMatch(/could not run: DescribeQuorum could not be read/);
    expect(quorumSkippedCheck(withQuorum(quorum({ voters: [100] })))).toBeNull();
    expect(quorumSkippedCheck(healthyCluster())).toBeNull();
  });

  it('same problem, same fingerprint across runs; a different voter, another one', () => {
    const a = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, { id: 102, fetchedAgo: 10_000 }] })))[0]!;
    const b = detectQuorumFindings(withQuorum(quorum({ voters: [100, 101, { id: 102, fetchedAgo: 90_000 }], epoch: 5 })))[0]!;
    const c = detectQuorumFindings(withQuorum(quorum({ voters: [100, { id: 101, fetchedAgo: 10_000 }, 102] })))[0]!;
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(a.fingerprint).not.toBe(c.fingerprint);
    expect(detectQuorumFindings(withQuorum(lostQuorum()))[0]!.fingerprint).toBe(detectQuorumFindings(withQuorum(lostQuorum()))[0]!.fingerprint);
  });

  it('through detect(): sorted with the rest; terminal, Markdown and Slack text name the controllers', () => {
    const findings = detect(withQuorum(quorum({ voters: [100, 101, { id: 102, fetchedAgo: 10_000 }] })), []);
    expect(findings.map((f) => f.kind)).toEqual(['quorum-at-risk']);
    const report: DiagnosisReport = { cluster: 'prod', startedAt: new Date(LEADER_NOW).toISOString(), durationMs: 10, findings, skippedChecks: [], partial: false };
    expect(renderReport(report, { color: false })).toMatch(/affected: controllers 102/);
    expect(renderReportMarkdown(report)).toContain('- **Controllers:** 102');
    expect(reportAsText(report)).toContain('  controllers: 102');
  });
});
