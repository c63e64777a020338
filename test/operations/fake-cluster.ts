// A scripted Kafka cluster behind the KafkaAdmin interface, for unit tests of
// the operation runner (resume, park, cancel, throttle bookkeeping) that must
// run in milliseconds. The same flows run against real Kafka in
// test/operations/*.int.test.ts; this only stands in where timing must be
// controlled. Reassignments finish after `pollsToFinish` listings.
import type { KafkaAdmin, OngoingReassignment, PartitionResult, TopicPartition } from '../../lib/kafka/admin.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import type { ProducerStateEntry } from '../../lib/kafka/api/describe-producers/call.ts';
import type { OperationIo } from '../../lib/operations/runner.ts';
import type { RestartIo } from '../../lib/operations/kinds/restart-brokers/plan.ts';

interface FakePartition {
  leader: number;
  replicas: number[];
  isr: number[];
  end: number;
}

const key = (tp: TopicPartition) => `${tp.topic}\u0000${tp.partition}`;

export class FakeCluster implements OperationIo {
  live = new Set([1, 2, 3]);
  readonly topics = new Map<string, FakePartition[]>();
  readonly moving = new Map<string, { target: number[]; original: number[]; polls: number }>();
  /** "broker:1" / "topic:orders" → config name → value. */
  readonly configs = new Map<string, Map<string, string>>();
  readonly committed = new Map<string, Map<string, number>>();
  readonly members = new Map<string, number>();
  /** DescribeProducers' answer per partition (`topic\u0000partition`); none by default. */
  readonly producers = new Map<string, ProducerStateEntry[]>();
  readonly calls: string[] = [];
  pollsToFinish = 2;
  /** Metadata calls during which a cancelled partition still shows its in-flight replicas (a lagging controller). */
  revertLagPolls = 0;
  readonly reverting = new Map<string, { shown: number[]; polls: number }>();
  /** Broker restarts: a scripted host (absent: no host access). */
  restart?: () => Promise<RestartIo | null>;
  /** Kafka's cluster id, as Metadata reports it. */
  clusterId = 'fake';
  /** Every topic's min.insync.replicas. */
  minIsr = 1;
  /** Make the next calls of this method throw (transient trouble). */
  /** The next `times` calls of `method` throw `error` (default: a connection refused). */
  failNext: { method: string; times: number; error?: Error } | null = null;
  adminsOpen = 0;

  addTopic(name: string, replicas: number[][], end = 1000): this {
    this.topics.set(name, replicas.map((r) => ({ leader: r[0]!, replicas: [...r], isr: [...r], end })));
    return this;
  }

  partition(topic: string, partition: number): FakePartition {
    const p = this.topics.get(topic)?.[partition];
    if (!p) throw new Error(`no ${topic}-${partition}`);
    return p;
  }

  config(resource: string): Map<string, string> {
    let c = this.configs.get(resource);
    if (!c) this.configs.set(resource, (c = new Map()));
    return c;
  }

  async snapshot(topics: string[] | null): Promise<ClusterSnapshot> {
    this.maybeFail('snapshot');
    return {
      takenAt: new Date().toISOString(),
      clusterId: this.clusterId,
      controllerId: 1,
      brokers: [...this.live].sort((a, b) => a - b).map((id) => ({ id, host: '127.0.0.1', port: 9000 + id })),
      topics: [...this.topics.entries()]
        .filter(([name]) => !topics || topics.includes(name))
        .map(([name, parts]) => ({
          name,
          internal: false,
          config: { minInsyncReplicas: this.minIsr, uncleanLeaderElectionEnable: false, cleanupPolicy: 'delete', segmentBytes: null },
          partitions: parts.map((p, partition) => {
            const m = this.moving.get(key({ topic: name, partition }));
            return { partition, leader: p.leader, replicas: [...p.replicas], isr: [...p.isr], offlineReplicas: p.replicas.filter((r) => !this.live.has(r)), ...(m ? { addingReplicas: m.target.filter((r) => !m.original.includes(r)) } : {}) };
          }),
        })),
      groups: [],
      offsetsTopicPartitions: 50,
      unreachableBrokers: [],
      errors: [],
      partial: false,
    };
  }

