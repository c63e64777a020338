// What changed in the cluster in the last hour: a pure function of this
// diagnosis's snapshot and host probes and what the bot kept from its last
// one (lib/diagnose/cluster-history-store.ts). Returns codes and data; the
// renderers say it.
//
// Where each fact comes from:
//   - broker (re)starts: the host probe's process start time (exact). Kafka's
//     client APIs do not expose broker epochs: Metadata and DescribeCluster
//     list brokers (id, host, port, rack; DescribeCluster v2 adds fencing), on
//     every line, KRaft or ZooKeeper. Without host access (MSK) a restart shows
//     as a broker that left or joined the metadata between two diagnoses.
//   - controller changes (ZooKeeper mode only: a KRaft broker's Metadata names
//     a random live broker as the controller, checked on the 4.4 sandbox);
//     in KRaft mode controller failovers instead: the quorum leader's id or
//     epoch (DescribeQuorum, the snapshot's quorum view) changed, or it was lost,
//     leader elections, replica-set changes (completed
//     reassignments), topic config changes, topics created or deleted: this
//     snapshot against the last stored one ("between <then> and <now>").
//   - reassignments in progress: adding replicas in this snapshot.
//   - broker and topic config changes: the configs set at runtime
//     (lib/diagnose/config-view.ts: dynamic broker configs, per broker and
//     cluster-wide, and every topic override) against the last stored ones;
//     without that view, the snapshot's topic subset (min ISR, unclean
//     election, cleanup policy, segment size).
//   - operations the bot ran: recorded by the operations runner (lib/state/cluster-ops.ts).
import * as z from 'zod';
import type { ClusterSnapshot, TopicState } from '../kafka/types.ts';
import type { HostProbeOutcome } from '../hosts/types.ts';
import type { ConfigView } from './config-view.ts';
import { createHash } from 'node:crypto';
import { once } from '../runtime/once.ts';

export const CHANGE_WINDOW_MS = 60 * 60 * 1000;
/** Above this many partitions the stored facts keep one digest per topic instead of each partition's leader and replicas: about 20 bytes a partition keeps the item far under DynamoDB's 400 KB. */
export const MAX_TRACKED_PARTITIONS = 5_000;
/** Partitions named per change; the rest are counted. */
const MAX_LISTED = 20;

/** Built on first use (changes read back from storage): a diagnosis that stores nothing never builds it. */
function buildChangeSchema() {
  const when = { at: z.string(), since: z.string() };
  const partitionMove = z.object({ partition: z.number(), from: z.number(), to: z.number() });
  const replicaMove = z.object({ partition: z.number(), from: z.array(z.number()), to: z.array(z.number()) });

  return z.discriminatedUnion('code', [
    /** node controller: a KRaft controller's host (a voter of the quorum), `broker` its node id. */
    z.object({ code: z.literal('broker-started'), broker: z.number(), node: z.literal('controller').optional(), at: z.string() }),
    z.object({ code: z.literal('broker-joined'), broker: z.number(), ...when }),
    z.object({ code: z.literal('broker-left'), broker: z.number(), ...when }),
    z.object({ code: z.literal('controller-changed'), from: z.number().nullable(), to: z.number().nullable(), ...when }),
    /** KRaft: the quorum leader (active controller) and its epoch; null: no leader. */
    z.object({ code: z.literal('quorum-leader-changed'), from: z.number().nullable(), to: z.number().nullable(), fromEpoch: z.number().nullable(), toEpoch: z.number().nullable(), ...when }),
    z.object({ code: z.literal('leaders-changed'), topic: z.string(), partitions: z.array(partitionMove), count: z.number().nullable(), ...when }),
    z.object({ code: z.literal('replicas-changed'), topic: z.string(), partitions: z.array(replicaMove), count: z.number().nullable(), ...when }),
    z.object({ code: z.literal('reassignment-in-progress'), topic: z.string(), partitions: z.array(z.object({ partition: z.number(), adding: z.array(z.number()) })), count: z.number(), at: z.string() }),
    /** from null: set (was inherited); to null: removed (inherits again). */
    z.object({ code: z.literal('topic-config-changed'), topic: z.string(), setting: z.string(), from: z.string().nullable(), to: z.string().nullable(), ...when }),
    /** broker null: the cluster-wide dynamic default. */
    z.object({ code: z.literal('broker-config-changed'), broker: z.number().nullable(), setting: z.string(), from: z.string().nullable(), to: z.string().nullable(), ...when }),
    z.object({ code: z.literal('topic-created'), topic: z.string(), ...when }),
    z.object({ code: z.literal('topic-deleted'), topic: z.string(), ...when }),
    z.object({ code: z.literal('operation-run'), requestId: z.string(), kind: z.string(), title: z.string(), outcome: z.string(), at: z.string() }),
  ]);
}
const changeSchema = once(buildChangeSchema);

