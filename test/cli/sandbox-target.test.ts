// The CLI's no-flag default (lib/cli/sandbox-target.ts): the sandbox's hosts
// are named as soon as its cluster file gives them (a diagnosis starts its host
// probes there, before zod and the connection load), then the file is read
// again, validated, for the target itself.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import type { HostAccess } from '../../lib/diagnose/cli-support.ts';
import { fakeSandboxCluster } from './fake-sandbox.ts';

const home = mkdtempSync(join(tmpdir(), 'kr-sandbox-target-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const cluster = fakeSandboxCluster(home);
const { brokers } = cluster;
const env = { KR_SANDBOX_HOME: home };
const hostTargets = brokers.map((b) => ({ brokerId: b.id, address: b.hostDir }));

describe('the sandbox as the CLI default target', () => {
  it('names its hosts first, once, then gives the validated target', async () => {
    writeFileSync(join(home, 'cluster.json'), JSON.stringify(cluster));
    const named: HostAccess[] = [];
    const target = await sandboxTarget(env, 5_000, (hosts) => named.push(hosts));
    expect(named).toHaveLength(1);
    expect(named[0]).toMatchObject({ hostTargets, timeoutMs: 5_000 });
    expect(target).toMatchObject({ name: `sandbox (${cluster.bootstrapServers})`, hostTargets, timeoutMs: 5_000 });
    expect(target.connection.bootstrap).toEqual(cluster.bootstrapServers.split(','));
  });

  it('no sandbox: says how to start one, and names no host', async () => {
    const named: HostAccess[] = [];
    const err = await sandboxTarget({ KR_SANDBOX_HOME: join(home, 'none') }, undefined, (hosts) => named.push(hosts)).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/no sandbox at .*none: run `npx kafka-responder sandbox up` first/);
    expect(named).toEqual([]);
  });

  it('a cluster file that does not validate is refused, even once its hosts were named', async () => {
    writeFileSync(join(home, 'cluster.json'), JSON.stringify({ ...cluster, portBase: 'x' }));
    const named: HostAccess[] = [];
    await expect(sandboxTarget(env, undefined, (hosts) => named.push(hosts))).rejects.toThrow(/portBase/);
    expect(named).toHaveLength(1);
  });

  it('host dirs that are not absolute paths are not named early: only a validated file names them', async () => {
    writeFileSync(join(home, 'cluster.json'), JSON.stringify({ ...cluster, portBase: 'x', brokers: [{ id: 1, port: 19091, hostDir: 'relative/dir' }] }));
    const named: HostAccess[] = [];
    await expect(sandboxTarget(env, undefined, (hosts) => named.push(hosts))).rejects.toThrow(/portBase/);
    expect(named).toEqual([]);
  });
});
