// Where the sandbox lives and how it is laid out. Each broker gets a "host
// directory" shaped like a real broker host (config/, data/, logs/) so the host
// probe reads it exactly as it reads a production host over SSM.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const DEFAULT_KAFKA_VERSION = '4.1.1';
/** Older line kept runnable on request (KAFKA_VERSION=3.9.1): its log wording and tools differ. */
export const SUPPORTED_KAFKA_VERSIONS = ['4.1.1', '3.9.1'] as const;
export const BROKER_IDS = [1, 2, 3] as const;
/** A dedicated controller so that killing or wiping any broker never touches the quorum. */
export const CONTROLLER_ID = 100;

const envSchema = z.object({
  KR_SANDBOX_HOME: z.string().min(1).optional(),
  KR_SANDBOX_PORT_BASE: z.coerce.number().int().min(1024).max(65_000).optional(),
  KAFKA_VERSION: z.enum(SUPPORTED_KAFKA_VERSIONS).optional(),
  KR_KAFKA_CACHE: z.string().min(1).optional(),
});

export interface SandboxSettings {
  home: string;
  portBase: number;
  kafkaVersion: string;
  cacheDir: string;
}

export function sandboxSettings(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid sandbox environment: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  return {
    home: e.KR_SANDBOX_HOME ?? join(homedir(), '.kafka-responder', 'sandbox'),
    portBase: e.KR_SANDBOX_PORT_BASE ?? 19090,
    kafkaVersion: e.KAFKA_VERSION ?? DEFAULT_KAFKA_VERSION,
    cacheDir: e.KR_KAFKA_CACHE ?? join(homedir(), '.cache', 'kafka-responder'),
  };
}

export interface NodeLayout {
  id: number;
  role: 'broker' | 'controller';
  hostDir: string;
  configFile: string;
  log4jFile: string;
  dataDir: string;
  logsDir: string;
  pidFile: string;
  port: number;
  /** Brokers only: SASL_PLAINTEXT (SCRAM-SHA-512) and SSL listener ports; null on the controller. */
  saslPort: number | null;
  tlsPort: number | null;
}

/**
 * Port layout from the base B: controller B, broker N's PLAINTEXT B+N,
 * SASL_PLAINTEXT (SCRAM) B+10+N, SSL B+20+N (N = 1..3). The three blocks
 * B..B+3, B+11..B+13 and B+21..B+23 cannot overlap while there are fewer than
 * ten brokers. A second sandbox needs a base at least 24 away from the first.
 */
export const SASL_PORT_OFFSET = 10;
export const TLS_PORT_OFFSET = 20;

export function nodeLayout(s: SandboxSettings, id: number): NodeLayout {
  const role = id === CONTROLLER_ID ? 'controller' : 'broker';
  const hostDir = join(s.home, role === 'controller' ? 'controller' : `broker-${id}`);
  return {
    id,
    role,
    hostDir,
    configFile: join(hostDir, 'config', 'server.properties'),
    log4jFile: join(hostDir, 'config', 'log4j2.xml'),
    dataDir: join(hostDir, 'data', 'kafka-logs'),
    logsDir: join(hostDir, 'logs'),
    pidFile: join(hostDir, role === 'controller' ? 'controller.pid' : 'broker.pid'),
    port: role === 'controller' ? s.portBase : s.portBase + id,
    saslPort: role === 'controller' ? null : s.portBase + SASL_PORT_OFFSET + id,
    tlsPort: role === 'controller' ? null : s.portBase + TLS_PORT_OFFSET + id,
  };
}

export const binDir = (s: SandboxSettings) => join(s.home, 'bin');
export const clusterFile = (s: SandboxSettings) => join(s.home, 'cluster.json');
export const bootstrapServers = (s: SandboxSettings) =>
  BROKER_IDS.map((id) => `127.0.0.1:${nodeLayout(s, id).port}`).join(',');
export const scramBootstrapServers = (s: SandboxSettings) =>
  BROKER_IDS.map((id) => `127.0.0.1:${s.portBase + SASL_PORT_OFFSET + id}`).join(',');
export const tlsBootstrapServers = (s: SandboxSettings) =>
  BROKER_IDS.map((id) => `127.0.0.1:${s.portBase + TLS_PORT_OFFSET + id}`).join(',');
/** Every port a node listens on (all must be free before it starts). */
export const nodePorts = (n: NodeLayout) => [n.port, n.saslPort, n.tlsPort].filter((p): p is number => p !== null);

export const clusterFileSchema = z.object({
  kafkaVersion: z.string(),
  clusterId: z.string(),
  portBase: z.number().int(),
  bootstrapServers: z.string(),
  binDir: z.string(),
  controller: z.object({ id: z.number().int(), port: z.number().int(), hostDir: z.string() }),
  brokers: z.array(z.object({ id: z.number().int(), port: z.number().int(), hostDir: z.string() })),
  // Optional: cluster.json files written before these listeners existed still parse.
  /** SASL_PLAINTEXT listeners; the password is a per-home random test secret. */
  scram: z
    .object({ mechanism: z.literal('SCRAM-SHA-512'), username: z.string(), password: z.string(), bootstrapServers: z.string() })
    .optional(),
  /** SSL listeners; caPemFile is the sandbox CA a client must trust. */
  tls: z.object({ caPemFile: z.string(), truststoreFile: z.string(), bootstrapServers: z.string() }).optional(),
});
export type ClusterFile = z.infer<typeof clusterFileSchema>;

/** The sandbox as other modules need it (diagnose CLI, local server). */
export async function readSandboxCluster(s: SandboxSettings = sandboxSettings()): Promise<ClusterFile> {
  let text: string;
  try {
    text = await readFile(clusterFile(s), 'utf8');
  } catch {
    throw new Error(`no sandbox at ${s.home}: run \`npx kafka-responder sandbox up\` first`);
  }
  return clusterFileSchema.parse(JSON.parse(text));
}
