// lib/kafka/wire.ts leans on kafkajs 2.2.4 internals; if an upgrade moves them,
// this fails at once instead of the snapshot failing in production.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { WireBroker } from '../../lib/kafka/wire.ts';
import { kafkaError } from '../../lib/kafka/errors.ts';

const require = createRequire(import.meta.url);

describe('kafkajs internals used by the wire layer', () => {
  it('are the version we read', () => {
    expect((require('kafkajs/package.json') as { version: string }).version).toBe('2.2.4');
  });

  it('expose the request definitions we send, each with a decoder', () => {
    const { requests, lookup } = require('kafkajs/src/protocol/requests/index.js') as {
      requests: Record<string, unknown>;
      lookup: (v: Record<number, { minVersion: number; maxVersion: number }>) => (k: number, d: unknown) => (a?: unknown) => { response: { decode: unknown } };
    };
    const apiKeys = require('kafkajs/src/protocol/requests/apiKeys.js') as Record<string, number>;
    const versions = Object.fromEntries(Object.values(apiKeys).map((k) => [k, { minVersion: 0, maxVersion: 99 }]));
    for (const [api, args] of [
      ['Metadata', { topics: ['t'], allowAutoTopicCreation: false }],
      ['ListGroups', undefined],
      ['DescribeGroups', { groupIds: ['g'] }],
      ['DescribeConfigs', { resources: [{ type: 2, name: 't', configNames: [] }], includeSynonyms: false }],
      ['ListPartitionReassignments', { topics: null, timeout: 1000 }],
    ] as const) {
      const protocol = lookup(versions)(apiKeys[api]!, requests[api])(args);
      expect(typeof protocol.response.decode, api).toBe('function');
    }
  });

  it('names coordinator errors as Kafka does and keeps kafkajs names for the rest', () => {
    expect(kafkaError(14).type).toBe('COORDINATOR_LOAD_IN_PROGRESS');
    expect(kafkaError(16).type).toBe('NOT_COORDINATOR');
    expect(kafkaError(5).type).toBe('LEADER_NOT_AVAILABLE');
    expect(kafkaError(9999).type).toBe('ERROR_9999');
  });

  it('builds a broker connection without touching the network', () => {
    const b = new WireBroker('127.0.0.1', 1, 7, { ssl: false, clientId: 'test', connectionTimeoutMs: 100, requestTimeoutMs: 100 });
    expect(b.address).toBe('127.0.0.1:1');
  });
});

describe('requests in flight per broker', () => {
  /** A WireBroker whose socket is replaced: "connected", and each request answered after a few ms, counted. */
  function fakeConnected(address: [string, number], maxRequestsPerBroker: number, stats: { inFlight: number; peak: number; sent: number }) {
    const { lookup } = require('kafkajs/src/protocol/requests/index.js') as { lookup: (v: unknown) => unknown };
    const apiKeys = require('kafkajs/src/protocol/requests/apiKeys.js') as Record<string, number>;
    const wire = new WireBroker(address[0], address[1], 1, { ssl: false, clientId: 't', connectionTimeoutMs: 1000, requestTimeoutMs: 1000, maxRequestsPerBroker });
    const versions = Object.fromEntries(Object.values(apiKeys).map((k) => [k, { minVersion: 0, maxVersion: 12 }]));
    const inner = (wire as unknown as { broker: { versions: unknown; lookupRequest: unknown; isConnected: () => boolean; connectionPool: { send: () => Promise<unknown> } } }).broker;
    inner.versions = versions;
    inner.lookupRequest = lookup(versions);
    inner.isConnected = () => true;
    inner.connectionPool.send = async () => {
      stats.sent++;
      stats.peak = Math.max(stats.peak, ++stats.inFlight);
      await new Promise((r) => setTimeout(r, 3));
      stats.inFlight--;
      return { brokers: [], topicMetadata: [] };
    };
    return wire;
  }

  it('never has more than the configured requests in flight to one broker, across every connection of the process', async () => {
    const stats = { inFlight: 0, peak: 0, sent: 0 };
    const conns = [0, 1, 2].map(() => fakeConnected(['10.9.9.1', 9092], 2, stats));
    await Promise.all(Array.from({ length: 30 }, (_, i) => conns[i % 3]!.metadata([])));
    expect(stats.sent).toBe(30);
    expect(stats.peak).toBe(2);
  });

  it('another broker has its own budget', async () => {
    const a = { inFlight: 0, peak: 0, sent: 0 };
    const b = { inFlight: 0, peak: 0, sent: 0 };
    const wa = fakeConnected(['10.9.9.2', 9092], 3, a);
    const wb = fakeConnected(['10.9.9.3', 9092], 3, b);
    await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? wa : wb).metadata([])));
    expect([a.peak, b.peak]).toEqual([3, 3]);
  });
});
