// The snapshot's SASL/SCRAM and TLS options against the real sandbox, whose
// brokers also listen with SCRAM-SHA-512 (SASL_PLAINTEXT) and TLS (SSL, signed by
// a per-home CA). Over either, the cluster must look exactly as it does over
// PLAINTEXT; a wrong password or an untrusted certificate must fail fast with a
// message that says so, not hang until the budget runs out.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConnectionConfig, splitBootstrap, type ConnectionConfigInput } from '../../lib/kafka/connection.ts';
import { BootstrapUnreachableError, takeSnapshot } from '../../lib/kafka/snapshot.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { readSandboxCluster, sandboxSettings, type ClusterFile } from '../../sandbox/layout.ts';
import { createTopic, withAdmin } from '../../sandbox/client.ts';

const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..', '..');
const ready = process.env.KR_SKIP_SANDBOX !== '1' && Boolean(process.env.KR_SANDBOX_HOME && process.env.KAFKA_BOOTSTRAP_SERVERS);
const TOPIC = 'auth-listeners-probe';
const TIMEOUT_MS = 15_000;
// Env names of our own, so the test never depends on (or leaks into) a developer's KAFKA_SASL_*.
const USER_ENV = 'KR_AUTH_TEST_SCRAM_USER';
const PASSWORD_ENV = 'KR_AUTH_TEST_SCRAM_PASSWORD';

/** What must not depend on the listener: brokers, topics and their partition layout. */
function clusterView(s: ClusterSnapshot) {
  return {
    clusterId: s.clusterId,
    brokerIds: s.brokers.map((b) => b.id),
    topics: s.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p.partition, replicas: p.replicas })) })),
  };
}

const snapshot = (input: ConnectionConfigInput) => takeSnapshot(parseConnectionConfig(input), { timeoutMs: TIMEOUT_MS });
const ports = (bootstrap: string) => splitBootstrap(bootstrap).map((a) => Number(a.slice(a.lastIndexOf(':') + 1)));

