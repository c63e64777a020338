// Consumer positions for the snapshot: every group's committed offsets
// (OffsetFetch on its coordinator, one request per group: kafkajs speaks
// OffsetFetch only up to v4, one group per request) and the log start / end of
// the partitions they committed to (ListOffsets, batched: one request per
// leader for the end, one more for the start). Bounded like the rest of the
// snapshot; what fails is recorded and the sample is marked in `errors`.

import type { ConsumerSample, GroupOffsets, GroupState, LogOffsets, SnapshotError, TopicState } from './types.ts';
import { KAFKAJS, type WireBroker } from './wire.ts';
import { groupByTopic, partitionLookup, tpKey } from './partitions.ts';
import { kafkaError } from './errors.ts';
import { mapLimit, withTimeout } from './limits.ts';
import { errorMessage } from '../runtime/errors.ts';

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

export async function readConsumerSample(input: ConsumerSampleInput): Promise<ConsumerSample> {
  const at = input.now();
  const rank = topicRanks(input.topics);
  const readable = input.groups.filter((g) => g.error === null && g.coordinator !== null);
  const groups = await mapLimit(readable, input.concurrency, (g) => fetchGroupOffsets(g, input, rank));

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

async function fetchGroupOffsets(g: GroupState, input: ConsumerSampleInput, rank: ReadonlyMap<string, number>): Promise<GroupOffsets> {
  const coordinator = g.coordinator!;
  const conn = input.conns.get(coordinator);
  if (!conn || input.unreachable.has(coordinator)) return { groupId: g.groupId, offsets: [], error: `coordinator broker ${coordinator} is not reachable` };
  try {
    // No topics = every partition the group committed (OffsetFetch v2+).
    const res = await withTimeout(
      conn.request(KAFKAJS.OffsetFetch, { groupId: g.groupId, topics: [] }),
      input.budget(input.requestTimeoutMs),
      `OffsetFetch ${g.groupId} on broker ${coordinator}`,
    );
    if (res.errorCode) return { groupId: g.groupId, offsets: [], error: kafkaError(res.errorCode).type };
    const offsets: GroupOffsets['offsets'] = [];
    for (const t of res.responses) {
      // A topic outside the snapshot (deleted, or filtered out) has no log offsets to compare with.
      if (!rank.has(t.topic)) continue;
      for (const p of t.partitions) {
        const offset = Number(p.offset);
        if (p.errorCode === 0 && offset >= 0) offsets.push({ topic: t.topic, partition: p.partition, offset });
      }
    }
    offsets.sort((a, b) => rank.get(a.topic)! - rank.get(b.topic)! || a.partition - b.partition);
    return { groupId: g.groupId, offsets, error: null };
  } catch (err) {
    input.errors.push({ scope: `offsets:${g.groupId}`, message: errorMessage(err) });
    return { groupId: g.groupId, offsets: [], error: errorMessage(err) };
  }
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
  const work: { leader: number; tps: { topic: string; partition: number }[]; timestamp: number }[] = [];
  for (const [leader, tps] of byLeader) {
    work.push({ leader, tps, timestamp: LATEST });
    if (input.withStart) work.push({ leader, tps, timestamp: EARLIEST });
  }
  await mapLimit(work, input.concurrency, async ({ leader, tps, timestamp }) => {
    try {
      const res = await withTimeout(
        input.conns.get(leader)!.request(KAFKAJS.ListOffsets, {
          replicaId: -1,
          // READ_UNCOMMITTED: the high watermark, as kafka-consumer-groups.sh reports LOG-END-OFFSET.
          isolationLevel: 0,
          topics: [...groupByTopic(tps)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition, timestamp })) })),
        }),
        input.budget(input.requestTimeoutMs),
        `ListOffsets on broker ${leader}`,
      );
      for (const t of res.responses) {
        for (const p of t.partitions) {
          const entry = out.get(t.topic)?.get(p.partition);
          const raw = p.offset ?? p.offsets?.[0];
          if (!entry || p.errorCode !== 0 || raw === undefined) continue;
          if (timestamp === LATEST) entry.end = Number(raw);
          else entry.start = Number(raw);
        }
      }
    } catch (err) {
      input.errors.push({ scope: `offsets:broker:${leader}`, message: `ListOffsets: ${errorMessage(err)}` });
    }
  });
  const all: LogOffsets[] = [];
  for (const entries of out.values()) for (const e of entries.values()) all.push(e);
  return all.sort((a, b) => (rank.get(a.topic) ?? -1) - (rank.get(b.topic) ?? -1) || a.partition - b.partition);
}

/** Did any group have a partition behind the end in this sample (a second sample can only change something then)? */
export function anyLag(sample: ConsumerSample): boolean {
  const ends = new Map(sample.logOffsets.map((l) => [tpKey(l.topic, l.partition), l.end]));
  return sample.groups.some((g) => g.offsets.some((o) => {
    const end = ends.get(tpKey(o.topic, o.partition));
    return end !== null && end !== undefined && end > o.offset;
  }));
}
