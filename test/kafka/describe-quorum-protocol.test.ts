// DescribeQuorum (API 55) byte for byte against Kafka 4.4.0's own generated
// classes (DescribeQuorumRequestData / DescribeQuorumResponseData serialized with
// MessageUtil.toByteBufferAccessor(message, version)), and the view built from it.
import { describe, expect, it } from 'vitest';
import { DescribeQuorum, ZERO_DIRECTORY_ID } from '../../lib/kafka/api/describe-quorum/codec.ts';
import { majorityOf, quorumViewFrom } from '../../lib/kafka/quorum-view.ts';
import { pickVersion } from '../../lib/kafka/wire.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

const JAVA = {
  // __cluster_metadata-0 (the request is the same in v0-v2)
  req: '02135f5f636c75737465725f6d657461646174610200000000000000',
  // leader 100 epoch 7, high watermark 5000; voters 100 (end 5010), 101 (5010), 102 (4200, last fetch 10 s before the leader's now); observer 1 (5008)
  res0: '000002135f5f636c75737465725f6d657461646174610200000000000000000064000000070000000000001388040000006400000000000013920000000065000000000000139200000000660000000000001068000200000001000000000000139000000000',
  res1: '000002135f5f636c75737465725f6d657461646174610200000000000000000064000000070000000000001388040000006400000000000013920000018bcfe58f100000018bcfe58f10000000006500000000000013920000018bcfe58eac0000018bcfe58eac000000006600000000000010680000018bcfe568000000018bcfe5641800020000000100000000000013900000018bcfe58ede0000018bcfe58ede00000000',
  // v2: the same with directory ids and the voters' CONTROLLER listeners (ports 9093, 40101, 40102: uint16 above 32767)
  res2: '00000102135f5f636c75737465725f6d6574616461746102000000000000010000006400000007000000000000138804000000640000000000000000000000000000000100000000000013920000018bcfe58f100000018bcfe58f100000000065db97f35980ea756669d3f6d7560ef09b00000000000013920000018bcfe58eac0000018bcfe58eac00000000660cbd50841df32f4549659b1505b3882700000000000010680000018bcfe568000000018bcfe564180002000000016ded2a74fa2302ac2e0633b677f7a68b00000000000013900000018bcfe58ede0000018bcfe58ede0000000400000064020b434f4e54524f4c4c45520863746c2d3130302385000000000065020b434f4e54524f4c4c45520863746c2d3130319ca5000000000066020b434f4e54524f4c4c45520863746c2d3130329ca6000000',
  // what a broker answers when its forwarding to the active controller times out
  timeout2: '00071754686520726571756573742074696d6564206f75742e010100',
  timeout1: '00070100',
  // a controller that is not the leader, asked directly
  notLeader2: '00000102135f5f636c75737465725f6d6574616461746102000000000006e001466f7220726571756573747320696e74656e646564206f6e6c7920666f7220746865206c65616465722c2074686973206572726f7220696e646963617465732074686174207468652062726f6b6572206973206e6f74207468652063757272656e74206c65616465722e20466f7220726571756573747320696e74656e64656420666f7220616e79207265706c6963612c2074686973206572726f7220696e646963617465732074686174207468652062726f6b6572206973206e6f742061207265706c696361206f662074686520746f70696320706172746974696f6e2effffffffffffffffffffffffffffffff010100000100',
};

