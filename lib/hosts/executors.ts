// Which Executor reaches a cluster's hosts: SSM Run Command for EC2 brokers,
// the local executor for sandbox host directories, none for Amazon MSK. The
// executors are imported on first use, so neither the ack path nor a worker
// that never probes a host loads the SSM client.
import type { ClusterConfig } from '../config/schema.ts';
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

export function executorFactory(): ExecutorFactory {
  let ssm: Promise<Executor> | undefined;
  let local: Promise<Executor> | undefined;
  return async (cluster: ClusterConfig) => {
    switch (cluster.hosts.executor) {
      case 'ssm':
        ssm ??= (async () => {
          const [{ SSMClient }, { SsmExecutor }] = await Promise.all([import('@aws-sdk/client-ssm'), import('./ssm-executor.ts')]);
          // The deployed stack's documents (serverless.yml sets the prefix); the CLI on a laptop may set it too.
          const documentPrefix = process.env.KR_SSM_DOCUMENT_PREFIX;
          return new SsmExecutor({ client: new SSMClient({ maxAttempts: 3 }), ...(documentPrefix ? { documentPrefix } : {}) });
        })();
        return ssm;
      case 'local':
        local ??= import('./local-executor.ts').then(({ LocalExecutor }) => new LocalExecutor({ concurrency: 3 }));
        return local;
      case 'none':
        return null;
    }
  };
}
