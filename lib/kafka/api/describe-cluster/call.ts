// DescribeCluster (API key 60) at any broker: every registered broker, fenced
// ones included (v2's IncludeFencedBrokers, KIP-1073). Below v2 (Kafka before
// 4.0, ZooKeeper mode) the answer cannot list fenced brokers, so the read does
// not ask (versionGap says why, up front).
import { DESCRIBE_CLUSTER_API_KEY, DESCRIBE_CLUSTER_FENCED_VERSION, DescribeCluster as Definition, ENDPOINT_TYPE_BROKERS, type DescribeClusterArgs, type DescribeClusterResult } from './codec.ts';
import type { AdminApi } from '../../router/spec.ts';
import type { ApiVersionRange } from '../../wire.ts';
import type { RegisteredBroker } from '../../types.ts';

export interface RegisteredBrokers {
  /** The answer's own error code (0: none), and the broker's message if it gave one. */
  errorCode: number;
  errorMessage: string | null;
  brokers: RegisteredBroker[];
}

/** Why a broker with these DescribeCluster versions cannot list fenced brokers; null when it can. */
export function versionGap(who: string, range: ApiVersionRange | undefined): string | null {
  if (!range) return `${who} does not serve DescribeCluster`;
  if (range.maxVersion >= DESCRIBE_CLUSTER_FENCED_VERSION) return null;
  return `${who} serves DescribeCluster ${range.minVersion === range.maxVersion ? `v${range.maxVersion}` : `v${range.minVersion}-v${range.maxVersion}`}`;
}

export { DESCRIBE_CLUSTER_API_KEY };

export const DescribeCluster: AdminApi<null, DescribeClusterArgs, DescribeClusterResult, RegisteredBrokers> = {
  name: 'DescribeCluster',
  api: Definition,
  route: { to: 'any' },
  build: () => ({ includeClusterAuthorizedOperations: false, endpointType: ENDPOINT_TYPE_BROKERS, includeFencedBrokers: true }),
  toResults: (res) => ({
    errorCode: res.errorCode,
    errorMessage: res.errorMessage,
    brokers: res.brokers.map((b) => ({ id: b.brokerId, host: b.host, port: b.port, rack: b.rack, fenced: b.isFenced === true })).sort((a, b) => a.id - b.id),
  }),
};
