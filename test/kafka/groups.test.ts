// describeListedGroups (lib/kafka/groups.ts): which describe API each listed
// group goes to, and what the snapshot then says of it, against fake
// coordinators that answer as Kafka does (DescribeGroups reads a
// consumer-protocol group as Dead with no members; ConsumerGroupDescribe
// answers GROUP_ID_NOT_FOUND for a group that is not a consumer group).
import { describe, expect, it } from 'vitest';
import { describeListedGroups, type ListedGroupInfo } from '../../lib/kafka/groups.ts';
import type { WireBroker } from '../../lib/kafka/wire.ts';
import type { GroupState, SnapshotError, TopicState } from '../../lib/kafka/types.ts';
import type { ConsumerGroupMember } from '../../lib/kafka/api/consumer-group-describe/codec.ts';

const GROUP_ID_NOT_FOUND = 69;
const COORDINATOR_LOAD_IN_PROGRESS = 14;

interface ClassicAnswer { state: string; members: number; errorCode?: number }
interface NewAnswer { state: string; members: number; errorCode?: number }

/** One coordinator: its ApiVersions (API 69 and 77 or not), and what each describe API answers per group. */
function coordinator(opts: { consumerApi: boolean; shareApi?: boolean; classic?: Record<string, ClassicAnswer>; consumer?: Record<string, NewAnswer>; share?: Record<string, NewAnswer>; fail?: boolean }) {
  const calls: string[] = [];
  const member = (i: number): ConsumerGroupMember => ({
    memberId: `m-${i}`, instanceId: null, rackId: null, memberEpoch: 4, clientId: 'console-consumer', clientHost: '/127.0.0.1',
    subscribedTopicNames: ['orders'], subscribedTopicRegex: null, assignment: [{ topicId: 'x', topic: 'orders', partitions: [2 - i, 0] }], targetAssignment: [], memberType: 1,
  });
  const described = (kind: 'consumer' | 'share', ids: readonly string[]) =>
    ids.map((groupId) => {
      const a = (kind === 'consumer' ? opts.consumer : opts.share)?.[groupId] ?? { state: '', members: 0, errorCode: GROUP_ID_NOT_FOUND };
      return { errorCode: a.errorCode ?? 0, errorMessage: null, groupId, groupState: a.state, groupEpoch: 5, assignmentEpoch: 4, assignorName: 'uniform', authorizedOperations: 0, members: Array.from({ length: a.members }, (_, i) => member(i)) };
    });
  const broker = {
    apiVersions: { 15: { minVersion: 0, maxVersion: 5 }, ...(opts.consumerApi ? { 69: { minVersion: 0, maxVersion: 1 } } : {}), ...(opts.shareApi ? { 77: { minVersion: 1, maxVersion: 1 } } : {}) },
    describeGroups: async (ids: string[]) => {
      calls.push(`DescribeGroups ${ids.join(',')}`);
      if (opts.fail) throw new Error('Connection timeout');
      return {
        groups: ids.map((groupId) => {
          // A group DescribeGroups does not know reads Dead with no members (v0-v5), as a consumer-protocol group does.
          const a = opts.classic?.[groupId] ?? { state: 'Dead', members: 0 };
          return { errorCode: a.errorCode ?? 0, groupId, state: a.state, protocolType: a.state === 'Dead' ? '' : 'consumer', members: Array.from({ length: a.members }, () => ({})) };
        }),
      };
    },
    request: async (api: { apiName: string }, args: { groupIds: string[] }) => {
      if (api.apiName === 'DescribeGroups') return broker.describeGroups(args.groupIds);
      calls.push(`${api.apiName} ${args.groupIds.join(',')}`);
      if (opts.fail) throw new Error('Connection timeout');
      return { throttleTimeMs: 0, groups: described(api.apiName === 'ConsumerGroupDescribe' ? 'consumer' : 'share', args.groupIds) };
    },
  };
  return { broker: broker as unknown as WireBroker, calls };
}