describe('DescribeQuorum matches Kafka 4.4.0 byte for byte', () => {
  it('asks for __cluster_metadata-0 in every version', () => {
    for (const v of [0, 1, 2]) expect(hex(DescribeQuorum.encode(v, {}))).toBe(JAVA.req);
  });

  it('v0: leader, epoch, high watermark, voters and observers with their log end offsets', () => {
    const res = DescribeQuorum.decode(0, bytes(JAVA.res0));
    expect(res.errorCode).toBe(0);
    const p = res.topics[0]!.partitions[0]!;
    expect(res.topics[0]!.topicName).toBe('__cluster_metadata');
    expect([p.leaderId, p.leaderEpoch, p.highWatermark]).toEqual([100, 7, 5000]);
    expect(p.currentVoters.map((v) => [v.replicaId, v.logEndOffset, v.lastFetchTimestamp, v.directoryId])).toEqual([
      [100, 5010, null, null],
      [101, 5010, null, null],
      [102, 4200, null, null],
    ]);
    expect(p.observers.map((o) => [o.replicaId, o.logEndOffset])).toEqual([[1, 5008]]);
    expect(res.nodes).toEqual([]);
  });

  it('v1 adds each replica\'s last fetch and last caught-up timestamps (KIP-836)', () => {
    const p = DescribeQuorum.decode(1, bytes(JAVA.res1)).topics[0]!.partitions[0]!;
    expect(p.currentVoters[2]).toEqual({ replicaId: 102, directoryId: null, logEndOffset: 4200, lastFetchTimestamp: 1700000000000, lastCaughtUpTimestamp: 1699999999000 });
    expect(p.observers[0]).toEqual({ replicaId: 1, directoryId: null, logEndOffset: 5008, lastFetchTimestamp: 1700000009950, lastCaughtUpTimestamp: 1700000009950 });
  });

  it('v2 adds directory ids, error messages and the voters\' listeners (KIP-853)', () => {
    const res = DescribeQuorum.decode(2, bytes(JAVA.res2));
    // Kafka writes its default, "" (not null), when there is no error: the 4.4 sandbox answers the same.
    expect(res.errorMessage).toBe('');
    const p = res.topics[0]!.partitions[0]!;
    expect(p.errorMessage).toBe('');
    expect(p.currentVoters.map((v) => v.directoryId)).toEqual(['AAAAAAAAAAAAAAAAAAAAAQ', '25fzWYDqdWZp0_bXVg7wmw', 'DL1QhB3zL0VJZZsVBbOIJw']);
    expect(p.observers[0]!.directoryId).toBe('be0qdPojAqwuBjO2d_emiw');
    expect(res.nodes).toEqual([
      { nodeId: 100, listeners: [{ name: 'CONTROLLER', host: 'ctl-100', port: 9093 }] },
      { nodeId: 101, listeners: [{ name: 'CONTROLLER', host: 'ctl-101', port: 40101 }] },
      { nodeId: 102, listeners: [{ name: 'CONTROLLER', host: 'ctl-102', port: 40102 }] },
    ]);
  });

  it('error answers: a broker\'s forwarding timeout (top level) and a follower controller (partition level)', () => {
    expect(DescribeQuorum.decode(2, bytes(JAVA.timeout2))).toEqual({ errorCode: 7, errorMessage: 'The request timed out.', topics: [], nodes: [] });
    expect(DescribeQuorum.decode(1, bytes(JAVA.timeout1))).toEqual({ errorCode: 7, errorMessage: null, topics: [], nodes: [] });
    const p = DescribeQuorum.decode(2, bytes(JAVA.notLeader2)).topics[0]!.partitions[0]!;
    expect([p.errorCode, p.leaderId, p.leaderEpoch, p.currentVoters.length]).toEqual([6, -1, -1, 0]);
    expect(p.errorMessage).toMatch(/not the current leader/);
  });

  it('truncated answers are protocol errors, not garbage', () => {
    expect(() => DescribeQuorum.decode(2, bytes(JAVA.res2).subarray(0, 60))).toThrow(/truncated/);
  });

  it('version negotiation: 3.9 and 4.4 brokers list v0-v2 (v2 taken), ZooKeeper-mode brokers none', () => {
    expect(pickVersion(DescribeQuorum.versions, { minVersion: 0, maxVersion: 2 })).toBe(2);
    expect(pickVersion(DescribeQuorum.versions, { minVersion: 0, maxVersion: 1 })).toBe(1);
    expect(pickVersion(DescribeQuorum.versions, undefined)).toBeNull();
  });
});