export type ClusterChange = z.infer<ReturnType<typeof buildChangeSchema>>;

/** Changes read back from storage: whatever does not parse is dropped, never trusted. */
export function parseChanges(raw: readonly unknown[]): ClusterChange[] {
  return raw.flatMap((c) => {
    const parsed = changeSchema().safeParse(c);
    return parsed.success ? [parsed.data] : [];
  });
}

interface TopicFacts {
  /** Each partition's leader, by partition index (absent above MAX_TRACKED_PARTITIONS). */
  leaders?: Record<string, number>;
  replicas?: Record<string, number[]>;
  digest: string;
  config: Record<string, string> | null;
  /** Every override set on the topic (the config view), when it was read. */
  overrides?: Record<string, string>;
}

/** What the bot keeps of one snapshot to compare the next one with. */
export interface ClusterFacts {
  at: string;
  clusterId: string | null;
  controllerId: number | null;
  brokers: number[];
  /** Broker id → process start (host probe). */
  brokerStarts: Record<string, string>;
  /** Dynamic broker configs by broker id, "" the cluster-wide defaults (the config view), when read. */
  brokerConfigs?: Record<string, Record<string, string>>;
  topics: Record<string, TopicFacts>;
  /** Every topic was read (no topic filter, not partial): a topic missing next time was deleted. */
  complete: boolean;
  /** KRaft brokers (the config view, or the quorum answered): the Metadata's controller id is a random broker, not compared. */
  kraft?: boolean;
  /** KRaft: the quorum leader and epoch when the quorum was read (leaderId null: it had none). */
  quorum?: { leaderId: number | null; epoch: number | null };
  /** KRaft: the quorum's voters (controllers) when a leader answered, else as last known: a probed host among them is a controller's. */
  controllers?: number[];
}

/** A bot operation that finished on the cluster (lib/state/cluster-ops.ts). */
export interface BotOperation {
  requestId: string;
  kind: string;
  title: string;
  outcome: string;
  at: string;
}

export interface KeptHistory {
  facts: ClusterFacts | null;
  /** Changes seen by earlier diagnoses, still within the window. */
  changes: ClusterChange[];
}

function configFacts(t: TopicState): Record<string, string> | null {
  if (!t.config) return null;
  return {
    'min.insync.replicas': String(t.config.minInsyncReplicas),
    'unclean.leader.election.enable': String(t.config.uncleanLeaderElectionEnable),
    'cleanup.policy': t.config.cleanupPolicy,
    ...(t.config.segmentBytes !== null ? { 'segment.bytes': String(t.config.segmentBytes) } : {}),
  };
}

export function factsOf(snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[], configs: ConfigView | null = null): ClusterFacts {
  const total = snapshot.topics.reduce((n, t) => n + t.partitions.length, 0);
  const detailed = total <= MAX_TRACKED_PARTITIONS;
  const topics: Record<string, TopicFacts> = {};
  for (const t of snapshot.topics) {
    const parts = [...t.partitions].sort((a, b) => a.partition - b.partition);
    const digest = createHash('sha1').update(parts.map((p) => `${p.partition}:${p.leader}:${p.replicas.join(',')}`).join(';'), 'utf8').digest('hex').slice(0, 16);
    topics[t.name] = {
      ...(detailed
        ? { leaders: Object.fromEntries(parts.map((p) => [String(p.partition), p.leader])), replicas: Object.fromEntries(parts.map((p) => [String(p.partition), p.replicas])) }
        : {}),
      digest,
      config: configFacts(t),
      ...(configs?.topics?.[t.name] ? { overrides: configs.topics[t.name] } : {}),
    };
  }
  const q = snapshot.quorum;
  // Known only when a leader answered or none could: a failed read says nothing about the leader.
  const quorum = q && (q.status === 'ok' || q.status === 'no-leader') ? { leaderId: q.leaderId, epoch: q.leaderEpoch } : null;
  const controllers = q?.status === 'ok' && q.voters.length > 0 ? q.voters.map((v) => v.id).sort((a, b) => a - b) : null;
  const brokerStarts: Record<string, string> = {};
  for (const p of probes) if (p.ok && p.report.process.startedAt) brokerStarts[String(p.brokerId)] = p.report.process.startedAt;
  return {
    at: snapshot.takenAt,
    clusterId: snapshot.clusterId,
    controllerId: snapshot.controllerId,
    brokers: snapshot.brokers.map((b) => b.id).sort((a, b) => a - b),
    brokerStarts,
    ...(configs ? { brokerConfigs: configs.brokers } : {}),
    ...(configs?.kraft || quorum ? { kraft: true } : {}),
    ...(quorum ? { quorum } : {}),
    ...(controllers ? { controllers } : {}),
    topics,
    complete: !snapshot.partial && !snapshot.topicFilter,
  };
}

