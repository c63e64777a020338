// Leader override's I/O edge: reads what planLeaderOverride needs (log end
// offsets on the hosts, DescribeLogDirs sizes, every group's committed
// offset on the partition). Each source is bounded and fails soft: what could
// not be read is recorded as unknown, never as 0.

import type { Executor } from '../../../hosts/types.ts';
import { mapLimit, withTimeout } from '../../../kafka/limits.ts';
import { PartitionId, TopicName } from '../../../kafka/names.ts';
import { errorMessage } from '../../../runtime/errors.ts';
import { mergeReplicaData, type CommittedGroup, type LeaderOverrideInputs, type ReplicaTransactions } from './plan.ts';
import { measureReplicas, type ReplicaHost } from './replica-data.ts';
import type { ReplicaData, TopicPartition } from '../../types.ts';
import { andMore } from '../../../runtime/format.ts';

// ---------------------------------------------------------------- gathering the inputs

/**
 * The part of lib/kafka/admin.ts's KafkaAdmin this needs (structural, so any
 * admin with these methods fits, and tests pass small fakes).
 */
export interface LeaderOverrideAdmin {
  describeLogDirs(brokerIds: number[], partitions: TopicPartition[] | null): Promise<Map<number, BrokerLogDirs>>;
  /** groupType: ListGroups v5 (Kafka 3.8+); absent from older brokers. */
  listGroups(): Promise<{ groupId: string; protocolType: string; groupType?: string | null }[]>;
  /** groupType: which protocol described the group (classic, or consumer by ConsumerGroupDescribe). */
  describeGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number; state: string; protocolType: string; members: number; groupType?: 'classic' | 'consumer' | 'unknown' }[]>;
  fetchCommittedOffsets(groupId: string, partitions?: TopicPartition[]): Promise<{ topic: string; partition: number; offset: number; errorCode: number }[]>;
  /** KIP-664 DescribeProducers asked of one replica (any replica answers for its own log); absent in small fakes. */
  describeProducers?(partitions: TopicPartition[], options?: { brokerId?: number }): Promise<{ errorCode: number; error: string | null; producers: { producerId: number; producerEpoch: number; coordinatorEpoch: number; currentTxnStartOffset: number }[] }[]>;
}

/** One broker's DescribeLogDirs answer. */
export interface BrokerLogDirs {
  error: string | null;
  logDirs: LogDirAnswer[];
}

export interface LogDirAnswer {
  path: string;
  errorCode: number;
  partitions: { topic: string; partition: number; sizeBytes: number; offsetLag: number; isFuture: boolean }[];
}

export interface GatherTimeouts {
  /** Host measurement (kafka-dump-log.sh on each broker host, in parallel). */
  hostsMs: number;
  /** DescribeLogDirs, per broker. */
  logDirsMs: number;
  /** All of the consumer-group reading together (list, offsets, describe). */
  groupsMs: number;
  /** One group's OffsetFetch. */
  perGroupMs: number;
}

export const DEFAULT_GATHER_TIMEOUTS: GatherTimeouts = { hostsMs: 120_000, logDirsMs: 15_000, groupsMs: 30_000, perGroupMs: 5_000 };

export interface LeaderOverrideDeps {
  admin: LeaderOverrideAdmin;
  /** Host access to measure log end offsets; absent without it (e.g. Amazon MSK, hosts.executor "none"). */
  hosts?: { executor: Executor; replicas: ReplicaHost[] };
  timeouts?: Partial<GatherTimeouts>;
}

/** Groups read in parallel; coordinators are spread over the brokers. */
const GROUP_FETCH_CONCURRENCY = 8;
const DESCRIBE_GROUPS_BATCH = 100;

/**
 * Reads what planLeaderOverride needs: log end offsets on the hosts (when
 * there is host access), DescribeLogDirs sizes (always: the only figure on
 * MSK), and every group's committed offset on the partition. Each source is
 * bounded by a timeout and fails soft: what could not be read is recorded as
 * unknown, never as 0.
 */
