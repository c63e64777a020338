// A thin, typed door into kafkajs 2.2.4's broker layer. Why not kafkajs's
// Admin client: its response parsers throw on the first per-partition or
// per-group error code (LEADER_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS...)
// and then retry, so an offline partition makes fetchTopicMetadata fail and
// a loading coordinator makes describeGroups fail: the very states we must
// report. We reuse kafkajs's connections, SASL and protocol encoders, and keep
// every error code in the decoded response instead.
//
// This reaches into kafkajs/src (not its public API). kafkajs 2.2.4 is the
// final release and pinned by package-lock; test/kafka/wire.test.ts fails
// loudly if the internals move.

import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
// Static imports of the CommonJS internals (default = module.exports), so
// esbuild bundles them into the Lambda like any other dependency.
import brokerModule from 'kafkajs/src/broker/index.js';
import connectionPoolModule from 'kafkajs/src/network/connectionPool.js';
import socketFactoryModule from 'kafkajs/src/network/socketFactory.js';
import loggersModule from 'kafkajs/src/loggers/index.js';
import requestsModule from 'kafkajs/src/protocol/requests/index.js';
import apiKeysModule from 'kafkajs/src/protocol/requests/apiKeys.js';
import errorModule from 'kafkajs/src/protocol/error.js';

type ProtocolFactory = (args?: unknown) => { request: unknown; response: { decode(raw: Buffer): Promise<unknown> } };
interface KafkajsBroker {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  lookupRequest(apiKey: number, definition: unknown): ProtocolFactory;
  connectionPool: { send(protocolRequest: unknown): Promise<unknown> };
}

const Broker = brokerModule as new (opts: Record<string, unknown>) => KafkajsBroker;
const ConnectionPool = connectionPoolModule as new (opts: Record<string, unknown>) => unknown;
const socketFactory = (socketFactoryModule as () => unknown)();
const { createLogger } = loggersModule as { createLogger(o: { level: number; logCreator: () => () => void }): unknown };
const { requests } = requestsModule as { requests: Record<string, unknown> };
const apiKeys = apiKeysModule as Record<string, number>;

// kafkajs logs connection errors loudly; the snapshot records them itself.
const quietLogger = createLogger({ level: 0, logCreator: () => () => {} });

// ------------------------------------------------------------ decoded shapes

export interface RawMetadata {
  brokers: { nodeId: number; host: string; port: number; rack: string | null }[];
  clusterId: string | null;
  controllerId: number;
  topicMetadata: {
    topicErrorCode: number;
    topic: string;
    isInternal: boolean;
    partitionMetadata: {
      partitionErrorCode: number;
      partitionId: number;
      leader: number;
      replicas: number[];
      isr: number[];
      offlineReplicas?: number[];
    }[];
  }[];
}

export interface RawListGroups {
  errorCode: number;
  groups: { groupId: string; protocolType: string }[];
}

export interface RawDescribeGroups {
  groups: { errorCode: number; groupId: string; state: string; protocolType: string }[];
}

export interface RawDescribeConfigs {
  resources: {
    errorCode: number;
    errorMessage: string | null;
    resourceType: number;
    resourceName: string;
    configEntries: { configName: string; configValue: string | null }[];
  }[];
}

export interface RawReassignments {
  errorCode: number;
  topics: { name: string; partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] }[];
}

export const TOPIC_RESOURCE_TYPE = 2;

export interface WireOptions {
  ssl: boolean | TlsOptions;
  sasl?: SASLOptions;
  clientId: string;
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
}

/** One broker connection that returns decoded responses with their error codes intact. */
export class WireBroker {
  private readonly broker: KafkajsBroker;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly nodeId: number | null,
    options: WireOptions,
  ) {
    const connectionPool = new ConnectionPool({
      host,
      port,
      ssl: options.ssl === false ? null : options.ssl === true ? {} : options.ssl,
      sasl: options.sasl ?? null,
      clientId: options.clientId,
      socketFactory,
      connectionTimeout: options.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs,
      enforceRequestTimeout: true,
      logger: quietLogger,
    });
    this.broker = new Broker({
      connectionPool,
      logger: quietLogger,
      nodeId,
      allowAutoTopicCreation: false,
      authenticationTimeout: options.connectionTimeoutMs * 2,
    });
  }

  get address(): string {
    return `${this.host}:${this.port}`;
  }

  connect(): Promise<void> {
    return this.broker.connect();
  }

  async disconnect(): Promise<void> {
    try {
      await this.broker.disconnect();
    } catch {
      // Closing a dead socket is not news.
    }
  }

  private async send<T>(api: string, args?: unknown): Promise<T> {
    const key = apiKeys[api];
    const definition = requests[api];
    if (key === undefined || !definition) throw new Error(`kafkajs has no ${api} request`);
    const { request, response } = this.broker.lookupRequest(key, definition)(args);
    // Keep kafkajs's decoder, drop its parse step (which throws on the first error code).
    return (await this.broker.connectionPool.send({ request, response: { decode: response.decode, parse: async (d: unknown) => d } })) as T;
  }

  /** topics = null asks for every topic (the only way to list them); otherwise exactly these. */
  metadata(topics: string[] | null): Promise<RawMetadata> {
    // kafkajs encodes an empty list as "all topics", so null and [] both mean all.
    return this.send('Metadata', { topics: topics ?? [], allowAutoTopicCreation: false });
  }

  listGroups(): Promise<RawListGroups> {
    return this.send('ListGroups');
  }

  describeGroups(groupIds: string[]): Promise<RawDescribeGroups> {
    return this.send('DescribeGroups', { groupIds });
  }

  describeTopicConfigs(topics: string[], configNames: string[]): Promise<RawDescribeConfigs> {
    return this.send('DescribeConfigs', {
      resources: topics.map((name) => ({ type: TOPIC_RESOURCE_TYPE, name, configNames })),
      includeSynonyms: false,
    });
  }

  listPartitionReassignments(timeoutMs: number): Promise<RawReassignments> {
    return this.send('ListPartitionReassignments', { topics: null, timeout: timeoutMs });
  }
}

const { errorCodes } = errorModule as { errorCodes: { type: string; code: number; message: string }[] };
const errorsByCode = new Map(errorCodes.map((e) => [e.code, e]));

/** kafkajs's name and message for a Kafka error code (e.g. 14 → GROUP_LOAD_IN_PROGRESS). */
// Kafka's own names for the coordinator errors (kafkajs says GROUP_LOAD_IN_PROGRESS...),
// so what we print matches broker logs and Kafka docs.
const KAFKA_NAMES: Record<number, string> = { 14: 'COORDINATOR_LOAD_IN_PROGRESS', 15: 'COORDINATOR_NOT_AVAILABLE', 16: 'NOT_COORDINATOR' };

export function kafkaError(code: number): { code: number; type: string; message: string } {
  const e = errorsByCode.get(code);
  const kafkaName = KAFKA_NAMES[code];
  if (e && kafkaName) return { code, type: kafkaName, message: e.message };
  return e ? { code, type: e.type, message: e.message } : { code, type: `ERROR_${code}`, message: `Kafka error code ${code}` };
}
