// Where the sandbox lives and how it is laid out. Each broker gets a "host
// directory" shaped like a real broker host (config/, data/, logs/) so the host
// probe reads it exactly as it reads a production host over SSM.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { CLUSTER_FILE, sandboxHomeOf } from './hosts-file.ts';

/** The newest Kafka release Maven Central serves. */
export const DEFAULT_KAFKA_VERSION = '4.4.0';
/**
 * Lines the sandbox runs (KAFKA_VERSION). Each differs in log wording, tools and
 * elections: 4.1+ has eligible leader replicas on by default, 3.9 is the last
 * line with ZooKeeper mode, 2.8 runs in ZooKeeper mode only.
 */
export const SUPPORTED_KAFKA_VERSIONS = ['4.4.0', '4.1.1', '3.9.1', '2.8.2'] as const;
export const SANDBOX_MODES = ['kraft', 'zookeeper'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const BROKER_IDS = [1, 2, 3] as const;
/**
 * The node that holds the cluster's metadata, never a broker, so that killing or
 * wiping any broker never touches it: a dedicated KRaft controller, or in
 * ZooKeeper mode the ZooKeeper server (there a broker is the controller). On the
 * 4.x lines it is the first of a quorum of three (QUORUM_CONTROLLER_IDS).
 */
export const CONTROLLER_ID = 100;
/** The 4.x lines' dedicated controllers: a dynamic KRaft quorum (kraft.version 1, KIP-853). */
export const QUORUM_CONTROLLER_IDS = [100, 101, 102] as const;

/** Kafka 4.0 removed ZooKeeper mode; before 3.3 KRaft was not production-ready (2.8 is run in ZooKeeper mode only). */
export const modesOf = (version: string): SandboxMode[] =>
  version.startsWith('4.') ? ['kraft'] : version.startsWith('2.') ? ['zookeeper'] : ['kraft', 'zookeeper'];

/** `sandbox up --zookeeper` without KAFKA_VERSION: the newest line that still has ZooKeeper mode. */
export const NEWEST_ZOOKEEPER_VERSION = SUPPORTED_KAFKA_VERSIONS.find((v) => modesOf(v).includes('zookeeper'))!;

const envSchema = z.object({
  KR_SANDBOX_HOME: z.string().min(1).optional(),
  KR_SANDBOX_PORT_BASE: z.coerce.number().int().min(1024).max(65_000).optional(),
  KAFKA_VERSION: z.enum(SUPPORTED_KAFKA_VERSIONS).optional(),
  /** kraft | zookeeper; `sandbox up --zookeeper` sets it too. */
  KR_SANDBOX_MODE: z.enum(SANDBOX_MODES).optional(),
  KR_KAFKA_CACHE: z.string().min(1).optional(),
  /** 1: every Kafka node starts with the Prometheus JMX exporter (`sandbox env` prints KAFKA_METRICS_TARGETS); 0: without. Unset: as the sandbox was brought up. */
  KR_SANDBOX_METRICS: z.enum(['0', '1']).optional(),
});

export interface SandboxSettings {
  home: string;
  portBase: number;
  kafkaVersion: string;
  mode: SandboxMode;
  cacheDir: string;
  /** The JMX exporter on every Kafka node; undefined: as cluster.json says (off for a new sandbox). */
  metrics?: boolean;
}

/** Version and mode of the sandbox already at `home` (its cluster.json), if any. */
function existingLine(home: string): { kafkaVersion: string; mode: SandboxMode } | null {
  try {
    const c = clusterFileSchema.parse(JSON.parse(readFileSync(join(home, CLUSTER_FILE), 'utf8')));
    return { kafkaVersion: c.kafkaVersion, mode: c.mode ?? 'kraft' };
  } catch {
    return null;
  }
}

/**
 * KAFKA_VERSION and KR_SANDBOX_MODE when set; otherwise what the sandbox at the
 * home already runs (so `sandbox start 2` on a 3.9 ZooKeeper sandbox starts 3.9
 * in ZooKeeper mode), otherwise the default line. 2.8 implies ZooKeeper mode.
 */
export function sandboxSettings(env: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid sandbox environment: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  const home = sandboxHomeOf(e.KR_SANDBOX_HOME);
  const found = e.KAFKA_VERSION && e.KR_SANDBOX_MODE ? null : existingLine(home);
  // A sandbox of the other mode does not answer for the version: `up` then says what runs there.
  const existing = found && (!e.KR_SANDBOX_MODE || found.mode === e.KR_SANDBOX_MODE) ? found : null;
  const kafkaVersion =
    e.KAFKA_VERSION ??
    existing?.kafkaVersion ??
    (e.KR_SANDBOX_MODE === 'zookeeper' ? NEWEST_ZOOKEEPER_VERSION : DEFAULT_KAFKA_VERSION);
  const modes = modesOf(kafkaVersion);
  const mode = e.KR_SANDBOX_MODE ?? (existing?.kafkaVersion === kafkaVersion ? existing.mode : modes[0]!);
  if (!modes.includes(mode)) {
    throw new Error(
      mode === 'zookeeper'
        ? `Kafka ${kafkaVersion} has no ZooKeeper mode (removed in 4.0): ZooKeeper mode runs Kafka ${SUPPORTED_KAFKA_VERSIONS.filter((v) => modesOf(v).includes('zookeeper')).join(' or ')}`
        : `the sandbox runs Kafka ${kafkaVersion} in ZooKeeper mode only`,
    );
  }
  return {
    home,
    portBase: e.KR_SANDBOX_PORT_BASE ?? 19090,
    kafkaVersion,
    mode,
    cacheDir: e.KR_KAFKA_CACHE ?? join(homedir(), '.cache', 'kafka-responder'),
    ...(e.KR_SANDBOX_METRICS ? { metrics: e.KR_SANDBOX_METRICS === '1' } : {}),
  };
}

/** "Kafka 3.9.1 (ZooKeeper mode)", for messages. */
export const lineName = (s: Pick<SandboxSettings, 'kafkaVersion' | 'mode'>) =>
  `Kafka ${s.kafkaVersion} (${s.mode === 'zookeeper' ? 'ZooKeeper' : 'KRaft'} mode)`;

export interface NodeLayout {
  id: number;
  role: 'broker' | 'controller' | 'zookeeper';
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
 * Port layout from the base B (a sandbox stays inside B..B+99; the test matrix
 * puts its lines 100 apart):
 *   B, B+4, B+5      controllers 100, 101, 102 (CONTROLLER listener; 3.9 KRaft has 100 only;
 *                    in ZooKeeper mode B is the ZooKeeper server's client port)
 *   B+1..B+3         brokers 1..3, PLAINTEXT
 *   B+11..B+13       brokers' SASL_PLAINTEXT (SCRAM)
 *   B+21..B+23       brokers' SSL
 *   B+30+(port-B)    the JMX exporter of each Kafka node, with metrics on: B+30, B+34, B+35
 *                    for the controllers, B+31..B+33 for the brokers
 * None of these overlap while there are fewer than ten brokers.
 */
export const SASL_PORT_OFFSET = 10;
export const TLS_PORT_OFFSET = 20;
export const METRICS_PORT_OFFSET = 30;
/** Controller id → its port's distance from B: 100 keeps B, as before the quorum; 101 and 102 sit past the brokers. */
const CONTROLLER_PORT_OFFSETS: Readonly<Record<number, number>> = { 100: 0, 101: 4, 102: 5 };

type Line = Pick<SandboxSettings, 'kafkaVersion' | 'mode'>;
/** 4.x KRaft runs three controllers in a dynamic quorum; 3.9 KRaft keeps one static voter, ZooKeeper mode its ZooKeeper server. */
export const hasControllerQuorum = (s: Line) => s.mode === 'kraft' && s.kafkaVersion.startsWith('4.');
/** The nodes that hold the metadata: controllers (or the ZooKeeper server), never brokers. */
export const controllerIds = (s: Line): number[] => (hasControllerQuorum(s) ? [...QUORUM_CONTROLLER_IDS] : [CONTROLLER_ID]);
/** Every node of the line: controllers first (they start first), then the brokers. */
export const nodeIds = (s: Line): number[] => [...controllerIds(s), ...BROKER_IDS];
const isController = (id: number) => id in CONTROLLER_PORT_OFFSETS;
const portOffset = (id: number) => CONTROLLER_PORT_OFFSETS[id] ?? id;

/** The JMX exporter's port of a Kafka node (brokers and KRaft controllers): B+30 plus its own port's offset. */
export const metricsPort = (s: Pick<SandboxSettings, 'portBase'>, id: number) => s.portBase + METRICS_PORT_OFFSET + portOffset(id);
/** host:port of every exporter, comma separated: the KRaft controllers (not a ZooKeeper server) and the brokers. */
export const metricsTargets = (s: Pick<SandboxSettings, 'portBase' | 'mode' | 'kafkaVersion'>) =>
  [...(s.mode === 'kraft' ? controllerIds(s) : []), ...BROKER_IDS].map((id) => `127.0.0.1:${metricsPort(s, id)}`).join(',');

export function nodeLayout(s: Pick<SandboxSettings, 'home' | 'portBase' | 'mode' | 'kafkaVersion'>, id: number): NodeLayout {
  const role = !isController(id) ? 'broker' : s.mode === 'zookeeper' ? 'zookeeper' : 'controller';
  // A quorum's controllers each get their own host; a lone controller keeps the folder it always had.
  const hostDir = join(s.home, role === 'broker' ? `broker-${id}` : hasControllerQuorum(s) || id !== CONTROLLER_ID ? `controller-${id}` : role);
  const broker = role === 'broker';
  return {
    id,
    role,
    hostDir,
    configFile: join(hostDir, 'config', role === 'zookeeper' ? 'zookeeper.properties' : 'server.properties'),
    log4jFile: join(hostDir, 'config', 'log4j2.xml'),
    dataDir: join(hostDir, 'data', role === 'zookeeper' ? 'zookeeper' : 'kafka-logs'),
    logsDir: join(hostDir, 'logs'),
    pidFile: join(hostDir, `${role}.pid`),
    // The ZooKeeper server's client port takes controller 100's place.
    port: s.portBase + portOffset(id),
    saslPort: broker ? s.portBase + SASL_PORT_OFFSET + id : null,
    tlsPort: broker ? s.portBase + TLS_PORT_OFFSET + id : null,
  };
}

/** host:port of every controller, for `kafka-metadata-quorum.sh --bootstrap-controller` and controller.quorum.bootstrap.servers. */
export const controllerBootstrapServers = (s: Pick<SandboxSettings, 'portBase' | 'mode' | 'kafkaVersion'>) =>
  controllerIds(s).map((id) => `127.0.0.1:${s.portBase + portOffset(id)}`).join(',');

export const binDir = (s: SandboxSettings) => join(s.home, 'bin');
export const clusterFile = (s: SandboxSettings) => join(s.home, CLUSTER_FILE);
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
  /** Absent in files written before ZooKeeper mode existed: KRaft. */
  mode: z.enum(SANDBOX_MODES).optional(),
  clusterId: z.string(),
  portBase: z.number().int(),
  bootstrapServers: z.string(),
  binDir: z.string(),
  /** Node 100: the (first) KRaft controller, or in ZooKeeper mode the ZooKeeper server (port = its client port). */
  controller: z.object({ id: z.number().int(), port: z.number().int(), hostDir: z.string() }),
  // Optional: files written before the controller quorum still parse (they had `controller` only).
  /** Every controller, `controller` first; directoryId: its metadata directory's id in a dynamic quorum (changes when it is replaced). */
  controllers: z.array(z.object({ id: z.number().int(), port: z.number().int(), hostDir: z.string(), directoryId: z.string().optional() })).optional(),
  /** KRaft only: dynamic = kraft.version 1, controller.quorum.bootstrap.servers (4.x); static = controller.quorum.voters (3.9). */
  controllerQuorum: z.enum(['dynamic', 'static']).optional(),
  /** The controllers' host:port list (`kafka-metadata-quorum.sh --bootstrap-controller`). */
  controllerBootstrapServers: z.string().optional(),
  brokers: z.array(z.object({ id: z.number().int(), port: z.number().int(), hostDir: z.string() })),
  // Optional: cluster.json files written before these listeners existed still parse.
  /** SASL_PLAINTEXT listeners; the password is a per-home random test secret. */
  scram: z
    .object({ mechanism: z.literal('SCRAM-SHA-512'), username: z.string(), password: z.string(), bootstrapServers: z.string() })
    .optional(),
  /** SSL listeners; caPemFile is the sandbox CA a client must trust. */
  tls: z.object({ caPemFile: z.string(), truststoreFile: z.string(), bootstrapServers: z.string() }).optional(),
  /** Present when the nodes run the Prometheus JMX exporter (KR_SANDBOX_METRICS=1): its host:port list. */
  metrics: z.object({ targets: z.string(), exporterVersion: z.string() }).optional(),
});
export type ClusterFile = z.infer<typeof clusterFileSchema>;

/** The sandbox as other modules need it (diagnose CLI, local server). */
export async function readSandboxCluster(s: SandboxSettings = sandboxSettings()): Promise<ClusterFile> {
  let text: string;
  try {
    // Read at once (a few hundred bytes): node:fs/promises alone would cost a diagnosis a millisecond to load.
    text = readFileSync(clusterFile(s), 'utf8');
  } catch {
    throw new Error(`no sandbox at ${s.home}: run \`npx kafka-responder sandbox up\` first`);
  }
  return clusterFileSchema.parse(JSON.parse(text));
}