export async function gatherLeaderOverrideInputs(deps: LeaderOverrideDeps, topic: string, partition: number, replicas: readonly number[]): Promise<LeaderOverrideInputs> {
  TopicName.parse(topic);
  PartitionId.parse(partition);
  const timeouts = { ...DEFAULT_GATHER_TIMEOUTS, ...deps.timeouts };
  const tp = { topic, partition };
  const [onHosts, sizes, groups, transactions] = await Promise.all([
    deps.hosts ? measureOnHosts(deps.hosts, tp, timeouts.hostsMs) : Promise.resolve([]),
    replicaSizes(deps.admin, tp, replicas, timeouts.logDirsMs),
    committedGroups(deps.admin, tp, timeouts),
    replicaTransactions(deps.admin, tp, replicas, timeouts.logDirsMs),
  ]);
  const merged = mergeReplicaData([...onHosts, ...sizes]);
  return { replicaData: replicas.map((r) => merged.get(r)!), ...groups, transactions, logDirSizes: sizes };
}

/**
 * Transactional producers in each replica's own log (DescribeProducers asked
 * of that broker, leader or not): an open transaction there whose marker was
 * only on the lost leader hangs once this replica leads. Dead brokers and
 * brokers before 2.8 (no DescribeProducers) are recorded with why.
 */
async function replicaTransactions(admin: LeaderOverrideAdmin, tp: TopicPartition, replicas: readonly number[], ms: number): Promise<ReplicaTransactions[]> {
  const describe = admin.describeProducers?.bind(admin);
  if (!describe) return [];
  return Promise.all(
    replicas.map(async (brokerId): Promise<ReplicaTransactions> => {
      try {
        const [r] = await withTimeout(describe([tp], { brokerId }), ms, `DescribeProducers on broker ${brokerId}`);
        if (!r || r.errorCode !== 0) return { brokerId, producers: null, open: [], error: r?.error ?? 'no answer' };
        const open = r.producers.filter((p) => p.currentTxnStartOffset >= 0).map((p) => ({ producerId: p.producerId, producerEpoch: p.producerEpoch, firstOffset: p.currentTxnStartOffset }));
        // A coordinator epoch >= 0 means a coordinator has written markers for it here: a transactional producer.
        const transactional = r.producers.filter((p) => p.currentTxnStartOffset >= 0 || p.coordinatorEpoch >= 0).length;
        return { brokerId, producers: transactional, open, error: null };
      } catch (err) {
        return { brokerId, producers: null, open: [], error: errorMessage(err) };
      }
    }),
  );
}

async function measureOnHosts(hosts: NonNullable<LeaderOverrideDeps['hosts']>, tp: TopicPartition, ms: number): Promise<ReplicaData[]> {
  try {
    // measureReplicas bounds each host run; the outer bound covers a transport that never answers.
    return await withTimeout(measureReplicas(hosts.executor, hosts.replicas, tp.topic, tp.partition, ms), ms + 5_000, 'measuring replicas on the hosts');
  } catch (err) {
    return hosts.replicas.map((h) => ({ brokerId: h.target.brokerId, logEndOffset: null, source: 'host', error: errorMessage(err) }));
  }
}

/** Each broker asked on its own: a dead one (it cannot answer) must not cost the others' answers. */
export async function replicaSizes(admin: LeaderOverrideAdmin, tp: TopicPartition, replicas: readonly number[], ms: number): Promise<ReplicaData[]> {
  return Promise.all(
    replicas.map(async (brokerId): Promise<ReplicaData> => {
      const unknown = (error: string): ReplicaData => ({ brokerId, logEndOffset: null, sizeBytes: null, source: 'describe-log-dirs', error });
      try {
        const answer = (await withTimeout(admin.describeLogDirs([brokerId], [tp]), ms, `DescribeLogDirs on broker ${brokerId}`)).get(brokerId);
        if (!answer) return unknown('no answer');
        if (answer.error) return unknown(answer.error);
        return sizeFromLogDirs(brokerId, answer.logDirs, tp) ?? unknown('a log dir is offline: the replica may be on it');
      } catch (err) {
        return unknown(errorMessage(err));
      }
    }),
  );
}

