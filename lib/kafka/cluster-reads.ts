// The snapshot's reads, each a step of the pass in snapshot.ts: topics from
// Metadata, the ListGroups pass (also who answers), in-progress reassignments,
// topic configs, and the consumer samples. Each sends over the snapshot's own
// connections under the pass's budget, the API definitions from lib/kafka/api/.

import type { BrokerCoordinatorError, BrokerInfo, ConsumerSample, GroupState, SnapshotError, TopicConfigSubset, TopicState } from './types.ts';
import type { RawMetadata, WireBroker, WireOptions } from './wire.ts';
import type { QuorumView } from './quorum-view.ts';
import { CONSUMER_OFFSETS_TOPIC } from './group-partition.ts';
import { kafkaError } from './errors.ts';
import { chunk, mapLimit, withTimeout } from './limits.ts';
import { anyLag, readConsumerSample, type ConsumerSampleInput } from './consumer-offsets.ts';
import { commitsOffsets, describeListedGroups, type DescribeGroupsInput, type ListedGroupInfo } from './groups.ts';
import { afterQuorum } from './quorum-read.ts';
import { errorMessage } from '../runtime/errors.ts';

export const SNAPSHOT_CONFIG_NAMES = ['min.insync.replicas', 'unclean.leader.election.enable', 'cleanup.policy', 'segment.bytes'];

/** What every step of one snapshot pass shares: its connection options, its errors, its clock and budget. */
export interface SnapshotPass {
  wireOptions: WireOptions;
  concurrency: number;
  errors: SnapshotError[];
  /** A call's timeout: its own, or what is left of the pass if less. */
  budget(perCall: number): number;
  remaining(): number;
  now(): number;
}

/** Metadata's topics, by name; a topic Metadata could not describe is an error instead. */
export function topicsOf(metadata: RawMetadata, errors: SnapshotError[]): TopicState[] {
  const topics: TopicState[] = [];
  for (const t of metadata.topicMetadata) {
    // UNKNOWN_TOPIC_OR_PARTITION for an explicitly named topic, authorization errors...
    if (t.topicErrorCode !== 0 && t.partitionMetadata.length === 0) {
      const e = kafkaError(t.topicErrorCode);
      if (!(t.topic === CONSUMER_OFFSETS_TOPIC && t.topicErrorCode === 3)) errors.push({ scope: `topic:${t.topic}`, message: `${e.type}: ${e.message}` });
      continue;
    }
    topics.push({
      name: t.topic,
      internal: t.isInternal,
      partitions: t.partitionMetadata
        .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr, offlineReplicas: p.offlineReplicas ?? [] }))
        .sort((a, b) => a.partition - b.partition),
      config: null,
    });
  }
  topics.sort((a, b) => a.name.localeCompare(b.name));
  return topics;
}

/** Connects to every broker and asks each for the groups it coordinates; a broker that fails is `fail`ed. */
export async function listGroupsPass(
  pass: SnapshotPass,
  brokers: readonly BrokerInfo[],
  brokerConns: ReadonlyMap<number, WireBroker>,
  fail: (brokerId: number, what: string, err: unknown) => void,
): Promise<{ listed: Map<string, ListedGroupInfo>; coordinatorErrors: BrokerCoordinatorError[] }> {
  const listed = new Map<string, ListedGroupInfo>();
  const coordinatorErrors: BrokerCoordinatorError[] = [];
  await mapLimit(brokers, pass.concurrency, async (b) => {
    const conn = brokerConns.get(b.id)!;
    try {
      await withTimeout(conn.connect(), pass.budget(pass.wireOptions.connectionTimeoutMs * 2), `connect to broker ${b.id}`);
      const res = await withTimeout(conn.listGroups(), pass.budget(pass.wireOptions.requestTimeoutMs), `ListGroups on broker ${b.id}`);
      if (res.errorCode !== 0) {
        const e = kafkaError(res.errorCode);
        coordinatorErrors.push({ brokerId: b.id, code: e.code, type: e.type });
        pass.errors.push({ scope: `groups:broker:${b.id}`, message: `ListGroups: ${e.type}` });
      }
      for (const g of res.groups) listed.set(g.groupId, { protocolType: g.protocolType, brokerId: b.id, groupState: g.groupState, groupType: g.groupType });
    } catch (err) {
      fail(b.id, 'ListGroups', err);
    }
  });
  return { listed, coordinatorErrors };
}

/** Marks the replicas being added to each partition under reassignment, asked of `target` once the quorum is known. */
export async function readReassignmentsInto(
  pass: SnapshotPass,
  topics: readonly TopicState[],
  target: number | undefined,
  brokerConns: ReadonlyMap<number, WireBroker>,
  quorumRead: Promise<QuorumView>,
): Promise<void> {
  if (target === undefined) return;
  try {
    const res = await withTimeout(afterQuorum(quorumRead, () => brokerConns.get(target)!.listPartitionReassignments(pass.wireOptions.requestTimeoutMs)), pass.budget(pass.wireOptions.requestTimeoutMs), 'ListPartitionReassignments');
    if (res.errorCode !== 0) throw new Error(kafkaError(res.errorCode).type);
    const byTopic = new Map(topics.map((t) => [t.name, t]));
    for (const rt of res.topics) {
      const t = byTopic.get(rt.name);
      for (const rp of rt.partitions) {
        const p = t?.partitions.find((x) => x.partition === rp.partition);
        if (p && rp.addingReplicas.length > 0) p.addingReplicas = rp.addingReplicas;
      }
    }
  } catch (err) {
    pass.errors.push({ scope: 'reassignments', message: errorMessage(err) });
  }
}

