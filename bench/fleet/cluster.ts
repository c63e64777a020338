// The replayed fleet: a deterministic 50-broker, 200,000-partition cluster
// with a few of the states an incident brings (offline and under-replicated
// partitions, lagging consumer groups). Plain data; server.ts encodes it.
import { offsetsPartitionFor } from '../../lib/kafka/group-partition.ts';

export const BROKERS = 50;
export const PORT_BASE = 21000;
export const TOPICS = 2000;
export const PARTITIONS_PER_TOPIC = 100;
export const OFFSETS_PARTITIONS = 50;
export const GROUPS = 5000;

export interface Partition {
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
  logStart: number;
  logEnd: number;
}
export interface Topic {
  name: string;
  internal: boolean;
  partitions: Partition[];
}
export interface Group {
  groupId: string;
  topic: string;
  /** Committed offsets lag the log end by this much. */
  lag: number;
  members: number;
  coordinator: number;
}

export interface Fleet {
  brokers: { id: number; port: number; rack: string }[];
  controllerId: number;
  topics: Topic[];
  byName: Map<string, Topic>;
  groups: Group[];
  groupsById: Map<string, Group>;
}

export function buildFleet(): Fleet {
  const brokers = Array.from({ length: BROKERS }, (_, i) => ({ id: i + 1, port: PORT_BASE + i, rack: `az-${i % 3}` }));
  const topics: Topic[] = [];
  const replicasFor = (seed: number) => [0, 1, 2].map((k) => ((seed + k * 17) % BROKERS) + 1);
  for (let t = 0; t < TOPICS; t++) {
    const partitions: Partition[] = [];
    for (let p = 0; p < PARTITIONS_PER_TOPIC; p++) {
      const n = t * PARTITIONS_PER_TOPIC + p;
      const replicas = replicasFor(t * 7 + p);
      let isr = replicas;
      let leader = replicas[0]!;
      // 1 in 400 under-replicated, 20 partitions of one topic offline.
      if (n % 400 === 7) isr = replicas.slice(0, 2);
      if (t === 1234 && p < 20) {
        leader = -1;
        isr = [];
      }
      partitions.push({ partition: p, leader, replicas, isr, logStart: (n * 13) % 1000, logEnd: 1_000_000 + ((n * 7919) % 100_000) });
    }
    topics.push({ name: `svc-${String(t % 40).padStart(2, '0')}.events-${String(t).padStart(4, '0')}`, internal: false, partitions });
  }
  const offsets: Partition[] = Array.from({ length: OFFSETS_PARTITIONS }, (_, p) => {
    const replicas = replicasFor(p * 3);
    return { partition: p, leader: replicas[0]!, replicas, isr: replicas, logStart: 0, logEnd: 10_000 };
  });
  topics.push({ name: '__consumer_offsets', internal: true, partitions: offsets });
  const groups: Group[] = Array.from({ length: GROUPS }, (_, g) => {
    const groupId = `consumer-${String(g).padStart(4, '0')}`;
    return {
      groupId,
      topic: topics[g % TOPICS]!.name,
      // 1 in 100 groups lags (an incident); the rest are caught up.
      lag: g % 100 === 3 ? 50_000 : 0,
      members: 1 + (g % 5),
      coordinator: offsets[offsetsPartitionFor(groupId, OFFSETS_PARTITIONS)]!.leader,
    };
  });
  return {
    brokers,
    controllerId: 1,
    topics,
    byName: new Map(topics.map((t) => [t.name, t])),
    groups,
    groupsById: new Map(groups.map((g) => [g.groupId, g])),
  };
}
