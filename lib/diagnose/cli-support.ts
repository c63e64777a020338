// What the diagnose and can-restart commands share: their flags, and which
// cluster they talk to.
//   --config FILE [--cluster NAME]  (or KR_CONFIG_FILE): a cluster of the bot's own
//       config, its hosts probed the way the bot does (SSM with the caller's AWS
//       credentials, the local executor, or none for Amazon MSK);
//   --bootstrap host:port,...: that cluster, no host access (no broker → host map);
//   neither: the caller's default (the CLI's entry gives the local sandbox,
//       lib/cli/sandbox-target.ts); without one, a usage error.

import { parseArgs } from 'node:util';
import { UsageError, errorMessage } from '../runtime/errors.ts';
import type { ClusterTarget } from './target.ts';

export const DEFAULT_TIMEOUT_MS = 20_000;
export const FORMATS = ['text', 'json', 'markdown'] as const;
export type OutputFormat = (typeof FORMATS)[number];

export interface TargetFlags {
  bootstrap?: string | undefined;
  config?: string | undefined;
  cluster?: string | undefined;
  /** --timeout in seconds, as typed. */
  timeout?: string | undefined;
}

export const TARGET_USAGE = `  --config FILE     the bot's config (JSON; or KR_CONFIG_FILE): its cluster's auth and host access
                    (SSM with your AWS credentials, local, or none)
  --cluster NAME    which configured cluster (default: the config's default cluster)
  --bootstrap LIST  host:port,... of any cluster, no host checks; auth from the environment:
                    KAFKA_SSL=1, KAFKA_SSL_CA/CERT/KEY, KAFKA_SASL_MECHANISM
                    (scram-sha-256|scram-sha-512|aws-msk-iam), KAFKA_SASL_USERNAME/PASSWORD, AWS_REGION
  (none of these: the local sandbox, its broker hosts probed locally)
  --format F        text (default), json, or markdown (for a ticket); --json = --format json
  --timeout S       seconds for the whole pass (default ${DEFAULT_TIMEOUT_MS / 1000}, or the cluster's diagnosisTimeoutMs with --config)`;

/** The cluster when no flag names one (the CLI's entry passes the sandbox). */
/** What the host probes need of a target: known, for the sandbox, before its connection is. */
export type HostAccess = Pick<ClusterTarget, 'executor' | 'hostTargets' | 'timeoutMs'>;
/** Called once a target's hosts are known, before the rest of it is ready: the probes start there. */
export type OnHostsKnown = (hosts: HostAccess) => void;

export type DefaultTarget = (env: NodeJS.ProcessEnv, timeoutMs: number | undefined, onHostsKnown?: OnHostsKnown) => Promise<ClusterTarget>;

/** What the CLI's entry (lib/cli/main.ts) gives a command. */
export interface CliDefaults {
  noFlagTarget?: DefaultTarget;
}

export async function resolveClusterTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env, noFlagDefault?: DefaultTarget, onHostsKnown?: OnHostsKnown): Promise<ClusterTarget> {
  const timeoutMs = flags.timeout === undefined ? undefined : parseTimeout(flags.timeout);
  const configFile = flags.config ?? (flags.bootstrap === undefined && env.KR_CONFIG_FILE ? env.KR_CONFIG_FILE : undefined);
  if (flags.config !== undefined && flags.bootstrap !== undefined) throw new UsageError('--config and --bootstrap name the cluster twice: give one');
  if (configFile !== undefined) {
    // Same parsing and validation as the bot (lib/config/schema.ts), from this file only.
    // Loaded only here: building the config's zod schemas is ~30 ms of every start that has no config.
    const [{ ConfigError, findCluster, loadConfig }, { targetForCluster }, { executorFactory }] = await Promise.all([
      import('../config/schema.ts'),
      import('./target.ts'),
      import('../hosts/executors.ts'),
    ]);
    const config = loadConfig({ ...env, KR_CONFIG: undefined, KR_CONFIG_FILE: configFile });
    const cluster = findCluster(config, flags.cluster);
    if (!cluster) {
      const names = config.clusters.map((c) => c.name).join(', ');
      throw new ConfigError(flags.cluster ? `no cluster "${flags.cluster}" in ${configFile} (clusters: ${names})` : `${configFile} has several clusters and no default: name one with --cluster (${names})`);
    }
    const target = await targetForCluster(cluster, executorFactory());
    return timeoutMs === undefined ? target : { ...target, timeoutMs };
  }
  if (flags.cluster !== undefined) throw new UsageError('--cluster names a cluster of a config file: add --config FILE (or set KR_CONFIG_FILE)');
  if (flags.bootstrap !== undefined) {
    const { connectionConfigFromEnv, splitBootstrap } = await import('../kafka/connection.ts');
    const list = splitBootstrap(flags.bootstrap);
    return { name: list.join(','), connection: connectionConfigFromEnv(list, env), executor: null, hostTargets: [], timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS };
  }
  if (!noFlagDefault) throw new UsageError('name the cluster: --config FILE (or KR_CONFIG_FILE) or --bootstrap host:port,...');
  return noFlagDefault(env, timeoutMs, onHostsKnown);
}

/** Bad flags: main prints the message with the usage and exits 2 (the one UsageError, lib/runtime/errors.ts). */
export { UsageError };

/** --timeout in seconds → ms, validated. */
export function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600) throw new UsageError(`--timeout must be a number of seconds between 0 and 600, got "${value}"`);
  return Math.round(seconds * 1000);
}

export interface CommandArgs extends TargetFlags {
  format: OutputFormat;
  topic: string | undefined;
  positionals: string[];
}

/**
 * The flags diagnose and can-restart share, and --topic where it applies.
 * Returns the exit code instead when it printed usage (0 for --help, 2 for bad flags).
 */
export function parseCommandArgs(argv: string[], usage: string, opts: { topic: boolean; positionals: boolean }): CommandArgs | number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        cluster: { type: 'string' },
        bootstrap: { type: 'string' },
        format: { type: 'string' },
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
  const v = parsed.values as { config?: string; cluster?: string; bootstrap?: string; format?: string; json?: boolean; timeout?: string; help?: boolean; topic?: string };
  if (v.help) {
    console.log(usage);
    return 0;
  }
  const format = v.json ? 'json' : (v.format ?? 'text');
  if (!(FORMATS as readonly string[]).includes(format) || (v.json && v.format !== undefined && v.format !== 'json')) {
    console.error(`--format must be one of ${FORMATS.join(', ')} (got "${v.format}")\n\n${usage}`);
    return 2;
  }
  return { config: v.config, cluster: v.cluster, bootstrap: v.bootstrap, format: format as OutputFormat, timeout: v.timeout, topic: v.topic, positionals: parsed.positionals };
}

/** Colour only for a person at a terminal. */
export const terminalStyle = () => ({ color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR });
