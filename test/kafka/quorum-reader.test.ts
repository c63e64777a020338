// readQuorum: DescribeQuorum through two brokers under a short bound; what
// each way of not answering becomes (no leader, ZooKeeper mode, a failure).
import { describe, expect, it } from 'vitest';
import { afterQuorum, readQuorum, whenQuorumLost } from '../../lib/kafka/quorum-read.ts';
import type { WireBroker } from '../../lib/kafka/wire.ts';
import type { DescribeQuorumResult } from '../../lib/kafka/api/describe-quorum/codec.ts';

const answer = (leaderId = 100): DescribeQuorumResult => ({
  errorCode: 0,
  errorMessage: '',
  topics: [
    {
      topicName: '__cluster_metadata',
      partitions: [
        {
          partitionIndex: 0,
          errorCode: 0,
          errorMessage: '',
          leaderId,
          leaderEpoch: 3,
          highWatermark: 90,
          currentVoters: [{ replicaId: 100, directoryId: 'AAAAAAAAAAAAAAAAAAAAAA', logEndOffset: 90, lastFetchTimestamp: 1000, lastCaughtUpTimestamp: 1000 }],
          observers: [{ replicaId: 1, directoryId: 'x', logEndOffset: 90, lastFetchTimestamp: 990, lastCaughtUpTimestamp: 990 }],
        },
      ],
    },
  ],
  nodes: [],
});

type Behaviour = DescribeQuorumResult | 'hang' | 'unsupported' | Error;
/** The snapshot's connection to broker `id`: only its address, id and APIs are used. */
function broker(id: number, behaviour: Behaviour): WireBroker {
  behaviours.set(id, behaviour);
  return { nodeId: id, host: 'b', port: id, address: `b:${id}`, apiVersions: behaviour === 'unsupported' ? {} : { 55: { minVersion: 0, maxVersion: 2 } } } as unknown as WireBroker;
}
const behaviours = new Map<number, Behaviour>();
const calls: number[] = [];
let disconnects = 0;
let opens = 0;
/** The read's own connections. */
const open = (_host: string, port: number, id: number | null): WireBroker => {
  const behaviour = behaviours.get(port)!;
  opens++;
  return {
    nodeId: id,
    apiVersions: { 55: { minVersion: 0, maxVersion: 2 } },
    connect: () => Promise.resolve(),
    // Closed without waiting for what the broker holds (abandon), never through kafkajs's disconnect, which waits.
    abandon: () => {
      disconnects++;
      return Promise.resolve();
    },
    request: () => {
      calls.push(port);
      if (behaviour === 'hang') return new Promise(() => {});
      if (behaviour instanceof Error) return Promise.reject(behaviour);
      return Promise.resolve(behaviour);
    },
  } as unknown as WireBroker;
};
const opts = (timeoutMs: number) => ({ open, timeoutMs });

describe('readQuorum', () => {
  it('the first broker to answer wins; the other is not waited for', async () => {
    const started = Date.now();
    const q = await readQuorum([broker(1, 'hang'), broker(2, answer())], opts(5_000));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect([q.status, q.source, q.askedBrokers, q.leaderId, q.version, q.kraftVersion]).toEqual(['ok', 2, [2, 1], 100, 2, 0]);
  });

  it('asks two brokers, never more, each on a connection of its own, closed once asked', async () => {
    calls.length = 0;
    disconnects = 0;
    await readQuorum([broker(1, answer()), broker(2, answer()), broker(3, answer())], opts(1_000));
    expect(calls.sort()).toEqual([1, 2]);
    await new Promise((r) => setImmediate(r));
    expect(disconnects).toBe(2);
  });

  it('both held past the bound: no leader, each broker\'s outcome kept as evidence', async () => {
    const q = await readQuorum([broker(1, 'hang'), broker(2, 'hang')], opts(60));
    expect(q.status).toBe('no-leader');
    expect(q.noLeaderEvidence).toEqual([
      { broker: 1, outcome: 'no answer within 60 ms' },
      { broker: 2, outcome: 'no answer within 60 ms' },
    ]);
    expect(q.tookMs).toBeGreaterThanOrEqual(55);
  });

  it('a broker answering REQUEST_TIMED_OUT (its forwarding gave up) is no leader; another one\'s dropped connection does not outweigh it', async () => {
    const timedOut: DescribeQuorumResult = { errorCode: 7, errorMessage: 'The request timed out.', topics: [], nodes: [] };
    const q = await readQuorum([broker(1, timedOut), broker(2, Object.assign(new Error('Connection closed'), { name: 'KafkaJSConnectionClosedError' }))], opts(100));
    expect(q.status).toBe('no-leader');
    expect(q.noLeaderEvidence).toEqual([{ broker: 1, outcome: expect.stringMatching(/^REQUEST_TIMED_OUT after \d+ ms \(The request timed out\.\)$/) }]);
    expect(q.reason).toMatch(/broker 2: Connection closed/);
  });

  it('an answer whose leader is -1 is no leader too', async () => {
    expect((await readQuorum([broker(1, answer(-1))], opts(100))).status).toBe('no-leader');
  });

  it('brokers that do not list API 55 (ZooKeeper mode): unavailable, not an error', async () => {
    const before = opens;
    const q = await readQuorum([broker(1, 'unsupported'), broker(2, 'unsupported')], opts(100));
    expect([q.status, q.reason]).toEqual(['unavailable', 'the brokers do not serve DescribeQuorum (ZooKeeper mode): there is no KRaft quorum to check']);
    // Known from the snapshot's connections: no connection opened to learn it.
    expect(opens).toBe(before);
  });

  it('other errors: failed, with each broker\'s reason; no broker at all: failed', async () => {
    const q = await readQuorum([broker(1, new Error('boom')), broker(2, { errorCode: 31, errorMessage: null, topics: [], nodes: [] })], opts(100));
    expect(q.status).toBe('failed');
    expect(q.reason).toMatch(/broker 1: boom; broker 2: CLUSTER_AUTHORIZATION_FAILED after \d+ ms \(Cluster authorization failed\)/);
    expect((await readQuorum([], opts(100))).status).toBe('failed');
  });

  it('whenQuorumLost settles with the view once no leader is found, and never when one answered or the read failed', async () => {
    const lost = await whenQuorumLost(readQuorum([broker(1, 'hang')], opts(20)));
    expect(lost.status).toBe('no-leader');
    const never = Symbol('pending');
    for (const b of [broker(1, answer()), broker(1, new Error('boom')), broker(1, 'unsupported')]) {
      const quorum = readQuorum([b], opts(20));
      await quorum;
      expect(await Promise.race([whenQuorumLost(quorum), new Promise((r) => setImmediate(() => r(never)))])).toBe(never);
    }
  });

  it('afterQuorum: a controller-only request is sent once a leader answered, never without one', async () => {
    let sent = 0;
    const send = () => Promise.resolve(++sent);
    await expect(afterQuorum(readQuorum([broker(1, 'hang')], opts(20)), send)).rejects.toThrow(/no active controller/);
    expect(sent).toBe(0);
    await expect(afterQuorum(readQuorum([broker(1, answer())], opts(20)), send)).resolves.toBe(1);
    // ZooKeeper mode or a failed read: asked as before.
    await expect(afterQuorum(readQuorum([broker(1, 'unsupported')], opts(20)), send)).resolves.toBe(2);
  });
});
