// DescribeCluster (API 60) byte for byte against Kafka 4.4.0's own generated
// classes (DescribeClusterRequestData / DescribeClusterResponseData serialized
// with MessageUtil.toByteBufferAccessor(message, version)), and the
// registered-brokers read built on it (readRegisteredBrokers) against scripted
// brokers: v2 lists fenced brokers, v0-v1 lines are "unsupported", not failed.
import { describe, expect, it } from 'vitest';
import { DescribeCluster, ENDPOINT_TYPE_BROKERS } from '../../lib/kafka/api/describe-cluster/codec.ts';
import { readRegisteredBrokers, type RegistrySource } from '../../lib/kafka/registered-brokers-read.ts';
import { UnsupportedVersionError, pickVersion } from '../../lib/kafka/wire.ts';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (h: string) => Buffer.from(h, 'hex');

const JAVA = {
  // IncludeClusterAuthorizedOperations false; v1+ EndpointType 1 (brokers); v2 IncludeFencedBrokers true
  req0: '0000',
  req1: '000100',
  req2: '00010100',
  // cluster q1Sh-9_ISia_zwGINzRvyQ, controller 1: broker 1 (127.0.0.1:9091, no rack), broker 2 (9092, rack-b);
  // v2 adds broker 3 (port 40003: above a signed int16) fenced. Authorized operations: Kafka's "not asked" (INT32_MIN).
  res0: '0000000000000017713153682d395f495369615f7a7747494e7a527679510000000103000000010a3132372e302e302e31000023830000000000020a3132372e302e302e3100002384077261636b2d62008000000000',
  res1: '000000000000000117713153682d395f495369615f7a7747494e7a527679510000000103000000010a3132372e302e302e31000023830000000000020a3132372e302e302e3100002384077261636b2d62008000000000',
  res2: '000000000000000117713153682d395f495369615f7a7747494e7a527679510000000104000000010a3132372e302e302e3100002383000000000000020a3132372e302e302e3100002384077261636b2d620000000000030a3132372e302e302e3100009c430001008000000000',
  // UNSUPPORTED_ENDPOINT_TYPE (115) with its message, endpoint type 2 echoed, no brokers
  unsupportedEndpoint2: '0000000000732354686520656e64706f696e742074797065206973206e6f7420737570706f727465640201ffffffff018000000000',
};

describe('DescribeCluster matches Kafka 4.4.0 byte for byte', () => {
  it('requests: EndpointType from v1, IncludeFencedBrokers from v2 (never sent below)', () => {
    const args = { includeClusterAuthorizedOperations: false, endpointType: ENDPOINT_TYPE_BROKERS, includeFencedBrokers: true };
    expect(hex(DescribeCluster.encode(0, args))).toBe(JAVA.req0);
    expect(hex(DescribeCluster.encode(1, args))).toBe(JAVA.req1);
    expect(hex(DescribeCluster.encode(2, args))).toBe(JAVA.req2);
    // Defaults: brokers, fenced ones left out.
    expect(hex(DescribeCluster.encode(2, {}))).toBe('00010000');
  });

  it('v0: cluster id, controller and the live brokers; no endpoint type, fenced unknown (null)', () => {
    const res = DescribeCluster.decode(0, bytes(JAVA.res0));
    expect(res).toMatchObject({ errorCode: 0, errorMessage: null, endpointType: null, clusterId: 'q1Sh-9_ISia_zwGINzRvyQ', controllerId: 1, clusterAuthorizedOperations: -2147483648 });
    expect(res.brokers).toEqual([
      { brokerId: 1, host: '127.0.0.1', port: 9091, rack: null, isFenced: null },
      { brokerId: 2, host: '127.0.0.1', port: 9092, rack: 'rack-b', isFenced: null },
    ]);
  });

  it('v1 echoes the endpoint type', () => {
    const res = DescribeCluster.decode(1, bytes(JAVA.res1));
    expect(res.endpointType).toBe(ENDPOINT_TYPE_BROKERS);
    expect(res.brokers.map((b) => [b.brokerId, b.isFenced])).toEqual([
      [1, null],
      [2, null],
    ]);
  });

  it('v2 marks each broker fenced or not, and lists the fenced one', () => {
    const res = DescribeCluster.decode(2, bytes(JAVA.res2));
    expect(res.brokers).toEqual([
      { brokerId: 1, host: '127.0.0.1', port: 9091, rack: null, isFenced: false },
      { brokerId: 2, host: '127.0.0.1', port: 9092, rack: 'rack-b', isFenced: false },
      { brokerId: 3, host: '127.0.0.1', port: 40003, rack: null, isFenced: true },
    ]);
  });

  it('a top-level error with its message (UNSUPPORTED_ENDPOINT_TYPE)', () => {
    expect(DescribeCluster.decode(2, bytes(JAVA.unsupportedEndpoint2))).toMatchObject({ errorCode: 115, errorMessage: 'The endpoint type is not supported', endpointType: 2, clusterId: '', controllerId: -1, brokers: [] });
  });

  it('truncated answers are protocol errors, not garbage', () => {
    expect(() => DescribeCluster.decode(2, bytes(JAVA.res2).subarray(0, 40))).toThrow(/truncated/);
  });

  it('version negotiation: 4.x brokers list v0-v2 (v2 taken), 3.9 v0-v1, 2.8 v0', () => {
    expect(pickVersion(DescribeCluster.versions, { minVersion: 0, maxVersion: 2 })).toBe(2);
    expect(pickVersion(DescribeCluster.versions, { minVersion: 0, maxVersion: 1 })).toBe(1);
    expect(pickVersion(DescribeCluster.versions, { minVersion: 0, maxVersion: 0 })).toBe(0);
  });
});

