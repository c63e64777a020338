// `kafka-responder diagnose|can-restart --config FILE` from an on-call laptop:
// the bot's config file, the cluster's brokers over Kafka, its hosts over SSM
// with the caller's AWS credentials. SSM is held to the AWS SDK contract
// (aws-sdk-client-mock); each instance's answer is what the same probe prints
// on the sandbox broker's host directory, so the findings can be compared with
// the local executor's on the same cluster.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommandInvocationCommand, SendCommandCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as diagnose } from '../../lib/diagnose/cli-diagnose.ts';
import { run as canRestart } from '../../lib/diagnose/cli-can-restart.ts';
import type { RestartAssessment } from '../../lib/diagnose/can-restart.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { LocalExecutor } from '../../lib/hosts/local-executor.ts';
import { probeHosts } from '../../lib/hosts/probe-runner.ts';
import { readSandboxCluster } from '../../sandbox/layout.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { scratchDir } from '../helpers/scratch.ts';

const instanceOf = (brokerId: number) => `i-0000000000000000${brokerId}`;

/** Runs a CLI command in-process and returns its exit code and what it printed. */
async function cli(run: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; out: string }> {
  const printed: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void printed.push(a.join(' ')));
  try {
    return { code: await run(argv), out: printed.join('\n') };
  } finally {
    log.mockRestore();
  }
}

describe.skipIf(!hasSandbox())('CLI with the bot config: hosts over SSM', () => {
  const ssm = mockClient(SSMClient);
  let ssmFile: string;
  let localFile: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    const sandbox = await readSandboxCluster();
    const hostDir = new Map(sandbox.brokers.map((b) => [instanceOf(b.id), { brokerId: b.id, address: b.hostDir }]));
    const cluster = (hosts: unknown) => ({
      clusters: [{ name: 'prod-eu', bootstrap: sandbox.bootstrapServers.split(','), hosts, diagnosisTimeoutMs: 30_000 }],
      slack: { allowedTeams: ['T0OPS'], allowedChannels: ['C0OPS'], incidentChannel: 'C0OPS' },
    });
    const dir = scratchDir('kr-cli-config');
    ssmFile = join(dir, 'ssm.json');
    localFile = join(dir, 'local.json');
    writeFileSync(ssmFile, JSON.stringify(cluster({ executor: 'ssm', instances: Object.fromEntries(sandbox.brokers.map((b) => [String(b.id), instanceOf(b.id)])) })));
    writeFileSync(localFile, JSON.stringify(cluster({ executor: 'local', hostDirs: Object.fromEntries(sandbox.brokers.map((b) => [String(b.id), b.hostDir])) })));

    // The caller's credentials, as on a laptop; the mock answers for AWS.
    Object.assign(process.env, { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
    let n = 0;
    const sent = new Map<string, string[]>();
    ssm.on(SendCommandCommand).callsFake((input: { InstanceIds: string[] }) => {
      const id = `cmd-${++n}`;
      sent.set(id, input.InstanceIds);
      return { Command: { CommandId: id } };
    });
    ssm.on(GetCommandInvocationCommand).callsFake(async (input: { CommandId: string; InstanceId: string }) => {
      const target = hostDir.get(input.InstanceId);
      if (!target || !sent.get(input.CommandId)?.includes(input.InstanceId)) throw new Error(`no invocation ${input.CommandId} on ${input.InstanceId}`);
      const [outcome] = await probeHosts(new LocalExecutor(), [target]);
      return { Status: 'Success', StatusDetails: 'Success', ResponseCode: 0, StandardOutputContent: outcome!.execution!.stdout, StandardErrorContent: '' };
    });
  });

  afterAll(() => {
    ssm.restore();
    process.env = saved;
  });

  it('diagnose --config probes every configured instance over SSM and prints the same findings as the local executor', async () => {
    const overSsm = await cli(diagnose, ['--config', ssmFile, '--format', 'json']);
    const local = await cli(diagnose, ['--config', localFile, '--format', 'json']);
    const ssmReport = JSON.parse(overSsm.out) as DiagnosisReport;
    const localReport = JSON.parse(local.out) as DiagnosisReport;

    const sends = ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input);
    expect(sends.flatMap((s) => s.InstanceIds ?? []).sort()).toEqual([1, 2, 3].map(instanceOf));
    expect(sends.every((s) => /kafka-responder/.test(s.Comment ?? ''))).toBe(true);
    expect(ssmReport.cluster).toBe('prod-eu');
    expect(ssmReport.skippedChecks).toEqual([]);
    expect(overSsm.code).toBe(local.code);
    // An answer SSM delivered but we could not read would show as a probe-error or host-unreachable finding here.
    expect(ssmReport.findings.map((f) => f.fingerprint).sort()).toEqual(localReport.findings.map((f) => f.fingerprint).sort());
  });

  it('can-restart --config reads the broker host over SSM (recovering: no) and agrees with the local executor', async () => {
    ssm.resetHistory();
    const overSsm = JSON.parse((await cli(canRestart, ['2', '--config', ssmFile, '--format', 'json'])).out) as RestartAssessment;
    const local = JSON.parse((await cli(canRestart, ['2', '--config', localFile, '--format', 'json'])).out) as RestartAssessment;
    expect(ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input.InstanceIds)).toEqual([[instanceOf(2)]]);
    expect(overSsm.recovering).toBe(false);
    expect(overSsm).toEqual(local);
  });

  it('a cluster missing from the file, or --config with --bootstrap, is refused with the reason', async () => {
    await expect(cli(diagnose, ['--config', ssmFile, '--cluster', 'nope'])).rejects.toThrow(/no cluster "nope" in .*\(clusters: prod-eu\)/);
    await expect(cli(diagnose, ['--config', ssmFile, '--bootstrap', '127.0.0.1:1'])).rejects.toThrow(/--config and --bootstrap/);
  });
});
