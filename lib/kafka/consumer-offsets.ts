// Consumer positions for the snapshot: every group's committed offsets
// (OffsetFetch on its coordinator: many groups per request from Kafka 3.0 on,
// KIP-709's v8; one request per group on older brokers) and the log start /
// end of the partitions they committed to (ListOffsets, batched: one request
// per leader for the end, one more for the start). Bounded like the rest of the
// snapshot; what fails is recorded and the sample is marked in `errors`.

import type { ConsumerSample, GroupOffsets, GroupState, LogOffsets, SnapshotError, TopicState } from './types.ts';
import type { WireBroker } from './wire.ts';
import { eachOffset, ListOffsets, type OffsetQuery } from './api/list-offsets/call.ts';
import type { OffsetFetchGroupResult } from './api/offset-fetch/codec.ts';
import { committedOfGroups, takesManyGroups } from './api/offset-fetch/call.ts';
import { partitionLookup } from './partitions.ts';
import { kafkaError } from './errors.ts';
import { chunk } from './limits.ts';
import { toNodes } from './router/passes.ts';
import { errorMessage } from '../runtime/errors.ts';

/** Groups per batched OffsetFetch: a bounded answer (a group of 100 partitions is ~2 KB). */
export const OFFSET_FETCH_GROUPS_PER_REQUEST = 100;

export interface ConsumerSampleInput {
  groups: readonly GroupState[];
  topics: readonly TopicState[];
  conns: ReadonlyMap<number, WireBroker>;
  unreachable: ReadonlySet<number>;
  /** Read log start offsets too (the first sample); later samples only need the end. */
  withStart: boolean;
  concurrency: number;
  budget: (perCall: number) => number;
  requestTimeoutMs: number;
  errors: SnapshotError[];
  now: () => number;
}

const EARLIEST = -2;
const LATEST = -1;


/**
 * Each topic's place in the order results are sorted in (by name, as
 * localeCompare orders them): sorting 200k partitions by a number, not by
 * localeCompare on every comparison, is what keeps a fleet-size sample fast.
 */
function topicRanks(topics: readonly TopicState[]): Map<string, number> {
  return new Map(topics.map((t) => t.name).sort((a, b) => a.localeCompare(b)).map((name, i) => [name, i]));
}

/** A partition's place in that order, as one number (partition numbers stay below 10^7). */
const orderKey = (rank: ReadonlyMap<string, number>, topic: string, partition: number) => ((rank.get(topic) ?? -1) + 1) * 1e7 + partition;

/** Sorted by topic rank, then partition: a linear check first (answers usually come in order), one key per item otherwise. */
function byRankAndPartition<T extends { topic: string; partition: number }>(items: T[], rank: ReadonlyMap<string, number>): T[] {
  const keys = new Float64Array(items.length);
  let sorted = true;
  for (let i = 0; i < items.length; i++) {
    keys[i] = orderKey(rank, items[i]!.topic, items[i]!.partition);
    if (i > 0 && keys[i]! < keys[i - 1]!) sorted = false;
  }
  if (sorted) return items;
  const order = Array.from(items.keys()).sort((a, b) => keys[a]! - keys[b]!);
  return order.map((i) => items[i]!);
}

export async function readConsumerSample(input: ConsumerSampleInput): Promise<ConsumerSample> {
  const at = input.now();
  const rank = topicRanks(input.topics);
  const readable = input.groups.filter((g) => g.error === null && g.coordinator !== null);
  const byCoordinator = new Map<number, string[]>();
  for (const g of readable) {
    const list = byCoordinator.get(g.coordinator!);
    if (list) list.push(g.groupId);
    else byCoordinator.set(g.coordinator!, [g.groupId]);
  }
  const fetched = new Map<string, GroupOffsets>();
  const work: { brokerId: number; groupIds: string[] }[] = [];
  for (const [coordinator, groupIds] of byCoordinator) {
    const conn = input.conns.get(coordinator);
    const batched = conn && !input.unreachable.has(coordinator) ? await takesManyGroups(conn).catch(() => false) : false;
    for (const ids of batched ? chunk(groupIds, OFFSET_FETCH_GROUPS_PER_REQUEST) : groupIds.map((id) => [id])) work.push({ brokerId: coordinator, groupIds: ids });
  }
  // Each coordinator as the offsets partition's leader names it (the router's to-nodes route).
  await toNodes(input, work, {
    label: ({ brokerId, groupIds }) => `${groupIds.length === 1 ? `OffsetFetch ${groupIds[0]}` : `OffsetFetch of ${groupIds.length} groups`} on broker ${brokerId}`,
    ask: (conn, { groupIds }) => committedOfGroups(conn, groupIds),
    answered: ({ groupIds }, answers) => {
      for (const groupId of groupIds) fetched.set(groupId, groupOffsets(groupId, answers.get(groupId), rank));
    },
    unreachable: ({ brokerId, groupIds }) => {
      for (const groupId of groupIds) fetched.set(groupId, { groupId, offsets: [], error: `coordinator broker ${brokerId} is not reachable` });
    },
    failed: ({ groupIds }, err) => {
      for (const groupId of groupIds) {
        input.errors.push({ scope: `offsets:${groupId}`, message: errorMessage(err) });
        fetched.set(groupId, { groupId, offsets: [], error: errorMessage(err) });
      }
    },
  });
  const groups = readable.map((g) => fetched.get(g.groupId)!);

  const wanted = new Map<string, Set<number>>();
  for (const g of groups) {
    for (const o of g.offsets) {
      const set = wanted.get(o.topic);
      if (set) set.add(o.partition);
      else wanted.set(o.topic, new Set([o.partition]));
    }
  }
  const logOffsets = await listLogOffsets(wanted, input, rank);
  return { at, groups, logOffsets };
}

