// What the diagnose and can-restart commands share: which cluster to talk to
// and how to reach its hosts. With --bootstrap: that cluster, no host access
// (we have no broker → host mapping for it). Without: the local sandbox, its
// brokers' host directories probed through the local executor.

import type { ConnectionConfig } from '../kafka/connection.ts';
import { connectionConfigFromEnv, splitBootstrap } from '../kafka/connection.ts';
import type { Executor, HostTarget } from '../hosts/types.ts';

export interface ClusterTarget {
  name: string;
  connection: ConnectionConfig;
  executor: Executor | null;
  hostTargets: HostTarget[];
}

export const DEFAULT_TIMEOUT_MS = 20_000;

export async function resolveClusterTarget(bootstrap: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ClusterTarget> {
  if (bootstrap !== undefined) {
    const list = splitBootstrap(bootstrap);
    return { name: list.join(','), connection: connectionConfigFromEnv(list, env), executor: null, hostTargets: [] };
  }
  const { readSandboxCluster } = await import('../../sandbox/layout.ts');
  const cluster = await readSandboxCluster();
  const { LocalExecutor } = await import('../hosts/local-executor.ts');
  return {
    name: `sandbox (${cluster.bootstrapServers})`,
    connection: connectionConfigFromEnv(splitBootstrap(cluster.bootstrapServers), env),
    executor: new LocalExecutor(),
    hostTargets: cluster.brokers.map((b) => ({ brokerId: b.id, address: b.hostDir })),
  };
}

/** --timeout in seconds → ms, validated. */
export function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600) throw new Error(`--timeout must be a number of seconds between 0 and 600, got "${value}"`);
  return Math.round(seconds * 1000);
}
