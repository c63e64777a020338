// lib/operations/throttles.ts against the real sandbox, with kafka-configs.sh as the oracle:
// an operator's own throttle entries and rates, set before our run and coinciding
// with what the run wants, are still there after our cleanup.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdmin, type KafkaAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { applyThrottles, removeThrottles, throttleLedgerFor, type ThrottleLedger } from '../../lib/operations/throttles.ts';
import { createTopic, waitFor, withAdmin } from '../../sandbox/client.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { hasSandbox } from '../sandbox/helpers.ts';

const bootstrap = process.env.KAFKA_BOOTSTRAP_SERVERS ?? '';
const kafkaBin = process.env.KAFKA_BIN ?? '';
const up = hasSandbox() && bootstrap !== '' && kafkaBin !== '';
const TOPIC = 'thr-operator-entries';

function kafkaConfigs(args: string[]): string {
  return execFileSync(`${kafkaBin}/kafka-configs.sh`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** "name=value" for every throttle config kafka-configs.sh --describe shows on this entity. */
function throttles(type: 'topics' | 'brokers', name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of kafkaConfigs(['--describe', '--entity-type', type, '--entity-name', name]).split('\n')) {
    const m = /^\s*([a-z.]*throttled[a-z.]*)=(\S*)\s/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

const sorted = (list: string | undefined) => (list ?? '').split(',').filter(Boolean).sort().join(',');

let admin: KafkaAdmin;

beforeAll(async () => {
  if (!up) return;
  // Every broker up, whatever the test before left (the topic is placed on brokers 1 and 2).
  await runScenario(new Sandbox(sandboxSettings(), () => {}), 'healthy');
  admin = await openAdmin(parseConnectionConfig({ bootstrap: bootstrap.split(',') }), { timeoutMs: 20_000 });
  await withAdmin(bootstrap, async (a) => {
    if ((await a.listTopics()).includes(TOPIC)) await a.deleteTopics({ topics: [TOPIC] });
    await waitFor(`${TOPIC} gone`, async () => !(await a.listTopics()).includes(TOPIC), 30_000);
    await createTopic(a, TOPIC, { assignment: [[1], [2]] });
  });
});
afterAll(async () => {
  if (!up) return;
  await admin?.close();
  kafkaConfigs(['--alter', '--entity-type', 'brokers', '--entity-name', '2', '--delete-config', 'leader.replication.throttled.rate']);
  await withAdmin(bootstrap, (a) => a.deleteTopics({ topics: [TOPIC] })).catch(() => undefined);
});

describe.skipIf(!up)('replication throttles: only what we added goes', () => {
  it("an operator's entries that coincide with ours, and their broker rate, survive our cleanup (kafka-configs.sh --describe)", async () => {
    // The operator throttles partition 0's leader on broker 1 and partition 1's follower on 3 (both
    // coincide with what our run wants), plus an entry of their own (1:9), and a leader rate on broker 2.
    kafkaConfigs(['--alter', '--entity-type', 'topics', '--entity-name', TOPIC, '--add-config', 'leader.replication.throttled.replicas=[0:1,1:9],follower.replication.throttled.replicas=[1:3]']);
    kafkaConfigs(['--alter', '--entity-type', 'brokers', '--entity-name', '2', '--add-config', 'leader.replication.throttled.rate=555555']);
    const before = await waitFor('the operator throttles are visible', async () => {
      const t = throttles('topics', TOPIC);
      const b = throttles('brokers', '2');
      return t['follower.replication.throttled.replicas'] && b['leader.replication.throttled.rate'] ? { t, b } : null;
    }, 30_000);
    expect(sorted(before.t['leader.replication.throttled.replicas'])).toBe('0:1,1:9');

    // Our run: raise RF to 2, partition 0 onto 1,3 and partition 1 onto 2,3.
    const current: Record<number, number[]> = { 0: [1], 1: [2] };
    const wanted = throttleLedgerFor(
      [
        { topic: TOPIC, partition: 0, replicas: [1, 3] },
        { topic: TOPIC, partition: 1, replicas: [2, 3] },
      ],
      (_t, p) => current[p],
      1_048_576,
    );
    let recorded: ThrottleLedger | null = null;
    const ledger = await applyThrottles(admin, wanted, async (l) => void (recorded = l));
    expect(recorded).toEqual(ledger);
    await waitFor('our throttles are applied', async () => {
      const t = throttles('topics', TOPIC);
      return sorted(t['leader.replication.throttled.replicas']) === '0:1,1:2,1:9' && sorted(t['follower.replication.throttled.replicas']) === '0:3,1:3';
    }, 30_000);
    expect(throttles('brokers', '1')).toEqual({ 'leader.replication.throttled.rate': '1048576', 'follower.replication.throttled.rate': '1048576' });

    expect(await removeThrottles(admin, ledger)).toEqual({ complete: true, problems: [] });
    const after = await waitFor('our throttles are gone', async () => {
      const t = throttles('topics', TOPIC);
      return sorted(t['leader.replication.throttled.replicas']) === '0:1,1:9' && Object.keys(throttles('brokers', '1')).length === 0 ? t : null;
    }, 30_000);
    expect(sorted(after['follower.replication.throttled.replicas'])).toBe('1:3');
    expect(throttles('brokers', '2')).toEqual({ 'leader.replication.throttled.rate': '555555' });
    expect(throttles('brokers', '3')).toEqual({});
    // Only what was absent is ours: 1:2 (leader) and 0:3 (follower); broker 2 keeps its own rate.
    expect(ledger.topics).toEqual([{ topic: TOPIC, leader: ['1:2'], follower: ['0:3'] }]);
    expect(ledger.brokers).toEqual([1, 3]);
    expect(ledger.operatorRateBrokers).toEqual([2]);
  });
});
