import { describe, expect, it } from 'vitest';
import { detect } from '../../lib/diagnose/detect.ts';
import type { Finding, FindingKind } from '../../lib/diagnose/types.ts';
import { config, group, healthyCluster, healthyTopic, okProbe, part, probeReport, snapshot, topic } from './fixtures.ts';

const ofKind = (findings: Finding[], kind: FindingKind) => findings.filter((f) => f.kind === kind);
const refs = (f: Finding | undefined) => (f?.affected.partitions ?? []).map((p) => `${p.topic}-${p.partition}`);
const live12 = [1, 2].map((id) => ({ id, host: 'h', port: 9090 + id, rack: null }));

describe('metadata detectors', () => {
  it('a healthy RF=3 cluster yields no finding of warning severity or worse', () => {
    const findings = detect(healthyCluster(), []);
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });

  it('groups 300 offline partitions behind one dead broker into one critical finding naming it', () => {
    const parts = Array.from({ length: 300 }, (_, i) => part(i, -1, [3], [], [3]));
    const s = snapshot([topic('logs', parts, config({ minInsyncReplicas: 1 })), topic('orders', [part(0, 1, [1, 2]), part(1, 2, [2, 1])])], { brokers: live12 });
    const offline = ofKind(detect(s), 'offline-partition');
    expect(offline).toHaveLength(1);
    expect(offline[0]!.severity).toBe('critical');
    expect(offline[0]!.affected.brokers).toEqual([3]);
    expect(offline[0]!.affected.partitions).toHaveLength(300);
    expect(offline[0]!.title).toMatch(/300 partitions offline.*broker 3/);
  });

  it('incident 1: a down broker whose log dirs are empty must not be started before a leader override', () => {
    const s = snapshot([topic('orders', [part(0, -1, [1, 2, 3], [])])], { brokers: [2, 3].map((id) => ({ id, host: 'h', port: 9090 + id, rack: null })) });
    const wiped = probeReport();
    wiped.logDirs = wiped.logDirs.map((d) => ({ ...d, partitionDirCount: 0 }));
    const [withProbe] = ofKind(detect(s, [okProbe(1, wiped)]), 'offline-partition');
    expect(withProbe!.nextActions[0]).toMatch(/^Do not start broker 1 yet: first plan a leader override/);
    expect(withProbe!.summary).toMatch(/Broker 1 has no partition data left on disk/);
    expect(withProbe!.evidence).toContainEqual(expect.objectContaining({ label: 'log dirs on the host', source: 'broker:1' }));
    // The same cluster where broker 1's data is intact (or its host is not probed): bring it back.
    for (const probes of [[okProbe(1, probeReport())], []]) {
      const [f] = ofKind(detect(s, probes), 'offline-partition');
      expect(f!.nextActions[0]).toMatch(/^Find out why broker 1 is down/);
      expect(f!.fingerprint).toBe(withProbe!.fingerprint);
    }
  });

  describe('with eligible leader replicas read (DescribeTopicPartitions)', () => {
    const live23 = [2, 3].map((id) => ({ id, host: 'h', port: 9090 + id, rack: null }));
    const elrPart = (partition: number, elr: number[], lastKnownElr: number[]) => ({ ...part(partition, -1, [1, 2, 3], [], [1]), elr, lastKnownElr });

    it('shows the ELR state in the summary and evidence, and says the ELR member is the lossless way back', () => {
      const s = snapshot([topic('orders', [elrPart(0, [1], [1]), elrPart(1, [1], [1])], config({ minInsyncReplicas: 1 }))], { brokers: live23, partitionSource: 'DescribeTopicPartitions' });
      const [f] = ofKind(detect(s), 'offline-partition');
      expect(f!.summary).toMatch(/Eligible leader replicas: ISR empty, ELR \[1\], last known ELR \[1\]\. Broker 1 is in the ELR: it held every committed write/);
      expect(f!.summary).toMatch(/yet with eligible leader replicas on the controller elects the last known leader when it returns/);
      expect(f!.evidence).toContainEqual({ label: 'eligible leader replicas', value: 'ISR empty, ELR [1], last known ELR [1] (2 partitions)', source: 'DescribeTopicPartitions' });
      expect(f!.evidence).toContainEqual(expect.objectContaining({ label: 'partition', value: 'orders-0 leader=none replicas=[1,2,3] isr=[] elr=[1] lastKnownElr=[1]' }));
    });

    it('a last known leader out of the ELR: re-elected on return even with unclean election off, said per Kafka line', () => {
      const s = snapshot([topic('orders', [elrPart(0, [], [1])], config({ minInsyncReplicas: 1 }))], { brokers: live23, partitionSource: 'DescribeTopicPartitions' });
      const [f] = ofKind(detect(s), 'offline-partition');
      expect(f!.summary).toMatch(/ISR empty, ELR empty, last known ELR \[1\]/);
      expect(f!.summary).toMatch(/Broker 1 led last \(last known ELR\) but is no longer eligible .* \(Kafka 4\.x\): about a second after it starts, or, if its disk was wiped, at the next preferred-leader check/);
      expect(f!.summary).not.toMatch(/within minutes|only a replica from the last ISR can lead/);
    });

    it('a wiped broker that led last: the timing follows the partition state (empty ISR: ELR lines; ISR kept: ZooKeeper / KRaft without ELR)', () => {
      const wiped = probeReport();
      wiped.logDirs = wiped.logDirs.map((d) => ({ ...d, partitionDirCount: 0 }));
      const withElr = snapshot([topic('orders', [elrPart(0, [], [1])])], { brokers: live23, partitionSource: 'DescribeTopicPartitions' });
      expect(ofKind(detect(withElr, [okProbe(1, wiped)]), 'offline-partition')[0]!.summary).toMatch(/if it led last, the controller elects it as the last known leader .* about a second after it starts/);
      const zk = snapshot([topic('orders', [part(0, -1, [1, 2, 3], [1], [1])])], { brokers: live23, partitionSource: 'Metadata' });
      const f = ofKind(detect(zk, [okProbe(1, wiped)]), 'offline-partition')[0]!;
      expect(f.summary).toMatch(/if it led last, the controller elects it even with unclean election disabled, since it is still in the ISR: in ZooKeeper mode as soon as it registers/);
      expect(f.summary).not.toMatch(/Eligible leader replicas/);
    });
  });

  it('splits offline partitions by which brokers are down', () => {
    const s = snapshot(
      [topic('t', [part(0, -1, [3], []), part(1, -1, [3, 2], []), part(2, -1, [2], []), part(3, 1, [1, 2, 3], [1])])],
      { brokers: [{ id: 1, host: 'h', port: 1, rack: null }] },
    );
    const offline = ofKind(detect(s), 'offline-partition');
    expect(offline.map((f) => `${f.affected.brokers.join('+')}: ${refs(f).join(' ')}`).sort()).toEqual(['2+3: t-1', '2: t-2', '3: t-0']);
  });

  it('treats a leader that is not a live broker as offline, like kafka-topics.sh', () => {
    const s = snapshot([topic('t', [part(0, 3, [3, 1], [3])])], { brokers: live12 });
    expect(refs(ofKind(detect(s), 'offline-partition')[0])).toEqual(['t-0']);
  });

  it('under-min-ISR partitions with a leader are an error; offline ones are not repeated there', () => {
    const s = snapshot(
      [
        topic('a', [part(0, 1, [1, 2, 3], [1]), part(1, 2, [1, 2, 3], [2, 1]), part(2, -1, [3], [])], config({ minInsyncReplicas: 2 })),
      ],
      { brokers: live12 },
    );
    const f = detect(s);
    const umi = ofKind(f, 'under-min-isr');
    expect(umi).toHaveLength(1);
    expect(umi[0]!.severity).toBe('error');
    expect(refs(umi[0])).toEqual(['a-0']);
    expect(umi[0]!.affected.brokers).toEqual([2, 3]);
    // a-1 meets min ISR but misses broker 3: under-replicated, a warning.
    const urp = ofKind(f, 'under-replicated');
    expect(urp.map(refs)).toEqual([['a-1']]);
    expect(urp[0]!.severity).toBe('warning');
  });

  it('does not count replicas being added by a reassignment as missing', () => {
    const p = { ...part(0, 1, [1, 2, 3, 4], [1, 2, 3]), addingReplicas: [4] };
    const s = snapshot([topic('t', [p], config({ minInsyncReplicas: 2 }))]);
    expect(detect(s).filter((f) => f.kind === 'under-replicated')).toEqual([]);
  });

  it('an ISR of one with unclean election off is an error naming the only in-sync broker', () => {
    const s = snapshot([
      topic('A', [part(34, 0, [0, 1], [0]), part(35, 0, [0, 1], [0])], config({ minInsyncReplicas: 1 })),
      topic('B', [part(0, 2, [2, 1], [2])], config({ minInsyncReplicas: 1, uncleanLeaderElectionEnable: true })),
    ], { brokers: [0, 1, 2].map((id) => ({ id, host: 'h', port: id, rack: null })) });
    const single = ofKind(detect(s), 'isr-single-replica');
    const by0 = single.find((f) => f.affected.brokers[0] === 0)!;
    const by2 = single.find((f) => f.affected.brokers[0] === 2)!;
    expect(by0.severity).toBe('error');
    expect(refs(by0)).toEqual(['A-34', 'A-35']);
    expect(by2.severity).toBe('warning');
  });

  it('reports replication factor 1 topics once, as a warning', () => {
    const s = snapshot([topic('logs-rf1', [part(0, 1, [1]), part(1, 2, [2])], config({ minInsyncReplicas: 1 })), healthyTopic('orders', 3)]);
    const rf1 = ofKind(detect(s), 'replication-factor-one');
    expect(rf1).toHaveLength(1);
    expect(rf1[0]!.severity).toBe('warning');
    expect(refs(rf1[0])).toEqual(['logs-rf1-0', 'logs-rf1-1']);
  });

  it('names brokers that hold replicas but are not live, and brokers that did not answer', () => {
    const s = snapshot([healthyTopic('t', 6)], { brokers: live12, unreachableBrokers: [2], errors: [{ scope: 'broker:2', message: 'ListGroups: no answer within 3000 ms' }] });
    const bu = ofKind(detect(s), 'broker-unreachable');
    expect(bu.map((f) => f.affected.brokers[0])).toEqual([2, 3]);
    expect(bu[0]!.title).toMatch(/registered but not answering/);
    expect(bu[0]!.evidence.map((e) => e.value)).toContain('ListGroups: no answer within 3000 ms');
    expect(bu[1]!.title).toMatch(/Broker 3 is down \(6 replicas/);
  });

  it('fingerprints do not depend on listing order and differ per broker', () => {
    const mk = (order: number[]) =>
      snapshot([topic('t', order.map((i) => part(i, -1, [i % 2 === 0 ? 3 : 2], [])), config({ minInsyncReplicas: 1 }))], { brokers: [{ id: 1, host: 'h', port: 1, rack: null }] });
    const a = ofKind(detect(mk([0, 1, 2, 3])), 'offline-partition').map((f) => f.fingerprint).sort();
    const b = ofKind(detect(mk([3, 2, 1, 0])), 'offline-partition').map((f) => f.fingerprint).sort();
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(2);
    expect(a[0]).toMatch(/^[0-9a-f]{20}$/);
  });

  it('every finding carries its runbook id and the stable fields', () => {
    const s = snapshot([topic('t', [part(0, -1, [3], [])])], { brokers: live12, groups: [group('g')] });
    for (const f of detect(s)) {
      expect(f.runbook).toBe(f.kind);
      expect(Object.keys(f).sort()).toEqual(['affected', 'evidence', 'fingerprint', 'kind', 'nextActions', 'runbook', 'severity', 'summary', 'title']);
    }
  });
});
