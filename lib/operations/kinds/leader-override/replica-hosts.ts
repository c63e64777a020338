// The leader override's capability (capabilities.ts): where replicas can be
// measured on their hosts. Provided by the backend, the composition edge.
import type { ClusterConfig } from '../../../config/schema.ts';
import { hostTargets, type ExecutorFactory } from '../../../hosts/executors.ts';
import type { Executor } from '../../../hosts/types.ts';
import type { ReplicaHost } from './replica-data.ts';

/**
 * Where a replica's log end offset can be read on its host (kafka-dump-log.sh):
 * clusters with host access and a Kafka bin dir. Log dirs as each host's own
 * server.properties says (the host probe reads them, broker process up or down).
 */
export async function replicaHostsOf(executorFor: ExecutorFactory, cluster: ClusterConfig, replicas: number[]): Promise<{ executor: Executor; replicas: ReplicaHost[] } | null> {
  const executor = await executorFor(cluster);
  const kafkaBin = cluster.operations?.kafkaBin;
  if (!executor || !kafkaBin) return null;
  const targets = hostTargets(cluster, replicas);
  const { probeHosts } = await import('../../../hosts/probe-runner.ts');
  const probes = await probeHosts(executor, targets, { timeoutMs: 30_000 });
  const logDirsOf = new Map(probes.map((p) => [p.brokerId, p.ok ? p.report.logDirs.filter((d) => d.exists).map((d) => d.path) : []]));
  return { executor, replicas: targets.map((target) => ({ target, logDirs: logDirsOf.get(target.brokerId) ?? [], kafkaBin })) };
}
