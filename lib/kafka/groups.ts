// Every group the brokers list, described by the API that knows its kind:
// classic groups by DescribeGroups (API 15), consumer groups on KIP-848's
// protocol (group.protocol=consumer, GA in 4.0) by ConsumerGroupDescribe (API
// 69), share groups (KIP-932) by ShareGroupDescribe (API 77). DescribeGroups
// answers a consumer-protocol group as "Dead" with no members (v0-v5; v6 says
// GROUP_ID_NOT_FOUND): reading it that way turns a live group into a stopped
// one. The kind comes from ListGroups v5 (Kafka 3.8+); without it (older
// brokers, or a group that changed protocol since it was listed) a group
// DescribeGroups does not know is asked again with ConsumerGroupDescribe where
// the coordinator has it, as Java's Admin does. Streams groups (KIP-1071) keep
// the state ListGroups gave; their members are not counted.
// Bounded like the rest of the snapshot: one batch per coordinator and API.

import type { GroupMemberAssignment, GroupState, GroupType, SnapshotError, TopicState } from './types.ts';
import type { WireBroker } from './wire.ts';
import { offsetsPartitionFor } from './group-partition.ts';
import { kafkaError } from './errors.ts';
import { chunk } from './limits.ts';
import { toNodes } from './router/passes.ts';
import { CONSUMER_GROUP_DESCRIBE_API_KEY, ConsumerGroupDescribe, type AssignedTopic, type DescribedGroup } from './api/consumer-group-describe/codec.ts';
import { SHARE_GROUP_DESCRIBE_API_KEY, ShareGroupDescribe, type ShareGroupMember } from './api/share-group-describe/codec.ts';
import type { RawDescribeGroupsFull } from './api/describe-groups/codec.ts';
import { DescribeGroups } from './api/describe-groups/call.ts';
import type { GroupDescription } from './admin/types.ts';
import { errorMessage } from '../runtime/errors.ts';

const GROUP_ID_NOT_FOUND = 69;

/** What ListGroups said of a group, and which broker said it. */
export interface ListedGroupInfo {
  protocolType: string;
  brokerId: number;
  /** ListGroups v4+. */
  groupState?: string | null;
  /** ListGroups v5+: classic, consumer, share, streams. */
  groupType?: string | null;
}

export interface DescribeGroupsInput {
  listed: ReadonlyMap<string, ListedGroupInfo>;
  offsetsTopic: TopicState | undefined;
  offsetsTopicPartitions: number;
  conns: ReadonlyMap<number, WireBroker>;
  unreachable: Set<number>;
  /** Groups per describe request. */
  batchSize: number;
  concurrency: number;
  budget: (perCall: number) => number;
  requestTimeoutMs: number;
  errors: SnapshotError[];
}

/** Which describe API a group goes to. */
type Describer = 'classic' | 'consumer' | 'share';

/** A listed type, or what the protocol type says when the broker listed none (share and streams groups list their own). */
export function listedType(info: Pick<ListedGroupInfo, 'groupType' | 'protocolType'>): GroupType | null {
  const t = (info.groupType ?? '').toLowerCase();
  if (t === 'classic' || t === 'consumer' || t === 'share' || t === 'streams') return t;
  if (info.protocolType === 'share' || info.protocolType === 'streams') return info.protocolType;
  return null;
}

/** Does this group keep committed offsets (OffsetFetch), i.e. can it lag? Share groups acknowledge records instead. */
export function commitsOffsets(g: Pick<GroupState, 'groupType'>): boolean {
  return g.groupType !== 'share';
}

const supports = (conn: WireBroker | undefined, apiKey: number) => conn?.apiVersions?.[apiKey] !== undefined;

/** DescribeGroups' answer for a group it does not know as a classic group (a consumer-protocol group, or none). */
const unknownToClassic = (g: GroupState) => (g.error === null && g.state === 'Dead' && (g.members ?? 0) === 0) || g.error?.code === GROUP_ID_NOT_FOUND;

function assignmentsOf(members: readonly { memberId: string; clientId: string; clientHost: string; memberEpoch: number; assignment: readonly AssignedTopic[] }[]): GroupMemberAssignment[] {
  return members.map((m) => ({
    memberId: m.memberId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    memberEpoch: m.memberEpoch,
    partitions: m.assignment.map((t) => ({ topic: t.topic, partitions: [...t.partitions].sort((a, b) => a - b) })),
  }));
}

