// The CLI's no-flag default: the local sandbox, its brokers' host directories
// probed locally. It lives at the CLI's entry so that no production module
// reaches sandbox/ (eslint.config.js keeps lib/ but cli/ and local/ from it).
import { DEFAULT_TIMEOUT_MS, type DefaultTarget, type HostAccess } from '../diagnose/cli-support.ts';
import type { ClusterTarget } from '../diagnose/target.ts';
import type { Executor } from '../hosts/types.ts';
import { sandboxHostTargets } from './early-probes.ts';

/**
 * The sandbox as a target, its hosts run by `executor` (one holding the probes
 * the bin started before loading, bin/kafka-responder.js) or a new local one.
 */
export const sandboxTargetWith =
  (executor?: Executor): DefaultTarget =>
  async (env, timeoutMs, onHostsKnown): Promise<ClusterTarget> => {
    // Both at once, and neither loads zod: the probes start on the hosts before
    // it loads (about 10 ms), then the cluster file is read again, validated.
    const [{ readSandboxHostsSync }, { LocalExecutor }] = await Promise.all([import('../../sandbox/hosts-file.ts'), import('../hosts/local-executor.ts')]);
    const hostExecutor = executor ?? new LocalExecutor();
    const hostsOf = (brokers: readonly { id: number; hostDir: string }[]): HostAccess => ({
      executor: hostExecutor,
      hostTargets: sandboxHostTargets(brokers),
      timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const early = onHostsKnown ? readSandboxHostsSync(env) : null;
    if (early) onHostsKnown!(hostsOf(early));
    const [{ readSandboxCluster, sandboxSettings }, { connectionConfigFromEnv, splitBootstrap }] = await Promise.all([import('../../sandbox/layout.ts'), import('../kafka/connection.ts')]);
    const sandbox = await readSandboxCluster(sandboxSettings(env));
    if (!early) onHostsKnown?.(hostsOf(sandbox.brokers));
    return {
      name: `sandbox (${sandbox.bootstrapServers})`,
      connection: connectionConfigFromEnv(splitBootstrap(sandbox.bootstrapServers), env),
      ...hostsOf(sandbox.brokers),
    };
  };

export const sandboxTarget: DefaultTarget = sandboxTargetWith();