/** `kafka-responder diagnose` with exactly these auth variables (none inherited). */
async function diagnoseCli(args: string[], authEnv: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^KAFKA_(SSL|SASL)/.test(k)));
  try {
    const { stdout, stderr } = await exec(process.execPath, [join(repo, 'bin', 'kafka-responder.js'), 'diagnose', ...args], {
      cwd: repo,
      env: { ...env, ...authEnv },
      timeout: 90_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe.skipIf(!ready)('SCRAM and TLS against the sandbox', () => {
  let cluster: ClusterFile;
  let scram: NonNullable<ClusterFile['scram']>;
  let tls: NonNullable<ClusterFile['tls']>;
  let plain: ClusterSnapshot;

  beforeAll(async () => {
    cluster = await readSandboxCluster(sandboxSettings());
    if (!cluster.scram || !cluster.tls) throw new Error(`the sandbox's cluster.json has no scram/tls section: ${JSON.stringify(cluster)}`);
    scram = cluster.scram;
    tls = cluster.tls;
    process.env[USER_ENV] = scram.username;
    process.env[PASSWORD_ENV] = scram.password;
    // A topic of our own, so "same topics" compares something beyond the internal ones.
    await withAdmin(cluster.bootstrapServers, async (admin) => {
      const existing = await admin.listTopics();
      if (!existing.includes(TOPIC)) await createTopic(admin, TOPIC, { assignment: [[1, 2, 3], [2, 3, 1]] });
    });
    plain = await snapshot({ bootstrap: splitBootstrap(cluster.bootstrapServers) });
    expect(plain.partial).toBe(false);
    expect(plain.topics.map((t) => t.name)).toContain(TOPIC);
  });

  it('lists its SCRAM and TLS listeners on ports apart from PLAINTEXT', () => {
    const all = [...ports(cluster.bootstrapServers), ...ports(scram.bootstrapServers), ...ports(tls.bootstrapServers), cluster.controller.port];
    expect(new Set(all).size).toBe(all.length);
    expect(scram.mechanism).toBe('SCRAM-SHA-512');
  });

  it('takes the same snapshot over SASL/SCRAM-SHA-512, and stays on the SCRAM listener', async () => {
    const s = await snapshot({
      bootstrap: splitBootstrap(scram.bootstrapServers),
      sasl: { mechanism: 'scram-sha-512', usernameEnv: USER_ENV, passwordEnv: PASSWORD_ENV },
    });
    expect(s.errors).toEqual([]);
    expect(s.partial).toBe(false);
    expect(clusterView(s)).toEqual(clusterView(plain));
    // Brokers advertise the listener the client came in on.
    expect(s.brokers.map((b) => b.port)).toEqual(ports(scram.bootstrapServers));
  });

  it('fails a wrong SCRAM password with an authentication error, not a timeout', async () => {
    process.env.KR_AUTH_TEST_WRONG_PASSWORD = `${scram.password}-wrong`;
    const attempt = snapshot({
      bootstrap: splitBootstrap(scram.bootstrapServers),
      sasl: { mechanism: 'scram-sha-512', usernameEnv: USER_ENV, passwordEnv: 'KR_AUTH_TEST_WRONG_PASSWORD' },
    });
    await expect(attempt).rejects.toBeInstanceOf(BootstrapUnreachableError);
    const message = await attempt.catch((e: Error) => e.message);
    expect(message).toMatch(/authentication failed/i);
    expect(message).toMatch(/invalid credentials/i);
    expect(message).not.toMatch(/timed out|no answer within/i);
  });

  it('takes the same snapshot over TLS when the sandbox CA is trusted', async () => {
    const s = await snapshot({ bootstrap: splitBootstrap(tls.bootstrapServers), ssl: { caPath: tls.caPemFile } });
    expect(s.errors).toEqual([]);
    expect(s.partial).toBe(false);
    expect(clusterView(s)).toEqual(clusterView(plain));
    expect(s.brokers.map((b) => b.port)).toEqual(ports(tls.bootstrapServers));
  });

  it('refuses the TLS listener with a certificate error when the CA is not trusted', async () => {
    const attempt = snapshot({ bootstrap: splitBootstrap(tls.bootstrapServers), ssl: true });
    await expect(attempt).rejects.toBeInstanceOf(BootstrapUnreachableError);
    const message = await attempt.catch((e: Error) => e.message);
    expect(message).toMatch(/self-signed certificate in certificate chain/);
    expect(message).not.toMatch(/timed out|no answer within/i);
  });

  it('diagnoses over SCRAM from the CLI with the documented KAFKA_SASL_* variables', async () => {
    const r = await diagnoseCli(['--bootstrap', scram.bootstrapServers, '--json', '--timeout', '20'], {
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: scram.username,
      KAFKA_SASL_PASSWORD: scram.password,
    });
    expect([0, 3], r.stderr).toContain(r.code);
    const report = JSON.parse(r.stdout) as DiagnosisReport;
    expect(Array.isArray(report.findings)).toBe(true);
    expect(report.partial).toBe(false);
    expect(report.snapshotErrors ?? []).toEqual([]);
  });

  it('diagnoses over TLS from the CLI with KAFKA_SSL_CA', async () => {
    const r = await diagnoseCli(['--bootstrap', tls.bootstrapServers, '--json', '--timeout', '20'], { KAFKA_SSL_CA: tls.caPemFile });
    expect([0, 3], r.stderr).toContain(r.code);
    const report = JSON.parse(r.stdout) as DiagnosisReport;
    expect(report.partial).toBe(false);
  });

  it('reports a wrong SCRAM password from the CLI as an authentication failure', async () => {
    const r = await diagnoseCli(['--bootstrap', scram.bootstrapServers, '--json', '--timeout', '20'], {
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: scram.username,
      KAFKA_SASL_PASSWORD: `${scram.password}-wrong`,
    });
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(/authentication failed/i);
  });
});
