// The 4.x lines' controller quorum: three dedicated controllers in a dynamic
// quorum (kraft.version 1, KIP-853). What Kafka's own kafka-metadata-quorum.sh
// says of it, how each node is formatted, and how a controller whose storage
// was wiped rejoins, the way an operator replaces a controller's lost disk:
// fresh storage formatted with --no-initial-controllers, started as an
// observer, the old directory removed from the voters and the new one added.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { kafkaTool, waitFor } from './client.ts';
import {
  CONTROLLER_ID,
  binDir,
  clusterFile,
  controllerBootstrapServers,
  controllerIds,
  hasControllerQuorum,
  nodeLayout,
  type ClusterFile,
  type NodeLayout,
  type SandboxSettings,
} from './layout.ts';

const voterSchema = z.object({
  id: z.number().int(),
  directoryId: z.string().nullish(),
  endpoints: z.array(z.string()).optional(),
});
/** 3.x prints bare ids (`[100]`), 3.9+ objects with the directory id and endpoints. */
const replicaListSchema = z.array(z.union([z.number().int().transform((id) => ({ id })), voterSchema]));

export interface QuorumReplica {
  id: number;
  directoryId?: string | null | undefined;
  endpoints?: string[] | undefined;
}

export interface QuorumStatus {
  leaderId: number;
  leaderEpoch: number;
  highWatermark: number;
  maxFollowerLag: number;
  voters: QuorumReplica[];
  observers: QuorumReplica[];
}

/** `kafka-metadata-quorum.sh describe --status`: "Key:   value" lines, the replica lists as JSON. */
export function parseQuorumStatus(text: string): QuorumStatus {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(.*)$/.exec(line.trim());
    if (m) fields.set(m[1]!, m[2]!.trim());
  }
  const num = (key: string) => {
    const v = Number(fields.get(key));
    if (!fields.has(key) || !Number.isInteger(v)) throw new Error(`kafka-metadata-quorum.sh printed no ${key}:\n${text}`);
    return v;
  };
  const list = (key: string) => replicaListSchema.parse(JSON.parse(fields.get(key) ?? '[]'));
  return {
    leaderId: num('LeaderId'),
    leaderEpoch: num('LeaderEpoch'),
    highWatermark: num('HighWatermark'),
    maxFollowerLag: num('MaxFollowerLag'),
    voters: list('CurrentVoters'),
    observers: list('CurrentObservers'),
  };
}

/**
 * Short client timeouts for the quorum tool: with no quorum leader its admin
 * client would wait a minute (default.api.timeout.ms) before failing.
 */
async function toolConfig(s: SandboxSettings): Promise<string> {
  const file = join(s.home, 'config', 'quorum-tool.properties');
  if (!existsSync(file)) {
    await mkdir(join(s.home, 'config'), { recursive: true });
    await writeFile(file, 'request.timeout.ms=5000\ndefault.api.timeout.ms=12000\n');
  }
  return file;
}

/**
 * The quorum as Kafka's own tool describes it, asked of the controllers
 * (`--bootstrap-controller`); rejects when no controller answers or none leads.
 */
export async function describeQuorum(s: SandboxSettings, bootstrap = controllerBootstrapServers(s)): Promise<QuorumStatus> {
  const out = await kafkaTool(binDir(s), 'kafka-metadata-quorum.sh', ['--bootstrap-controller', bootstrap, '--command-config', await toolConfig(s), 'describe', '--status'], 60_000);
  return parseQuorumStatus(out);
}

/**
 * The tool's description, or its error when it has none: with no quorum leader
 * (no majority of the voters up) it times out ("Timed out waiting for a node assignment").
 */
export async function describeQuorumResult(s: SandboxSettings): Promise<{ status: QuorumStatus } | { error: string }> {
  try {
    return { status: await describeQuorum(s) };
  } catch (err) {
    // The exception's line, not the admin client's connection warnings before it.
    const lines = (err as Error).message.split('\n');
    return { error: (lines.find((l) => /^[\w.$]+(Exception|Error)\b/.test(l.trim())) ?? lines.at(-1) ?? '').trim() };
  }
}

/** A leader and every controller of the line among the voters: what `healthy` waits for. */
export async function waitQuorumHealthy(s: SandboxSettings, timeoutMs = 120_000): Promise<QuorumStatus> {
  const want = controllerIds(s).join(',');
  return waitFor(`a quorum leader and voters ${want}`, async () => {
    const r = await describeQuorumResult(s);
    return 'status' in r && r.status.leaderId >= 0 && r.status.voters.map((v) => v.id).sort((a, b) => a - b).join(',') === want ? r.status : null;
  }, timeoutMs);
}

/** Each controller's `id@host:port:directoryId`, the same for every controller's format (--initial-controllers). */
export function initialControllers(cluster: ClusterFile): string {
  return (cluster.controllers ?? []).map((c) => {
    if (!c.directoryId) throw new Error(`cluster.json has no directory id for controller ${c.id}`);
    return `${c.id}@127.0.0.1:${c.port}:${c.directoryId}`;
  }).join(',');
}

