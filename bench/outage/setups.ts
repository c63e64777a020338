// What each round starts from, on the sandbox, and Kafka's own tool spawned as
// a user types it.
import { spawn } from 'node:child_process';
import { openAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import type { Sandbox } from '../../sandbox/cluster.ts';
import { createTopic, partitions, produce, waitFor, withAdmin } from '../../sandbox/client.ts';
import { runScenario } from '../../sandbox/scenarios.ts';

/** Incident 1's outage: orders-0 leaderless, its last in-sync leader (broker 1) killed and wiped. */
export async function buildOutage(sandbox: Sandbox): Promise<void> {
  const sc = await runScenario(sandbox, 'isr-one-leader-lost');
  if (sc.expect.bestReplica !== 3) throw new Error(`isr-one-leader-lost: best replica ${sc.expect.bestReplica}, expected 3`);
}

/** Every node up, scenario topics gone, every partition led and in sync. */
export async function healthy(sandbox: Sandbox): Promise<void> {
  await runScenario(sandbox, 'healthy');
}

/**
 * A partition whose leader is not its preferred replica: created on [1,2,3]
 * (broker 1 leads), then reordered to [2,1,3] by a reassignment of the same
 * replicas, which keeps the leader. Broker 2 is now preferred, broker 1 leads
 * (the auto leader rebalance's 10 % imbalance threshold is not reached by one partition).
 */
export async function buildPreferred(sandbox: Sandbox, topic: string): Promise<void> {
  const bootstrap = sandbox.bootstrapServers;
  await withAdmin(bootstrap, (a) => createTopic(a, topic, { assignment: [[1, 2, 3]] }));
  await produce(bootstrap, topic, 0, 50, -1);
  const admin = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { timeoutMs: 15_000 });
  try {
    const [r] = await admin.alterPartitionReassignments([{ topic, partition: 0, replicas: [2, 1, 3] }]);
    if (r && r.errorCode !== 0) throw new Error(`reordering ${topic}-0: ${JSON.stringify(r)}`);
  } finally {
    await admin.close();
  }
  await withAdmin(bootstrap, (a) =>
    waitFor(`${topic}-0 on [2,1,3] led by 1`, async () => {
      const [p] = await partitions(a, topic);
      if (p && p.replicas.join() === '2,1,3' && p.leader !== 1) throw new Error(`${topic}-0: the reorder moved the leader to ${p.leader}`);
      return p && p.replicas.join() === '2,1,3' && p.leader === 1 && p.isr.length === 3;
    }, 60_000),
  );
}

/** A topic of two small partitions on broker 3 alone: what `drain 3 partial` moves (the rest has nowhere to go with 3 brokers). */
export async function buildDrain(sandbox: Sandbox, topic: string): Promise<void> {
  const bootstrap = sandbox.bootstrapServers;
  await withAdmin(bootstrap, (a) => createTopic(a, topic, { assignment: [[3], [3]] }));
  for (let p = 0; p < 2; p++) await produce(bootstrap, topic, p, 100, 1);
}

export async function deleteTopics(sandbox: Sandbox, prefix: string): Promise<void> {
  await withAdmin(sandbox.bootstrapServers, async (a) => {
    const ours = (await a.listTopics()).filter((t) => t.startsWith(prefix));
    if (ours.length) await a.deleteTopics({ topics: ours, timeout: 30_000 });
  }).catch(() => undefined);
}

export interface ToolRun {
  /** Date.now() when the process exited. */
  exitAt: number;
  code: number | null;
  output: string;
}

/** Spawns `<binDir>/<script> args` (killed after `timeoutMs`); resolves once it exits. */
export function runTool(binDir: string, script: string, args: string[], timeoutMs = 120_000): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${binDir}/${script}`, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ exitAt: Date.now(), code, output: output.trim() });
    });
  });
}
