// A fourth KRaft broker next to the sandbox's three, for the tests only: it
// registers with the sandbox's controllers, holds no replica (nothing is
// assigned to it), and can be stopped, started again and removed. The sandbox
// itself has brokers 1-3 only; this one lives in its own folder under the
// sandbox home and listens on PLAINTEXT at base+6 (base+4 and base+5 are
// controllers 101 and 102). Kafka's ClusterTool (kafka-cluster.sh) runs from
// the sandbox's Kafka jars.
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureKafkaDist } from '../../sandbox/dist.ts';
import { TOOL_JVM_OPTS, log4j2Xml, serverProperties } from '../../sandbox/files.ts';
import { hasControllerQuorum, nodeLayout, readSandboxCluster, type NodeLayout, type SandboxSettings } from '../../sandbox/layout.ts';
import { isAlive, portAccepts } from '../../sandbox/processes.ts';

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `kafka-cluster.sh <args>` of the sandbox's Kafka line; stdout. */
export async function kafkaCluster(settings: SandboxSettings, args: string[]): Promise<string> {
  const dist = await ensureKafkaDist(settings);
  const logging = `-Dlog4j2.configurationFile=${join(settings.home, 'config', 'tools-log4j2.xml')}`;
  const { stdout } = await exec('java', [...TOOL_JVM_OPTS, logging, '-cp', dist.classpath, 'org.apache.kafka.tools.ClusterTool', ...args], { timeout: 120_000 });
  return stdout;
}

/** `kafka-cluster.sh list-endpoints --include-fenced-brokers`: id → STATE (fenced / unfenced) of every registered broker. */
export async function listEndpoints(settings: SandboxSettings, bootstrap: string): Promise<Map<number, string>> {
  const out = await kafkaCluster(settings, ['list-endpoints', '--bootstrap-server', bootstrap, '--include-fenced-brokers']);
  const states = new Map<number, string>();
  for (const line of out.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (/^\d+$/.test(cols[0] ?? '') && cols[5] === 'broker') states.set(Number(cols[0]), cols[4]!);
  }
  return states;
}

export class ExtraBroker {
  readonly node: NodeLayout;
  private pid: number | null = null;

  constructor(
    private readonly settings: SandboxSettings,
    readonly id = 4,
  ) {
    const hostDir = join(settings.home, `extra-broker-${id}`);
    this.node = {
      ...nodeLayout(settings, id),
      hostDir,
      configFile: join(hostDir, 'config', 'server.properties'),
      log4jFile: join(hostDir, 'config', 'log4j2.xml'),
      dataDir: join(hostDir, 'data', 'kafka-logs'),
      logsDir: join(hostDir, 'logs'),
      pidFile: join(hostDir, 'broker.pid'),
      port: settings.portBase + 6,
      saslPort: null,
      tlsPort: null,
    };
  }

  get running(): boolean {
    return this.pid !== null && isAlive(this.pid);
  }

  /** Formats its storage on the first start; returns once "Kafka Server started" is logged and its port answers. */
  async start(timeoutMs = 180_000): Promise<void> {
    const dist = await ensureKafkaDist(this.settings);
    const n = this.node;
    await mkdir(join(n.hostDir, 'config'), { recursive: true });
    await mkdir(n.logsDir, { recursive: true });
    await mkdir(n.dataDir, { recursive: true });
    await writeFile(n.configFile, serverProperties(this.settings, n));
    await writeFile(n.log4jFile, log4j2Xml());
    const logging = `-Dlog4j2.configurationFile=${n.log4jFile}`;
    const { clusterId } = await readSandboxCluster(this.settings);
    const quorum = hasControllerQuorum(this.settings) ? ['--no-initial-controllers'] : [];
    await exec('java', ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', `-Dkafka.logs.dir=${n.logsDir}`, logging, '-cp', dist.classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', n.configFile, '--ignore-formatted', ...quorum], { timeout: 120_000 });
    const serverLog = join(n.logsDir, 'server.log');
    const before = (await readFile(serverLog, 'utf8').catch(() => '')).length;
    const out = openSync(join(n.logsDir, 'kafkaServer.out'), 'a');
    const child = spawn('java', ['-Xmx256m', '-Xms64m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true', `-Dkafka.logs.dir=${n.logsDir}`, logging, '-cp', dist.classpath, 'kafka.Kafka', n.configFile], {
      detached: true,
      stdio: ['ignore', out, out],
      cwd: n.hostDir,
    });
    closeSync(out);
    child.unref();
    if (!child.pid) throw new Error(`could not start java for extra broker ${this.id}`);
    this.pid = child.pid;
    await writeFile(n.pidFile, String(child.pid));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!isAlive(child.pid)) throw new Error(`extra broker ${this.id} exited during start; see ${serverLog}`);
      const text = (await readFile(serverLog, 'utf8').catch(() => '')).slice(before);
      if (/Kafka Server started/.test(text) && (await portAccepts(n.port))) return;
      await sleep(500);
    }
    throw new Error(`extra broker ${this.id} did not start within ${timeoutMs / 1000} s; see ${serverLog}`);
  }

  /** Graceful stop (controlled shutdown); SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 60_000): Promise<void> {
    const pid = this.pid;
    if (pid === null || !isAlive(pid)) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && isAlive(pid)) await sleep(200);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
    this.pid = null;
    await rm(this.node.pidFile, { force: true });
  }

  /** Stops it and deletes its folder (its registration is the caller's to remove). */
  async remove(): Promise<void> {
    await this.stop();
    await rm(this.node.hostDir, { recursive: true, force: true });
  }
}