/** Written into a controller's host dir when it was formatted to join an existing quorum; removed once it is a voter. */
const JOIN_PENDING_FILE = 'quorum-join.pending';
export const joinPending = (node: NodeLayout) => existsSync(join(node.hostDir, JOIN_PENDING_FILE));

/** Whether the node's storage is formatted (meta.properties in its log dir). */
export const isFormatted = (node: NodeLayout) => existsSync(join(node.dataDir, 'meta.properties'));

/**
 * StorageTool's quorum options for a node of a dynamic quorum: the controllers
 * of a new cluster all get the same --initial-controllers; brokers, and a
 * controller that replaces a wiped one, --no-initial-controllers (it joins later).
 * `initialQuorum`: no controller of this sandbox has been formatted yet.
 */
export async function formatQuorumArgs(s: SandboxSettings, node: NodeLayout, cluster: ClusterFile, initialQuorum: boolean): Promise<string[]> {
  if (!hasControllerQuorum(s)) return [];
  if (node.role === 'controller' && initialQuorum) return ['--initial-controllers', initialControllers(cluster)];
  if (node.role === 'controller') await writeFile(join(node.hostDir, JOIN_PENDING_FILE), new Date().toISOString());
  return ['--no-initial-controllers'];
}

/** The directory id StorageTool gave the node's metadata log directory. */
async function directoryIdOf(node: NodeLayout): Promise<string> {
  const text = await readFile(join(node.dataDir, 'meta.properties'), 'utf8');
  const id = /^directory\.id=(.+)$/m.exec(text)?.[1]?.trim();
  if (!id) throw new Error(`${node.dataDir}/meta.properties has no directory.id`);
  return id;
}

/**
 * A started controller with fresh storage (an observer) becomes a voter again:
 * remove-controller of its old directory, then add-controller of the new one,
 * through the other controllers. Needs a quorum leader, so a majority of the
 * other voters running.
 */
export async function joinQuorum(s: SandboxSettings, node: NodeLayout, cluster: ClusterFile, log: (m: string) => void): Promise<void> {
  const dirId = await directoryIdOf(node);
  const others = controllerIds(s).filter((id) => id !== node.id).map((id) => `127.0.0.1:${nodeLayout(s, id).port}`).join(',');
  const leader = await waitFor(`a quorum leader among controllers ${others}`, async () => {
    const st = await describeQuorum(s, others).catch(() => null);
    return st && st.leaderId >= 0 ? st : null;
  }, 90_000).catch(() => {
    throw new Error(`controller ${node.id} has fresh storage and joins the quorum through a leader, and the other controllers have none: start them first (two of three must run)`);
  });
  const quorumTool = (args: string[]) => kafkaTool(binDir(s), 'kafka-metadata-quorum.sh', ['--bootstrap-controller', others, ...args], 90_000);
  for (const old of leader.voters.filter((v) => v.id === node.id && v.directoryId !== dirId)) {
    await quorumTool(['--command-config', await toolConfig(s), 'remove-controller', '--controller-id', String(node.id), '--controller-directory-id', old.directoryId ?? '']);
    log(`controller ${node.id}: old directory ${old.directoryId} removed from the voters`);
  }
  // The leader adds an observer only once it has caught up and the previous voter change is committed: retry.
  await waitFor(`controller ${node.id} added to the voters`, async () => {
    const st = await describeQuorum(s, others).catch(() => null);
    if (st?.voters.some((v) => v.id === node.id && v.directoryId === dirId)) return true;
    await quorumTool(['--command-config', node.configFile, 'add-controller']).catch(() => null);
    return false;
  }, 120_000);
  await rm(join(node.hostDir, JOIN_PENDING_FILE), { force: true });
  await recordDirectoryId(s, cluster, node.id, dirId);
  log(`controller ${node.id}: a voter again with directory ${dirId}`);
}

/** cluster.json keeps each controller's current directory id. */
async function recordDirectoryId(s: SandboxSettings, cluster: ClusterFile, id: number, dirId: string): Promise<void> {
  for (const c of cluster.controllers ?? []) if (c.id === id) c.directoryId = dirId;
  const onDisk = JSON.parse(await readFile(clusterFile(s), 'utf8')) as ClusterFile;
  for (const c of onDisk.controllers ?? []) if (c.id === id) c.directoryId = dirId;
  await writeFile(clusterFile(s), JSON.stringify(onDisk, null, 2));
}

/**
 * Where a 4.x sandbox brought up before the quorum kept its single controller
 * (<home>/controller): `down` still stops it. The layout of a line without a
 * quorum gives exactly that folder.
 */
export const singleControllerLayout = (s: SandboxSettings): NodeLayout => nodeLayout({ ...s, kafkaVersion: 'single-controller' }, CONTROLLER_ID);

/** A 4.x sandbox whose cluster.json predates the quorum: its metadata lives on one static voter. */
export const predatesQuorum = (s: SandboxSettings, existing: ClusterFile | null) => hasControllerQuorum(s) && !!existing && existing.controllerQuorum !== 'dynamic';
export const predatesQuorumMessage = (s: SandboxSettings) =>
  `the sandbox at ${s.home} was brought up with a single controller, before the 4.x lines ran a quorum of three: ` +
  '`npx kafka-responder sandbox down --purge`, then `sandbox up`';
