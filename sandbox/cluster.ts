// Lifecycle of the sandbox's JVMs: three brokers on loopback beside node 100,
// which holds the metadata: a dedicated KRaft controller, or in ZooKeeper mode
// a standalone ZooKeeper server (there a broker is the controller). Only
// processes whose command line names our own config file are ever signalled,
// so `down` cannot hit anything it did not start.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JMX_EXPORTER_VERSION, checkJava, ensureJmxExporter, ensureKafkaDist, type KafkaDist } from './dist.ts';
import { brokerListed, isAlive, markLog, portAccepts, portFree, readSince, tail, type LogMark } from './processes.ts';
import { jmxExporterRules, log4j2Xml, log4jProperties, serverProperties, writeToolWrappers, zookeeperLog4jProperties, zookeeperProperties } from './files.ts';
import {
  BROKER_IDS,
  CONTROLLER_ID,
  binDir,
  bootstrapServers,
  clusterFile,
  clusterFileSchema,
  nodeLayout,
  lineName,
  metricsPort,
  metricsTargets,
  nodePorts,
  sandboxSettings,
  scramBootstrapServers,
  tlsBootstrapServers,
  type ClusterFile,
  type NodeLayout,
  type SandboxSettings,
} from './layout.ts';
import { SCRAM_MECHANISM, SCRAM_USERNAME, addScramArg, alterScramConfig, ensureSecurityMaterial, type SecurityMaterial } from './security.ts';

export { isAlive, markLog, readSince, type LogMark } from './processes.ts';

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const ALL_NODE_IDS = [CONTROLLER_ID, ...BROKER_IDS];
// Generous: a 2-core machine under load takes a while to start four JVMs.
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 90_000;
/** 3 s apart: outlasts a ZooKeeper session (18 s by default) with room for a loaded machine. */
const ZOOKEEPER_RESTART_ATTEMPTS = 12;

export interface NodeStatus {
  id: number;
  role: NodeLayout['role'];
  running: boolean;
  pid: number | null;
  port: number;
  hostDir: string;
}

