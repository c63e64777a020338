// WriteTxnMarkers (API key 27), from Kafka's WriteTxnMarkersRequest.json /
// Response.json: v0-v1 (v2 in 4.x), flexible 1+. We speak v1: Kafka 4.0 dropped v0
// (KIP-896) and every broker with KIP-664 (3.0+) has v1. Coordinators send it to partition
// leaders to end a transaction; Java's Admin.abortTransaction (KIP-664, what
// `kafka-transactions.sh abort` runs) sends the same request to the leader of
// one partition with one ABORT marker: the open transaction's producer id and
// epoch, and a coordinator epoch no lower than the partition's last one (the
// leader refuses lower ones with TRANSACTION_COORDINATOR_FENCED). It needs
// ClusterAction on the cluster.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const WRITE_TXN_MARKERS_API_KEY = 27;

export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  /** false = ABORT, true = COMMIT. */
  commit: boolean;
  coordinatorEpoch: number;
  partitions: readonly { topic: string; partition: number }[];
}

export interface WriteTxnMarkersResult {
  markers: { producerId: number; topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }[];
}

export const WriteTxnMarkers: ApiDefinition<{ markers: readonly TxnMarker[] }, WriteTxnMarkersResult> = {
  apiKey: WRITE_TXN_MARKERS_API_KEY,
  apiName: 'WriteTxnMarkers',
  versions: [1],
  firstFlexibleVersion: 1,
  encode(version, args) {
    assertVersion(WriteTxnMarkers, version);
    const w = writerFor(WriteTxnMarkers, version);
    w.array(args.markers, (w, m) => {
      w.int64(m.producerId).int16(m.producerEpoch).bool(m.commit);
      const topics = new Map<string, number[]>();
      for (const p of m.partitions) topics.set(p.topic, [...(topics.get(p.topic) ?? []), p.partition]);
      w.array([...topics], (w, [name, parts]) => w.string(name).int32Array(parts).tags());
      w.int32(m.coordinatorEpoch).tags();
    });
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(WriteTxnMarkers, version);
    const r = readerFor(WriteTxnMarkers, version, body);
    const markers =
      r.array((r) => {
        const producerId = r.int64();
        const topics = r.topics('WriteTxnMarkers topic', (r) => ({ partitionIndex: r.int32(), errorCode: r.int16() }));
        r.tags();
        return { producerId, topics };
      }) ?? [];
    r.tags();
    return { markers };
  },
};