const API_NAME: Record<Describer, string> = { classic: 'DescribeGroups', consumer: 'ConsumerGroupDescribe', share: 'ShareGroupDescribe' };

export async function describeListedGroups(input: DescribeGroupsInput): Promise<GroupState[]> {
  const pass = new GroupsPass(input);
  await pass.run(pass.firstRound());
  // Not listed with a type and unknown to DescribeGroups: a consumer-protocol group, where its coordinator has the API;
  // listed as a consumer group and no longer one: DescribeGroups.
  const again = pass.secondRound();
  if (again.size > 0) await pass.run(again);
  return pass.result();
}

/** One describe request: its API, its coordinator, its groups. */
type DescribeBatch = { describer: Describer; brokerId: number; ids: string[] };
type DescribeAnswer = { kind: 'classic'; res: RawDescribeGroupsFull } | { kind: 'kip848'; groups: readonly DescribedGroup<ShareGroupMember>[] } | { kind: 'unsupported' };

/** Batches of group ids by describe API and coordinator ("describer:broker"). */
type Queue = Map<string, string[]>;

function enqueue(queue: Queue, describer: Describer, coordinator: number, groupId: string): void {
  const key = `${describer}:${coordinator}`;
  const list = queue.get(key);
  if (list) list.push(groupId);
  else queue.set(key, [groupId]);
}

/** One describe pass over the listed groups: their states, filled in by each answer. */
class GroupsPass {
  private readonly states = new Map<string, GroupState>();
  /** Groups whose kind was not listed: DescribeGroups first, then ConsumerGroupDescribe if it does not know them. */
  private readonly typeUnknown = new Set<string>();
  /** Listed as consumer groups, yet not one when described: converted to classic since (the last consumer-protocol member left). */
  private readonly converted = new Set<string>();

  constructor(private readonly input: DescribeGroupsInput) {}

  firstRound(): Queue {
    const input = this.input;
    const leaderOf = new Map<number, number>((input.offsetsTopic?.partitions ?? []).map((p) => [p.partition, p.leader]));
    const queue: Queue = new Map();
    for (const [groupId, info] of input.listed) {
      const offsetsPartition = offsetsPartitionFor(groupId, input.offsetsTopicPartitions);
      // The coordinator is the leader of the group's offsets partition; we ask it
      // directly so an error is attributed to a known broker.
      const leader = leaderOf.get(offsetsPartition);
      const coordinator = leader !== undefined && leader >= 0 ? leader : info.brokerId;
      const type = listedType(info);
      const state: GroupState = { groupId, state: info.groupState || 'Unknown', protocolType: info.protocolType, coordinator, offsetsPartition, error: null, ...(type ? { groupType: type } : {}) };
      this.states.set(groupId, state);
      if (type === 'streams') continue;
      if (type === null) this.typeUnknown.add(groupId);
      enqueue(queue, type === 'consumer' || type === 'share' ? type : 'classic', coordinator, groupId);
    }
    return queue;
  }

  secondRound(): Queue {
    const { conns, unreachable } = this.input;
    const queue: Queue = new Map();
    for (const id of this.typeUnknown) {
      const s = this.states.get(id)!;
      if (s.coordinator !== null && unknownToClassic(s) && supports(conns.get(s.coordinator), CONSUMER_GROUP_DESCRIBE_API_KEY) && !unreachable.has(s.coordinator)) enqueue(queue, 'consumer', s.coordinator, id);
    }
    for (const id of this.converted) enqueue(queue, 'classic', this.states.get(id)!.coordinator!, id);
    return queue;
  }

  result(): GroupState[] {
    // What DescribeGroups alone described is classic (a broker without ConsumerGroupDescribe has no other kind).
    for (const id of this.typeUnknown) {
      const s = this.states.get(id)!;
      s.groupType ??= s.error === null ? 'classic' : 'unknown';
    }
    return [...this.states.values()].sort((a, b) => a.groupId.localeCompare(b.groupId));
  }