  async openAdmin(): Promise<KafkaAdmin> {
    this.maybeFail('openAdmin');
    this.adminsOpen++;
    // The admin object's methods close over the cluster they script.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const c = this;
    const ok = (tp: TopicPartition): PartitionResult => ({ topic: tp.topic, partition: tp.partition, errorCode: 0, error: null });
    return {
      async metadata(topics) {
        c.maybeFail('metadata');
        return {
          brokers: [...c.live].map((nodeId) => ({ nodeId, host: '127.0.0.1', port: 9000 + nodeId, rack: null })),
          clusterId: c.clusterId,
          controllerId: 1,
          topicMetadata: [...c.topics.entries()]
            .filter(([name]) => !topics || topics.includes(name))
            .map(([topic, parts]) => ({
              topicErrorCode: 0,
              topic,
              isInternal: false,
              partitionMetadata: parts.map((p, partitionId) => {
                const lag = c.reverting.get(key({ topic, partition: partitionId }));
                if (lag && lag.polls-- <= 0) c.reverting.delete(key({ topic, partition: partitionId }));
                const replicas = lag && lag.polls >= 0 ? lag.shown : p.replicas;
                return { partitionErrorCode: 0, partitionId, leader: p.leader, replicas: [...replicas], isr: [...p.isr] };
              }),
            })),
        };
      },
      async alterPartitionReassignments(targets) {
        c.maybeFail('alterPartitionReassignments');
        c.calls.push(`alter ${targets.map((t) => `${t.topic}-${t.partition}:${t.replicas?.join(',') ?? 'cancel'}`).join(' ')}`);
        return targets.map((t) => {
          const p = c.partition(t.topic, t.partition);
          const k = key(t);
          if (t.replicas === null) {
            const m = c.moving.get(k);
            if (!m) return { ...ok(t), errorCode: 85, error: 'NO_REASSIGNMENT_IN_PROGRESS' };
            if (c.revertLagPolls > 0) c.reverting.set(k, { shown: [...new Set([...m.original, ...m.target])], polls: c.revertLagPolls });
            p.replicas = m.original;
            p.isr = p.isr.filter((r) => m.original.includes(r));
            c.moving.delete(k);
            return ok(t);
          }
          if (p.replicas.join(',') === t.replicas.join(',') && !c.moving.has(k)) return ok(t);
          const original = c.moving.get(k)?.original ?? [...p.replicas];
          c.moving.set(k, { target: [...t.replicas], original, polls: 0 });
          p.replicas = [...new Set([...t.replicas, ...original])];
          return ok(t);
        });
      },
      async listPartitionReassignments(partitions) {
        c.maybeFail('listPartitionReassignments');
        const out: OngoingReassignment[] = [];
        for (const [k, m] of [...c.moving.entries()]) {
          const [topic, part] = k.split('\u0000') as [string, string];
          const tp = { topic, partition: Number(part) };
          if (partitions && !partitions.some((x) => key(x) === k)) continue;
          const adding = m.target.filter((r) => !m.original.includes(r));
          // A replica on a stopped broker never catches up.
          if (++m.polls >= c.pollsToFinish && adding.every((r) => c.live.has(r))) {
            const p = c.partition(tp.topic, tp.partition);
            p.replicas = [...m.target];
            p.isr = [...m.target];
            if (!m.target.includes(p.leader)) p.leader = m.target[0]!;
            c.moving.delete(k);
            continue;
          }
          out.push({ ...tp, replicas: [...new Set([...m.target, ...m.original])], addingReplicas: adding, removingReplicas: m.original.filter((r) => !m.target.includes(r)) });
        }
        return out;
      },
      async electLeaders(type, partitions) {
        c.calls.push(`elect ${type} ${partitions.map((p) => `${p.topic}-${p.partition}`).join(' ')}`);
        return partitions.map((tp) => {
          const p = c.partition(tp.topic, tp.partition);
          const first = p.replicas.find((r) => c.live.has(r) && (type === 'unclean' || p.isr.includes(r)));
          if (first === undefined) return { ...ok(tp), errorCode: 83, error: 'ELIGIBLE_LEADERS_NOT_AVAILABLE' };
          if (p.leader === first) return { ...ok(tp), errorCode: 84, error: 'ELECTION_NOT_NEEDED' };
          p.leader = first;
          if (!p.isr.includes(first)) p.isr = [first];
          return ok(tp);
        });
      },
      async incrementalAlterConfigs(resources) {
        c.maybeFail('incrementalAlterConfigs');
        return resources.map((r) => {
          const cfg = c.config(`${r.type}:${r.name}`);
          for (const op of r.ops) {
            const current = (cfg.get(op.name) ?? '').split(',').filter(Boolean);
            const values = (op.value ?? '').split(',').filter(Boolean);
            if (op.op === 'set') cfg.set(op.name, op.value ?? '');
            else if (op.op === 'delete') cfg.delete(op.name);
            else if (op.op === 'append') cfg.set(op.name, [...current, ...values.filter((v) => !current.includes(v))].join(','));
            // As Kafka 4.1 does: subtracting the last entries leaves the key set to "", only DELETE removes it.
            else cfg.set(op.name, current.filter((v) => !values.includes(v)).join(','));
          }
          return { type: r.type, name: r.name, errorCode: 0, error: null };
        });
      },
      async describeConfigs(resources) {
        return resources.map((r) => {
          const cfg = c.config(`${r.type}:${r.name}`);
          const names = r.names ?? [...cfg.keys()];
          return {
            type: r.type,
            name: r.name,
            errorCode: 0,
            error: null,
            entries: names.map((name) => ({ name, value: cfg.get(name) ?? null, isDefault: !cfg.has(name), source: cfg.has(name) ? 2 : 5, isSensitive: false, readOnly: false })),
          };
        });
      },
      async describeLogDirs(brokerIds, partitions) {
        const out = new Map();
        for (const b of brokerIds) {
          if (!c.live.has(b)) {
            out.set(b, { error: 'broker unreachable', logDirs: [] });
            continue;
          }
          const replicas = [];
          for (const [topic, parts] of c.topics) {
            for (const [partition, p] of parts.entries()) {
              if (partitions && !partitions.some((x) => x.topic === topic && x.partition === partition)) continue;
              const m = c.moving.get(key({ topic, partition }));
              const adding = m && !m.original.includes(b) && m.target.includes(b);
              if (!p.replicas.includes(b) && !adding) continue;
              const full = p.end * 100;
              replicas.push({ topic, partition, sizeBytes: adding ? Math.round((full * Math.min(m.polls, c.pollsToFinish)) / c.pollsToFinish) : full, offsetLag: 0, isFuture: false });
            }
          }
          out.set(b, { error: null, logDirs: [{ path: `/data/${b}`, errorCode: 0, error: null, totalBytes: null, usableBytes: null, partitions: replicas }] });
        }
        return out;
      },
      async listOffsets(partitions) {
        return partitions.map((tp) => ({ ...ok(tp), offset: c.partition(tp.topic, tp.partition).end }));
      },
      async listGroups() {
        return [...c.committed.keys()].map((groupId) => ({ groupId, protocolType: 'consumer' }));
      },
      async describeGroups(ids) {
        return ids.map((groupId) => ({ groupId, errorCode: 0, error: null, state: (c.members.get(groupId) ?? 0) > 0 ? 'Stable' : 'Empty', protocolType: 'consumer', members: c.members.get(groupId) ?? 0, coordinator: 1 }));
      },
      async fetchCommittedOffsets(groupId, partitions) {
        const g = c.committed.get(groupId) ?? new Map<string, number>();
        return (partitions ?? []).map((tp) => ({ ...ok(tp), offset: g.get(key(tp)) ?? -1 }));
      },
      async commitOffsets(groupId, offsets) {
        if ((c.members.get(groupId) ?? 0) > 0) return offsets.map((o) => ({ ...ok(o), errorCode: 25, error: 'UNKNOWN_MEMBER_ID' }));
        const g = c.committed.get(groupId) ?? new Map<string, number>();
        c.committed.set(groupId, g);
        for (const o of offsets) g.set(key(o), o.offset);
        return offsets.map(ok);
      },
      // Transactional producers only where a test scripted them (`producers`); no coordinator lists any.
      async describeProducers(partitions) {
        return partitions.map((tp) => ({ ...ok(tp), leader: c.partition(tp.topic, tp.partition).leader, producers: c.producers.get(key(tp)) ?? [] }));
      },
      async listTransactions() {
        return { transactions: [], failures: [] };
      },
      async describeTransactions(ids) {
        return ids.map((transactionalId) => ({ transactionalId, errorCode: 105, error: 'TRANSACTIONAL_ID_NOT_FOUND', coordinator: null, state: 'Unknown', producerId: -1, producerEpoch: -1, timeoutMs: -1, startTimeMs: -1, partitions: [] }));
      },
      async abortTransaction() {
        throw new Error('not scripted');
      },
      async close() {
        c.adminsOpen--;
      },
    };
  }

  private maybeFail(method: string): void {
    if (this.failNext?.method === method && this.failNext.times > 0) {
      this.failNext.times--;
      throw this.failNext.error ?? new Error(`${method}: connection refused (scripted)`);
    }
  }
}
