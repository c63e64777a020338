// Which Executor reaches a cluster's hosts: SSM Run Command for EC2 brokers,
// the local executor for sandbox host directories, none for Amazon MSK. The
// executors are imported on first use, so neither the ack path nor a worker
// that never probes a host loads the SSM client.
import type { ClusterConfig } from '../config/schema.ts';
import { KeyedSemaphores, type Semaphore } from '../runtime/semaphore.ts';
import type { Executor, HostTarget } from './types.ts';

/** How the worker reaches a cluster's hosts; null = no host access (MSK). Wired by the composition root. */
export type ExecutorFactory = (cluster: ClusterConfig) => Promise<Executor | null>;

export function hostTargets(cluster: ClusterConfig, only?: number[]): HostTarget[] {
  const hosts = cluster.hosts;
  const map = hosts.executor === 'ssm' ? hosts.instances : hosts.executor === 'local' ? hosts.hostDirs : {};
  return Object.entries(map)
    .map(([id, address]) => ({ brokerId: Number(id), address }))
    .filter((t) => !only?.length || only.includes(t.brokerId))
    .sort((a, b) => a.brokerId - b.brokerId);
}

/**
 * At most `slots.capacity` hosts probed at once through this executor: a run
 * over more targets goes in slices, each holding one slot per host, so
 * concurrent diagnoses of one cluster share the cap. Results keep target order.
 */
export function cappedExecutor(inner: Executor, slots: Semaphore): Executor {
  return {
    kind: inner.kind,
    async run(targets, script) {
      const slices: HostTarget[][] = [];
      for (let i = 0; i < targets.length; i += slots.capacity) slices.push(targets.slice(i, i + slots.capacity));
      const results = await Promise.all(slices.map((slice) => slots.use(() => inner.run(slice, script), slice.length)));
      return results.flat();
    },
  };
}

export function executorFactory(): ExecutorFactory {
  let ssm: Promise<Executor> | undefined;
  let local: Promise<Executor> | undefined;
  const probeSlots = new KeyedSemaphores();
  const transport = async (cluster: ClusterConfig): Promise<Executor | null> => {
    switch (cluster.hosts.executor) {
      case 'ssm':
        ssm ??= (async () => {
          const [{ SSMClient }, { SsmExecutor }] = await Promise.all([import('@aws-sdk/client-ssm'), import('./ssm-executor.ts')]);
          return new SsmExecutor({ client: new SSMClient({ maxAttempts: 3 }) });
        })();
        return ssm;
      case 'local':
        local ??= import('./local-executor.ts').then(({ LocalExecutor }) => new LocalExecutor({ concurrency: 3 }));
        return local;
      case 'none':
        return null;
    }
  };
  return async (cluster: ClusterConfig) => {
    const inner = await transport(cluster);
    return inner && cappedExecutor(inner, probeSlots.for(cluster.name, cluster.load.maxConcurrentProbes));
  };
}
