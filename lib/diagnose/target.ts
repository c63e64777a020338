// The cluster a diagnosis or restart check runs against: how to reach its
// brokers, how to reach its hosts, and its time budget. Slack jobs build it
// from the bot's config; the CLI from the same config file, a bare
// --bootstrap, or the local sandbox. Everything after this point is shared.
import type { ClusterConfig } from '../config/schema.ts';
import type { ConnectionConfig } from '../kafka/connection.ts';
import { toConnectionConfig } from '../kafka/cluster-connection.ts';
import type { ExecutorFactory } from '../hosts/executors.ts';
import { hostTargets } from '../hosts/executors.ts';
import type { Executor, HostTarget } from '../hosts/types.ts';

export interface ClusterTarget {
  /** Name shown in reports: the configured cluster name, or the bootstrap list. */
  name: string;
  connection: ConnectionConfig;
  /** null: no host access (Amazon MSK, a bare --bootstrap); host checks are listed as skipped. */
  executor: Executor | null;
  hostTargets: HostTarget[];
  /** Budget for one pass (snapshot and probes together). */
  timeoutMs: number;
  /** Window between two consumer samples when there is no lag history (default DEFAULT_LAG_WINDOW_MS). */
  lagWindowMs?: number;
  /** The cluster's config, when the target came from one (its metrics source). */
  cluster?: ClusterConfig;
}

/** A configured cluster, its hosts reached through the executor its config names (SSM, local or none). */
export async function targetForCluster(cluster: ClusterConfig, executorFor: ExecutorFactory, onlyBrokers?: number[]): Promise<ClusterTarget> {
  return {
    name: cluster.name,
    connection: toConnectionConfig(cluster),
    executor: await executorFor(cluster),
    hostTargets: hostTargets(cluster, onlyBrokers),
    timeoutMs: cluster.diagnosisTimeoutMs,
    cluster,
    lagWindowMs: cluster.lagWindowMs,
  };
}
