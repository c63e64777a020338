// ConsumerGroupDescribe (API key 69, KIP-848), from Kafka's
// ConsumerGroupDescribeRequest.json / Response.json: v0 (early access from 3.7,
// GA in 4.0), v1 (4.0+, KIP-1099) adds each member's type; flexible 0+. It
// describes groups on the new rebalance protocol (group.protocol=consumer),
// which DescribeGroups (API 15) does not: there they read as Dead with no
// members (v0-v5) or GROUP_ID_NOT_FOUND (v6). A classic group asked here is
// GROUP_ID_NOT_FOUND too. It goes to the group's coordinator.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import type { Reader } from '../../protocol/codec.ts';

export const CONSUMER_GROUP_DESCRIBE_API_KEY = 69;

export interface AssignedTopic {
  topicId: string;
  topic: string;
  partitions: number[];
}

export interface ConsumerGroupMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  assignment: AssignedTopic[];
  targetAssignment: AssignedTopic[];
  /** v1+: 0 classic (a classic client in a consumer group), 1 consumer, -1 unknown; null in v0. */
  memberType: number | null;
}

/** A group as ConsumerGroupDescribe and ShareGroupDescribe (share-group-describe/) answer, around each API's own member struct. */
export interface DescribedGroup<Member> {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  /** Consumer groups: Empty, Assigning, Reconciling, Stable, Dead; share groups: Empty, Stable, Dead; "" with an error. */
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: Member[];
  authorizedOperations: number;
}

export type DescribedConsumerGroup = DescribedGroup<ConsumerGroupMember>;

export interface ConsumerGroupDescribeResult {
  throttleTimeMs: number;
  groups: DescribedConsumerGroup[];
}

/** The Assignment struct shared by ConsumerGroupDescribe and ShareGroupDescribe: topic id, name, partitions. */
export function readAssignment(r: Reader, what: string): AssignedTopic[] {
  const topics =
    r.array((r) => {
      const t = { topicId: r.uuid(), topic: r.requiredString(`${what} topic`), partitions: r.int32Array() ?? [] };
      r.tags();
      return t;
    }) ?? [];
  r.tags();
  return topics;
}

/** The groups of a ConsumerGroupDescribe or ShareGroupDescribe answer (`api` names them in errors), each member read by `member`. */
export function readDescribedGroups<Member>(r: Reader, api: string, member: (r: Reader) => Member): DescribedGroup<Member>[] {
  return r.structs((r) => {
    const errorCode = r.int16();
    const errorMessage = r.string();
    const groupId = r.requiredString(`${api} group id`);
    const groupState = r.requiredString(`${api} group state`);
    const groupEpoch = r.int32();
    const assignmentEpoch = r.int32();
    const assignorName = r.requiredString(`${api} assignor`);
    const members = r.structs(member);
    const authorizedOperations = r.int32();
    return { errorCode, errorMessage, groupId, groupState, groupEpoch, assignmentEpoch, assignorName, members, authorizedOperations };
  });
}

export const ConsumerGroupDescribe: ApiDefinition<{ groupIds: readonly string[] }, ConsumerGroupDescribeResult> = {
  apiKey: CONSUMER_GROUP_DESCRIBE_API_KEY,
  apiName: 'ConsumerGroupDescribe',
  versions: [0, 1],
  firstFlexibleVersion: 0,
  encode(version, args) {
    assertVersion(ConsumerGroupDescribe, version);
    const w = writerFor(ConsumerGroupDescribe, version);
    w.array(args.groupIds, (w, id) => w.string(id));
    w.bool(false); // IncludeAuthorizedOperations
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(ConsumerGroupDescribe, version);
    const r = readerFor(ConsumerGroupDescribe, version, body);
    const throttleTimeMs = r.int32();
    const groups = readDescribedGroups(r, 'ConsumerGroupDescribe', (r): ConsumerGroupMember => ({
      memberId: r.requiredString('ConsumerGroupDescribe member id'),
      instanceId: r.string(),
      rackId: r.string(),
      memberEpoch: r.int32(),
      clientId: r.requiredString('ConsumerGroupDescribe client id'),
      clientHost: r.requiredString('ConsumerGroupDescribe client host'),
      subscribedTopicNames: r.array((r) => r.requiredString('ConsumerGroupDescribe subscribed topic')) ?? [],
      subscribedTopicRegex: r.string(),
      assignment: readAssignment(r, 'ConsumerGroupDescribe assignment'),
      targetAssignment: readAssignment(r, 'ConsumerGroupDescribe target assignment'),
      memberType: version >= 1 ? r.int8() : null,
    }));
    r.tags();
    return { throttleTimeMs, groups };
  },
};
