// Does the topic a diagnosis names exist? Asked of the cluster's metadata
// alone (one Metadata request for that topic, no auto-creation) BEFORE any
// host probe or consumer sampling starts: a typo, or a flood of made-up
// names, must cost the cluster one cheap request each, not a snapshot and an
// SSM probe of every broker.
import { wireOptionsFor } from '../kafka/connection.ts';
import { kafkaError } from '../kafka/errors.ts';
import { withTimeout } from '../kafka/limits.ts';
import { WireBroker } from '../kafka/wire.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { CheckTopicFn } from './topic-scope.ts';


const UNKNOWN_TOPIC_OR_PARTITION = 3;
/** A check is one request: it gets a short budget of its own, whatever the diagnosis's. */
const CHECK_TIMEOUT_MS = 10_000;

function parseAddress(hostPort: string): { host: string; port: number } {
  const i = hostPort.lastIndexOf(':');
  return { host: hostPort.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(hostPort.slice(i + 1)) };
}

/**
 * Metadata for exactly this topic, from the first bootstrap server that
 * answers. Never throws: a cluster that cannot be asked is `unknown` (the
 * caller decides; a diagnosis of an unreachable cluster is still worth its probes).
 * Near misses are not asked for: listing every topic is the one Metadata
 * request that is not cheap on a large cluster.
 */
export const checkTopicInMetadata: CheckTopicFn = async (connection, topic, opts) => {
  const timeoutMs = Math.min(opts.timeoutMs, CHECK_TIMEOUT_MS);
  const wire = wireOptionsFor(connection, timeoutMs);
  const failures: string[] = [];
  for (const addr of connection.bootstrap) {
    const { host, port } = parseAddress(addr);
    const conn = new WireBroker(host, port, null, wire);
    try {
      await withTimeout(conn.connect(), wire.connectionTimeoutMs * 2, `connect to ${addr}`);
      const md = await withTimeout(conn.metadata([topic]), wire.requestTimeoutMs, `Metadata from ${addr}`);
      const t = md.topicMetadata.find((x) => x.topic === topic);
      if (t && (t.topicErrorCode === 0 || t.partitionMetadata.length > 0)) return { status: 'exists' };
      if (!t || t.topicErrorCode === UNKNOWN_TOPIC_OR_PARTITION) return { status: 'missing', nearMisses: [] };
      // Not authorized to see it, or another refusal: not diagnosable either, and the broker says why.
      const e = kafkaError(t.topicErrorCode);
      return { status: 'missing', nearMisses: [], reason: `${e.type}: ${e.message}` };
    } catch (err) {
      failures.push(`${addr}: ${errorMessage(err)}`);
    } finally {
      await conn.disconnect().catch(() => undefined);
    }
  }
  return { status: 'unknown', reason: `no bootstrap server answered (${failures.join('; ')})` };
};