  run(work: Queue): Promise<void> {
    const batches: DescribeBatch[] = [];
    for (const [key, ids] of work) {
      const [describer, broker] = key.split(':') as [Describer, string];
      for (const batch of chunk(ids.sort(), this.input.batchSize)) batches.push({ describer, brokerId: Number(broker), ids: batch });
    }
    // Each batch to the coordinator its offsets partition names (the router's to-nodes route).
    return toNodes(this.input, batches, {
      label: ({ describer, brokerId }) => `${API_NAME[describer]} on broker ${brokerId}`,
      ask: (conn, batch) => this.ask(conn, batch),
      answered: ({ describer, brokerId, ids }, answer) => {
        if (answer.kind === 'classic') this.classicAnswer(DescribeGroups.toResults(answer.res, ids, { brokerId }));
        else if (answer.kind === 'kip848') this.kip848Answer(describer as 'consumer' | 'share', answer.groups);
        // Listed with a type its coordinator cannot describe (a cluster mid-upgrade): ListGroups' state, members unknown.
        else for (const id of ids) if (this.states.get(id)!.state === 'Unknown') this.states.get(id)!.error = { code: 35, type: 'UNSUPPORTED_VERSION', message: `broker ${brokerId} does not serve ${API_NAME[describer]}` };
      },
      unreachable: ({ brokerId, ids }) => this.markFailed(ids, `coordinator broker ${brokerId} is not reachable`),
      // A broker that fails is unreachable from then on.
      failed: ({ describer, brokerId, ids }, err) => {
        this.input.unreachable.add(brokerId);
        this.input.errors.push({ scope: `broker:${brokerId}`, message: `${API_NAME[describer]}: ${errorMessage(err)}` });
        this.markFailed(ids, errorMessage(err));
      },
    });
  }

  private markFailed(ids: readonly string[], message: string): void {
    for (const id of ids) this.states.get(id)!.error = { code: -1, type: 'REQUEST_FAILED', message };
  }

  /** One batch of one describe API on one coordinator; nothing sent for an API it does not serve. */
  private async ask(conn: WireBroker, { describer, ids }: DescribeBatch): Promise<DescribeAnswer> {
    if (describer === 'classic') return { kind: 'classic', res: await conn.request(DescribeGroups.api, DescribeGroups.build(ids, { requestTimeoutMs: this.input.requestTimeoutMs })) };
    if (!supports(conn, describer === 'consumer' ? CONSUMER_GROUP_DESCRIBE_API_KEY : SHARE_GROUP_DESCRIBE_API_KEY)) return { kind: 'unsupported' };
    const res = await conn.request(describer === 'consumer' ? ConsumerGroupDescribe : ShareGroupDescribe, { groupIds: ids });
    return { kind: 'kip848', groups: res.groups };
  }

  /** DescribeGroups' answer, mapped as the admin maps it (describe-groups/call.ts). */
  private classicAnswer(described: ReadonlyMap<string, GroupDescription>): void {
    for (const g of described.values()) {
      const s = this.states.get(g.groupId);
      if (!s) continue;
      const ok = g.errorCode === 0;
      s.state = g.state;
      if (ok) s.members = g.members;
      if (ok && this.converted.has(g.groupId)) s.groupType = 'classic';
      if (g.protocolType) s.protocolType = g.protocolType;
      s.error = ok ? null : kafkaError(g.errorCode);
    }
  }

  /** ConsumerGroupDescribe's or ShareGroupDescribe's groups. */
  private kip848Answer(describer: 'consumer' | 'share', groups: readonly DescribedGroup<ShareGroupMember>[]): void {
    for (const g of groups) {
      const s = this.states.get(g.groupId);
      if (!s) continue;
      if (g.errorCode !== 0) {
        if (g.errorCode === GROUP_ID_NOT_FOUND && describer === 'consumer') {
          // Asked as a fallback and not a consumer group either: DescribeGroups' answer stands.
          if (this.typeUnknown.has(g.groupId)) continue;
          this.converted.add(g.groupId);
        }
        s.state = 'Unknown';
        s.error = kafkaError(g.errorCode);
        continue;
      }
      s.groupType = describer;
      s.state = g.groupState;
      s.members = g.members.length;
      s.error = null;
      s.epoch = { group: g.groupEpoch, assignment: g.assignmentEpoch };
      s.assignments = assignmentsOf(g.members);
    }
  }
}
