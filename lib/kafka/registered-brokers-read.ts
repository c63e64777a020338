// The snapshot's read of every registered broker, fenced ones included:
// DescribeCluster v2 with IncludeFencedBrokers (lib/kafka/api/describe-cluster/call.ts)
// at one broker, a second only if the first failed. A broker that serves only
// v0-v1 (Kafka before 4.0, ZooKeeper mode) makes the view "unsupported": the
// line cannot say, which is not an error.

import { DESCRIBE_CLUSTER_API_KEY, DescribeCluster, versionGap } from './api/describe-cluster/call.ts';
import type { RegisteredBrokersView } from './registered-brokers-view.ts';
import { kafkaError } from './errors.ts';
import { withTimeout } from './limits.ts';
import { firstThenSecond } from './router/passes.ts';
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
    // The version check up front: below v2 the answer could not list fenced brokers.
    const gap = versionGap(who, conn.apiVersions?.[DESCRIBE_CLUSTER_API_KEY]);
    if (gap) return unsupported(gap);
    const res = DescribeCluster.toResults(await withTimeout(conn.request(DescribeCluster.api, DescribeCluster.build(null, { requestTimeoutMs: 0 })), budget(), `DescribeCluster on ${who}`), null, { brokerId: conn.nodeId });
    if (res.errorCode !== 0) return { status: 'failed', brokers: [], reason: `DescribeCluster on ${who}: ${kafkaError(res.errorCode).type}${res.errorMessage ? `: ${res.errorMessage}` : ''}`, answeredBy: null };
    return { status: 'read', brokers: res.brokers, reason: null, answeredBy: conn.nodeId };
  } catch (err) {
    if (err instanceof UnsupportedVersionError) return unsupported(err.message);
    return { status: 'failed', brokers: [], reason: errorMessage(err), answeredBy: null };
  }
}

/** The snapshot's step: the first broker that answers; a second only when the first failed (the router's rule). Never throws. */
export async function readRegisteredBrokers(brokers: readonly RegistrySource[], budget: () => number): Promise<RegisteredBrokersView> {
  const read = await firstThenSecond(brokers, (conn) => readAt(conn, budget), (view) => (view.status === 'failed' ? (view.reason ?? 'failed') : null));
  if ('answer' in read) return read.answer;
  return { status: 'failed', brokers: [], reason: read.failures.join('; ') || 'no broker answered', answeredBy: null };
}
