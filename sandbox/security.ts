// TLS and SASL/SCRAM material for the sandbox's extra listeners, made once per
// sandbox home: a self-signed CA (keytool, from the JDK the brokers already
// need), one PKCS12 keystore per broker signed by it (SAN IP:127.0.0.1), a
// truststore, the CA as PEM for Node clients, and the SCRAM user's password.
// Everything lives in <home>/security/; later `up`s reuse it and run no keytool.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as z from 'zod';
import { BROKER_IDS, type ClusterFile, type SandboxSettings } from './layout.ts';

const exec = promisify(execFile);

export const SCRAM_MECHANISM = 'SCRAM-SHA-512';
export const SCRAM_USERNAME = 'kr-admin';

export interface SecurityPaths {
  dir: string;
  caKeystore: string;
  caPem: string;
  truststore: string;
  secretsFile: string;
  /** Present once the SCRAM user is known to exist in this cluster's metadata (holds the cluster id). */
  scramMarker: string;
  brokerKeystore(id: number): string;
}

export function securityPaths(s: SandboxSettings): SecurityPaths {
  const dir = join(s.home, 'security');
  return {
    dir,
    caKeystore: join(dir, 'ca.p12'),
    caPem: join(dir, 'ca.pem'),
    truststore: join(dir, 'truststore.p12'),
    secretsFile: join(dir, 'secrets.json'),
    scramMarker: join(dir, 'scram-user.created'),
    brokerKeystore: (id) => join(dir, `broker-${id}.keystore.p12`),
  };
}

const secretsSchema = z.object({ storePassword: z.string().min(8), scramPassword: z.string().min(8) });
export type SandboxSecrets = z.infer<typeof secretsSchema>;

export interface SecurityMaterial {
  paths: SecurityPaths;
  secrets: SandboxSecrets;
}

// keytool is a JVM: keep each run small and quick on a 2-core machine.
const KEYTOOL_JVM = ['-J-Xmx64m', '-J-XX:+UseSerialGC', '-J-XX:TieredStopAtLevel=1'];

async function keytool(args: string[]): Promise<void> {
  try {
    await exec('keytool', [...KEYTOOL_JVM, ...args], { timeout: 60_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`keytool ${args[0]} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

const complete = (p: SecurityPaths) =>
  [p.secretsFile, p.caKeystore, p.caPem, p.truststore, ...BROKER_IDS.map((id) => p.brokerKeystore(id))].every((f) => existsSync(f));

/** Reuses <home>/security when complete; otherwise (new or older home) generates all of it afresh. */
export async function ensureSecurityMaterial(s: SandboxSettings, log: (m: string) => void = () => {}): Promise<SecurityMaterial> {
  const paths = securityPaths(s);
  if (complete(paths)) {
    return { paths, secrets: secretsSchema.parse(JSON.parse(await readFile(paths.secretsFile, 'utf8'))) };
  }
  const t0 = Date.now();
  // A half-made folder (interrupted run) is not trusted: start over.
  await rm(paths.dir, { recursive: true, force: true });
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  // Hex passwords: no character that needs quoting in server.properties, JAAS or a shell.
  const secrets: SandboxSecrets = { storePassword: randomBytes(12).toString('hex'), scramPassword: randomBytes(12).toString('hex') };
  const pass = secrets.storePassword;
  const store = (file: string) => ['-keystore', file, '-storetype', 'PKCS12', '-storepass', pass];

  await keytool(['-genkeypair', ...store(paths.caKeystore), '-alias', 'ca', '-keyalg', 'RSA', '-keysize', '2048', '-validity', '3650',
    '-dname', 'CN=kafka-responder sandbox CA', '-ext', 'bc:c']);
  await keytool(['-exportcert', '-rfc', ...store(paths.caKeystore), '-alias', 'ca', '-file', paths.caPem]);
  await keytool(['-importcert', '-noprompt', ...store(paths.truststore), '-alias', 'ca', '-file', paths.caPem]);

  // Brokers one after another: keytool is CPU-bound and the machine is small.
  for (const id of BROKER_IDS) {
    const ks = paths.brokerKeystore(id);
    const csr = join(paths.dir, `broker-${id}.csr`);
    const crt = join(paths.dir, `broker-${id}.crt`);
    const san = 'SAN=IP:127.0.0.1,DNS:localhost';
    await keytool(['-genkeypair', ...store(ks), '-alias', 'broker', '-keyalg', 'RSA', '-keysize', '2048', '-validity', '3650',
      '-dname', `CN=127.0.0.1, OU=broker-${id}, O=kafka-responder sandbox`, '-ext', san]);
    await keytool(['-certreq', ...store(ks), '-alias', 'broker', '-file', csr]);
    await keytool(['-gencert', ...store(paths.caKeystore), '-alias', 'ca', '-infile', csr, '-outfile', crt, '-rfc', '-validity', '3650', '-ext', san]);
    // The CA first, so the signed reply chains to it; the broker then serves leaf + CA.
    await keytool(['-importcert', '-noprompt', ...store(ks), '-alias', 'ca', '-file', paths.caPem]);
    await keytool(['-importcert', '-noprompt', ...store(ks), '-alias', 'broker', '-file', crt]);
    await rm(csr, { force: true });
    await rm(crt, { force: true });
  }
  // Written last: its presence (with the stores) marks the folder complete.
  await writeFile(paths.secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  log(`TLS CA and broker keystores generated in ${paths.dir} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return { paths, secrets };
}

/** `kafka-storage format --add-scram` value: the SCRAM user is part of a freshly formatted controller's bootstrap metadata. */
export function addScramArg(secrets: SandboxSecrets): string {
  return `${SCRAM_MECHANISM}=[name=${SCRAM_USERNAME},password=${secrets.scramPassword}]`;
}

/** `kafka-configs --alter --add-config` value, for a cluster formatted before SCRAM existed in the sandbox. */
export function alterScramConfig(secrets: SandboxSecrets): string {
  return `${SCRAM_MECHANISM}=[password=${secrets.scramPassword}]`;
}

/**
 * The SCRAM user exists once per cluster: fresh controllers get it at format
 * time (--add-scram); a cluster formatted before the sandbox had SCRAM gets it
 * here, once, through kafka-configs over PLAINTEXT. The marker holds the cluster
 * id so later `up`s skip the extra JVM.
 */
export async function ensureScramUser(
  cluster: Pick<ClusterFile, 'clusterId' | 'binDir' | 'bootstrapServers'>,
  security: SecurityMaterial,
  log: (m: string) => void,
): Promise<void> {
  const marker = security.paths.scramMarker;
  const done = await readFile(marker, 'utf8').then((t) => t.trim() === cluster.clusterId, () => false);
  if (done) return;
  try {
    await exec(
      join(cluster.binDir, 'kafka-configs.sh'),
      ['--bootstrap-server', cluster.bootstrapServers, '--alter', '--add-config', alterScramConfig(security.secrets), '--entity-type', 'users', '--entity-name', SCRAM_USERNAME],
      { timeout: 120_000 },
    );
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`creating the SCRAM user ${SCRAM_USERNAME} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
  await writeFile(marker, cluster.clusterId);
  log(`SCRAM user ${SCRAM_USERNAME} created with kafka-configs`);
}