/** A scripted broker connection answering DescribeCluster at `maxVersion` with `answer` (or throwing it). */
function broker(nodeId: number, maxVersion: number | null, answer: Buffer | Error, seen: unknown[] = []): RegistrySource {
  return {
    nodeId,
    address: `127.0.0.1:${9090 + nodeId}`,
    apiVersions: maxVersion === null ? {} : { 60: { minVersion: 0, maxVersion } },
    connect: async () => undefined,
    request: (async (def: typeof DescribeCluster, args: Parameters<typeof DescribeCluster.encode>[1]) => {
      seen.push(args);
      if (answer instanceof Error) throw answer;
      return def.decode(2, answer);
    }) as unknown as RegistrySource['request'],
  } as RegistrySource;
}

describe('readRegisteredBrokers', () => {
  const budget = () => 5_000;

  it('v2: every registration, fenced ones marked, asking with IncludeFencedBrokers', async () => {
    const seen: unknown[] = [];
    const view = await readRegisteredBrokers([broker(1, 2, bytes(JAVA.res2), seen)], budget);
    expect(seen).toEqual([{ includeClusterAuthorizedOperations: false, endpointType: ENDPOINT_TYPE_BROKERS, includeFencedBrokers: true }]);
    expect(view).toEqual({
      status: 'read',
      reason: null,
      answeredBy: 1,
      brokers: [
        { id: 1, host: '127.0.0.1', port: 9091, rack: null, fenced: false },
        { id: 2, host: '127.0.0.1', port: 9092, rack: 'rack-b', fenced: false },
        { id: 3, host: '127.0.0.1', port: 40003, rack: null, fenced: true },
      ],
    });
  });

  it('a line that serves v0-v1 (3.9, ZooKeeper mode) or no DescribeCluster at all: unsupported, never failed, nothing sent', async () => {
    const seen: unknown[] = [];
    expect(await readRegisteredBrokers([broker(1, 1, bytes(JAVA.res1), seen)], budget)).toMatchObject({ status: 'unsupported', reason: 'broker 1 serves DescribeCluster v0-v1', brokers: [] });
    expect(await readRegisteredBrokers([broker(1, null, bytes(JAVA.res0), seen)], budget)).toMatchObject({ status: 'unsupported', reason: 'broker 1 does not serve DescribeCluster' });
    expect(seen).toEqual([]);
    const refused = new UnsupportedVersionError('DescribeCluster', '127.0.0.1:9091', 'broker 127.0.0.1:9091 does not support DescribeCluster v2');
    expect(await readRegisteredBrokers([broker(1, 2, refused)], budget)).toMatchObject({ status: 'unsupported' });
  });

  it('a failing broker, then the next one answers; two failures are a failed view with both reasons', async () => {
    const view = await readRegisteredBrokers([broker(1, 2, new Error('connection refused')), broker(2, 2, bytes(JAVA.res2))], budget);
    expect(view).toMatchObject({ status: 'read', answeredBy: 2 });
    const failed = await readRegisteredBrokers([broker(1, 2, new Error('connection refused')), broker(2, 2, bytes(JAVA.unsupportedEndpoint2)), broker(3, 2, bytes(JAVA.res2))], budget);
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/^connection refused; DescribeCluster on broker 2: UNSUPPORTED_ENDPOINT_TYPE: The endpoint type is not supported$/);
  });
});
