// Lifecycle of the sandbox's JVMs: three brokers on loopback beside the nodes
// that hold the metadata: three dedicated KRaft controllers in a dynamic quorum
// on the 4.x lines (100, 101, 102; quorum.ts), one on 3.9 KRaft (100), or in
// ZooKeeper mode a standalone ZooKeeper server (100; a broker is the controller). Only
// processes whose command line names our own config file are ever signalled,
// so `down` cannot hit anything it did not start.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JMX_EXPORTER_VERSION, checkJava, ensureJmxExporter, ensureKafkaDist, type KafkaDist } from './dist.ts';
import { brokerListed, isAlive, mainClass, markLog, ownedPid, portAccepts, portFree, readSince, tail, writeServiceScript, type LogMark } from './processes.ts';
import { jmxExporterRules, log4j2Xml, log4jProperties, serverProperties, writeToolWrappers, zookeeperLog4jProperties, zookeeperProperties } from './files.ts';
import {
  BROKER_IDS,
  binDir,
  bootstrapServers,
  clusterFile,
  clusterFileSchema,
  controllerBootstrapServers,
  controllerIds,
  hasControllerQuorum,
  nodeIds,
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
import { SCRAM_MECHANISM, SCRAM_USERNAME, addScramArg, ensureScramUser, ensureSecurityMaterial, type SecurityMaterial } from './security.ts';
import { formatQuorumArgs, isFormatted, joinPending, joinQuorum, predatesQuorum, predatesQuorumMessage, singleControllerLayout } from './quorum.ts';

export { SERVICE_SCRIPT, SLOW_STOP_FILE, isAlive, markLog, readSince, type LogMark } from './processes.ts';

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Generous: a 2-core machine under load takes a while to start six JVMs.
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
    if (!nodeIds(this.settings).includes(id)) {
      const metadata = this.settings.mode === 'zookeeper' ? 'the ZooKeeper server is' : hasControllerQuorum(this.settings) ? 'controllers are' : 'the controller is';
      throw new Error(`no such sandbox node: ${id} (${metadata} ${controllerIds(this.settings).join(', ')}; brokers are ${BROKER_IDS.join(', ')})`);
    }
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
      nodeIds(this.settings).map(async (id) => {
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
    if (predatesQuorum(this.settings, existing)) throw new Error(predatesQuorumMessage(this.settings));
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
    const quorum = hasControllerQuorum(this.settings);
    const controllers = controllerIds(this.settings).map((id) => {
      const { port, hostDir } = this.node(id);
      // Directory ids are made once per sandbox (Kafka's Uuid format); a replaced controller's is recorded by joinQuorum.
      const directoryId = quorum ? (existing?.controllers?.find((c) => c.id === id)?.directoryId ?? randomClusterId()) : undefined;
      return { id, port, hostDir, ...(directoryId ? { directoryId } : {}) };
    });
    const cluster: ClusterFile = {
      kafkaVersion: dist.version,
      mode: this.settings.mode,
      clusterId: existing?.clusterId ?? randomClusterId(),
      portBase: this.settings.portBase,
      bootstrapServers: this.bootstrapServers,
      binDir: await writeToolWrappers(this.settings, dist),
      controller: { id: controllers[0]!.id, port: controllers[0]!.port, hostDir: controllers[0]!.hostDir },
      controllers,
      ...(this.settings.mode === 'kraft'
        ? { controllerQuorum: quorum ? ('dynamic' as const) : ('static' as const), controllerBootstrapServers: controllerBootstrapServers(this.settings) }
        : {}),
      brokers: BROKER_IDS.map((id) => ({ id, port: this.node(id).port, hostDir: this.node(id).hostDir })),
      scram: { mechanism: SCRAM_MECHANISM, username: SCRAM_USERNAME, password: security.secrets.scramPassword, bootstrapServers: scramBootstrapServers(this.settings) },
      tls: { caPemFile: security.paths.caPem, truststoreFile: security.paths.truststore, bootstrapServers: tlsBootstrapServers(this.settings) },
      ...(this.metricsOn(existing) ? { metrics: { targets: metricsTargets(this.settings), exporterVersion: JMX_EXPORTER_VERSION } } : {}),
    };
    await mkdir(this.settings.home, { recursive: true });
    await writeFile(clusterFile(this.settings), JSON.stringify(cluster, null, 2));
    const t0 = Date.now();
    // Decided before any format: the controllers of a new quorum are all formatted with the same initial voters.
    const initialQuorum = this.noControllerFormatted();
    await Promise.all(statuses.filter((s) => s.role !== 'broker' && !s.running).map((s) => this.startNode(s.id, cluster, initialQuorum)));
    await Promise.all(statuses.filter((s) => s.role === 'broker' && !s.running).map((s) => this.startNode(s.id, cluster, false)));
    await ensureScramUser(cluster, security, this.log);
    this.log(`sandbox up in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${lineName(this.settings)}, ${cluster.bootstrapServers}`);
    return cluster;
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

  /** No controller of the sandbox has formatted storage yet: a new quorum. */
  private noControllerFormatted(): boolean {
    return controllerIds(this.settings).every((id) => !isFormatted(this.node(id)));
  }

  /** `kafka-storage.sh format`, needed before a KRaft node's first start and after a wipe (ZooKeeper mode has none). */
  private async formatIfNeeded(node: NodeLayout, dist: KafkaDist, cluster: ClusterFile, initialQuorum: boolean): Promise<void> {
    if (this.settings.mode === 'zookeeper' || isFormatted(node)) return;
    const clusterId = cluster.clusterId;
    // The controllers hold the cluster's bootstrap metadata: the SCRAM user goes in there (a joining controller copies the leader's).
    const security = node.role === 'controller' && (initialQuorum || !hasControllerQuorum(this.settings)) ? await this.ensureSecurity() : null;
    const quorumArgs = await formatQuorumArgs(this.settings, node, cluster, initialQuorum);
    try {
      await exec(
        'java',
        ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dkafka.logs.dir=${node.logsDir}`, this.loggingOpt(node, dist), '-cp', dist.classpath,
          'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', node.configFile, '--ignore-formatted',
          ...quorumArgs, ...(security ? ['--add-scram', addScramArg(security.secrets)] : [])],
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
    if (predatesQuorum(this.settings, cluster)) throw new Error(predatesQuorumMessage(this.settings));
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
    await this.startNode(id, cluster, this.noControllerFormatted());
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

  private async startNode(id: number, cluster: ClusterFile, initialQuorum: boolean): Promise<void> {
    const dist = await this.ensureDist();
    const node = this.node(id);
    await this.writeNodeFiles(node, dist);
    await this.formatIfNeeded(node, dist, cluster, initialQuorum);
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
    if (node.role !== 'zookeeper') await writeServiceScript(node, javaArgs);
    const serverLog = join(node.logsDir, 'server.log');
    if (this.settings.mode === 'zookeeper' && node.role === 'broker') await this.waitDeregistered(id);
    for (let attempt = 1; ; attempt++) {
      const logMark = await markLog(serverLog);
      const pid = await this.launch(node, javaArgs);
      try {
        await this.waitStarted(node, pid, logMark);
        // A controller formatted to replace a wiped one runs as an observer until it is a voter again.
        if (node.role === 'controller' && joinPending(node)) await joinQuorum(this.settings, node, cluster, this.log);
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
   * KRaft, brokers and controllers alike; "[KafkaServer id=N] started" in ZooKeeper mode), and the port answers.
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
    return this.stopNode(this.node(id));
  }

  private async stopNode(node: NodeLayout): Promise<'stopped' | 'not-running' | 'killed-after-timeout'> {
    const id = node.id;
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

  /**
   * Deletes a stopped node's data; its next start formats fresh storage. A
   * controller of a quorum can lose its disk as one of three: while the other
   * two run, its next start joins the quorum as a new voter (joinQuorum). A lone
   * controller or ZooKeeper server holds the only copy of the metadata.
   */
  async wipe(id: number): Promise<void> {
    const node = this.node(id);
    const name = `${node.role} ${id}`;
    if (node.role !== 'broker' && !hasControllerQuorum(this.settings)) {
      throw new Error(`${name} holds the cluster's only copy of its metadata: wiping it loses the cluster (\`sandbox down --purge\` starts over)`);
    }
    if (await ownedPid(node)) throw new Error(`${name} is running: stop or kill it before wiping its data`);
    if (node.role === 'controller') {
      const down = (await this.status()).filter((s) => s.role === 'controller' && s.id !== id && !s.running).map((s) => s.id);
      if (down.length) {
        throw new Error(`controller ${id} can be wiped only while the other controllers run (${down.join(', ')} ${down.length > 1 ? 'are' : 'is'} down): its fresh storage rejoins the quorum through them`);
      }
    }
    await rm(node.dataDir, { recursive: true, force: true });
    await mkdir(node.dataDir, { recursive: true });
  }

  /** Stops every process the sandbox started (and nothing else). --purge also deletes its folder. */
  async down(opts: { purge?: boolean } = {}): Promise<void> {
    await Promise.all(BROKER_IDS.map((id) => this.stop(id)));
    await Promise.all(controllerIds(this.settings).map((id) => this.stop(id)));
    // A 4.x sandbox brought up before the quorum: its one controller (nothing happens when there is none).
    if (hasControllerQuorum(this.settings)) await this.stopNode(singleControllerLayout(this.settings));
    if (opts.purge) await rm(this.settings.home, { recursive: true, force: true });
  }
}
