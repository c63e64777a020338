// DescribeProducers (API key 61, KIP-664), from Kafka's
// DescribeProducersRequest.json / Response.json: validVersions 0, flexible 0+.
// Brokers serve it from 3.0 (both modes); 2.8 does not list it in ApiVersions.
// It goes to each partition's leader (a follower answers NOT_LEADER_OR_FOLLOWER):
// the producers with state in that partition's log, and for each one with an
// open transaction the offset where it began (CurrentTxnStartOffset, -1 when none).
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { byTopic } from '../../partitions.ts';

export const DESCRIBE_PRODUCERS_API_KEY = 61;

export interface ProducerStateEntry {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  /** Epoch ms of the producer's last write to this partition; -1 unknown. */
  lastTimestamp: number;
  /** -1 when the producer never had a marker written here. */
  coordinatorEpoch: number;
  /** First offset of the open transaction; -1 when none is open. */
  currentTxnStartOffset: number;
}

export interface DescribeProducersPartition {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
  activeProducers: ProducerStateEntry[];
}

export interface DescribeProducersResult {
  throttleTimeMs: number;
  topics: { name: string; partitions: DescribeProducersPartition[] }[];
}

export const DescribeProducers: ApiDefinition<{ partitions: readonly { topic: string; partition: number }[] }, DescribeProducersResult> = {
  apiKey: DESCRIBE_PRODUCERS_API_KEY,
  apiName: 'DescribeProducers',
  versions: [0],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(DescribeProducers, version);
    const w = writerFor(DescribeProducers, version);
    w.array(byTopic(args.partitions), (w, t) => w.string(t.topic).int32Array(t.items.map((p) => p.partition)).tags());
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(DescribeProducers, version);
    const r = readerFor(DescribeProducers, version, body);
    const throttleTimeMs = r.int32();
    const topics = r.topics('DescribeProducers topic name', (r) => {
      const partitionIndex = r.int32();
      const errorCode = r.int16();
      const errorMessage = r.string();
      const activeProducers = r.structs(
        (r): ProducerStateEntry => ({
          producerId: r.int64(),
          producerEpoch: r.int32(),
          lastSequence: r.int32(),
          lastTimestamp: r.int64(),
          coordinatorEpoch: r.int32(),
          currentTxnStartOffset: r.int64(),
        }),
      );
      return { partitionIndex, errorCode, errorMessage, activeProducers };
    });
    r.tags();
    return { throttleTimeMs, topics };
  },
};
