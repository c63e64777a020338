// The CLI's no-flag default: the local sandbox, its brokers' host directories
// probed locally. It lives at the CLI's entry so that no production module
// reaches sandbox/ (eslint.config.js keeps lib/ but cli/ and local/ from it).
import { splitBootstrap, connectionConfigFromEnv } from '../kafka/connection.ts';
import { DEFAULT_TIMEOUT_MS, type DefaultTarget } from '../diagnose/cli-support.ts';
import type { ClusterTarget } from '../diagnose/target.ts';

export const sandboxTarget: DefaultTarget = async (env, timeoutMs): Promise<ClusterTarget> => {
  const { readSandboxCluster } = await import('../../sandbox/layout.ts');
  const sandbox = await readSandboxCluster();
  const { LocalExecutor } = await import('../hosts/local-executor.ts');
  return {
    name: `sandbox (${sandbox.bootstrapServers})`,
    connection: connectionConfigFromEnv(splitBootstrap(sandbox.bootstrapServers), env),
    executor: new LocalExecutor(),
    hostTargets: sandbox.brokers.map((b) => ({ brokerId: b.id, address: b.hostDir })),
    timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
};
