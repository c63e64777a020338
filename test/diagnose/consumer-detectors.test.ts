import { describe, expect, it } from 'vitest';
import type { ConsumerSample } from '../../lib/kafka/types.ts';
import { detectConsumerFindings } from '../../lib/diagnose/checks/consumers.ts';
import { evaluateLag, aggregateSample, appendHistory, historyGivesWindow, type LagHistorySample } from '../../lib/diagnose/lag-verdict.ts';
import { detect } from '../../lib/diagnose/detect.ts';
import { group, healthyTopic, snapshot } from './fixtures.ts';

const sample = (at: number, committed: Record<string, Record<number, number>>, logs: Record<number, [number, number]>): ConsumerSample => ({
  at,
  groups: Object.entries(committed).map(([groupId, parts]) => ({ groupId, error: null, offsets: Object.entries(parts).map(([p, offset]) => ({ topic: 'orders', partition: Number(p), offset })) })),
  logOffsets: Object.entries(logs).map(([p, [start, end]]) => ({ topic: 'orders', partition: Number(p), start, end })),
});

describe('evaluateLag (Burrow-style, over samples)', () => {
  it('gives no verdict from one sample', () => expect(evaluateLag([{ committed: 0, end: 100 }], 1)).toBe('OK'));
  it('STALLED: members present, commit unchanged, end moving', () => expect(evaluateLag([{ committed: 10, end: 50 }, { committed: 10, end: 80 }], 2)).toBe('STALLED'));
  it('STOPPED: no members, commit unchanged, lag left', () => expect(evaluateLag([{ committed: 10, end: 50 }, { committed: 10, end: 50 }], 0)).toBe('STOPPED'));
  it('LAGGING: commits move but lag grows every step', () => expect(evaluateLag([{ committed: 10, end: 50 }, { committed: 20, end: 70 }, { committed: 30, end: 95 }], 1)).toBe('LAGGING'));
  it('OK: commits move and lag shrinks once', () => expect(evaluateLag([{ committed: 10, end: 50 }, { committed: 40, end: 70 }, { committed: 50, end: 95 }], 1)).toBe('OK'));
  it('OK: caught up, or idle (nothing written, members present)', () => {
    expect(evaluateLag([{ committed: 10, end: 10 }, { committed: 10, end: 10 }], 0)).toBe('OK');
    expect(evaluateLag([{ committed: 10, end: 50 }, { committed: 10, end: 50 }], 1)).toBe('OK');
  });
});

describe('consumer detectors', () => {
  const topics = [healthyTopic('orders', 3)];

  it('names the group, its state and the messages skipped when retention passed its offset', () => {
    const s = snapshot(topics, {
      groups: [group('billing', { state: 'Empty', members: 0 })],
      consumerSamples: [sample(0, { billing: { 0: 100, 1: 500, 2: 7 } }, { 0: [250, 900], 1: [400, 900], 2: [0, 7] })],
    });
    const [f] = detectConsumerFindings(s).filter((x) => x.kind === 'consumer-offset-below-log-start');
    expect(f!.affected.groups).toEqual(['billing']);
    expect(f!.affected.partitions).toEqual([{ topic: 'orders', partition: 0 }]);
    expect(f!.title).toContain('Empty');
    expect(f!.title).toContain('150 messages');
    expect(f!.evidence.map((e) => e.value)).toContain('committed 100, log start 250, log end 900, 150 messages skipped');
  });

  it('reports the gap of a group committed past a truncated end', () => {
    const s = snapshot(topics, {
      groups: [group('audit-reader', { state: 'Stable', members: 1 })],
      consumerSamples: [sample(0, { 'audit-reader': { 0: 2000 } }, { 0: [0, 1000] })],
    });
    const [f] = detectConsumerFindings(s);
    expect(f!.kind).toBe('consumer-offset-above-log-end');
    expect(f!.title).toContain('1000 offsets past the log end');
    expect(f!.summary).toContain('Stable, 1 member');
  });

  it('calls a group with members, an unchanged commit and a moving end STALLED, naming only the stuck partitions', () => {
    const s = snapshot(topics, {
      groups: [group('payments', { members: 2 })],
      consumerSamples: [sample(0, { payments: { 0: 10, 1: 50 } }, { 0: [0, 40], 1: [0, 50] }), sample(3000, { payments: { 0: 10, 1: 50 } }, { 0: [0, 90], 1: [0, 50] })],
    });
    const [f] = detectConsumerFindings(s);
    expect(f!.kind).toBe('consumer-lag');
    expect(f!.severity).toBe('error');
    expect(f!.title).toContain('STALLED');
    expect(f!.affected.partitions).toEqual([{ topic: 'orders', partition: 0 }]);
  });

  it('judges the group over kept history when this run has one sample', () => {
    const members = new Map([['slow', 1]]);
    const history: LagHistorySample[] = [
      aggregateSample(sample(0, { slow: { 0: 10 } }, { 0: [0, 100] }), members),
      aggregateSample(sample(60_000, { slow: { 0: 50 } }, { 0: [0, 200] }), members),
    ];
    const s = snapshot(topics, { groups: [group('slow', { members: 1 })], consumerSamples: [sample(120_000, { slow: { 0: 90 } }, { 0: [0, 300] })] });
    const [f] = detectConsumerFindings(s, history);
    expect(f!.title).toContain('LAGGING');
    expect(detectConsumerFindings(s)).toEqual([]);
  });

  it('says nothing without samples, and the diagnosis includes consumer findings', () => {
    expect(detectConsumerFindings(snapshot(topics, { groups: [group('g')] }))).toEqual([]);
    const s = snapshot(topics, { groups: [group('g', { members: 0 })], consumerSamples: [sample(0, { g: { 0: 1 } }, { 0: [5, 9] })] });
    expect(detect(s).map((f) => f.kind)).toContain('consumer-offset-below-log-start');
  });
});

describe('lag history', () => {
  it('keeps recent samples only and says when it already gives a window', () => {
    const h = appendHistory([{ at: 0, groups: {} }], [{ at: 40 * 60_000, groups: {} }, { at: 45 * 60_000, groups: {} }], 45 * 60_000);
    expect(h.map((x) => x.at)).toEqual([40 * 60_000, 45 * 60_000]);
    expect(historyGivesWindow(h, 45 * 60_000 + 1000)).toBe(true);
    expect(historyGivesWindow([{ at: 1000, groups: {} }], 2000)).toBe(false);
  });
});