function topicChanges(name: string, before: TopicFacts, after: TopicFacts, w: { at: string; since: string }): ClusterChange[] {
  const out: ClusterChange[] = [];
  if (before.digest !== after.digest) {
    if (before.leaders && after.leaders && before.replicas && after.replicas) {
      const moves: { partition: number; from: number; to: number }[] = [];
      const replicaMoves: { partition: number; from: number[]; to: number[] }[] = [];
      for (const [p, leader] of Object.entries(after.leaders)) {
        const was = before.leaders[p];
        if (was !== undefined && was !== leader) moves.push({ partition: Number(p), from: was, to: leader });
        const wasReplicas = before.replicas[p];
        const nowReplicas = after.replicas[p];
        if (wasReplicas && nowReplicas && wasReplicas.join(',') !== nowReplicas.join(',')) replicaMoves.push({ partition: Number(p), from: wasReplicas, to: nowReplicas });
      }
      const byPartition = (a: { partition: number }, b: { partition: number }) => a.partition - b.partition;
      if (moves.length) out.push({ code: 'leaders-changed', topic: name, partitions: moves.sort(byPartition).slice(0, MAX_LISTED), count: moves.length, ...w });
      if (replicaMoves.length) out.push({ code: 'replicas-changed', topic: name, partitions: replicaMoves.sort(byPartition).slice(0, MAX_LISTED), count: replicaMoves.length, ...w });
    } else {
      // Too many partitions to keep each one: the topic's leaders or replicas moved, not which.
      out.push({ code: 'leaders-changed', topic: name, partitions: [], count: null, ...w });
    }
  }
  if (before.overrides && after.overrides) out.push(...settingChanges(before.overrides, after.overrides).map((c) => ({ code: 'topic-config-changed' as const, topic: name, ...c, ...w })));
  else if (before.config && after.config) {
    for (const [setting, to] of Object.entries(after.config)) {
      const from = before.config[setting];
      if (from !== undefined && from !== to) out.push({ code: 'topic-config-changed', topic: name, setting, from, to, ...w });
    }
  }
  return out;
}

/** Settings set, changed or removed between two maps of values. */
function settingChanges(before: Record<string, string>, after: Record<string, string>): { setting: string; from: string | null; to: string | null }[] {
  const out: { setting: string; from: string | null; to: string | null }[] = [];
  for (const setting of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const from = before[setting] ?? null;
    const to = after[setting] ?? null;
    if (from !== to) out.push({ setting, from, to });
  }
  return out;
}

function brokerConfigChanges(before: ClusterFacts, after: ClusterFacts, w: { at: string; since: string }): ClusterChange[] {
  if (!before.brokerConfigs || !after.brokerConfigs) return [];
  const out: ClusterChange[] = [];
  for (const [id, now] of Object.entries(after.brokerConfigs)) {
    // A broker that was not read last time (down, new) has nothing to compare with.
    const was = before.brokerConfigs[id];
    if (!was) continue;
    for (const c of settingChanges(was, now)) out.push({ code: 'broker-config-changed', broker: id === '' ? null : Number(id), ...c, ...w });
  }
  return out;
}

/** KRaft controller failovers: the quorum leader's id or epoch differs, or a leader was lost or found (kept facts are read back from storage: checked, not trusted). */
function quorumLeaderChanges(before: ClusterFacts, after: ClusterFacts, w: { at: string; since: string }): ClusterChange[] {
  const was = before.quorum;
  const is = after.quorum;
  const valid = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v));
  if (!was || typeof was !== 'object' || !is || !valid(was.leaderId) || !valid(was.epoch)) return [];
  const from = was.leaderId;
  const fromEpoch = was.epoch;
  if (from === is.leaderId && fromEpoch === is.epoch) return [];
  // Leaderless both times: the epoch a candidate reached is no failover.
  if (from === null && is.leaderId === null) return [];
  return [{ code: 'quorum-leader-changed', from, to: is.leaderId, fromEpoch, toEpoch: is.epoch, ...w }];
}

