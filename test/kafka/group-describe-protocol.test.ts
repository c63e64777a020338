// ConsumerGroupDescribe (API 69), ListGroups (API 16) up to v5 and
// ShareGroupDescribe (API 77) byte for byte against Kafka 4.4.0's own generated
// classes (…RequestData / …ResponseData serialized with
// MessageUtil.toByteBufferAccessor(message, version) in jshell over the 4.4.0 jars).
import { describe, expect, it } from 'vitest';
import { ConsumerGroupDescribe } from '../../lib/kafka/api/consumer-group-describe/codec.ts';
import { ListGroups } from '../../lib/kafka/api/list-groups/codec.ts';
import { ShareGroupDescribe } from '../../lib/kafka/api/share-group-describe/codec.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

/** Uuid(0x0102030405060708, 0x090a0b0c0d0e0f10) as Java's Uuid.toString() prints it. */
const TOPIC_ID = 'AQIDBAUGBwgJCgsMDQ4PEA';

const JAVA = {
  // groups "orders-app" and "billing", IncludeAuthorizedOperations false (the same in v0 and v1)
  cgdRequest: '030b6f72646572732d6170700862696c6c696e670000',
  // throttle 3; orders-app Stable (epochs 7/7, assignor uniform) with m-1 (rack-a, orders 2,0 owned, 0,2 target, type 1)
  // and m-2 (static-2, regex ord.*, orders 1 owned, empty target, type 0); billing GROUP_ID_NOT_FOUND with a message
  cgdResponse: {
    0: '00000003030000000b6f72646572732d61707007537461626c65000000070000000708756e69666f726d03046d2d3100077261636b2d610000000711636f6e736f6c652d636f6e73756d65720b2f3132372e302e302e3102076f726465727300020102030405060708090a0b0c0d0e0f10076f72646572730300000002000000000000020102030405060708090a0b0c0d0e0f10076f7264657273030000000000000002000000046d2d32097374617469632d3200000000070f636c61737369632d636c69656e740b2f3132372e302e302e3202076f7264657273066f72642e2a020102030405060708090a0b0c0d0e0f10076f726465727302000000010000010000800000000000452747726f75702062696c6c696e67206973206e6f74206120636f6e73756d65722067726f75702e0862696c6c696e6701ffffffffffffffff0101800000000000',
    1: '00000003030000000b6f72646572732d61707007537461626c65000000070000000708756e69666f726d03046d2d3100077261636b2d610000000711636f6e736f6c652d636f6e73756d65720b2f3132372e302e302e3102076f726465727300020102030405060708090a0b0c0d0e0f10076f72646572730300000002000000000000020102030405060708090a0b0c0d0e0f10076f726465727303000000000000000200000100046d2d32097374617469632d3200000000070f636c61737369632d636c69656e740b2f3132372e302e302e3202076f7264657273066f72642e2a020102030405060708090a0b0c0d0e0f10076f72646572730200000001000001000000800000000000452747726f75702062696c6c696e67206973206e6f74206120636f6e73756d65722067726f75702e0862696c6c696e6701ffffffffffffffff0101800000000000',
  } as Record<number, string>,
  // v0-v2 carry nothing; v3 only tags; v4 StatesFilter [Stable]; v5 also TypesFilter [consumer]
  lgRequest: { 0: '', 1: '', 2: '', 3: '00', 4: '0207537461626c6500', 5: '0207537461626c650209636f6e73756d657200' } as Record<number, string>,
  // throttle 5 (v1+); orders-app (protocol type consumer; Stable, type consumer) and shares (protocol type share; Empty, type share)
  lgResponse: {
    0: '000000000002000a6f72646572732d6170700008636f6e73756d6572000673686172657300057368617265',
    1: '00000005000000000002000a6f72646572732d6170700008636f6e73756d6572000673686172657300057368617265',
    2: '00000005000000000002000a6f72646572732d6170700008636f6e73756d6572000673686172657300057368617265',
    3: '000000050000030b6f72646572732d61707009636f6e73756d657200077368617265730673686172650000',
    4: '000000050000030b6f72646572732d61707009636f6e73756d657207537461626c65000773686172657306736861726506456d7074790000',
    5: '000000050000030b6f72646572732d61707009636f6e73756d657207537461626c6509636f6e73756d6572000773686172657306736861726506456d7074790673686172650000',
  } as Record<number, string>,
  sgdRequest: '02077368617265730000',
  // shares Stable (epochs 3/3, assignor simple), member s-1 owning orders 0,1,2
  sgdResponse: '00000000020000000773686172657307537461626c6500000003000000030773696d706c650204732d3100000000030f73686172652d636f6e73756d65720b2f3132372e302e302e3102076f7264657273020102030405060708090a0b0c0d0e0f10076f726465727304000000000000000100000002000000800000000000',
};