/** __consumer_offsets with one partition led by broker 1: every group's coordinator is broker 1. */
const offsetsTopic: TopicState = { name: '__consumer_offsets', internal: true, config: null, partitions: [{ partition: 0, leader: 1, replicas: [1], isr: [1], offlineReplicas: [] }] };

async function describeWith(listed: Record<string, Omit<ListedGroupInfo, 'brokerId'>>, broker: WireBroker) {
  const errors: SnapshotError[] = [];
  const unreachable = new Set<number>();
  const groups = await describeListedGroups({
    listed: new Map(Object.entries(listed).map(([id, info]) => [id, { ...info, brokerId: 1 }])),
    offsetsTopic,
    offsetsTopicPartitions: 1,
    conns: new Map([[1, broker]]),
    unreachable,
    batchSize: 100,
    concurrency: 4,
    budget: (ms) => ms,
    requestTimeoutMs: 1000,
    errors,
  });
  const byId = Object.fromEntries(groups.map((g) => [g.groupId, g])) as Record<string, GroupState>;
  return { groups, byId, errors, unreachable };
}

const brief = (g: GroupState | undefined) => g && { state: g.state, members: g.members, groupType: g.groupType, error: g.error?.type ?? null };

describe('describeListedGroups: each group by the API that knows its kind', () => {
  it('typed listing (ListGroups v5): classic to DescribeGroups, consumer to ConsumerGroupDescribe, share to ShareGroupDescribe, streams to none', async () => {
    const c = coordinator({
      consumerApi: true,
      shareApi: true,
      classic: { 'old-app': { state: 'Stable', members: 2 } },
      consumer: { 'new-app': { state: 'Stable', members: 2 } },
      share: { 'share-app': { state: 'Empty', members: 0 } },
    });
    const { byId, errors } = await describeWith(
      {
        'old-app': { protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' },
        'new-app': { protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
        'share-app': { protocolType: 'share', groupState: 'Empty', groupType: 'share' },
        'streams-app': { protocolType: 'streams', groupState: 'Reconciling', groupType: 'streams' },
      },
      c.broker,
    );
    expect(c.calls.sort()).toEqual(['ConsumerGroupDescribe new-app', 'DescribeGroups old-app', 'ShareGroupDescribe share-app']);
    expect(brief(byId['old-app'])).toEqual({ state: 'Stable', members: 2, groupType: 'classic', error: null });
    expect(brief(byId['new-app'])).toEqual({ state: 'Stable', members: 2, groupType: 'consumer', error: null });
    expect(byId['new-app']!.epoch).toEqual({ group: 5, assignment: 4 });
    // Each member's owned partitions, sorted: what "owned by" in findings reads.
    expect(byId['new-app']!.assignments).toEqual([
      { memberId: 'm-0', clientId: 'console-consumer', clientHost: '/127.0.0.1', memberEpoch: 4, partitions: [{ topic: 'orders', partitions: [0, 2] }] },
      { memberId: 'm-1', clientId: 'console-consumer', clientHost: '/127.0.0.1', memberEpoch: 4, partitions: [{ topic: 'orders', partitions: [0, 1] }] },
    ]);
    expect(brief(byId['share-app'])).toEqual({ state: 'Empty', members: 0, groupType: 'share', error: null });
    // Streams groups keep what ListGroups said; members are not counted.
    expect(brief(byId['streams-app'])).toEqual({ state: 'Reconciling', members: undefined, groupType: 'streams', error: null });
    expect(errors).toEqual([]);
  });

  it('untyped listing (before 3.8): a group DescribeGroups reads as Dead with no members is asked again with ConsumerGroupDescribe', async () => {
    const c = coordinator({
      consumerApi: true,
      classic: { 'old-app': { state: 'Stable', members: 1 }, 'gone-app': { state: 'Dead', members: 0 } },
      consumer: { 'new-app': { state: 'Stable', members: 1 } },
    });
    const { byId } = await describeWith(
      {
        'old-app': { protocolType: 'consumer', groupState: 'Stable', groupType: null },
        'new-app': { protocolType: 'consumer', groupState: 'Stable', groupType: null },
        'gone-app': { protocolType: 'consumer', groupState: 'Dead', groupType: null },
      },
      c.broker,
    );
    // Only the groups DescribeGroups did not know go to ConsumerGroupDescribe, in one batch.
    expect(c.calls).toEqual(['DescribeGroups gone-app,new-app,old-app', 'ConsumerGroupDescribe gone-app,new-app']);
    expect(brief(byId['new-app'])).toEqual({ state: 'Stable', members: 1, groupType: 'consumer', error: null });
    expect(brief(byId['old-app'])).toEqual({ state: 'Stable', members: 1, groupType: 'classic', error: null });
    // Unknown to ConsumerGroupDescribe too: DescribeGroups' answer stands, no error invented.
    expect(brief(byId['gone-app'])).toEqual({ state: 'Dead', members: 0, groupType: 'classic', error: null });
  });

  it('a broker without ConsumerGroupDescribe: DescribeGroups\' answer stands and API 69 is never sent; a consumer-typed group keeps ListGroups\' state, members unknown', async () => {
    const c = coordinator({ consumerApi: false, classic: { 'old-app': { state: 'Stable', members: 1 } } });
    const { byId, errors } = await describeWith(
      {
        'old-app': { protocolType: 'consumer', groupState: 'Stable', groupType: null },
        'dead-app': { protocolType: 'consumer', groupState: 'Dead', groupType: null },
        // A cluster mid-upgrade: listed typed by one broker, coordinated by one without the API.
        'new-app': { protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
      },
      c.broker,
    );
    expect(c.calls).toEqual(['DescribeGroups dead-app,old-app']);
    expect(brief(byId['dead-app'])).toEqual({ state: 'Dead', members: 0, groupType: 'classic', error: null });
    expect(brief(byId['new-app'])).toEqual({ state: 'Stable', members: undefined, groupType: 'consumer', error: null });
    expect(errors).toEqual([]);
  });

  it('listed as a consumer group, converted to classic since (ConsumerGroupDescribe: GROUP_ID_NOT_FOUND): described by DescribeGroups as classic', async () => {
    const c = coordinator({ consumerApi: true, classic: { 'moved-app': { state: 'Stable', members: 1 } } });
    const { byId } = await describeWith({ 'moved-app': { protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' } }, c.broker);
    expect(c.calls).toEqual(['ConsumerGroupDescribe moved-app', 'DescribeGroups moved-app']);
    expect(brief(byId['moved-app'])).toEqual({ state: 'Stable', members: 1, groupType: 'classic', error: null });
  });

  it('coordinator errors are kept per group; a coordinator that fails is unreachable and every group on it says why', async () => {
    const loading = coordinator({ consumerApi: true, consumer: { 'new-app': { state: '', members: 0, errorCode: COORDINATOR_LOAD_IN_PROGRESS } } });
    const one = await describeWith({ 'new-app': { protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' } }, loading.broker);
    expect(brief(one.byId['new-app'])).toEqual({ state: 'Unknown', members: undefined, groupType: 'consumer', error: 'COORDINATOR_LOAD_IN_PROGRESS' });

    const dead = coordinator({ consumerApi: true, fail: true });
    const two = await describeWith(
      { 'new-app': { protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' }, 'old-app': { protocolType: 'consumer', groupState: 'Stable', groupType: null } },
      dead.broker,
    );
    expect([...two.unreachable]).toEqual([1]);
    // Both batches were in flight when it failed: each API's failure is said once, on the broker.
    expect(two.errors.map((e) => `${e.scope} ${e.message}`).sort()).toEqual(['broker:1 ConsumerGroupDescribe: Connection timeout', 'broker:1 DescribeGroups: Connection timeout']);
    // Undescribed, neither is called classic.
    expect(two.groups.map((g) => [g.groupId, g.error?.type, g.groupType])).toEqual([['new-app', 'REQUEST_FAILED', 'consumer'], ['old-app', 'REQUEST_FAILED', 'unknown']]);
  });
});