describe('the quorum view built from an answer', () => {
  it('a node wiped and back under a new directory id: one observer, the incarnation that fetches (the old entry lingers on the leader)', () => {
    const decoded = DescribeQuorum.decode(2, bytes(JAVA.res2));
    const partition = decoded.topics[0]!.partitions[0]!;
    const live = partition.observers[0]!;
    const stale = { ...live, directoryId: 'AAAAAAAAAAAAAAAAAAAAAA', logEndOffset: 3000, lastFetchTimestamp: live.lastFetchTimestamp! - 240_000, lastCaughtUpTimestamp: live.lastCaughtUpTimestamp! - 240_000 };
    for (const observers of [[stale, live], [live, stale]]) {
      const view = quorumViewFrom({ ...decoded, topics: [{ ...decoded.topics[0]!, partitions: [{ ...partition, observers }] }] }, 2, 0, 1);
      expect(view.observers).toMatchObject([{ id: live.replicaId, logEndOffset: live.logEndOffset, lastFetchAgeMs: 50 }]);
    }
  });

  it('lag behind the leader\'s end and the high watermark, ages on the leader\'s clock, kraft.version from directory ids', () => {
    const view = quorumViewFrom(DescribeQuorum.decode(2, bytes(JAVA.res2)), 2, 1_800_000_000_000, 1);
    expect([view.status, view.leaderId, view.leaderEpoch, view.highWatermark, view.kraftVersion, view.dynamicQuorumSupported]).toEqual(['ok', 100, 7, 5000, 1, true]);
    const v102 = view.voters.find((v) => v.id === 102)!;
    // The leader's caught-up time (1700000010000) is "now": our own clock (1.8e12) plays no part.
    expect(v102).toMatchObject({ role: 'follower', logEndOffset: 4200, lag: 810, behindHighWatermark: 800, lastFetchAgeMs: 10_000, caughtUpAgeMs: 11_000 });
    expect(view.voters.find((v) => v.id === 100)).toMatchObject({ role: 'leader', lag: 0, behindHighWatermark: 0, caughtUpAgeMs: 0 });
    expect(view.observers).toMatchObject([{ id: 1, role: 'observer', lag: 2, behindHighWatermark: 0, lastFetchAgeMs: 50 }]);
    expect(view.voterEndpoints).toEqual([
      { id: 100, endpoints: ['CONTROLLER://ctl-100:9093'] },
      { id: 101, endpoints: ['CONTROLLER://ctl-101:40101'] },
      { id: 102, endpoints: ['CONTROLLER://ctl-102:40102'] },
    ]);
  });

  it('a static quorum: zero directory ids on v2, and every v0/v1 answer (those lines have no dynamic quorum)', () => {
    const v2 = DescribeQuorum.decode(2, bytes(JAVA.res2));
    for (const v of v2.topics[0]!.partitions[0]!.currentVoters) v.directoryId = ZERO_DIRECTORY_ID;
    expect(quorumViewFrom(v2, 2, 0, 1)).toMatchObject({ kraftVersion: 0, dynamicQuorumSupported: true });
    expect(quorumViewFrom(DescribeQuorum.decode(1, bytes(JAVA.res1)), 1, 0, 1)).toMatchObject({ kraftVersion: 0, dynamicQuorumSupported: false });
    // v0: no timestamps, ages unknown.
    expect(quorumViewFrom(DescribeQuorum.decode(0, bytes(JAVA.res0)), 0, 0, 1).voters[2]).toMatchObject({ lag: 810, lastFetchAgeMs: null, caughtUpAgeMs: null });
  });

  it('majority: 1 of 1, 2 of 2 or 3, 3 of 4 or 5', () => {
    expect([1, 2, 3, 4, 5].map(majorityOf)).toEqual([1, 2, 2, 3, 3]);
  });
});