/** What differs between the last kept facts and these (pure). */
export function diffFacts(before: ClusterFacts, after: ClusterFacts): ClusterChange[] {
  // Another cluster behind the same name (rebuilt, or a wrong bootstrap): comparing would only invent changes.
  if (before.clusterId && after.clusterId && before.clusterId !== after.clusterId) return [];
  const w = { at: after.at, since: before.at };
  const out: ClusterChange[] = [];
  const was = new Set(before.brokers);
  const is = new Set(after.brokers);
  for (const b of after.brokers) if (!was.has(b)) out.push({ code: 'broker-joined', broker: b, ...w });
  for (const b of before.brokers) if (!is.has(b)) out.push({ code: 'broker-left', broker: b, ...w });
  if (!before.kraft && !after.kraft && before.controllerId !== after.controllerId && (before.controllerId !== null || after.controllerId !== null)) {
    out.push({ code: 'controller-changed', from: before.controllerId, to: after.controllerId, ...w });
  }
  out.push(...quorumLeaderChanges(before, after, w));
  out.push(...brokerConfigChanges(before, after, w));
  for (const [name, facts] of Object.entries(after.topics)) {
    const prior = before.topics[name];
    if (prior) out.push(...topicChanges(name, prior, facts, w));
    else if (before.complete) out.push({ code: 'topic-created', topic: name, ...w });
  }
  if (before.complete && after.complete) for (const name of Object.keys(before.topics)) if (!after.topics[name]) out.push({ code: 'topic-deleted', topic: name, ...w });
  return out;
}

/** Facts to keep after this run: a topic-limited or partial run updates what it saw and keeps the rest. */
export function mergeFacts(before: ClusterFacts | null, after: ClusterFacts): ClusterFacts {
  if (!before || after.complete || (before.clusterId && after.clusterId && before.clusterId !== after.clusterId)) return after;
  return {
    ...after,
    topics: { ...before.topics, ...after.topics },
    brokerStarts: { ...before.brokerStarts, ...after.brokerStarts },
    ...(after.controllers ?? before.controllers ? { controllers: after.controllers ?? before.controllers } : {}),
    ...(before.brokerConfigs || after.brokerConfigs ? { brokerConfigs: { ...before.brokerConfigs, ...after.brokerConfigs } } : {}),
    complete: false,
  };
}

/** Controllers from kept facts (read back from storage: checked, not trusted). */
function keptControllers(facts: ClusterFacts | null): number[] {
  const ids: unknown = facts?.controllers;
  return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
}

const changeKey = (c: ClusterChange): string => JSON.stringify(c);
const timeOf = (c: ClusterChange) => Date.parse(c.at);

export interface WhatChanged {
  /** Changes within the window, oldest first: what the diagnosis reports. */
  changes: ClusterChange[];
  /** What to store for the next run. */
  keep: { facts: ClusterFacts; changes: ClusterChange[] };
}

/**
 * This run's view of the last hour: process starts within it, changes since
 * the last kept facts, changes earlier runs saw that are still within it,
 * reassignments in progress and the bot's own operations.
 */
export function whatChanged(
  snapshot: ClusterSnapshot,
  probes: readonly HostProbeOutcome[],
  kept: KeptHistory,
  operations: readonly BotOperation[],
  nowMs: number,
  configs: ConfigView | null = null,
): WhatChanged {
  const from = nowMs - CHANGE_WINDOW_MS;
  const facts = factsOf(snapshot, probes, configs);
  // The quorum read now, else the voters kept from the last run (a lost quorum names none); a node Metadata lists is a broker.
  const controllers = new Set((facts.controllers ?? keptControllers(kept.facts)).filter((id) => !facts.brokers.includes(id)));
  if (!facts.controllers && controllers.size > 0) facts.controllers = [...controllers].sort((a, b) => a - b);
  const fresh: ClusterChange[] = [];
  for (const [broker, startedAt] of Object.entries(facts.brokerStarts)) {
    const t = Date.parse(startedAt);
    const node = controllers.has(Number(broker)) ? { node: 'controller' as const } : {};
    if (Number.isFinite(t) && t >= from && t <= nowMs + 60_000) fresh.push({ code: 'broker-started', broker: Number(broker), ...node, at: new Date(t).toISOString() });
  }
  if (kept.facts) fresh.push(...diffFacts(kept.facts, facts));
  const seen = new Set<string>();
  const lasting = [...kept.changes, ...fresh].filter((c) => {
    const key = changeKey(c);
    if (seen.has(key) || !(timeOf(c) >= from)) return false;
    seen.add(key);
    return true;
  });
  const ops: ClusterChange[] = operations
    .filter((o) => Date.parse(o.at) >= from)
    .map((o) => ({ code: 'operation-run', requestId: o.requestId, kind: o.kind, title: o.title, outcome: o.outcome, at: o.at }));
  const inProgress: ClusterChange[] = [];
  for (const t of snapshot.topics) {
    const moving = t.partitions.filter((p) => (p.addingReplicas?.length ?? 0) > 0).sort((a, b) => a.partition - b.partition);
    if (moving.length) inProgress.push({ code: 'reassignment-in-progress', topic: t.name, partitions: moving.slice(0, MAX_LISTED).map((p) => ({ partition: p.partition, adding: p.addingReplicas! })), count: moving.length, at: snapshot.takenAt });
  }
  const changes = [...lasting, ...ops, ...inProgress].sort((a, b) => timeOf(a) - timeOf(b));
  return { changes, keep: { facts: mergeFacts(kept.facts, facts), changes: lasting } };
}
