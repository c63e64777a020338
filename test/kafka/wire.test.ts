// lib/kafka/wire.ts leans on kafkajs 2.2.4 internals; if an upgrade moves them,
// this fails at once instead of the snapshot failing in production.

import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { WireBroker, kafkaError } from '../../lib/kafka/wire.ts';

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