describe('ConsumerGroupDescribe matches Kafka 4.4.0 byte for byte', () => {
  it('encodes the group ids without authorized operations, in v0 and v1', () => {
    for (const v of [0, 1]) expect(hex(ConsumerGroupDescribe.encode(v, { groupIds: ['orders-app', 'billing'] })), `v${v}`).toBe(JAVA.cgdRequest);
  });

  it('decodes state, epochs, members and their owned partitions (v0: no member type)', () => {
    const res = ConsumerGroupDescribe.decode(0, bytes(JAVA.cgdResponse[0]!));
    expect(res.throttleTimeMs).toBe(3);
    const [orders, billing] = res.groups;
    expect(orders).toMatchObject({ errorCode: 0, errorMessage: null, groupId: 'orders-app', groupState: 'Stable', groupEpoch: 7, assignmentEpoch: 7, assignorName: 'uniform', authorizedOperations: -2147483648 });
    expect(orders!.members).toEqual([
      {
        memberId: 'm-1', instanceId: null, rackId: 'rack-a', memberEpoch: 7, clientId: 'console-consumer', clientHost: '/127.0.0.1',
        subscribedTopicNames: ['orders'], subscribedTopicRegex: null,
        assignment: [{ topicId: TOPIC_ID, topic: 'orders', partitions: [2, 0] }],
        targetAssignment: [{ topicId: TOPIC_ID, topic: 'orders', partitions: [0, 2] }],
        memberType: null,
      },
      {
        memberId: 'm-2', instanceId: 'static-2', rackId: null, memberEpoch: 7, clientId: 'classic-client', clientHost: '/127.0.0.2',
        subscribedTopicNames: ['orders'], subscribedTopicRegex: 'ord.*',
        assignment: [{ topicId: TOPIC_ID, topic: 'orders', partitions: [1] }],
        targetAssignment: [],
        memberType: null,
      },
    ]);
    expect(billing).toMatchObject({ errorCode: 69, errorMessage: 'Group billing is not a consumer group.', groupId: 'billing', groupState: '', members: [] });
  });

  it('v1 adds each member\'s type: 1 consumer protocol, 0 a classic client inside a consumer group (KIP-1099)', () => {
    const res = ConsumerGroupDescribe.decode(1, bytes(JAVA.cgdResponse[1]!));
    expect(res.groups[0]!.members.map((m) => [m.memberId, m.memberType])).toEqual([['m-1', 1], ['m-2', 0]]);
    // The rest reads the same as v0.
    const v0 = ConsumerGroupDescribe.decode(0, bytes(JAVA.cgdResponse[0]!));
    expect(res.groups.map((g) => ({ ...g, members: g.members.map((m) => ({ ...m, memberType: null })) }))).toEqual(v0.groups);
  });

  it('decoding one version\'s bytes as the other, or truncated bytes, fails loudly', () => {
    expect(() => ConsumerGroupDescribe.decode(1, bytes(JAVA.cgdResponse[0]!))).toThrow();
    expect(() => ConsumerGroupDescribe.decode(0, bytes(JAVA.cgdResponse[0]!).subarray(0, 80))).toThrow(/truncated/);
    expect(() => ConsumerGroupDescribe.encode(2, { groupIds: [] })).toThrow();
  });
});

describe('ListGroups v0 to v5 matches Kafka 4.4.0 byte for byte', () => {
  it('encodes the states filter from v4 and the types filter from v5', () => {
    for (const v of [0, 1, 2, 3, 4, 5]) expect(hex(ListGroups.encode(v, { statesFilter: ['Stable'], typesFilter: ['consumer'] })), `v${v}`).toBe(JAVA.lgRequest[v]);
    // No filters: every state and type (empty compact arrays).
    expect(hex(ListGroups.encode(5, undefined))).toBe('010100');
  });

  it('decodes each group\'s protocol type; its state from v4; its type from v5', () => {
    for (const v of [0, 1, 2, 3, 4, 5]) {
      const res = ListGroups.decode(v, bytes(JAVA.lgResponse[v]!));
      expect([res.version, res.errorCode, res.throttleTimeMs], `v${v}`).toEqual([v, 0, v >= 1 ? 5 : 0]);
      expect(res.groups, `v${v}`).toEqual([
        { groupId: 'orders-app', protocolType: 'consumer', groupState: v >= 4 ? 'Stable' : null, groupType: v >= 5 ? 'consumer' : null },
        { groupId: 'shares', protocolType: 'share', groupState: v >= 4 ? 'Empty' : null, groupType: v >= 5 ? 'share' : null },
      ]);
    }
  });
});

describe('ShareGroupDescribe v1 matches Kafka 4.4.0 byte for byte', () => {
  it('encodes the group ids; decodes state, epochs and each member\'s partitions', () => {
    expect(hex(ShareGroupDescribe.encode(1, { groupIds: ['shares'] }))).toBe(JAVA.sgdRequest);
    const res = ShareGroupDescribe.decode(1, bytes(JAVA.sgdResponse));
    expect(res.groups).toEqual([
      {
        errorCode: 0, errorMessage: null, groupId: 'shares', groupState: 'Stable', groupEpoch: 3, assignmentEpoch: 3, assignorName: 'simple', authorizedOperations: -2147483648,
        members: [{ memberId: 's-1', rackId: null, memberEpoch: 3, clientId: 'share-consumer', clientHost: '/127.0.0.1', subscribedTopicNames: ['orders'], assignment: [{ topicId: TOPIC_ID, topic: 'orders', partitions: [0, 1, 2] }] }],
      },
    ]);
    // v0 (4.0's early access) is not spoken: 4.1+ brokers removed it.
    expect(() => ShareGroupDescribe.encode(0, { groupIds: ['shares'] })).toThrow();
  });
});
