// ShareGroupDescribe (API key 77, KIP-932), from Kafka's
// ShareGroupDescribeRequest.json / Response.json: v1 is the stable version
// (4.1+; v0 was 4.0's early access, removed in 4.1); flexible 1+. Share groups
// (kafka-share-groups.sh) are on for a new 4.4.0 cluster (feature
// share.version finalized at 2, measured on the sandbox); their consumers
// acknowledge records one by one instead of committing an offset, so they
// have no consumer lag in the classic sense.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { type AssignedTopic, readAssignment } from '../consumer-group-describe/codec.ts';

export const SHARE_GROUP_DESCRIBE_API_KEY = 77;

export interface ShareGroupMember {
  memberId: string;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignment: AssignedTopic[];
}

export interface DescribedShareGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  /** Empty, Stable, Dead, or "" with an error. */
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: ShareGroupMember[];
  authorizedOperations: number;
}

export const ShareGroupDescribe: ApiDefinition<{ groupIds: readonly string[] }, { throttleTimeMs: number; groups: DescribedShareGroup[] }> = {
  apiKey: SHARE_GROUP_DESCRIBE_API_KEY,
  apiName: 'ShareGroupDescribe',
  versions: [1],
  firstFlexibleVersion: 1,
  encode(version, args) {
    assertVersion(ShareGroupDescribe, version);
    const w = writerFor(ShareGroupDescribe, version);
    w.array(args.groupIds, (w, id) => w.string(id));
    w.bool(false); // IncludeAuthorizedOperations
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(ShareGroupDescribe, version);
    const r = readerFor(ShareGroupDescribe, version, body);
    const throttleTimeMs = r.int32();
    const groups =
      r.array((r) => {
        const errorCode = r.int16();
        const errorMessage = r.string();
        const groupId = r.requiredString('ShareGroupDescribe group id');
        const groupState = r.requiredString('ShareGroupDescribe group state');
        const groupEpoch = r.int32();
        const assignmentEpoch = r.int32();
        const assignorName = r.requiredString('ShareGroupDescribe assignor');
        const members =
          r.array((r) => {
            const m: ShareGroupMember = {
              memberId: r.requiredString('ShareGroupDescribe member id'),
              rackId: r.string(),
              memberEpoch: r.int32(),
              clientId: r.requiredString('ShareGroupDescribe client id'),
              clientHost: r.requiredString('ShareGroupDescribe client host'),
              subscribedTopicNames: r.array((r) => r.requiredString('ShareGroupDescribe subscribed topic')) ?? [],
              assignment: readAssignment(r, 'ShareGroupDescribe assignment'),
            };
            r.tags();
            return m;
          }) ?? [];
        const authorizedOperations = r.int32();
        r.tags();
        return { errorCode, errorMessage, groupId, groupState, groupEpoch, assignmentEpoch, assignorName, members, authorizedOperations };
      }) ?? [];
    r.tags();
    return { throttleTimeMs, groups };
  },
};
