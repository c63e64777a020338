// The packed tarball, installed the way a bastion host gets the CLI: `npm pack`
// (which builds the bundle through `prepare`), then `npm install --global
// --prefix <tmp> --offline ./kafka-responder-*.tgz`, no checkout, no npm ci.
// The installed bin is then run from another directory: --help, `serve` with
// approvers (operations on, runbooks read from the package) and, when the run
// has a sandbox, a diagnosis of it with host probes, and one with a config
// whose hosts are reached over SSM and metrics read from CloudWatch (the AWS
// SDK, which the diagnose bundle leaves to dist/kafka-responder-aws.cjs).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { ServeHarness } from '../operations/serve-harness.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { slashBody } from '../slack/helpers/signed.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
// The installed bin's `#!/usr/bin/env node` takes the first node on PATH: this run's Node 22.
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;

describe('the packed tarball installs and runs without the checkout', () => {
  const work = mkdtempSync(join(tmpdir(), 'kr-package-'));
  const prefix = join(work, 'prefix');
  const elsewhere = join(work, 'cwd');
  let bin = '';
  let files: string[] = [];
  const timings: string[] = [];

  beforeAll(async () => {
    execFileSync('mkdir', ['-p', elsewhere]);
    let t0 = Date.now();
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work, '--loglevel=error'], { cwd: repo, env: { ...process.env, PATH }, maxBuffer: 16 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; size: number; files: { path: string }[] }[];
    files = info!.files.map((f) => f.path);
    timings.push(`npm pack (build included) ${((Date.now() - t0) / 1000).toFixed(1)} s, ${(info!.size / 1e6).toFixed(1)} MB`);
    t0 = Date.now();
    // Offline: the package needs nothing from the registry (the bundle carries every library).
    await run('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', '--loglevel=error', join(work, info!.filename)], { cwd: elsewhere, env: { ...process.env, PATH } });
    timings.push(`npm install --global --offline ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    bin = join(prefix, 'bin', 'kafka-responder');
  }, 180_000);

  afterAll(() => {
    console.log(`[package] ${timings.join('; ')}`);
    rmSync(work, { recursive: true, force: true });
  });

  it('holds the bundle, the bin, the runbooks, the host scripts and the Slack manifest, and no sources or tests', () => {
    for (const f of ['bin/kafka-responder.js', 'bin/load-bundle.js', 'bin/package.json', 'dist/kafka-responder.cjs', 'dist/kafka-responder-diagnose.cjs', 'dist/kafka-responder-aws.cjs', 'dist/early-probes.cjs', 'runbooks/offline-partition.md', 'runbooks/operations/broker-restart.md', 'lib/hosts/probe.sh', 'lib/hosts/probe-logs.sh', 'lib/hosts/service-control.sh', 'lib/hosts/replica-data.sh', 'slack-app-manifest.yml', 'README.md']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^(test|bench|sandbox|handlers)\//.test(f) || f.endsWith('.ts'))).toEqual([]);
    expect(existsSync(bin)).toBe(true);
  });

  it('--help works from any directory', async () => {
    const t0 = Date.now();
    const { stdout } = await run(bin, ['--help'], { cwd: elsewhere, env: { ...process.env, PATH } });
    timings.push(`--help ${Date.now() - t0} ms`);
    expect(stdout).toMatch(/^usage: kafka-responder <command>/);
    expect(stdout).toMatch(/\bserve\b/);
  });

  it('serve with approvers: operations on, and the package runbooks answer /kafka runbook', async () => {
    const stub = await new SlackStub().start();
    const serve = new ServeHarness(stub, {}, [], { bin, cwd: elsewhere });
    try {
      await serve.start(); // fails unless the start-up line says operations on
      expect(serve.logs.join('')).toMatch(/in an in-process dynalite/);
      const reply = await serve.post('/slack/events', slashBody({ text: 'runbook offline-partition', user: 'U0ANY', channel: 'C0ANY', responseUrl: stub.responseUrl('rb') }));
      expect(reply.text).toBe('Runbook offline-partition');
    } finally {
      serve.stop();
      await stub.stop();
    }
  }, 120_000);

  it.skipIf(!hasSandbox())('diagnoses the sandbox, host probes included', async () => {
    const env: NodeJS.ProcessEnv = { PATH, HOME: process.env.HOME, KR_SANDBOX_HOME: process.env.KR_SANDBOX_HOME, KR_SANDBOX_PORT_BASE: process.env.KR_SANDBOX_PORT_BASE };
    const t0 = Date.now();
    // Exit 3 means findings: a diagnosis all the same.
    const out = await run(bin, ['diagnose', '--json'], { cwd: elsewhere, env, maxBuffer: 64 * 1024 * 1024 }).catch((err: { code?: number; stdout?: string }) => {
      if (err.code === 3 && err.stdout) return { stdout: err.stdout };
      throw err;
    });
    timings.push(`diagnose --json ${Date.now() - t0} ms`);
    const report = JSON.parse(out.stdout) as { partial: boolean; skippedChecks: unknown[] };
    expect(report.partial).toBe(false);
    // The host checks ran (the bundle's probe through the local executor), none skipped.
    expect(report.skippedChecks).toEqual([]);
  }, 120_000);

  it.skipIf(!hasSandbox())('diagnose --config: hosts over SSM and metrics from CloudWatch, the AWS SDK loaded from its own bundle', async () => {
    // A local AWS endpoint that answers every call with an error, and records what was asked.
    const asked: string[] = [];
    const aws = createServer((req, res) => {
      req.resume();
      asked.push(String(req.headers['x-amz-target'] ?? req.url));
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: 'InvalidInstanceId', message: 'no such instance here' }));
    });
    await new Promise<void>((resolve) => aws.listen(0, '127.0.0.1', resolve));
    try {
      const { config } = sandboxConfig({ ...process.env, KR_SLACK_USERS: 'U0ALICE', KR_INCIDENT_CHANNEL: 'C0INCIDENT' });
      const cluster = { ...config.clusters[0]!, hosts: { executor: 'ssm', instances: { '1': 'i-0123456789abcdef0' } }, metrics: { cloudwatch: { clusterName: 'sandbox', region: 'eu-west-1' } } };
      const configFile = join(work, 'kafka-responder.json');
      writeFileSync(configFile, JSON.stringify({ ...config, clusters: [cluster] }));
      const endpoint = `http://127.0.0.1:${(aws.address() as AddressInfo).port}`;
      const env = { PATH, HOME: process.env.HOME, AWS_ENDPOINT_URL: endpoint, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
      const out = await run(bin, ['diagnose', '--config', configFile, '--json'], { cwd: elsewhere, env, maxBuffer: 64 * 1024 * 1024 }).catch((err: { code?: number; stdout?: string; stderr?: string }) => {
        if (err.code === 3 && err.stdout) return { stdout: err.stdout };
        throw new Error(`diagnose --config failed (${err.code}): ${err.stderr}`);
      });
      const report = JSON.stringify(JSON.parse(out.stdout));
      expect(asked).toContain('AmazonSSM.SendCommand');
      expect(asked.some((a) => a.includes('GetMetricData'))).toBe(true);
      expect(report).toMatch(/InvalidInstanceId|no such instance here/);
    } finally {
      aws.close();
    }
  }, 120_000);
});
