// Which Executor reaches a cluster's hosts: SSM Run Command for EC2 brokers,
// the local executor for sandbox host directories, none for Amazon MSK. The
// executors are imported on first use, so neither the ack path nor a worker
// that never probes a host loads the SSM client.
import type { ClusterConfig } from '../config/schema.ts';
import type { Executor } from './types.ts';
import type { ExecutorFactory } from '../diagnose/diagnoser.ts';

export function executorFactory(): ExecutorFactory {
  let ssm: Promise<Executor> | undefined;
  let local: Promise<Executor> | undefined;
  return async (cluster: ClusterConfig) => {
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
}
