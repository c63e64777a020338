// The snapshot's read of every registered broker, fenced ones included:
// DescribeCluster v2 with IncludeFencedBrokers (lib/kafka/api/describe-cluster/codec.ts)
// at one broker, a second only if the first failed. A broker that serves only
// v0-v1 (Kafka before 4.0, ZooKeeper mode) makes the view "unsupported": the
// line cannot say, which is not an error.

import { DESCRIBE_CLUSTER_API_KEY, DESCRIBE_CLUSTER_FENCED_VERSION, DescribeCluster, ENDPOINT_TYPE_BROKERS } from './api/describe-cluster/codec.ts';
import type { RegisteredBrokersView } from './registered-brokers-view.ts';
import { kafkaError } from './errors.ts';
import { withTimeout } from './limits.ts';
import { type WireBroker, UnsupportedVersionError } from './wire.ts';
import { errorMessage } from '../runtime/errors.ts';

/** What the read needs of a broker connection (a WireBroker; a fake in tests). */
export type RegistrySource = Pick<WireBroker, 'connect' | 'apiVersions' | 'request' | 'nodeId' | 'address'>;

const unsupported = (reason: string): RegisteredBrokersView => ({ status: 'unsupported', brokers: [], reason, answeredBy: null });

/** One broker's answer, or why not. */
async function readAt(conn: RegistrySource, budget: () => number): Promise<RegisteredBrokersView> {
  const who = `broker ${conn.nodeId ?? conn.address}`;
  try {
    await withTimeout(conn.connect(), budget(), `connect to ${who}`);
    const range = conn.apiVersions?.[DESCRIBE_CLUSTER_API_KEY];
    if (!range) return unsupported(`${who} does not serve DescribeCluster`);
    if (range.maxVersion < DESCRIBE_CLUSTER_FENCED_VERSION) return unsupported(`${who} serves DescribeCluster ${range.minVersion === range.maxVersion ? `v${range.maxVersion}` : `v${range.minVersion}-v${range.maxVersion}`}`);
    const res = await withTimeout(
      conn.request(DescribeCluster, { includeClusterAuthorizedOperations: false, endpointType: ENDPOINT_TYPE_BROKERS, includeFencedBrokers: true }),
      budget(),
      `DescribeCluster on ${who}`,
    );
    if (res.errorCode !== 0) return { status: 'failed', brokers: [], reason: `DescribeCluster on ${who}: ${kafkaError(res.errorCode).type}${res.errorMessage ? `: ${res.errorMessage}` : ''}`, answeredBy: null };
    return {
      status: 'read',
      brokers: res.brokers.map((b) => ({ id: b.brokerId, host: b.host, port: b.port, rack: b.rack, fenced: b.isFenced === true })).sort((a, b) => a.id - b.id),
      reason: null,
      answeredBy: conn.nodeId,
    };
  } catch (err) {
    if (err instanceof UnsupportedVersionError) return unsupported(err.message);
    return { status: 'failed', brokers: [], reason: errorMessage(err), answeredBy: null };
  }
}

/** The snapshot's step: the first broker that answers; a second only when the first failed. Never throws. */
export async function readRegisteredBrokers(brokers: readonly RegistrySource[], budget: () => number): Promise<RegisteredBrokersView> {
  const failures: string[] = [];
  for (const conn of brokers.slice(0, 2)) {
    const view = await readAt(conn, budget);
    if (view.status !== 'failed') return view;
    failures.push(view.reason ?? 'failed');
  }
  return { status: 'failed', brokers: [], reason: failures.join('; ') || 'no broker answered', answeredBy: null };
}