function groupOffsets(groupId: string, answer: OffsetFetchGroupResult | undefined, rank: ReadonlyMap<string, number>): GroupOffsets {
  if (!answer) return { groupId, offsets: [], error: 'UNKNOWN_SERVER_ERROR: the coordinator did not answer for this group' };
  if (answer.errorCode) return { groupId, offsets: [], error: kafkaError(answer.errorCode).type };
  const offsets: GroupOffsets['offsets'] = [];
  for (const t of answer.topics) {
    // A topic outside the snapshot (deleted, or filtered out) has no log offsets to compare with.
    if (!rank.has(t.name)) continue;
    for (const p of t.partitions) if (p.errorCode === 0 && p.committedOffset >= 0) offsets.push({ topic: t.name, partition: p.partition, offset: p.committedOffset });
  }
  return { groupId, offsets: byRankAndPartition(offsets, rank), error: null };
}

/** Log start / end of the wanted partitions (by topic), from their leaders; sorted by topic (rank) and partition. */
async function listLogOffsets(wanted: ReadonlyMap<string, ReadonlySet<number>>, input: ConsumerSampleInput, rank: ReadonlyMap<string, number>): Promise<LogOffsets[]> {
  const lookup = partitionLookup(input);
  const out = new Map<string, Map<number, LogOffsets>>();
  const byLeader = new Map<number, { topic: string; partition: number }[]>();
  for (const [topic, partitions] of wanted) {
    const entries = new Map<number, LogOffsets>();
    out.set(topic, entries);
    for (const partition of partitions) {
      const tp = { topic, partition };
      entries.set(partition, { topic, partition, start: null, end: null });
      const leader = lookup(topic, partition)?.leader;
      if (leader === undefined || leader < 0 || input.unreachable.has(leader) || !input.conns.has(leader)) continue;
      const list = byLeader.get(leader);
      if (list) list.push(tp);
      else byLeader.set(leader, [tp]);
    }
  }
  // A partition may appear once per ListOffsets request: the end and the start are two requests per leader.
  const work: { brokerId: number; queries: OffsetQuery[]; timestamp: number }[] = [];
  for (const [leader, tps] of byLeader) {
    work.push({ brokerId: leader, queries: tps.map((tp) => ({ ...tp, timestamp: LATEST })), timestamp: LATEST });
    if (input.withStart) work.push({ brokerId: leader, queries: tps.map((tp) => ({ ...tp, timestamp: EARLIEST })), timestamp: EARLIEST });
  }
  // Each partition to the leader Metadata named, read as the admin's ListOffsets reads it (list-offsets/call.ts).
  await toNodes(input, work, {
    label: ({ brokerId }) => `ListOffsets on broker ${brokerId}`,
    // READ_UNCOMMITTED (no readCommitted): the high watermark, as kafka-consumer-groups.sh reports LOG-END-OFFSET.
    ask: (conn, { queries }) => conn.request(ListOffsets.api, ListOffsets.build(queries, { requestTimeoutMs: input.requestTimeoutMs })),
    answered: ({ timestamp }, res) =>
      eachOffset(res, (topic, partition, offset) => {
        const entry = out.get(topic)?.get(partition);
        if (!entry || offset === null) return;
        if (timestamp === LATEST) entry.end = offset;
        else entry.start = offset;
      }),
    unreachable: () => undefined,
    failed: ({ brokerId }, err) => void input.errors.push({ scope: `offsets:broker:${brokerId}`, message: `ListOffsets: ${errorMessage(err)}` }),
  });
  const all: LogOffsets[] = [];
  for (const entries of out.values()) for (const e of entries.values()) all.push(e);
  return byRankAndPartition(all, rank);
}

/** Did any group have a partition behind the end in this sample (a second sample can only change something then)? */
export function anyLag(sample: ConsumerSample): boolean {
  // By topic, then partition: no key string per offset (a fleet's sample holds 500,000).
  const ends = new Map<string, Map<number, number | null>>();
  for (const l of sample.logOffsets) {
    let byPartition = ends.get(l.topic);
    if (!byPartition) ends.set(l.topic, (byPartition = new Map()));
    byPartition.set(l.partition, l.end);
  }
  return sample.groups.some((g) =>
    g.offsets.some((o) => {
      const end = ends.get(o.topic)?.get(o.partition);
      return end !== null && end !== undefined && end > o.offset;
    }),
  );
}
