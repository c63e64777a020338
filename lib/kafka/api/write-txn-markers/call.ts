// WriteTxnMarkers (API key 27): the abort `kafka-transactions.sh abort` sends,
// one ABORT marker for one partition, at the partition's leader.
import { describeError, KafkaErrorCode } from '../../errors.ts';
import { tpKey, type TopicPartition } from '../../partitions.ts';
import { lentTransportError } from '../../router/results.ts';
import type { LentRouting } from '../../router/spec.ts';
import { WriteTxnMarkers } from './codec.ts';

const { LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION } = KafkaErrorCode;

export interface AbortSpec extends TopicPartition {
  producerId: number;
  producerEpoch: number;
  /** The partition's coordinator epoch for this producer (DescribeProducers); -1 is sent as 0, as Kafka's tool does. */
  coordinatorEpoch: number;
}

/** The abort of `kafka-transactions.sh abort`: one ABORT marker for one partition, at its leader. */
export async function abortTransactionVia(r: LentRouting, spec: AbortSpec): Promise<{ errorCode: number; error: string | null; leader: number | null }> {
  const leaders = await r.leaders([spec.topic]);
  const leader = leaders.get(tpKey(spec.topic, spec.partition));
  if (leader === undefined) return { errorCode: UNKNOWN_TOPIC_OR_PARTITION, error: describeError(UNKNOWN_TOPIC_OR_PARTITION), leader: null };
  const conn = leader >= 0 ? r.brokerConn(leader) : null;
  if (!conn) return { errorCode: LEADER_NOT_AVAILABLE, error: describeError(LEADER_NOT_AVAILABLE), leader: null };
  try {
    const res = await conn.request(WriteTxnMarkers, {
      markers: [
        {
          producerId: spec.producerId,
          producerEpoch: spec.producerEpoch,
          commit: false,
          coordinatorEpoch: Math.max(0, spec.coordinatorEpoch),
          partitions: [{ topic: spec.topic, partition: spec.partition }],
        },
      ],
    });
    const marker = res.markers.find((m) => m.producerId === spec.producerId);
    const p = marker?.topics.find((t) => t.name === spec.topic)?.partitions.find((x) => x.partitionIndex === spec.partition);
    if (!p) return { errorCode: -1, error: 'UNKNOWN_SERVER_ERROR: the WriteTxnMarkers response has no result for this partition', leader };
    return { errorCode: p.errorCode, error: describeError(p.errorCode), leader };
  } catch (err) {
    return { ...lentTransportError(err, `leader ${leader}`), leader };
  }
}
