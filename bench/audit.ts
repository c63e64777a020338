// Audit checks and consumer findings at 200 groups × 1,000 partitions
// (target: under 2 s of detector time). Synthetic: 100 topics of 10
// partitions over 6 brokers (RF 3; some RF 1, some min ISR = RF, some unclean),
// every group committed on all 1,000 partitions, two consumer samples 3 s
// apart (a fifth of the groups stalled, some below log start, some above the
// end), broker configs with one drifting setting, a host probe per broker.
//
//   npx tsx bench/audit.ts
import type { ClusterSnapshot, ConsumerSample, GroupState, TopicState } from '../lib/kafka/types.ts';
import type { HostProbeOutcome, ProbeReport } from '../lib/hosts/types.ts';
import { detectConsumerFindings } from '../lib/diagnose/checks/consumers.ts';
import { runAuditChecks } from '../lib/audit/preventive.ts';
import { execution, probeReport } from '../test/diagnose/fixtures.ts';

const GROUPS = 200;
const TOPICS = 100;
const PER_TOPIC = 10;
const BROKERS = [1, 2, 3, 4, 5, 6];

function build(): { snapshot: ClusterSnapshot; probes: HostProbeOutcome[] } {
  const topics: TopicState[] = [];
  for (let t = 0; t < TOPICS; t++) {
    const rf = t % 20 === 0 ? 1 : 3;
    topics.push({
      name: `topic-${t}`,
      internal: false,
      partitions: Array.from({ length: PER_TOPIC }, (_, p) => {
        const replicas = Array.from({ length: rf }, (_, i) => BROKERS[(t + p + i) % BROKERS.length]!);
        return { partition: p, leader: replicas[0]!, replicas, isr: replicas, offlineReplicas: [] };
      }),
      config: { minInsyncReplicas: t % 25 === 1 ? 3 : 2, uncleanLeaderElectionEnable: t % 30 === 2, cleanupPolicy: 'delete', segmentBytes: 1 << 30, overrides: t % 30 === 2 ? ['unclean.leader.election.enable'] : [] },
    });
  }
  const groups: GroupState[] = Array.from({ length: GROUPS }, (_, g) => ({ groupId: `group-${g}`, state: g % 7 === 0 ? 'Empty' : 'Stable', protocolType: 'consumer', coordinator: BROKERS[g % 6]!, offsetsPartition: g % 50, error: null, members: g % 7 === 0 ? 0 : 3 }));
  const sample = (at: number, step: number): ConsumerSample => ({
    at,
    groups: groups.map((g, gi) => ({
      groupId: g.groupId,
      error: null,
      offsets: topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, offset: gi % 5 === 0 ? 1000 : gi % 11 === 0 ? 500_000 : 1000 + step * (gi % 3) * 10 }))),
    })),
    logOffsets: topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, start: p.partition % 9 === 0 ? 5000 : 0, end: 100_000 + step * 50 }))),
  });
  const snapshot: ClusterSnapshot = {
    takenAt: new Date().toISOString(), clusterId: 'bench', controllerId: 1,
    brokers: BROKERS.map((id) => ({ id, host: `b${id}`, port: 9092 })), topics, groups, offsetsTopicPartitions: 50,
    unreachableBrokers: [], errors: [], partial: false, consumerSamples: [sample(0, 0), sample(3000, 1)],
  };
  const report = (id: number): ProbeReport =>
    probeReport({
      brokerId: id,
      hostname: `b${id}`,
      limits: { openFds: id === 3 ? 90_000 : 10_000, maxFds: 100_000, mapCount: 1000, maxMapCount: 65530 },
      systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: id === 2 ? 90 : 600, timeoutStopRaw: '', restarts: 0, lastExitStatus: 0, lastExitCode: null, journalTail: [] },
    });
  return { snapshot, probes: BROKERS.map((id) => ({ brokerId: id, ok: true as const, report: report(id), execution: execution(id) })) };
}

const { snapshot, probes } = build();
const brokerConfigs = new Map(BROKERS.map((id) => [id, { 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'false', 'default.replication.factor': '3', 'offsets.topic.replication.factor': '3', 'log.retention.hours': id === 4 ? '24' : '168' }]));
const time = (fn: () => unknown) => {
  const t0 = performance.now();
  const out = fn();
  return { ms: performance.now() - t0, out };
};
const runs: { consumers: number; audit: number }[] = [];
let counts = { consumers: 0, audit: 0 };
for (let i = 0; i < 5; i++) {
  const c = time(() => detectConsumerFindings(snapshot));
  const a = time(() => runAuditChecks({ snapshot, probes, hostAccess: true, brokerConfigs, storageHistory: [], nowMs: Date.now() }));
  runs.push({ consumers: c.ms, audit: a.ms });
  counts = { consumers: (c.out as unknown[]).length, audit: (a.out as unknown[]).length };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
console.log(`${GROUPS} groups × ${TOPICS * PER_TOPIC} partitions (${GROUPS * TOPICS * PER_TOPIC} committed offsets, 2 samples), ${TOPICS} topics, ${BROKERS.length} brokers`);
console.log(`consumer findings: first ${fmt(runs[0]!.consumers)}, median ${fmt(median(runs.map((r) => r.consumers)))} → ${counts.consumers} findings`);
console.log(`audit checks:      first ${fmt(runs[0]!.audit)}, median ${fmt(median(runs.map((r) => r.audit)))} → ${counts.audit} findings`);
const total = median(runs.map((r) => r.consumers + r.audit));
console.log(`detector time (median, both): ${fmt(total)} — target < 2000 ms: ${total < 2000 ? 'met' : 'NOT met'}`);
