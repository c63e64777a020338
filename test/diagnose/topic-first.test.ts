// A topic's diagnosis asks the metadata first: a topic that is not there
// costs no host probe, no snapshot (so no consumer sampling); one that is
// there is diagnosed as before. And the pure parts: the topic's share of a
// cluster-wide report, and near-miss names.
import { describe, expect, it } from 'vitest';
import { checkRestart, runDiagnosis, UnknownTopicError, type ProbeHostsFn, type SnapshotFn } from '../../lib/diagnose/run.ts';
import { nearMisses, reportForTopic, type CheckTopicFn } from '../../lib/diagnose/topic-scope.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import type { Executor } from '../../lib/hosts/types.ts';
import { finding, report } from '../slack/helpers/harness.ts';
import { healthyCluster, okProbe } from './fixtures.ts';

const connection = parseConnectionConfig({ bootstrap: ['b1:9092'] });
const executor: Executor = { kind: 'local', run: async () => [] };
const targets = [1, 2, 3].map((brokerId) => ({ brokerId, address: `/h/${brokerId}` }));

function counting() {
  const n = { snapshots: 0, probes: 0, checks: 0 };
  const takeSnapshot: SnapshotFn = async () => (n.snapshots++, healthyCluster());
  const probeHosts: ProbeHostsFn = async (_e, t) => ((n.probes += t.length), t.map((x) => okProbe(x.brokerId)));
  const known = new Set(healthyCluster().topics.map((t) => t.name));
  const checkTopic: CheckTopicFn = async (_c, topic) => (n.checks++, known.has(topic) ? { status: 'exists' } : { status: 'missing', nearMisses: nearMisses(topic, [...known]) });
  return { n, io: { takeSnapshot, probeHosts, checkTopic, executor, hostTargets: targets } };
}

describe('the topic before anything else', () => {
  it('a topic that does not exist: answered from the metadata, no probe, no snapshot', async () => {
    const { n, io } = counting();
    const err = await runDiagnosis({ cluster: 'prod', connection, topic: 'x1', timeoutMs: 5000, ...io }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownTopicError);
    expect(String((err as Error).message)).toBe('topic x1 does not exist on prod');
    expect(n).toEqual({ snapshots: 0, probes: 0, checks: 1 });
  });

  it('a topic that exists is diagnosed, probes and all, after one check', async () => {
    const { n, io } = counting();
    const topic = healthyCluster().topics.find((t) => !t.internal)!.name;
    await runDiagnosis({ cluster: 'prod', connection, topic, timeoutMs: 5000, ...io });
    expect(n).toEqual({ snapshots: 1, probes: 3, checks: 1 });
  });

  it('a cluster-wide diagnosis and a restart check ask nothing first', async () => {
    const { n, io } = counting();
    await runDiagnosis({ cluster: 'prod', connection, timeoutMs: 5000, ...io });
    await checkRestart({ name: 'prod', connection, executor, hostTargets: targets, timeoutMs: 5000 }, 1, { takeSnapshot: io.takeSnapshot, probeHosts: io.probeHosts });
    expect(n.checks).toBe(0);
  });
});

describe('the pure parts', () => {
  it("a topic's share of the cluster-wide report: its partitions, __consumer_offsets, and what names no partition", () => {
    const f = (topic: string | null, i: number) =>
      finding(i, { fingerprint: `f${i}`, affected: { partitions: topic ? [{ topic, partition: 0 }] : [], brokers: [1], groups: [] } });
    const r = report([f('orders', 1), f('payments', 2), f('__consumer_offsets', 3), f(null, 4)]);
    expect(reportForTopic(r, 'orders').findings.map((x) => x.fingerprint)).toEqual(['f1', 'f3', 'f4']);
    expect(r.findings).toHaveLength(4);
  });

  it('near misses: typos, case and prefixes, closest first, never the name itself', () => {
    const names = ['orders', 'orders-dlq', 'Orders', 'payments', 'order-events'];
    expect(nearMisses('ordres', names)).toEqual(['orders', 'Orders']);
    expect(nearMisses('order', names)).toEqual(['order-events', 'orders', 'Orders']);
    expect(nearMisses('x1', names)).toEqual([]);
  });
});
