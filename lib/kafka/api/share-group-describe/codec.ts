// ShareGroupDescribe (API key 77, KIP-932), from Kafka's
// ShareGroupDescribeRequest.json / Response.json: v1 is the stable version
// (4.1+; v0 was 4.0's early access, removed in 4.1); flexible 1+. Share groups
// (kafka-share-groups.sh) are on for a new 4.4.0 cluster (feature
// share.version finalized at 2, measured on the sandbox); their consumers
// acknowledge records one by one instead of committing an offset, so they
// have no consumer lag in the classic sense.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { type AssignedTopic, type DescribedGroup, readAssignment, readDescribedGroups } from '../consumer-group-describe/codec.ts';

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

export type DescribedShareGroup = DescribedGroup<ShareGroupMember>;

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
    const groups = readDescribedGroups(r, 'ShareGroupDescribe', (r): ShareGroupMember => ({
      memberId: r.requiredString('ShareGroupDescribe member id'),
      rackId: r.string(),
      memberEpoch: r.int32(),
      clientId: r.requiredString('ShareGroupDescribe client id'),
      clientHost: r.requiredString('ShareGroupDescribe client host'),
      subscribedTopicNames: r.array((r) => r.requiredString('ShareGroupDescribe subscribed topic')) ?? [],
      assignment: readAssignment(r, 'ShareGroupDescribe assignment'),
    }));
    r.tags();
    return { throttleTimeMs, groups };
  },
};
