// The snapshot's reads, each a step of the pass in snapshot.ts: topics from
// Metadata, the ListGroups pass (also who answers), in-progress reassignments,
// topic configs, and the consumer samples. Each goes through the pass's router
// (the API table's calls, lib/kafka/api/, by the router's routes), under its budget.

import type { BrokerCoordinatorError, BrokerInfo, ConsumerSample, GroupState, SnapshotError, TopicConfigSubset, TopicState } from './types.ts';
import type { RawMetadata, WireBroker, WireOptions } from './wire.ts';
import type { QuorumView } from './quorum-view.ts';
import type { Nodes } from './router/nodes.ts';
import type { Router } from './router/router.ts';
import type { ConfigEntry } from './admin/types.ts';
import { KAFKA_APIS } from './api/index.ts';
import { CONSUMER_OFFSETS_TOPIC } from './group-partition.ts';
import { KafkaAdminError, kafkaError } from './errors.ts';
import { withTimeout } from './limits.ts';
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
  /** The pass's connections and what Metadata said; `down` its unreachable brokers. */
  nodes: Nodes;
  router: Router;
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

/** Every broker asked for the groups it coordinates (the router's tolerant pass); a broker that fails is `fail`ed. */
export async function listGroupsPass(
  pass: SnapshotPass,
  brokers: readonly BrokerInfo[],
  fail: (brokerId: number, what: string, err: unknown) => void,
): Promise<{ listed: Map<string, ListedGroupInfo>; coordinatorErrors: BrokerCoordinatorError[] }> {
  const listed = new Map<string, ListedGroupInfo>();
  const coordinatorErrors: BrokerCoordinatorError[] = [];
  const answers = await pass.router.eachBroker(KAFKA_APIS.ListGroups.call, brokers.map((b) => b.id));
  for (const b of brokers) {
    const answer = answers.get(b.id)!;
    if (!answer.ok) {
      fail(b.id, 'ListGroups', answer.error);
      continue;
    }
    const res = answer.out;
    if (res.errorCode !== 0) {
      const e = kafkaError(res.errorCode);
      coordinatorErrors.push({ brokerId: b.id, code: e.code, type: e.type });
      pass.errors.push({ scope: `groups:broker:${b.id}`, message: `ListGroups: ${e.type}` });
    }
    for (const g of res.groups) listed.set(g.groupId, { protocolType: g.protocolType, brokerId: b.id, groupState: g.groupState, groupType: g.groupType });
  }
  return { listed, coordinatorErrors };
}

/**
 * Marks the replicas being added to each partition under reassignment: asked
 * of the controller (the router's route: ZooKeeper-mode brokers other than the
 * controller answer NOT_CONTROLLER, KRaft brokers all forward) once the quorum
 * is known.
 */
export async function readReassignmentsInto(pass: SnapshotPass, topics: readonly TopicState[], quorumRead: Promise<QuorumView>): Promise<void> {
  if (pass.nodes.brokerOrder().length === 0) return;
  try {
    const ongoing = await withTimeout(
      afterQuorum(quorumRead, () => pass.router.single(KAFKA_APIS.ListPartitionReassignments.call, null)),
      pass.budget(pass.wireOptions.requestTimeoutMs),
      'ListPartitionReassignments',
    );
    const byTopic = new Map(topics.map((t) => [t.name, t]));
    for (const r of ongoing) {
      const p = byTopic.get(r.topic)?.partitions.find((x) => x.partition === r.partition);
      if (p && r.addingReplicas.length > 0) p.addingReplicas = r.addingReplicas;
    }
  } catch (err) {
    // Kafka's refusal by its name alone, as the snapshot has always said it.
    const message = err instanceof KafkaAdminError && err.code !== null ? kafkaError(err.code).type : errorMessage(err);
    pass.errors.push({ scope: 'reassignments', message });
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

function parseTopicConfig(entries: readonly ConfigEntry[]): TopicConfigSubset {
  const get = (name: string) => entries.find((e) => e.name === name)?.value ?? null;
  const minIsr = Number(get('min.insync.replicas'));
  const segmentBytes = get('segment.bytes');
  return {
    minInsyncReplicas: Number.isInteger(minIsr) && minIsr > 0 ? minIsr : 1,
    uncleanLeaderElectionEnable: get('unclean.leader.election.enable') === 'true',
    cleanupPolicy: get('cleanup.policy') ?? 'delete',
    segmentBytes: segmentBytes === null || !Number.isFinite(Number(segmentBytes)) ? null : Number(segmentBytes),
    overrides: entries.filter((e) => e.source === TOPIC_OVERRIDE_SOURCE).map((e) => e.name).sort(),
  };
}

/** A resource's error as the snapshot words it: Kafka's name, and the broker's message when it gave one (describeError falls back to Kafka's text). */
function configError(errorCode: number, error: string | null): string {
  const e = kafkaError(errorCode);
  const said = error?.startsWith(`${e.type}: `) ? error.slice(e.type.length + 2) : null;
  return said && said !== e.message ? `${e.type}: ${said}` : e.type;
}

/**
 * The configs detectors need of these topics: DescribeConfigs, which any
 * broker answers, in batches spread over the brokers that answered, a failed
 * batch once more on the next one (Router.spread).
 */
export async function describeConfigs(pass: SnapshotPass, topicNames: string[], batchSize: number): Promise<Map<string, TopicConfigSubset>> {
  const { errors } = pass;
  const out = new Map<string, TopicConfigSubset>();
  if (pass.nodes.brokerOrder().length === 0 || topicNames.length === 0) {
    if (topicNames.length > 0) errors.push({ scope: 'configs', message: 'no broker answered; topic configs unknown' });
    return out;
  }
  const queries = topicNames.map((name) => ({ type: 'topic' as const, name, names: SNAPSHOT_CONFIG_NAMES }));
  for (const b of await pass.router.spread(KAFKA_APIS.DescribeConfigs.call, queries, batchSize)) {
    if (!b.results) {
      errors.push({ scope: 'configs', message: `${b.batch.length} topics: ${errorMessage(b.error)}` });
      continue;
    }
    for (const r of b.results.values()) {
      if (r.errorCode !== 0) errors.push({ scope: `configs:${r.name}`, message: configError(r.errorCode, r.error) });
      else out.set(r.name, parseTopicConfig(r.entries));
    }
  }
  return out;
}
