// DescribeProducers (API key 61, KIP-664) at each partition's leader (or at
// one chosen broker: any replica answers for its own log), routed by the
// router's connections (router/spec.ts LentRouting). A broker without the API
// (before 2.8) gives UNSUPPORTED_VERSION per partition, never a throw.
import { mapLimit } from '../../limits.ts';
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { tpKey, type TopicPartition } from '../../partitions.ts';
import { lentTransportError } from '../../router/results.ts';
import type { LentRouting } from '../../router/spec.ts';
import { DescribeProducers, type ProducerStateEntry } from './codec.ts';

export type { ProducerStateEntry };

const { NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, NETWORK_EXCEPTION, REQUEST_TIMED_OUT, UNKNOWN_TOPIC_OR_PARTITION } = KafkaErrorCode;

export interface PartitionProducers extends TopicPartition {
  errorCode: number;
  error: string | null;
  /** The leader asked, null when there was none. */
  leader: number | null;
  producers: ProducerStateEntry[];
}

/** `brokerId` asks that broker (any replica answers for its own log, leader or not) instead of each leader. */
export async function describeProducersVia(r: LentRouting, partitions: readonly TopicPartition[], brokerId?: number): Promise<PartitionProducers[]> {
  const out = new Map<string, PartitionProducers>();
  const set = (tp: TopicPartition, leader: number | null, errorCode: number, error: string | null, producers: ProducerStateEntry[] = []) =>
    out.set(tpKey(tp.topic, tp.partition), { topic: tp.topic, partition: tp.partition, leader, errorCode, error, producers });
  const retriable = new Set<number>([NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, NETWORK_EXCEPTION, REQUEST_TIMED_OUT]);
  let pending = [...partitions];
  // A leader that moved between Metadata and the request: one more round with fresh Metadata.
  for (let round = 0; round < 2 && pending.length > 0; round++) {
    const leaders = await r.leaders([...new Set(pending.map((p) => p.topic))]);
    const byLeader = new Map<number, TopicPartition[]>();
    for (const tp of pending) {
      const leader = brokerId ?? leaders.get(tpKey(tp.topic, tp.partition));
      if (leader === undefined) set(tp, null, UNKNOWN_TOPIC_OR_PARTITION, describeError(UNKNOWN_TOPIC_OR_PARTITION));
      else if (leader < 0 || !r.brokerConn(leader)) set(tp, null, LEADER_NOT_AVAILABLE, describeError(LEADER_NOT_AVAILABLE));
      else {
        const list = byLeader.get(leader);
        if (list) list.push(tp);
        else byLeader.set(leader, [tp]);
      }
    }
    await mapLimit([...byLeader], r.concurrency, async ([leader, tps]) => {
      try {
        const res = await r.brokerConn(leader)!.request(DescribeProducers, { partitions: tps });
        for (const t of res.topics) for (const p of t.partitions) set({ topic: t.name, partition: p.partitionIndex }, leader, p.errorCode, describeError(p.errorCode, p.errorMessage), p.activeProducers);
        for (const tp of tps) if (!out.has(tpKey(tp.topic, tp.partition))) set(tp, leader, -1, 'UNKNOWN_SERVER_ERROR: the response has no result for this partition');
      } catch (err) {
        const t = lentTransportError(err, `leader ${leader}`);
        for (const tp of tps) set(tp, leader, t.errorCode, t.error);
      }
    });
    pending = round === 0 && brokerId === undefined ? pending.filter((tp) => retriable.has(out.get(tpKey(tp.topic, tp.partition))?.errorCode ?? 0)) : [];
  }
  return partitions.map((tp) => out.get(tpKey(tp.topic, tp.partition))!);
}