/**
 * Each listed group described by the API that knows its kind (groups.ts),
 * then the consumer samples of the groups that commit offsets (share groups
 * keep none to sample).
 */
export async function readGroupsAndLag(
  pass: SnapshotPass,
  input: Pick<DescribeGroupsInput, 'listed' | 'offsetsTopic' | 'offsetsTopicPartitions' | 'unreachable'> & { topics: readonly TopicState[]; brokerConns: ReadonlyMap<number, WireBroker> },
  options: { groupBatchSize?: number; consumers?: boolean; consumerSampleWindowMs?: number; sleep?: (ms: number) => Promise<void> },
): Promise<{ groups: GroupState[]; consumerSamples: ConsumerSample[] }> {
  const { budget, errors, concurrency, wireOptions, now } = pass;
  const { listed, offsetsTopic, offsetsTopicPartitions, topics, brokerConns, unreachable } = input;
  const requestTimeoutMs = wireOptions.requestTimeoutMs;
  const groups = await describeListedGroups({ listed, offsetsTopic, offsetsTopicPartitions, conns: brokerConns, unreachable, batchSize: options.groupBatchSize ?? 100, concurrency, budget, requestTimeoutMs, errors });
  const offsetGroups = groups.filter(commitsOffsets);
  const consumerSamples =
    options.consumers !== false && offsetGroups.length > 0
      ? await readConsumerSamples(pass, { groups: offsetGroups, topics, conns: brokerConns, unreachable, concurrency, budget, requestTimeoutMs, errors, now }, options)
      : [];
  return { groups, consumerSamples };
}

/** One consumer sample, and a second one a window later where some group lags and the budget allows it. */
async function readConsumerSamples(
  pass: SnapshotPass,
  sampleInput: Omit<ConsumerSampleInput, 'withStart'>,
  options: { consumerSampleWindowMs?: number; sleep?: (ms: number) => Promise<void> },
): Promise<ConsumerSample[]> {
  const consumerSamples: ConsumerSample[] = [];
  consumerSamples.push(await readConsumerSample({ ...sampleInput, withStart: true }));
  const windowMs = options.consumerSampleWindowMs ?? 0;
  // A second look only where it can change the verdict, and only if the budget allows it.
  if (windowMs > 0 && anyLag(consumerSamples[0]!) && pass.remaining() > windowMs + pass.wireOptions.requestTimeoutMs) {
    await (options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(Math.max(0, consumerSamples[0]!.at + windowMs - pass.now()));
    consumerSamples.push(await readConsumerSample({ ...sampleInput, withStart: false }));
  }
  return consumerSamples;
}

/** ConfigSource DYNAMIC_TOPIC_CONFIG: set on the topic itself. */
const TOPIC_OVERRIDE_SOURCE = 1;

function parseTopicConfig(entries: { configName: string; configValue: string | null; configSource?: number }[]): TopicConfigSubset {
  const get = (name: string) => entries.find((e) => e.configName === name)?.configValue ?? null;
  const minIsr = Number(get('min.insync.replicas'));
  const segmentBytes = get('segment.bytes');
  return {
    minInsyncReplicas: Number.isInteger(minIsr) && minIsr > 0 ? minIsr : 1,
    uncleanLeaderElectionEnable: get('unclean.leader.election.enable') === 'true',
    cleanupPolicy: get('cleanup.policy') ?? 'delete',
    segmentBytes: segmentBytes === null || !Number.isFinite(Number(segmentBytes)) ? null : Number(segmentBytes),
    overrides: entries.filter((e) => e.configSource === TOPIC_OVERRIDE_SOURCE).map((e) => e.configName).sort(),
  };
}

export async function describeConfigs(
  topicNames: string[],
  brokerIds: number[],
  conns: Map<number, WireBroker>,
  batchSize: number,
  concurrency: number,
  budget: (perCall: number) => number,
  requestTimeoutMs: number,
  errors: SnapshotError[],
): Promise<Map<string, TopicConfigSubset>> {
  const out = new Map<string, TopicConfigSubset>();
  if (brokerIds.length === 0 || topicNames.length === 0) {
    if (topicNames.length > 0) errors.push({ scope: 'configs', message: 'no broker answered; topic configs unknown' });
    return out;
  }
  // Topic configs can be served by any broker: spread batches, and retry a
  // failed batch once on the next broker.
  await mapLimit(chunk(topicNames, batchSize), concurrency, async (batch, i) => {
    let lastError: unknown;
    for (let attempt = 0; attempt < Math.min(2, brokerIds.length); attempt++) {
      const brokerId = brokerIds[(i + attempt) % brokerIds.length]!;
      try {
        const res = await withTimeout(conns.get(brokerId)!.describeTopicConfigs(batch, SNAPSHOT_CONFIG_NAMES), budget(requestTimeoutMs), `DescribeConfigs on broker ${brokerId}`);
        for (const r of res.resources) {
          if (r.errorCode !== 0) {
            errors.push({ scope: `configs:${r.resourceName}`, message: `${kafkaError(r.errorCode).type}${r.errorMessage ? `: ${r.errorMessage}` : ''}` });
            continue;
          }
          out.set(r.resourceName, parseTopicConfig(r.configEntries));
        }
        return;
      } catch (err) {
        lastError = err;
      }
    }
    errors.push({ scope: 'configs', message: `${batch.length} topics: ${errorMessage(lastError)}` });
  });
  return out;
}
