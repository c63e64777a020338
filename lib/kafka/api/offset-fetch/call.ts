// OffsetFetch (API key 9), from the group's coordinator: committed offsets,
// our own codec (codec.ts; one group per request here, v8 on
// Kafka 3.0+, v1-v7 before; the snapshot's many groups per coordinator: committedOfGroups).
import { OFFSET_FETCH_BATCHED_VERSION, OffsetFetch as Definition, type OffsetFetchArgs, type OffsetFetchGroupResult, type OffsetFetchResult } from './codec.ts';
import { pickVersion, type WireBroker } from '../../wire.ts';
import { describeError, KafkaErrorCode, wholeCallError } from '../../errors.ts';
import { groupByTopic } from '../../partitions.ts';
import type { AdminApi } from '../../router/spec.ts';
import { byTopicPartition } from '../../router/results.ts';
import type { CommittedOffset, TopicPartition } from '../../admin/types.ts';

export interface OffsetFetchInput {
  groupId: string;
  /** Omitted: every partition the group committed. */
  partitions?: TopicPartition[];
}

/** Every partition of each group (a null topic list, v2+). */
const everyPartition = (groupIds: readonly string[]): OffsetFetchArgs => ({ groups: groupIds.map((groupId) => ({ groupId, topics: null })) });

const groupError = (res: OffsetFetchResult) => res.groups[0]?.errorCode ?? KafkaErrorCode.NONE;

export const OffsetFetch: AdminApi<OffsetFetchInput, OffsetFetchArgs, OffsetFetchResult, CommittedOffset[]> = {
  name: 'OffsetFetch',
  api: Definition,
  route: {
    to: 'coordinator',
    coordinator: (i) => ({ key: i.groupId, type: 'group' }),
    moved: (r) => groupError(r) === KafkaErrorCode.NOT_COORDINATOR || groupError(r) === KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
  },
  // A null topic list: every partition the group committed (v2+).
  build: ({ groupId, partitions }) =>
    partitions ? { groups: [{ groupId, topics: [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) })) }] } : everyPartition([groupId]),
  toResults(res, { groupId }) {
    if (res.groups.length !== 1) throw wholeCallError(`OffsetFetch for group ${groupId}`, KafkaErrorCode.UNKNOWN_SERVER_ERROR, `the coordinator answered for ${res.groups.length} groups`);
    const [g] = res.groups;
    if (g!.errorCode) throw wholeCallError(`OffsetFetch for group ${groupId}`, g!.errorCode);
    return g!.topics
      .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, offset: p.committedOffset, errorCode: p.errorCode, error: describeError(p.errorCode) })))
      .sort(byTopicPartition);
  },
  label: ({ groupId }) => `OffsetFetch ${groupId}`,
};


/** Does this broker answer OffsetFetch for many groups at once (v8, Kafka 3.0+)? */
export async function takesManyGroups(conn: WireBroker): Promise<boolean> {
  await conn.connect();
  const version = pickVersion(Definition.versions, conn.apiVersions?.[Definition.apiKey]);
  return version !== null && version >= OFFSET_FETCH_BATCHED_VERSION;
}

/**
 * Every partition these groups committed, from their coordinator, by group id:
 * one request for all of them, or (a broker before v8) one request per group,
 * which the answer then names no group in.
 */
export async function committedOfGroups(conn: WireBroker, groupIds: readonly string[]): Promise<Map<string, OffsetFetchGroupResult>> {
  const ask = (ids: readonly string[]) => conn.request(Definition, everyPartition(ids));
  const out = new Map<string, OffsetFetchGroupResult>();
  if (groupIds.length > 1 && (await takesManyGroups(conn))) {
    for (const g of (await ask(groupIds)).groups) if (g.groupId !== null) out.set(g.groupId, g);
    return out;
  }
  for (const groupId of groupIds) {
    const [g] = (await ask([groupId])).groups;
    if (g) out.set(groupId, { ...g, groupId: g.groupId ?? groupId });
  }
  return out;
}
