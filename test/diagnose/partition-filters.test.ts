import { describe, expect, it } from 'vitest';
import { isAtMinIsr, isUnavailable, isUnderMinIsr, isUnderReplicated, partitionHealthSets } from '../../lib/diagnose/partition-filters.ts';
import { config, part, snapshot, topic } from './fixtures.ts';

const live = new Set([1, 2]);

describe('kafka-topics.sh filter semantics', () => {
  it('unavailable: no leader, or a leader that is not live', () => {
    expect(isUnavailable(part(0, -1, [1, 2], []), live)).toBe(true);
    expect(isUnavailable(part(0, 3, [3, 1], [3]), live)).toBe(true);
    expect(isUnavailable(part(0, 1, [1, 3], [1]), live)).toBe(false);
  });

  it('under-replicated: RF minus adding replicas − |ISR| > 0; a leaderless RF=1 partition with empty ISR counts', () => {
    expect(isUnderReplicated(part(0, 1, [1, 2, 3], [1, 2]))).toBe(true);
    expect(isUnderReplicated(part(0, 1, [1, 2, 3], [1, 2, 3]))).toBe(false);
    expect(isUnderReplicated({ ...part(0, 1, [1, 2, 3, 4], [1, 2, 3]), addingReplicas: [4] })).toBe(false);
    expect(isUnderReplicated(part(0, -1, [3], []))).toBe(true);
  });

  it('under-min-ISR: no leader, or |ISR| < min.insync.replicas; at-min-ISR: equal', () => {
    expect(isUnderMinIsr(part(0, -1, [1, 2, 3], [1, 2, 3]), 1)).toBe(true);
    expect(isUnderMinIsr(part(0, 1, [1, 2, 3], [1]), 2)).toBe(true);
    expect(isUnderMinIsr(part(0, 1, [1, 2, 3], [1, 2]), 2)).toBe(false);
    expect(isAtMinIsr(part(0, 1, [1, 2, 3], [1, 2]), 2)).toBe(true);
  });

  it('computes all four sets over a snapshot with each topic\'s own min ISR', () => {
    const s = snapshot(
      [
        topic('a', [part(0, 1, [1, 2, 3], [1, 2]), part(1, -1, [3], [])], config({ minInsyncReplicas: 2 })),
        topic('b', [part(0, 2, [1, 2], [2])], config({ minInsyncReplicas: 1 })),
        topic('c', [part(0, 1, [1, 2], [1])], null),
      ],
      { brokers: [1, 2].map((id) => ({ id, host: 'h', port: id, rack: null })) },
    );
    const ids = (xs: { topic: string; partition: number }[]) => xs.map((x) => `${x.topic}:${x.partition}`);
    const sets = partitionHealthSets(s);
    expect(ids(sets.unavailable)).toEqual(['a:1']);
    expect(ids(sets.underReplicated)).toEqual(['a:0', 'a:1', 'b:0', 'c:0']);
    expect(ids(sets.underMinIsr)).toEqual(['a:1']);
    expect(ids(sets.atMinIsr)).toEqual(['a:0', 'b:0', 'c:0']);
  });
});
