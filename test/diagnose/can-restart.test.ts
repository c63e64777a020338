import { describe, expect, it } from 'vitest';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import { config, group, healthyCluster, part, probeReport, snapshot, topic } from './fixtures.ts';

describe('assessRestart', () => {
  it('says yes on a healthy RF=3 / min ISR 2 cluster, and names the coordinators that move', () => {
    const s = healthyCluster();
    // consumer-1 (like the fixture's "search") hashes to __consumer_offsets-6, which broker 1 leads here.
    s.groups.push(group('consumer-1'));
    const a = assessRestart(s, 1, probeReport());
    expect(a.verdict).toBe('yes');
    expect(a.reasons).toEqual([]);
    expect(a.wouldGoOffline).toEqual([]);
    expect(a.wouldFallBelowMinIsr).toEqual([]);
    expect(a.recovering).toBe(false);
    // healthyTopic leads partition i on broker 1 + (i % 3): broker 1 leads 0, 3, 6, ...
    expect(a.coordinatorsMoving.map((c) => c.offsetsPartition).slice(0, 3)).toEqual([0, 3, 6]);
    expect(a.coordinatorsMoving[0]!.newLeader).toBe(2);
    expect(a.coordinatorsMoving.find((c) => c.offsetsPartition === 6)!.groups).toEqual(['consumer-1', 'search']);
  });

  it('says no when the broker is the only in-sync replica (incident 1), listing the partitions', () => {
    const s = snapshot([topic('A', [part(34, 0, [0, 1], [0]), part(35, 1, [1, 0], [1, 0])], config({ minInsyncReplicas: 1 }))], {
      brokers: [0, 1].map((id) => ({ id, host: 'h', port: id, rack: null })),
    });
    const a = assessRestart(s, 0);
    expect(a.verdict).toBe('no');
    expect(a.wouldGoOffline).toEqual([{ topic: 'A', partition: 34 }]);
    expect(a.reasons[0]).toMatch(/1 partition would go offline.*A-34/);
    expect(a.recovering).toBeNull();
  });

  describe('with eligible leader replicas read (KIP-966, DescribeTopicPartitions)', () => {
    const elr = (p: ReturnType<typeof part>, elrIds: number[], lastKnownElr: number[] = []) => ({ ...p, elr: elrIds, lastKnownElr });

    it('says no when the stop leaves no ISR and no live ELR member, and says that ELR was checked', () => {
      const s = snapshot([topic('A', [elr(part(0, 1, [1, 2, 3], [1]), [])], config({ minInsyncReplicas: 1 }))], { partitionSource: 'DescribeTopicPartitions' });
      const a = assessRestart(s, 1);
      expect(a.verdict).toBe('no');
      expect(a.wouldGoOffline).toEqual([{ topic: 'A', partition: 0 }]);
      expect(a.reasons[0]).toMatch(/only live in-sync replica and no live eligible leader replica \(ELR\) could take over \(A-0\)/);
    });

    it('counts a live ELR member as a successor: not offline, but led with an ISR of one (below min ISR 2 here)', () => {
      // ISR [3], ELR [1, 2]: brokers 1 and 2 were in the ISR when it shrank below min.insync.replicas.
      const s = snapshot([topic('A', [elr(part(0, 3, [3, 2, 1], [3]), [2, 1])], config({ minInsyncReplicas: 2 }))], { partitionSource: 'DescribeTopicPartitions' });
      const a = assessRestart(s, 3);
      expect(a.wouldGoOffline).toEqual([]);
      expect(a.wouldFallBelowMinIsr).toEqual([{ topic: 'A', partition: 0, isr: 1, minIsr: 2 }]);
      expect(a.notes.join(' ')).toMatch(/1 partition would be led by an eligible leader replica .*A-0 → broker 2/);
    });

    it('an ELR member that is down does not count; neither does the broker being stopped', () => {
      const down = snapshot([topic('A', [elr(part(0, 3, [3, 2, 1], [3]), [2])], config({ minInsyncReplicas: 2 }))], {
        partitionSource: 'DescribeTopicPartitions',
        brokers: [1, 3].map((id) => ({ id, host: 'h', port: id, rack: null })),
      });
      expect(assessRestart(down, 3).wouldGoOffline).toEqual([{ topic: 'A', partition: 0 }]);
      const self = snapshot([topic('A', [elr(part(0, 3, [3, 2, 1], [3]), [3])], config({ minInsyncReplicas: 2 }))], { partitionSource: 'DescribeTopicPartitions' });
      expect(assessRestart(self, 3).wouldGoOffline).toEqual([{ topic: 'A', partition: 0 }]);
    });

    it('without ELR (Metadata only) an empty remaining ISR is offline, as before', () => {
      const s = snapshot([topic('A', [part(0, 3, [3, 2, 1], [3])], config({ minInsyncReplicas: 1 }))], { partitionSource: 'Metadata' });
      const a = assessRestart(s, 3);
      expect(a.wouldGoOffline).toEqual([{ topic: 'A', partition: 0 }]);
      expect(a.reasons[0]).not.toMatch(/ELR/);
    });
  });

  it('says no for an RF=1 partition on the broker', () => {
    const s = snapshot([topic('logs-rf1', [part(0, 3, [3], [3]), part(1, 1, [1], [1])], config({ minInsyncReplicas: 1 }))]);
    expect(assessRestart(s, 3).wouldGoOffline).toEqual([{ topic: 'logs-rf1', partition: 0 }]);
  });

  it('says no when partitions would fall below min.insync.replicas (Strimzi canRoll)', () => {
    const s = snapshot([topic('orders', [part(0, 1, [1, 2, 3], [1, 2]), part(1, 2, [1, 2, 3], [2, 3])], config({ minInsyncReplicas: 2 }))]);
    const a = assessRestart(s, 1);
    expect(a.verdict).toBe('no');
    expect(a.wouldFallBelowMinIsr).toEqual([{ topic: 'orders', partition: 0, isr: 1, minIsr: 2 }]);
    // Broker 1 is not in orders-1's ISR: restarting it changes nothing there.
    expect(assessRestart(s, 3).wouldFallBelowMinIsr).toEqual([{ topic: 'orders', partition: 1, isr: 1, minIsr: 2 }]);
  });

  it('says no while the broker is still recovering logs or loading offsets', () => {
    expect(assessRestart(healthyCluster(), 2, probeReport({ recoveryInProgress: true })).reasons.join(' ')).toMatch(/still recovering logs/);
    const loading = probeReport({ consumerOffsets: [{ partition: 4, logDir: '/d', segments: 900, bytes: 9e10, lastLoadStart: 'x', lastLoadFinish: null, loading: true }] });
    const a = assessRestart(healthyCluster(), 2, loading);
    expect(a.verdict).toBe('no');
    expect(a.recovering).toBe(true);
    expect(a.reasons.join(' ')).toMatch(/__consumer_offsets-4/);
  });

  it('says no on a partial snapshot or when another broker does not answer', () => {
    expect(assessRestart({ ...healthyCluster(), partial: true }, 1).verdict).toBe('no');
    const a = assessRestart({ ...healthyCluster(), unreachableBrokers: [3] }, 1);
    expect(a.reasons.join(' ')).toMatch(/Other brokers are not answering \(3\)/);
  });

  it('says no, clearly, for a broker id the cluster does not know', () => {
    const a = assessRestart(healthyCluster(), 42);
    expect(a.verdict).toBe('no');
    expect(a.reasons[0]).toMatch(/not part of this cluster/);
  });
});