/** The replica's size; 0 when every log dir answered and none holds it; null when an offline dir might. */
function sizeFromLogDirs(brokerId: number, dirs: readonly LogDirAnswer[], tp: TopicPartition): ReplicaData | null {
  const healthy = dirs.filter((d) => d.errorCode === 0);
  // A replica being moved between log dirs has a "future" copy too; the current one is what would lead.
  const hit = healthy.flatMap((d) => d.partitions).find((x) => x.topic === tp.topic && x.partition === tp.partition && !x.isFuture);
  if (hit) return { brokerId, logEndOffset: null, sizeBytes: hit.sizeBytes, source: 'describe-log-dirs' };
  if (healthy.length < dirs.length) return null;
  return { brokerId, logEndOffset: null, sizeBytes: 0, source: 'describe-log-dirs' };
}

/** Every group's committed offset on the partition, with its state; groups that do not answer are counted, not guessed. */
async function committedGroups(admin: LeaderOverrideAdmin, tp: TopicPartition, t: GatherTimeouts): Promise<Pick<LeaderOverrideInputs, 'groups' | 'groupsIncomplete'>> {
  const deadline = Date.now() + t.groupsMs;
  const left = () => deadline - Date.now();
  let listed: { groupId: string }[];
  try {
    // Share groups (KIP-932) acknowledge records and commit no offset: nothing of theirs is beyond an end.
    listed = (await withTimeout(admin.listGroups(), left(), 'ListGroups')).filter((g) => g.groupType !== 'share');
  } catch (err) {
    return { groups: [], groupsIncomplete: `listing consumer groups failed: ${errorMessage(err)}` };
  }
  const unanswered: string[] = [];
  const offsets = await mapLimit(listed, GROUP_FETCH_CONCURRENCY, async ({ groupId }) => {
    if (left() <= 0) {
      unanswered.push(groupId);
      return null;
    }
    try {
      const rows = await withTimeout(admin.fetchCommittedOffsets(groupId, [tp]), Math.min(left(), t.perGroupMs), `OffsetFetch for group ${groupId}`);
      const row = rows.find((r) => r.topic === tp.topic && r.partition === tp.partition);
      if (row && row.errorCode !== 0) unanswered.push(groupId);
      // -1: the group has no committed offset on this partition.
      return row && row.errorCode === 0 && row.offset >= 0 ? { groupId, offset: row.offset } : null;
    } catch {
      unanswered.push(groupId);
      return null;
    }
  });
  const committed = offsets.filter((x): x is { groupId: string; offset: number } => x !== null);
  const states = await groupStates(admin, committed.map((c) => c.groupId), left);
  const groups = committed.map((c) => ({ groupId: c.groupId, committedOffset: c.offset, ...(states.get(c.groupId) ?? { state: 'Unknown', members: null }) }));
  if (!unanswered.length) return { groups };
  unanswered.sort();
  return {
    groups,
    groupsIncomplete:
      `${unanswered.length} of ${listed.length} consumer group(s) did not give their committed offset in time: ` +
      andMore(unanswered, 10),
  };
}

type DescribedState = Pick<CommittedGroup, 'state' | 'members' | 'groupType'>;

/** State, members and protocol of each group (DescribeGroups, then ConsumerGroupDescribe for consumer-protocol groups). */
async function groupStates(admin: LeaderOverrideAdmin, groupIds: readonly string[], left: () => number): Promise<Map<string, DescribedState>> {
  const states = new Map<string, DescribedState>();
  for (let i = 0; i < groupIds.length; i += DESCRIBE_GROUPS_BATCH) {
    if (left() <= 0) break;
    try {
      const described = await withTimeout(admin.describeGroups(groupIds.slice(i, i + DESCRIBE_GROUPS_BATCH)), left(), 'DescribeGroups');
      for (const d of described) if (d.errorCode === 0) states.set(d.groupId, { state: d.state, members: d.members, ...(d.groupType ? { groupType: d.groupType } : {}) });
    } catch {
      // Undescribed groups stay "Unknown" with unknown members: the plan will not commit offsets for them.
    }
  }
  return states;
}
