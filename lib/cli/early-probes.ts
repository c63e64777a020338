// The first thing `kafka-responder diagnose` does on the sandbox: start the
// host probes, before the CLI's bundle loads (bin/kafka-responder.js requires
// this module, built apart as dist/early-probes.cjs, a few dozen KB). The
// diagnosis then asks for the very same runs and takes them over
// (lib/hosts/prestarted-executor.ts): the probes gain the bundle's load time,
// about a sixth of a diagnosis on the sandbox.
//
// Only where the outcome is certain: no flag but the output format, and no
// KR_CONFIG_FILE, so that the target is the sandbox (lib/cli/sandbox-target.ts)
// with the default timeout. Any other run starts its probes where it always has.
import { readSandboxHostsSync, type SandboxHost } from '../../sandbox/hosts-file.ts';
import { DEFAULT_TIMEOUT_MS, FORMATS as FORMAT_NAMES } from '../diagnose/cli-support.ts';
import { LocalExecutor } from '../hosts/local-executor.ts';
import { PrestartedExecutor } from '../hosts/prestarted-executor.ts';
import { probeTimeoutWithin, startProbeRuns } from '../hosts/probe-start.ts';
import type { HostTarget } from '../hosts/types.ts';

/** The sandbox brokers as host targets: one function, so the early runs and the diagnosis's are the same. */
export const sandboxHostTargets = (brokers: readonly SandboxHost[]): HostTarget[] => brokers.map((b) => ({ brokerId: b.id, address: b.hostDir }));

/** The probes' timeout in a no-flag diagnosis (its --timeout is the default one). */
export const SANDBOX_PROBE_TIMEOUT_MS = probeTimeoutWithin(DEFAULT_TIMEOUT_MS);

const FORMATS = new Set<string>(FORMAT_NAMES);

/** Flags that leave the target the sandbox's and the timeout the default. */
function onlyFormatFlags(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json' || (a.startsWith('--format=') && FORMATS.has(a.slice('--format='.length)))) continue;
    if (a === '--format' && FORMATS.has(argv[i + 1] ?? '')) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

/**
 * Starts the sandbox's host probes for `diagnose argv` when that run will
 * surely probe them; null otherwise. Never throws: a failure here only means
 * the probes start later, where they always did.
 */
export function startEarlyProbes(argv: readonly string[], env: NodeJS.ProcessEnv): PrestartedExecutor | null {
  try {
    if (env.KR_CONFIG_FILE || !onlyFormatFlags(argv)) return null;
    const hosts = readSandboxHostsSync(env);
    if (!hosts) return null;
    const executor = new PrestartedExecutor(new LocalExecutor());
    executor.prestart((ex) => startProbeRuns(ex, sandboxHostTargets(hosts), { timeoutMs: SANDBOX_PROBE_TIMEOUT_MS }));
    return executor;
  } catch {
    return null;
  }
}
