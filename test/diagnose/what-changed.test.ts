import { describe, expect, it } from 'vitest';
import { CHANGE_WINDOW_MS, MAX_TRACKED_PARTITIONS, factsOf, whatChanged, type ClusterChange } from '../../lib/diagnose/what-changed.ts';
import { changeLines } from '../../lib/diagnose/render-changes.ts';
import { renderDiagnosis } from '../../lib/diagnose/render-slack.ts';
import { renderReportMarkdown } from '../../lib/diagnose/render-markdown.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import type { HostProbeOutcome } from '../../lib/hosts/types.ts';
import { config, healthyTopic, part, probeReport, snapshot, topic } from './fixtures.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const probe = (brokerId: number, startedAt: string | null): HostProbeOutcome => ({
  brokerId,
  ok: true,
  report: probeReport({ brokerId, process: { running: true, pid: 1, startedAt, configPath: null, logsDir: null } }),
  execution: null,
} as unknown as HostProbeOutcome);

const none = { facts: null, changes: [] as ClusterChange[] };
const codes = (cs: ClusterChange[]) => cs.map((c) => c.code);

describe('what changed in the last hour (pure)', () => {
  it('knows nothing without history beyond what the snapshot tells alone: a healthy, settled cluster has no changes', () => {
    const snap = snapshot([healthyTopic('orders', 3)], { takenAt: at(90) });
    const r = whatChanged(snap, [probe(1, at(0)), probe(2, at(1))], none, [], T0 + 90 * 60_000);
    expect(r.changes).toEqual([]);
  });

  it('a broker process that started within the hour is a (re)start, at its exact start time (host probe)', () => {
    const snap = snapshot([healthyTopic('orders', 3)], { takenAt: at(60) });
    const r = whatChanged(snap, [probe(1, at(-1)), probe(2, at(45))], none, [], T0 + 60 * 60_000);
    expect(r.changes).toEqual([{ code: 'broker-started', broker: 2, at: at(45) }]);
  });

  it('against the last kept facts: controller moved, a leader elected, replicas reassigned, a topic config changed, a broker left, topics created and deleted', () => {
    const before = snapshot(
      [topic('orders', [part(0, 1, [1, 2, 3]), part(1, 2, [2, 3, 1])], config({ minInsyncReplicas: 2 })), healthyTopic('gone', 1)],
      { takenAt: at(0), controllerId: 1 },
    );
    const kept = { facts: factsOf(before, []), changes: [] };
    const after = snapshot(
      [topic('orders', [part(0, 3, [1, 2, 3], [3]), part(1, 2, [2, 3, 4])], config({ minInsyncReplicas: 1 })), healthyTopic('fresh', 1)],
      { takenAt: at(10), controllerId: 2, brokers: [1, 2, 4].map((id) => ({ id, host: 'h', port: 1, rack: null })) },
    );
    const r = whatChanged(after, [], kept, [], T0 + 10 * 60_000);
    const w = { at: at(10), since: at(0) };
    expect(r.changes).toEqual(
      expect.arrayContaining([
        { code: 'broker-joined', broker: 4, ...w },
        { code: 'broker-left', broker: 3, ...w },
        { code: 'controller-changed', from: 1, to: 2, ...w },
        { code: 'leaders-changed', topic: 'orders', partitions: [{ partition: 0, from: 1, to: 3 }], count: 1, ...w },
        { code: 'replicas-changed', topic: 'orders', partitions: [{ partition: 1, from: [2, 3, 1], to: [2, 3, 4] }], count: 1, ...w },
        { code: 'topic-config-changed', topic: 'orders', setting: 'min.insync.replicas', from: '2', to: '1', ...w },
        { code: 'topic-created', topic: 'fresh', ...w },
        { code: 'topic-deleted', topic: 'gone', ...w },
      ]),
    );
    expect(r.changes).toHaveLength(8);
    // Said in words with the window, partitions as they appear.
    expect(changeLines(r.changes).join('\n')).toMatch(/leaders of orders changed between 00:00:00 UTC and 00:10:00 UTC: orders-0 1→3/);
  });

  it('keeps changes seen by earlier runs for an hour, once each, and drops them after', () => {
    const s0 = snapshot([topic('orders', [part(0, 1, [1, 2])])], { takenAt: at(0) });
    const s1 = snapshot([topic('orders', [part(0, 2, [1, 2])])], { takenAt: at(5) });
    const first = whatChanged(s1, [], { facts: factsOf(s0, []), changes: [] }, [], T0 + 5 * 60_000);
    expect(codes(first.changes)).toEqual(['leaders-changed']);
    // Nothing new since: the next run still reports it, once.
    const s2 = snapshot([topic('orders', [part(0, 2, [1, 2])])], { takenAt: at(20) });
    const second = whatChanged(s2, [], first.keep, [], T0 + 20 * 60_000);
    expect(second.changes).toEqual(first.changes);
    // More than an hour after it was seen: gone.
    const late = whatChanged(s2, [], second.keep, [], T0 + 5 * 60_000 + CHANGE_WINDOW_MS + 1);
    expect(late.changes).toEqual([]);
  });

  it('a topic-limited or partial run reports no deletions and keeps the other topics for the next comparison', () => {
    const full = snapshot([healthyTopic('a', 1), healthyTopic('b', 1)], { takenAt: at(0) });
    const limited = snapshot([healthyTopic('a', 1)], { takenAt: at(5), topicFilter: ['a'] });
    const r = whatChanged(limited, [], { facts: factsOf(full, []), changes: [] }, [], T0 + 5 * 60_000);
    expect(r.changes).toEqual([]);
    expect(Object.keys(r.keep.facts.topics).sort()).toEqual(['a', 'b']);
    const partial = snapshot([healthyTopic('a', 1)], { takenAt: at(6), partial: true });
    expect(whatChanged(partial, [], { facts: factsOf(full, []), changes: [] }, [], T0 + 6 * 60_000).changes).toEqual([]);
  });

  it('another cluster behind the same name invents no changes', () => {
    const a = snapshot([healthyTopic('orders', 2)], { takenAt: at(0), clusterId: 'one', controllerId: 1 });
    const b = snapshot([healthyTopic('other', 2)], { takenAt: at(1), clusterId: 'two', controllerId: 3 });
    expect(whatChanged(b, [], { facts: factsOf(a, []), changes: [] }, [], T0 + 60_000).changes).toEqual([]);
  });

  it('reassignments in progress and the bot\'s own operations within the hour', () => {
    const p = { ...part(0, 1, [1, 2, 3]), addingReplicas: [3] };
    const snap = snapshot([topic('orders', [p])], { takenAt: at(30) });
    const ops = [
      { requestId: 'r1', kind: 'leader-override', title: 'Elect broker 3 leader of orders-0', outcome: 'SUCCEEDED', at: at(20) },
      { requestId: 'r0', kind: 'drain-broker', title: 'old', outcome: 'SUCCEEDED', at: new Date(T0 - 2 * CHANGE_WINDOW_MS).toISOString() },
    ];
    const r = whatChanged(snap, [], none, ops, T0 + 30 * 60_000);
    expect(r.changes).toEqual([
      { code: 'operation-run', requestId: 'r1', kind: 'leader-override', title: 'Elect broker 3 leader of orders-0', outcome: 'SUCCEEDED', at: at(20) },
      { code: 'reassignment-in-progress', topic: 'orders', partitions: [{ partition: 0, adding: [3] }], count: 1, at: at(30) },
    ]);
  });

  it('past MAX_TRACKED_PARTITIONS the facts keep one digest per topic: the topic is named, not each partition', () => {
    const many = (leader: number) => snapshot([topic('big', Array.from({ length: MAX_TRACKED_PARTITIONS + 1 }, (_, i) => part(i, i === 7 ? leader : 1, [1, 2])))], { takenAt: at(leader) });
    const before = factsOf(many(1), []);
    expect(before.topics.big!.leaders).toBeUndefined();
    const r = whatChanged(many(2), [], { facts: before, changes: [] }, [], T0 + 2 * 60_000);
    // Kept with each partition up to the limit, the item stays far under DynamoDB's 400 KB.
    const atLimit = snapshot(Array.from({ length: 50 }, (_, t) => topic(`topic-with-a-long-name-${t}`, Array.from({ length: MAX_TRACKED_PARTITIONS / 50 }, (_, i) => part(i, 1001, [1001, 1002, 1003])))));
    expect(factsOf(atLimit, []).topics['topic-with-a-long-name-0']!.leaders).toBeDefined();
    expect(JSON.stringify(factsOf(atLimit, [])).length).toBeLessThan(250_000);
    expect(r.changes).toEqual([{ code: 'leaders-changed', topic: 'big', partitions: [], count: null, at: at(2), since: at(1) }]);
  });
});

describe('what changed, rendered', () => {
  const report = (changes?: ClusterChange[]): DiagnosisReport => ({ cluster: 'sandbox', startedAt: at(0), durationMs: 10, findings: [], skippedChecks: [], partial: false, ...(changes ? { changes } : {}) });

  it('nothing known: the Slack message and the Markdown are exactly as without the feature', () => {
    const slack = JSON.stringify(renderDiagnosis(report(), { correlationId: 'c' }));
    expect(slack).not.toMatch(/Changed in the last hour/);
    expect(renderReportMarkdown(report())).not.toMatch(/Changed in the last hour/);
  });

  it('known: one section in Slack and in Markdown', () => {
    const r = report([{ code: 'broker-started', broker: 2, at: at(1) }]);
    const slack = JSON.stringify(renderDiagnosis(r, { correlationId: 'c' }).blocks);
    expect(slack).toMatch(/Changed in the last hour:\*\\n• 00:01:00 UTC · broker 2 \(re\)started/);
    expect(renderReportMarkdown(r)).toMatch(/\*\*Changed in the last hour:\*\*\n- 00:01:00 UTC · broker 2 \(re\)started/);
  });
});
