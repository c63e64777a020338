// DescribeCluster (API key 60, KIP-700), from Kafka 4.4.0's
// DescribeClusterRequest.json / Response.json: validVersions 0-2, flexible 0+.
//   v0 (KIP-700): cluster id, controller id, the brokers the answering broker
//      counts as alive (the same list Metadata gives).
//   v1 (KIP-919): EndpointType (1 brokers, 2 controllers), in the request
//      and echoed in the answer; MISMATCHED_ENDPOINT_TYPE (114) and
//      UNSUPPORTED_ENDPOINT_TYPE (115) become valid top-level errors.
//   v2 (KIP-1073, Kafka 4.0): IncludeFencedBrokers in the request, IsFenced per
//      broker in the answer: with it, a KRaft broker lists every registered
//      broker, fenced ones included.
// Read in the jars: 3.9.1's schema has v0-v1 (listeners zkBroker, broker,
// controller), 4.4.0's v0-v2 (broker, controller); 2.8.2's is in docs/kafka-lines.md.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const DESCRIBE_CLUSTER_API_KEY = 60;
/** The first version that can list fenced brokers. */
export const DESCRIBE_CLUSTER_FENCED_VERSION = 2;
export const ENDPOINT_TYPE_BROKERS = 1;
export const ENDPOINT_TYPE_CONTROLLERS = 2;

export interface DescribeClusterArgs {
  includeClusterAuthorizedOperations?: boolean;
  /** v1+; brokers unless said. */
  endpointType?: number;
  /** v2+: ignored (not sent) below v2. */
  includeFencedBrokers?: boolean;
}

export interface DescribeClusterBroker {
  brokerId: number;
  host: string;
  port: number;
  rack: string | null;
  /** v2+; null below v2, where the answer lists no fenced broker. */
  isFenced: boolean | null;
}

export interface DescribeClusterResult {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  /** v1+; null in v0. */
  endpointType: number | null;
  clusterId: string;
  controllerId: number;
  brokers: DescribeClusterBroker[];
  clusterAuthorizedOperations: number;
}

export const DescribeCluster: ApiDefinition<DescribeClusterArgs, DescribeClusterResult> = {
  apiKey: DESCRIBE_CLUSTER_API_KEY,
  apiName: 'DescribeCluster',
  versions: [0, 1, 2],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(DescribeCluster, version);
    const w = writerFor(DescribeCluster, version);
    w.bool(args.includeClusterAuthorizedOperations ?? false);
    if (version >= 1) w.int8(args.endpointType ?? ENDPOINT_TYPE_BROKERS);
    if (version >= 2) w.bool(args.includeFencedBrokers ?? false);
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(DescribeCluster, version);
    const r = readerFor(DescribeCluster, version, body);
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const errorMessage = r.string();
    const endpointType = version >= 1 ? r.int8() : null;
    const clusterId = r.requiredString('DescribeCluster cluster id');
    const controllerId = r.int32();
    const brokers =
      r.array((r) => {
        const b: DescribeClusterBroker = {
          brokerId: r.int32(),
          host: r.requiredString('DescribeCluster broker host'),
          port: r.int32(),
          rack: r.string(),
          isFenced: version >= 2 ? r.bool() : null,
        };
        r.tags();
        return b;
      }) ?? [];
    const clusterAuthorizedOperations = r.int32();
    r.tags();
    return { throttleTimeMs, errorCode, errorMessage, endpointType, clusterId, controllerId, brokers, clusterAuthorizedOperations };
  },
};
