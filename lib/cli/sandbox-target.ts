// The CLI's no-flag default: the local sandbox, its brokers' host directories
// probed locally. It lives at the CLI's entry so that no production module
// reaches sandbox/ (eslint.config.js keeps lib/ but cli/ and local/ from it).
import { splitBootstrap, connectionConfigFromEnv, type ConnectionConfig } from '../kafka/connection.ts';
import { DEFAULT_TIMEOUT_MS, type DefaultTarget } from '../diagnose/cli-support.ts';
import type { ClusterTarget } from '../diagnose/target.ts';

export const sandboxTarget: DefaultTarget = async (env, timeoutMs): Promise<ClusterTarget> => {
  // Both at once: each import is a chunk read and compiled before the probes can start.
  const [{ readSandboxCluster }, { LocalExecutor }] = await Promise.all([import('../../sandbox/layout.ts'), import('../hosts/local-executor.ts')]);
  const sandbox = await readSandboxCluster();
  let connection: ConnectionConfig | undefined;
  return {
    name: `sandbox (${sandbox.bootstrapServers})`,
    // Validated (KAFKA_SSL, KAFKA_SASL_*) where it is first read: a diagnosis
    // starts its host probes before, and they need the hosts only.
    get connection() {
      return (connection ??= connectionConfigFromEnv(splitBootstrap(sandbox.bootstrapServers), env));
    },
    executor: new LocalExecutor(),
    hostTargets: sandbox.brokers.map((b) => ({ brokerId: b.id, address: b.hostDir })),
    timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
};
