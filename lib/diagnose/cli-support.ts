// What the diagnose and can-restart commands share: which cluster to talk to
// and how to reach its hosts. With --bootstrap: that cluster, no host access
// (we have no broker → host mapping for it). Without: the local sandbox, its
// brokers' host directories probed through the local executor.

import { parseArgs } from 'node:util';
import type { ConnectionConfig } from '../kafka/connection.ts';
import { connectionConfigFromEnv, splitBootstrap } from '../kafka/connection.ts';
import type { Executor, HostTarget } from '../hosts/types.ts';
import { errorMessage } from '../runtime/errors.ts';

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

export interface CommandArgs {
  bootstrap: string | undefined;
  json: boolean;
  timeout: string | undefined;
  topic: string | undefined;
  positionals: string[];
}

/**
 * The flags diagnose and can-restart share (--bootstrap, --json, --timeout,
 * --help, and --topic where it applies). Returns the exit code instead when
 * it printed usage (0 for --help, 2 for bad flags).
 */
export function parseCommandArgs(argv: string[], usage: string, opts: { topic: boolean; positionals: boolean }): CommandArgs | number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        bootstrap: { type: 'string' },
        json: { type: 'boolean', default: false },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        ...(opts.topic ? { topic: { type: 'string' as const } } : {}),
      },
      strict: true,
      allowPositionals: opts.positionals,
    });
  } catch (err) {
    console.error(`${errorMessage(err)}\n\n${usage}`);
    return 2;
  }
  const values = parsed.values as { bootstrap?: string; json?: boolean; timeout?: string; help?: boolean; topic?: string };
  if (values.help) {
    console.log(usage);
    return 0;
  }
  return { bootstrap: values.bootstrap, json: values.json ?? false, timeout: values.timeout, topic: values.topic, positionals: parsed.positionals };
}
