// `diagnose` on the sandbox starts its host probes before the CLI's bundle
// loads (lib/cli/early-probes.ts); the diagnosis then asks for the very same
// runs and takes them over: each host is probed once, not twice.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startEarlyProbes } from '../../lib/cli/early-probes.ts';
import { sandboxTargetWith } from '../../lib/cli/sandbox-target.ts';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { startHostProbes } from '../../lib/diagnose/host-probes.ts';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import type { HostProbeOutcome } from '../../lib/hosts/types.ts';
import { fakeSandboxCluster } from './fake-sandbox.ts';

const home = mkdtempSync(join(tmpdir(), 'kr-early-probes-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const cluster = fakeSandboxCluster(home);
for (const b of cluster.brokers) mkdirSync(join(b.hostDir, 'config'), { recursive: true });
writeFileSync(join(home, 'cluster.json'), JSON.stringify(cluster));
const env = { KR_SANDBOX_HOME: home };

describe('early host probes of a sandbox diagnosis', () => {
  it('the diagnosis takes over the runs started early: one probe per host in all', async () => {
    const runs = vi.spyOn(LocalExecutor.prototype, 'run');
    const early = startEarlyProbes(['--json'], env);
    expect(early).not.toBeNull();
    expect(runs).toHaveBeenCalledTimes(3);
    let probing: Promise<HostProbeOutcome[]> | null = null;
    const target = await resolveClusterTarget({}, env, sandboxTargetWith(early!), (hosts) => (probing = startHostProbes(hosts)));
    const outcomes = await probing!;
    expect(outcomes.map((o) => o.brokerId)).toEqual([1, 2, 3]);
    // Each host answered the probe (no broker runs there: a report that says so, not a failure to run).
    expect(outcomes.map((o) => o.execution?.status)).toEqual(['Success', 'Success', 'Success']);
    expect(runs).toHaveBeenCalledTimes(3);
    expect(early!.unclaimed).toBe(0);
    expect(target.executor).toBe(early);
    early!.discard();
  }, 30_000);

  it('only output-format flags, no config file and a readable sandbox: anything else starts nothing', () => {
    const runs = vi.spyOn(LocalExecutor.prototype, 'run');
    for (const argv of [['--bootstrap', '127.0.0.1:9092'], ['--config', 'c.json'], ['--cluster', 'x'], ['--topic', 'orders'], ['--timeout', '5'], ['--help'], ['--format'], ['--format', 'yaml'], ['extra']]) {
      expect(startEarlyProbes(argv, env), argv.join(' ')).toBeNull();
    }
    expect(startEarlyProbes([], { ...env, KR_CONFIG_FILE: '/etc/kr.json' })).toBeNull();
    expect(startEarlyProbes([], { KR_SANDBOX_HOME: join(home, 'none') })).toBeNull();
    expect(startEarlyProbes([], { KR_SANDBOX_HOME: '' })).toBeNull();
    expect(runs).not.toHaveBeenCalled();
    for (const argv of [[], ['--json'], ['--format', 'markdown'], ['--format=json', '--json']]) {
      const early = startEarlyProbes(argv, env);
      expect(early, argv.join(' ')).not.toBeNull();
      early!.discard();
    }
  });
});