/** Kafka's Uuid.randomUuid().toString(): URL-safe base64 of 16 bytes, never starting with '-'. */
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function readPid(node: NodeLayout): Promise<number | null> {
  try {
    const pid = Number((await readFile(node.pidFile, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

const ZOOKEEPER_MAIN = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';
const mainClass = (node: NodeLayout) => (node.role === 'zookeeper' ? ZOOKEEPER_MAIN : 'kafka.Kafka');

/** The pid is ours only if that process still runs our config (pids get reused). */
async function ownedPid(node: NodeLayout): Promise<number | null> {
  const pid = await readPid(node);
  if (pid === null) return null;
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmdline.includes(node.configFile) && cmdline.includes(mainClass(node)) ? pid : null;
  } catch {
    return null;
  }
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * The broker's "service" on its host directory: what lib/hosts/service-control.sh
 * runs to start it (as systemd would run ExecStart). It records its pid where the
 * sandbox looks for it, then becomes the JVM.
 */
async function writeServiceScript(node: NodeLayout, javaArgs: string[]): Promise<void> {
  const file = join(node.hostDir, SERVICE_SCRIPT);
  const body = ['#!/usr/bin/env bash', `cd ${shellQuote(node.hostDir)} || exit 1`, `echo $$ > ${shellQuote(node.pidFile)}`, `exec java ${javaArgs.map(shellQuote).join(' ')}`, ''].join('\n');
  await writeFile(file, body, { mode: 0o755 });
}

/** Written into each broker's host directory; its presence tells service-control.sh it is on a sandbox host. */
export const SERVICE_SCRIPT = 'sandbox-service.sh';
/** Test knob: a number of seconds in this file (host directory) delays the broker's next graceful stop. */
export const SLOW_STOP_FILE = 'slow-stop-seconds';

export class Sandbox {
  readonly settings: SandboxSettings;
  private dist: KafkaDist | null = null;
  private securityJob: Promise<SecurityMaterial> | null = null;
  readonly log: (m: string) => void;

  constructor(settings: SandboxSettings = sandboxSettings(), log: (m: string) => void = (m) => console.error(m)) {
    this.settings = settings;
    this.log = log;
  }

  node(id: number): NodeLayout {
    if (!ALL_NODE_IDS.includes(id)) throw new Error(`no such sandbox node: ${id} (brokers are ${BROKER_IDS.join(', ')})`);
    return nodeLayout(this.settings, id);
  }

  broker(id: number): NodeLayout {
    if (!(BROKER_IDS as readonly number[]).includes(id)) throw new Error(`no such broker: ${id} (brokers are ${BROKER_IDS.join(', ')})`);
    return nodeLayout(this.settings, id);
  }

  get bootstrapServers(): string {
    return bootstrapServers(this.settings);
  }

  get binDir(): string {
    return binDir(this.settings);
  }

  async readClusterFile(): Promise<ClusterFile | null> {
    try {
      return clusterFileSchema.parse(JSON.parse(await readFile(clusterFile(this.settings), 'utf8')));
    } catch {
      return null;
    }
  }

  async status(): Promise<NodeStatus[]> {
    return Promise.all(
      ALL_NODE_IDS.map(async (id) => {
        const n = nodeLayout(this.settings, id);
        const pid = await ownedPid(n);
        return { id, role: n.role, running: pid !== null, pid, port: n.port, hostDir: n.hostDir };
      }),
    );
  }

  private async ensureDist(): Promise<KafkaDist> {
    if (!this.dist) {
      await checkJava();
      this.dist = await ensureKafkaDist(this.settings, this.log);
    }
    return this.dist;
  }

  /**
   * CA, keystores and SCRAM password: generated on a home's first `up`, read back
   * afterwards. Re-read from disk on every call (cheap) because `down --purge`
   * deletes them; concurrent callers share one generation.
   */
  private ensureSecurity(): Promise<SecurityMaterial> {
    this.securityJob ??= ensureSecurityMaterial(this.settings, this.log).finally(() => {
      this.securityJob = null;
    });
    return this.securityJob;
  }

  /** First port of the node's listeners that something else holds, or null. */
  private async busyPort(node: NodeLayout): Promise<number | null> {
    for (const port of nodePorts(node)) if (!(await portFree(port))) return port;
    return null;
  }

  /** Java and Kafka's jars in place; nothing started. */
  async install(): Promise<void> {
    const dist = await this.ensureDist();
    this.log(`Apache Kafka ${dist.version} ready in ${dist.libsDir}`);
  }

  /** Idempotent: a running sandbox stays as it is; stopped nodes are started. */
  async up(): Promise<ClusterFile> {
    const existing = await this.readClusterFile();
    const existingLine = existing && { kafkaVersion: existing.kafkaVersion, mode: existing.mode ?? 'kraft' };
    if (existingLine && (existingLine.kafkaVersion !== this.settings.kafkaVersion || existingLine.mode !== this.settings.mode)) {
      throw new Error(
        `the sandbox at ${this.settings.home} runs ${lineName(existingLine)}, not ${lineName(this.settings)}: ` +
          '`npx kafka-responder sandbox down --purge` first, or set KR_SANDBOX_HOME to another folder',
      );
    }
    const statuses = await this.status();
    if (existing && statuses.every((s) => s.running)) {
      this.log(`sandbox already up (${existing.bootstrapServers})`);
      if (!existing.scram || !existing.tls) {
        this.log('it was started before the SCRAM and TLS listeners existed: `sandbox down` then `sandbox up` adds them');
      }
      return existing;
    }
    const dist = await this.ensureDist();
    for (const s of statuses.filter((x) => !x.running)) {
      const busy = await this.busyPort(this.node(s.id));
      if (busy !== null) {
        throw new Error(
          `port ${busy} (node ${s.id}) is in use by another process: stop it, or pick other ports with KR_SANDBOX_PORT_BASE=<base>`,
        );
      }
    }
    const security = await this.ensureSecurity();
    const cluster: ClusterFile = {
      kafkaVersion: dist.version,
      mode: this.settings.mode,
      clusterId: existing?.clusterId ?? randomClusterId(),
      portBase: this.settings.portBase,
      bootstrapServers: this.bootstrapServers,
      binDir: await writeToolWrappers(this.settings, dist),
      controller: { id: CONTROLLER_ID, port: this.node(CONTROLLER_ID).port, hostDir: this.node(CONTROLLER_ID).hostDir },
      brokers: BROKER_IDS.map((id) => ({ id, port: this.node(id).port, hostDir: this.node(id).hostDir })),
      scram: { mechanism: SCRAM_MECHANISM, username: SCRAM_USERNAME, password: security.secrets.scramPassword, bootstrapServers: scramBootstrapServers(this.settings) },
      tls: { caPemFile: security.paths.caPem, truststoreFile: security.paths.truststore, bootstrapServers: tlsBootstrapServers(this.settings) },
      ...(this.metricsOn(existing) ? { metrics: { targets: metricsTargets(this.settings), exporterVersion: JMX_EXPORTER_VERSION } } : {}),
    };
    await mkdir(this.settings.home, { recursive: true });
    await writeFile(clusterFile(this.settings), JSON.stringify(cluster, null, 2));
    const t0 = Date.now();
    if (!statuses.find((s) => s.id === CONTROLLER_ID)?.running) await this.startNode(CONTROLLER_ID, cluster);
    await Promise.all(statuses.filter((s) => s.role === 'broker' && !s.running).map((s) => this.startNode(s.id, cluster)));
    await this.ensureScramUser(cluster, security);
    this.log(`sandbox up in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${lineName(this.settings)}, ${cluster.bootstrapServers}`);
    return cluster;
  }

  /**
   * The SCRAM user exists once per cluster: a fresh controller gets it at format
   * time (--add-scram); a cluster formatted before the sandbox had SCRAM gets it
   * here, once, through kafka-configs over PLAINTEXT. The marker holds the cluster
   * id so later `up`s skip the extra JVM.
   */
  private async ensureScramUser(cluster: ClusterFile, security: SecurityMaterial): Promise<void> {
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
    this.log(`SCRAM user ${SCRAM_USERNAME} created with kafka-configs`);
  }

  private async writeNodeFiles(node: NodeLayout, dist: KafkaDist): Promise<void> {
    await mkdir(join(node.hostDir, 'config'), { recursive: true });
    await mkdir(node.logsDir, { recursive: true });
    await mkdir(node.dataDir, { recursive: true });
    if (node.role === 'zookeeper') {
      await writeFile(node.configFile, zookeeperProperties(node));
      await writeFile(join(node.hostDir, 'config', 'log4j.properties'), zookeeperLog4jProperties());
      return;
    }
    await writeFile(node.configFile, serverProperties(this.settings, node, node.role === 'broker' ? await this.ensureSecurity() : undefined));
    if (dist.logging === 'log4j2') await writeFile(node.log4jFile, log4j2Xml());
    else await writeFile(join(node.hostDir, 'config', 'log4j.properties'), log4jProperties());
  }

  private loggingOpt(node: NodeLayout, dist: KafkaDist): string {
    return dist.logging === 'log4j2' && node.role !== 'zookeeper'
      ? `-Dlog4j2.configurationFile=${node.log4jFile}`
      : `-Dlog4j.configuration=file:${join(node.hostDir, 'config', 'log4j.properties')}`;
  }

  /** `kafka-storage.sh format`, needed before a KRaft node's first start and after a wipe (ZooKeeper mode has none). */
  private async formatIfNeeded(node: NodeLayout, dist: KafkaDist, clusterId: string): Promise<void> {
    if (this.settings.mode === 'zookeeper' || existsSync(join(node.dataDir, 'meta.properties'))) return;
    // The controller holds the cluster's bootstrap metadata: the SCRAM user goes in there.
    const security = node.role === 'controller' ? await this.ensureSecurity() : null;
    try {
      await exec(
        'java',
        ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dkafka.logs.dir=${node.logsDir}`, this.loggingOpt(node, dist), '-cp', dist.classpath,
          'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', node.configFile, '--ignore-formatted',
          ...(security ? ['--add-scram', addScramArg(security.secrets)] : [])],
        { timeout: 120_000 },
      );
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`formatting node ${node.id}'s storage failed: ${(e.stderr || e.stdout || e.message).trim()}`);
    }
    if (security) await writeFile(security.paths.scramMarker, clusterId);
  }

  async start(id: number): Promise<void> {
    let cluster = await this.readClusterFile();
    if (!cluster) throw new Error('the sandbox has never been brought up: run `npx kafka-responder sandbox up`');
    const node = this.node(id);
    if (await ownedPid(node)) {
      this.log(`node ${id} is already running`);
      return;
    }
    const busy = await this.busyPort(node);
    if (busy !== null) throw new Error(`port ${busy} (node ${id}) is in use by another process`);
    const metrics = this.metricsOn(cluster);
    if (metrics !== !!cluster.metrics) {
      // KR_SANDBOX_METRICS given to a later start: the sandbox keeps that from now on.
      const { metrics: _old, ...rest } = cluster;
      cluster = metrics ? { ...rest, metrics: { targets: metricsTargets(this.settings), exporterVersion: JMX_EXPORTER_VERSION } } : rest;
      await writeFile(clusterFile(this.settings), JSON.stringify(cluster, null, 2));
    }
    await this.startNode(id, cluster);
  }

  /** KR_SANDBOX_METRICS when set, else what the sandbox was brought up with. */
  private metricsOn(cluster: ClusterFile | null): boolean {
    return this.settings.metrics ?? !!cluster?.metrics;
  }

  /** The JMX exporter's javaagent option for a Kafka node, when the sandbox runs with metrics. */
  private async metricsAgent(node: NodeLayout, cluster: ClusterFile): Promise<string[]> {
    if (!cluster.metrics || node.role === 'zookeeper') return [];
    const jar = await ensureJmxExporter(this.settings, this.log);
    const rules = join(node.hostDir, 'config', 'jmx-exporter.yml');
    await writeFile(rules, jmxExporterRules());
    return [`-javaagent:${jar}=127.0.0.1:${metricsPort(this.settings, node.id)}:${rules}`];
  }

  private async startNode(id: number, cluster: ClusterFile): Promise<void> {
    const dist = await this.ensureDist();
    const node = this.node(id);
    await this.writeNodeFiles(node, dist);
    await this.formatIfNeeded(node, dist, cluster.clusterId);
    const javaArgs = [
      node.role === 'broker' ? '-Xmx512m' : '-Xmx256m',
      '-Xms128m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Djava.awt.headless=true',
      `-Dkafka.logs.dir=${node.logsDir}`,
      this.loggingOpt(node, dist),
      ...(await this.metricsAgent(node, cluster)),
      '-cp',
      dist.classpath,
      mainClass(node),
      node.configFile,
    ];
    if (node.role === 'broker') await writeServiceScript(node, javaArgs);
    const serverLog = join(node.logsDir, 'server.log');
    if (this.settings.mode === 'zookeeper' && node.role === 'broker') await this.waitDeregistered(id);
    for (let attempt = 1; ; attempt++) {
      const logMark = await markLog(serverLog);
      const pid = await this.launch(node, javaArgs);
      try {
        await this.waitStarted(node, pid, logMark);
        return;
      } catch (err) {
        // ZooKeeper mode: a killed broker's registration lives until its ZooKeeper session expires
        // (18 s), and a new process with the same id exits ("node already exists"). Kafka says so and
        // stops; the sandbox starts it again, as systemd's Restart= would.
        const sessionLeft = this.settings.mode === 'zookeeper' && node.role === 'broker' && /node already exists and owner/.test(await readSince(serverLog, logMark));
        if (!sessionLeft || attempt >= ZOOKEEPER_RESTART_ATTEMPTS) throw err;
        this.log(`broker ${id}: its killed predecessor's ZooKeeper session has not expired yet; starting again in 3 s`);
        await sleep(3000);
      }
    }
  }

  /**
   * ZooKeeper mode: a killed broker stays registered until its session expires. Starting it earlier
   * fails, and the failed start shuts down cleanly (it writes the clean-shutdown marker), so the
   * start that works would no longer show the unclean recovery: wait for the registration to go,
   * as long as another broker can say (when none is up, the retry in startNode covers it).
   */
  private async waitDeregistered(id: number): Promise<void> {
    const deadline = Date.now() + 90_000;
    // Ask only the other brokers: the killed one's closed port would answer nothing, and a
    // client that tried it first would take "no answer" for "not registered".
    const others = BROKER_IDS.filter((b) => b !== id).map((b) => `127.0.0.1:${nodeLayout(this.settings, b).port}`).join(',');
    let said = false;
    while (Date.now() < deadline) {
      const registered = await brokerListed(others, id);
      if (registered === false) return;
      // null: no other broker answered; when none is up, the retry in startNode covers it.
      if (registered === null && Date.now() > deadline - 60_000) return;
      if (!said) this.log(`broker ${id}: still registered in ZooKeeper (a killed process's session has not expired yet); waiting`);
      said = true;
      await sleep(1000);
    }
  }

  private async launch(node: NodeLayout, javaArgs: string[]): Promise<number> {
    const outFile = { broker: 'kafkaServer.out', controller: 'controllerServer.out', zookeeper: 'zookeeper.out' }[node.role];
    const out = openSync(join(node.logsDir, outFile), 'a');
    const child = spawn('java', javaArgs, { detached: true, stdio: ['ignore', out, out], cwd: node.hostDir });
    closeSync(out);
    child.unref();
    if (!child.pid) throw new Error(`could not start java for node ${node.id}`);
    await writeFile(node.pidFile, String(child.pid));
    return child.pid;
  }

  /**
   * Started = the start line written since `logMark` ("Kafka Server started" in
   * KRaft, "[KafkaServer id=N] started" in ZooKeeper mode), and the port answers.
   * The ZooKeeper server: its client port answers.
   */
  private async waitStarted(node: NodeLayout, pid: number, logMark: LogMark): Promise<void> {
    const serverLog = join(node.logsDir, node.role === 'zookeeper' ? 'zookeeper.log' : 'server.log');
    const deadline = Date.now() + START_TIMEOUT_MS;
    const started = (text: string) => node.role === 'zookeeper' || /Kafka Server started|\[KafkaServer id=\d+\] started/.test(text);
    while (Date.now() < deadline) {
      if (!isAlive(pid)) {
        throw new Error(`node ${node.id} exited during start. Last lines of ${serverLog}:\n${await tail(serverLog)}`);
      }
      if (started(await readSince(serverLog, logMark)) && (await portAccepts(node.port))) return;
      await sleep(250);
    }
    throw new Error(`node ${node.id} did not finish starting within ${START_TIMEOUT_MS / 1000} s. Last lines of ${serverLog}:\n${await tail(serverLog)}`);
  }

  /** Graceful stop (SIGTERM → controlled shutdown); SIGKILL only if it hangs, and it says so. */
  async stop(id: number): Promise<'stopped' | 'not-running' | 'killed-after-timeout'> {
    const node = this.node(id);
    const pid = await ownedPid(node);
    if (pid === null) return 'not-running';
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (!isAlive(pid)) {
        await rm(node.pidFile, { force: true });
        return 'stopped';
      }
      await sleep(200);
    }
    process.kill(pid, 'SIGKILL');
    await this.waitGone(pid);
    await rm(node.pidFile, { force: true });
    this.log(`node ${id} did not stop within ${STOP_TIMEOUT_MS / 1000} s and was killed`);
    return 'killed-after-timeout';
  }

  /** SIGKILL: no controlled shutdown, no clean-shutdown marker. */
  async kill(id: number): Promise<'killed' | 'not-running'> {
    const node = this.node(id);
    const pid = await ownedPid(node);
    if (pid === null) return 'not-running';
    process.kill(pid, 'SIGKILL');
    await this.waitGone(pid);
    await rm(node.pidFile, { force: true });
    return 'killed';
  }

  private async waitGone(pid: number): Promise<void> {
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
  }

  /** Deletes a stopped broker's data; its next start formats fresh storage. */
  async wipe(id: number): Promise<void> {
    const node = this.broker(id);
    if (await ownedPid(node)) throw new Error(`broker ${id} is running: stop or kill it before wiping its data`);
    await rm(node.dataDir, { recursive: true, force: true });
    await mkdir(node.dataDir, { recursive: true });
  }

  /** Stops every process the sandbox started (and nothing else). --purge also deletes its folder. */
  async down(opts: { purge?: boolean } = {}): Promise<void> {
    await Promise.all(BROKER_IDS.map((id) => this.stop(id)));
    await this.stop(CONTROLLER_ID);
    if (opts.purge) await rm(this.settings.home, { recursive: true, force: true });
  }
}
