// The sandbox is a tool people rely on: idempotent, precise about what it
// signals, and clear when something is in the way.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../sandbox/cluster.ts';
import { controllerIds, hasControllerQuorum, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { hasSandbox, testSandbox } from './helpers.ts';
import { kafkaTool } from '../../sandbox/client.ts';
import { scratchDir } from '../helpers/scratch.ts';

const exec = promisify(execFile);
const cli = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  exec(process.execPath, ['bin/kafka-responder.js', ...args], { env, timeout: 300_000 });

describe.skipIf(!hasSandbox())('sandbox lifecycle', () => {
  const sandbox = testSandbox();
  const zookeeper = sandbox.settings.mode === 'zookeeper';
  /** The broker's id key: KRaft's node.id, ZooKeeper mode's broker.id (in server.properties and meta.properties). */
  const idKey = zookeeper ? 'broker.id' : 'node.id';
  // Other sandboxes' ports: above this run's own (base..base+23), below the next matrix line's (base+100).
  const spare = sandbox.settings.portBase + 50;

  // Files run in no fixed order and some end with a broker down (a scenario's killed leader): start from every node up.
  beforeAll(() => sandbox.up(), 300_000);

  it('up on a running sandbox is a no-op', async () => {
    const before = await sandbox.status();
    expect(before.every((s) => s.running)).toBe(true);
    await sandbox.up();
    expect((await sandbox.status()).map((s) => s.pid)).toEqual(before.map((s) => s.pid));
  });

  it('status and env through the CLI', async () => {
    const { stdout } = await cli(['sandbox', 'status', '--json']);
    const status = JSON.parse(stdout) as { kafkaVersion: string; mode: string; nodes: { id: number; role: string; running: boolean; port: number; hostDir: string }[] };
    // 4.x: controllers 100, 101, 102 (a quorum); 3.9 KRaft: 100; ZooKeeper mode: the ZooKeeper server as 100.
    expect(status.nodes.map((n) => n.id)).toEqual(hasControllerQuorum(sandbox.settings) ? [100, 101, 102, 1, 2, 3] : [100, 1, 2, 3]);
    expect(status.nodes.filter((n) => n.id >= 100).map((n) => n.role)).toEqual(controllerIds(sandbox.settings).map(() => (zookeeper ? 'zookeeper' : 'controller')));
    expect(status).toMatchObject({ kafkaVersion: sandbox.settings.kafkaVersion, mode: sandbox.settings.mode });
    expect(status.nodes.every((n) => n.running)).toBe(true);
    const env = (await cli(['sandbox', 'env'])).stdout;
    expect(env).toContain(`export KAFKA_BOOTSTRAP_SERVERS=${sandbox.bootstrapServers}`);
    expect(env).toContain(`export KAFKA_BIN=${sandbox.binDir}`);
    const controllers = /^export KAFKA_CONTROLLER_BOOTSTRAP_SERVERS=(.+)$/m.exec(env)?.[1];
    if (zookeeper) expect(controllers).toBeUndefined();
    else expect(controllers?.split(',')).toEqual(controllerIds(sandbox.settings).map((id) => `127.0.0.1:${sandbox.node(id).port}`));
  });

  it('each broker host dir is laid out like a real host', async () => {
    const b = sandbox.broker(2);
    const props = await readFile(b.configFile, 'utf8');
    expect(props).toContain(`log.dirs=${b.dataDir}`);
    expect(props).toContain(`${idKey}=2`);
    // Neither mode writes the other's keys.
    if (zookeeper) expect(props).not.toMatch(/^(process\.roles|node\.id|controller\.)/m);
    else expect(props).not.toMatch(/^zookeeper\./m);
    const cmdline = (await readFile(`/proc/${(await sandbox.status()).find((s) => s.id === 2)!.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    expect(cmdline).toContain(`-Dkafka.logs.dir=${b.logsDir}`);
    expect(cmdline.slice(-2)).toEqual(['kafka.Kafka', b.configFile]);
    expect(await readFile(join(b.logsDir, 'server.log'), 'utf8')).toMatch(zookeeper ? /\[KafkaServer id=2\] started/ : /Kafka Server started/);
  });

  it('the CLI wrappers run Kafka\'s own tools', async () => {
    const { stdout } = await exec(join(sandbox.binDir, 'kafka-topics.sh'), ['--bootstrap-server', sandbox.bootstrapServers, '--list']);
    expect(typeof stdout).toBe('string');
    if (!zookeeper) {
      // metadata.version is KRaft's feature; a ZooKeeper-mode cluster finalizes none.
      const { stdout: features } = await exec(join(sandbox.binDir, 'kafka-features.sh'), ['--bootstrap-server', sandbox.bootstrapServers, 'describe']);
      expect(features).toContain('metadata.version');
    }
  });

  it('down signals only processes it started: a reused pid is left alone', async () => {
    const home = scratchDir('kr-decoy');
    const other = new Sandbox(sandboxSettings({ ...process.env, KR_SANDBOX_HOME: home, KR_SANDBOX_PORT_BASE: String(spare) }), () => {});
    const decoy = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const node = other.broker(1);
      await exec('mkdir', ['-p', node.hostDir]);
      await writeFile(node.pidFile, String(decoy.pid));
      await other.down();
      expect(decoy.exitCode).toBeNull();
      expect(() => process.kill(decoy.pid!, 0)).not.toThrow();
    } finally {
      decoy.kill('SIGKILL');
    }
  });

  it('a busy port gives a clear error naming the fix', async () => {
    const home = scratchDir('kr-busy');
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(spare, '127.0.0.1', () => r()));
    try {
      const other = new Sandbox(sandboxSettings({ ...process.env, KR_SANDBOX_HOME: home, KR_SANDBOX_PORT_BASE: String(spare) }), () => {});
      await expect(other.up()).rejects.toThrow(new RegExp(`port ${spare} .*in use.*KR_SANDBOX_PORT_BASE`));
    } finally {
      server.close();
    }
  });

  it('missing Java gives a clear error naming the fix', async () => {
    const home = scratchDir('kr-nojava');
    const env = { ...process.env, PATH: '/nonexistent', KR_SANDBOX_HOME: home, KR_SANDBOX_PORT_BASE: String(spare) };
    const run = exec(process.execPath, ['bin/kafka-responder.js', 'sandbox', 'up'], { env });
    await expect(run).rejects.toMatchObject({ stderr: expect.stringMatching(/java.*not available.*Install Java 17/s) });
  });

  it('a broker that fails to start is reported with the tail of its log, not waited on', async () => {
    // A data dir that belongs to another node: Kafka refuses to start at once and says why.
    await sandbox.stop(3);
    const meta = join(sandbox.broker(3).dataDir, 'meta.properties');
    const original = await readFile(meta, 'utf8');
    await writeFile(meta, original.replace(new RegExp(`${idKey.replace('.', '\\.')}=.*`), `${idKey}=7`));
    const t0 = Date.now();
    try {
      await expect(sandbox.start(3)).rejects.toThrow(/node 3 exited during start[\s\S]*(node id|broker\.id)/i);
      expect(Date.now() - t0).toBeLessThan(60_000);
    } finally {
      await writeFile(meta, original);
      await sandbox.start(3);
    }
  });

  it('stop, kill, wipe and start one broker', async () => {
    expect(await sandbox.kill(2)).toBe('killed');
    await expect(sandbox.wipe(1)).rejects.toThrow(/running/);
    await sandbox.wipe(2);
    await sandbox.start(2);
    expect((await sandbox.status()).find((s) => s.id === 2)!.running).toBe(true);
    expect(await sandbox.stop(2)).toBe('stopped');
    expect(await sandbox.stop(2)).toBe('not-running');
    await sandbox.start(2);
  });
});

/** Kafka's own kafka-metadata-quorum.sh, asked of the controllers: the oracle of who leads. */
async function quorumTool(sandbox: Sandbox, config: string): Promise<{ leaderId: number; leaderEpoch: number; voters: { id: number; directoryId: string }[] }> {
  const bootstrap = controllerIds(sandbox.settings).map((id) => `127.0.0.1:${sandbox.node(id).port}`).join(',');
  const { stdout } = await exec(join(sandbox.binDir, 'kafka-metadata-quorum.sh'), ['--bootstrap-controller', bootstrap, '--command-config', config, 'describe', '--status'], { timeout: 90_000 });
  const field = (key: string) => new RegExp(`^${key}:\\s+(.+)$`, 'm').exec(stdout)?.[1] ?? '';
  return { leaderId: Number(field('LeaderId')), leaderEpoch: Number(field('LeaderEpoch')), voters: JSON.parse(field('CurrentVoters')) as { id: number; directoryId: string }[] };
}

const voterIds = (q: { voters: { id: number }[] }) => q.voters.map((v) => v.id).sort((a, b) => a - b);

// The 4.x lines' three controllers in a dynamic quorum, checked with Kafka's tool after each change.
describe.skipIf(!hasSandbox() || !hasControllerQuorum(sandboxSettings()))('sandbox controller quorum', () => {
  const sandbox = testSandbox();
  // Short admin timeouts: with no leader the tool fails in seconds, not after a minute.
  const config = join(scratchDir('kr-quorum-tool'), 'tool.properties');
  let killed = -1;

  beforeAll(async () => {
    await exec('mkdir', ['-p', join(config, '..')]);
    await writeFile(config, 'request.timeout.ms=5000\ndefault.api.timeout.ms=12000\n');
    await sandbox.up();
  }, 300_000);

  it('three controllers run, each on a host of its own, and the tool shows them as the voters, one leading', async () => {
    const cluster = (await sandbox.readClusterFile())!;
    expect(cluster.controllerQuorum).toBe('dynamic');
    expect(cluster.controllers?.map((c) => c.id)).toEqual([100, 101, 102]);
    for (const id of [100, 101, 102]) {
      const n = sandbox.node(id);
      expect(await readFile(n.configFile, 'utf8')).toMatch(/^controller\.quorum\.bootstrap\.servers=/m);
      expect((await readFile(join(n.hostDir, 'sandbox-service.sh'), 'utf8'))).toContain(n.configFile);
      expect((await sandbox.status()).find((s) => s.id === id)!.running).toBe(true);
    }
    const q = await quorumTool(sandbox, config);
    expect(voterIds(q)).toEqual([100, 101, 102]);
    expect([100, 101, 102]).toContain(q.leaderId);
    // The directory ids each controller was formatted with (--initial-controllers).
    expect(q.voters.map((v) => `${v.id}:${v.directoryId}`).sort()).toEqual(cluster.controllers!.map((c) => `${c.id}:${c.directoryId}`).sort());
    const { stdout: features } = await exec(join(sandbox.binDir, 'kafka-features.sh'), ['--bootstrap-server', sandbox.bootstrapServers, 'describe']);
    expect(features).toMatch(/Feature: kraft\.version\s.*FinalizedVersionLevel: 1\b/);
  });

  it('controller-failover: the active controller SIGKILLed, another leads at a higher epoch', async () => {
    const r = await runScenario(sandbox, 'controller-failover');
    const { previousLeader, leaderId } = r.expect.quorum!;
    killed = previousLeader!.id;
    expect(r.controllers?.killed).toEqual([killed]);
    const q = await quorumTool(sandbox, config);
    expect(q.leaderId).toBe(leaderId);
    expect(q.leaderId).not.toBe(killed);
    expect(q.leaderEpoch).toBeGreaterThan(previousLeader!.epoch);
    expect(voterIds(q)).toEqual([100, 101, 102]);
  });

  it('a wiped controller comes back as a new voter: remove-controller of its old directory, add-controller of the new', async () => {
    const running = [100, 101, 102].find((id) => id !== killed)!;
    await expect(sandbox.wipe(running)).rejects.toThrow(/running/);
    const oldDir = (await quorumTool(sandbox, config)).voters.find((v) => v.id === killed)!.directoryId;
    await sandbox.wipe(killed);
    await sandbox.start(killed);
    const q = await quorumTool(sandbox, config);
    expect(voterIds(q)).toEqual([100, 101, 102]);
    const newDir = q.voters.find((v) => v.id === killed)!.directoryId;
    expect(newDir).not.toBe(oldDir);
    expect((await sandbox.readClusterFile())!.controllers!.find((c) => c.id === killed)!.directoryId).toBe(newDir);
  });

  it('quorum-lost: two controllers stopped, the tool finds no leader, the brokers keep serving', async () => {
    const r = await runScenario(sandbox, 'quorum-lost');
    expect(r.controllers?.stopped).toHaveLength(2);
    expect(r.expect.quorum).toMatchObject({ leaderId: null, runningControllers: [expect.any(Number)] });
    await expect(quorumTool(sandbox, config)).rejects.toMatchObject({ stderr: expect.stringMatching(/TimeoutException/) });
    expect(r.details?.producedWithoutQuorum).toBe(300);
    // kafka-topics.sh --describe cannot be the oracle here: it also lists reassignments, which only the
    // active controller answers, and fails with a timeout. ListOffsets is the partition leaders' own.
    const ends = await kafkaTool(sandbox.binDir, 'kafka-get-offsets.sh', ['--bootstrap-server', sandbox.bootstrapServers, '--topic', 'inventory']);
    expect(ends.trim().split('\n').map((l) => Number(l.split(':')[2])).reduce((a, b) => a + b, 0)).toBe(300);
  });

  it('starting them back restores the quorum: a leader and three voters', async () => {
    await sandbox.up();
    expect((await sandbox.status()).every((s) => s.running)).toBe(true);
    const deadline = Date.now() + 90_000;
    let q = await quorumTool(sandbox, config).catch(() => null);
    while ((!q || voterIds(q).join() !== '100,101,102' || q.leaderId < 0) && Date.now() < deadline) q = await quorumTool(sandbox, config).catch(() => null);
    expect(q && voterIds(q)).toEqual([100, 101, 102]);
    expect([100, 101, 102]).toContain(q!.leaderId);
  });
});
