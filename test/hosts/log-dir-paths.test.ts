// One rule for log-dir paths: every log dir the probe reports is one the
// service script checks, so the restart's clean-shutdown check covers them all.
// Real scripts through the local executor on a fabricated host directory.
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { probeHosts } from '../../lib/hosts/probe-runner.ts';
import { HOST_PATH_SHELL_LINE } from '../../lib/hosts/host-paths.ts';
import { HOST_SCRIPTS, isHostPath } from '../../lib/hosts/scripts.ts';
import { parseServiceStatus, runServiceControl, serviceParams } from '../../lib/hosts/service-control.ts';
import { createFakeHost } from './fake-host.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';

const root = mkdtempSync(join(tmpdir(), 'kr-logdir-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('log-dir paths', () => {
  it('dirs whose path has + @ : % are probed and marker-checked alike (3 of 3)', async () => {
    const hostDir = join(root, 'host1');
    const logDirs = [join(root, 'data', 'plain'), join(root, 'data', 'kafka+logs@a'), join(root, 'data', 'disk:2%b')];
    createFakeHost(hostDir, { brokerId: 1, logDirs, cleanShutdown: true });
    // A sandbox host directory: the service script drives sandbox-service.sh instead of systemd.
    writeFileSync(join(hostDir, 'sandbox-service.sh'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(hostDir, 'sandbox-service.sh'), 0o755);
    const executor = new LocalExecutor({ concurrency: 1 });
    const target = { brokerId: 1, address: hostDir };

    const [probed] = await probeHosts(executor, [target], { timeoutMs: 30_000 });
    if (!probed?.ok) throw new Error(`probe failed: ${JSON.stringify(probed)}`);
    const reported = probed.report.logDirs.filter((d) => d.exists);
    expect(reported.map((d) => [d.path, d.cleanShutdownMarker])).toEqual(logDirs.map((d) => [d, true]));

    const r = await runServiceControl(executor, target, { action: 'status', unit: 'kafka', logsDir: join(hostDir, 'logs'), logDirs: reported.map((d) => d.path) });
    expect(r.ok, r.detail).toBe(true);
    expect(parseServiceStatus(r.stdout).markers).toEqual(logDirs.map((dir) => ({ dir, present: true })));
  });

  it('one rule, in the TS side, the SSM documents and the script itself', () => {
    for (const p of ['/data/kafka', '/mnt/disk+1/k@a:b%c', '/a_b.c-d']) expect(isHostPath(p)).toBe(true);
    for (const p of ['relative', '/data/$(id)', '/a b', '/a;b', '/a,b', `/${'x'.repeat(1001)}`]) expect(isHostPath(p)).toBe(false);
    const doc = HOST_SCRIPTS['service-control'].parameters;
    const allowed = (name: string) => new RegExp(doc.find((p) => p.name === name)!.allowedPattern);
    expect(allowed('logsDir').test('/var/log/kafka+1@x')).toBe(true);
    expect(allowed('logDirs').test('/d/a+b,/d/c@d,/d/e:f%g')).toBe(true);
    expect(serviceParams({ action: 'status', unit: 'kafka', logsDir: '/l@x', logDirs: ['/d/a+b', '/d/c%d'] })).toEqual({ action: 'status', unit: 'kafka', logsDir: '/l@x', logDirs: '/d/a+b,/d/c%d' });
    for (const script of ['probe', 'service-control'] as const) expect(HOST_SCRIPTS[script].body().split('\n')).toContain(HOST_PATH_SHELL_LINE);
    // The config accepts Kafka's bin dir by the same rule: a dir every measurement would refuse is refused at load.
    const withBin = (kafkaBin: string) => () => parseConfig({ clusters: [{ name: 'c', bootstrap: ['127.0.0.1:9092'], operations: { kafkaBin } }], slack: BASE_CONFIG.slack });
    expect(withBin('/opt/kafka+3.9/bin')).not.toThrow();
    for (const p of ['/opt/kafka,bin', '/opt/kafka bin', 'opt/kafka']) expect(withBin(p), p).toThrow(/plain absolute path/);
  });

  it('a log dir outside the rule (a blank in its path): the probe reports it and warns that restarts cannot check its marker', async () => {
    const hostDir = join(root, 'host2');
    const logDirs = [join(root, 'data2', 'plain'), join(root, 'data2', 'with blank')];
    createFakeHost(hostDir, { brokerId: 2, logDirs, cleanShutdown: true });
    const [probed] = await probeHosts(new LocalExecutor({ concurrency: 1 }), [{ brokerId: 2, address: hostDir }], { timeoutMs: 30_000 });
    if (!probed?.ok) throw new Error(`probe failed: ${JSON.stringify(probed)}`);
    expect(probed.report.logDirs.map((d) => d.path)).toEqual(logDirs);
    expect(probed.report.warnings).toContain(`log dir ${logDirs[1]} has characters outside [A-Za-z0-9_.:/@+%-]: restarts cannot check its clean-shutdown marker`);
  });
});
