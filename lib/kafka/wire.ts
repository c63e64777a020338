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

import { connect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
// Static imports of the CommonJS internals (default = module.exports), so
// esbuild bundles them into the Lambda like any other dependency.
import brokerModule from 'kafkajs/src/broker/index.js';
import connectionPoolModule from 'kafkajs/src/network/connectionPool.js';
import loggersModule from 'kafkajs/src/loggers/index.js';
import encoderModule from 'kafkajs/src/protocol/encoder.js';
import { type ApiDefinition, isFlexible } from './protocol/api.ts';
import type { ProtocolFactory, RequestDefinition, WireApi } from './protocol/kafkajs.ts';
import { Reader } from './protocol/codec.ts';
import { KeyedSemaphores } from '../runtime/semaphore.ts';
import { ResponderError } from '../runtime/errors.ts';
import { Metadata, type RawMetadata } from './api/metadata/codec.ts';
import { ListGroups, type ListGroupsResult } from './api/list-groups/codec.ts';
import { DescribeGroupsWire, type RawDescribeGroups, type RawDescribeGroupsFull } from './api/describe-groups/codec.ts';
import { DescribeConfigsWire, TOPIC_RESOURCE_TYPE, type RawConfigEntry, type RawDescribeConfigs } from './api/describe-configs/codec.ts';
import { FindCoordinatorWire, type RawFindCoordinator } from './api/find-coordinator/codec.ts';
import { OffsetCommitWire, type RawOffsetCommit } from './api/offset-commit/codec.ts';
import { ListPartitionReassignmentsWire, type RawReassignments } from './api/list-partition-reassignments/codec.ts';

export type { KafkajsApi, RequestDefinition, WireApi } from './protocol/kafkajs.ts';
export interface ApiVersionRange {
  minVersion: number;
  maxVersion: number;
}
interface KafkajsBroker {
  isConnected(): boolean;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  lookupRequest(apiKey: number, definition: RequestDefinition): ProtocolFactory;
  /** ApiVersions of this broker, known once connected. */
  versions: Record<number, ApiVersionRange> | null;
  connectionPool: { send(protocolRequest: unknown): Promise<unknown>; pool?: { rejectRequests(error: Error): void }[] };
}
interface KafkajsEncoder {
  writeBuffer(b: Buffer): KafkajsEncoder;
}

const Broker = brokerModule as new (opts: Record<string, unknown>) => KafkajsBroker;
const ConnectionPool = connectionPoolModule as new (opts: Record<string, unknown>) => unknown;
/**
 * kafkajs's socket factory, but node:tls is loaded only for a TLS connection:
 * a plaintext diagnosis does not pay for it (about 5 ms of its start).
 */
const KEEP_ALIVE_DELAY_MS = 60_000;
function socketFactory({ host, port, ssl, onConnect }: { host: string; port: number; ssl: TlsOptions | null; onConnect: () => void }): Socket {
  const socket = ssl
    ? process.getBuiltinModule('node:tls').connect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : connect({ host, port }, onConnect);
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
  return socket;
}
const { createLogger } = loggersModule as { createLogger(o: { level: number; logCreator: () => () => void }): unknown };
const Encoder = encoderModule as new () => KafkajsEncoder;

// kafkajs logs connection errors loudly; the snapshot records them itself.
const quietLogger = createLogger({ level: 0, logCreator: () => () => {} });

// The decoded shapes of the kafkajs-encoded APIs (each in its folder of api/), where importers have always found them.
export type { RawMetadata, RawDescribeGroups, RawDescribeConfigs, RawReassignments, RawConfigEntry, RawFindCoordinator, RawDescribeGroupsFull, RawOffsetCommit };
export { TOPIC_RESOURCE_TYPE };

/**
 * The version to use: the highest we implement inside the broker's range, or
 * null when the ranges do not meet. kafkajs's own lookup takes
 * min(our highest, broker's highest) and ignores the broker's minimum, which
 * Kafka 4.0 raised for many APIs (KIP-896); a version below it makes the broker
 * close the connection.
 */
export function pickVersion(implemented: readonly number[], broker: ApiVersionRange | undefined): number | null {
  if (!broker) return null;
  const usable = implemented.filter((v) => v >= broker.minVersion && v <= broker.maxVersion);
  return usable.length > 0 ? Math.max(...usable) : null;
}

/** Thrown when this broker and we share no version of an API (or it lacks the API). */
export class UnsupportedVersionError extends ResponderError {
  readonly failure = 'fatal';
  constructor(
    readonly apiName: string,
    readonly broker: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnsupportedVersionError';
  }
}

/**
 * One of our protocol/ definitions in kafkajs's shape, so it goes through
 * `broker.lookupRequest` and the connection pool like kafkajs's own. Flexible
 * versions use request header v2 and response header v1: both add a tagged-field
 * section, written (empty) before the body and skipped before decoding it.
 */
export function toRequestDefinition<A, R>(def: ApiDefinition<A, R>): RequestDefinition {
  return {
    versions: def.versions.map(String),
    protocol:
      ({ version }) =>
      (args?: unknown) => {
        const flexible = isFlexible(def, version);
        return {
          request: {
            apiKey: def.apiKey,
            apiVersion: version,
            apiName: def.apiName,
            encode: async () => {
              const body = def.encode(version, args as A);
              return new Encoder().writeBuffer(flexible ? Buffer.concat([Buffer.from([0]), body]) : body);
            },
          },
          response: {
            decode: async (raw: Buffer) => {
              if (!flexible) return def.decode(version, raw);
              const r = new Reader(raw, true);
              r.tags();
              return def.decode(version, r.rest());
            },
            parse: async (d: unknown) => d,
          },
        };
      },
  };
}

/** The APIs we send through kafkajs's encoders and decoders, each defined in its folder of lib/kafka/api/ (the others are our own codecs). */
export const KAFKAJS = {
  DescribeGroups: DescribeGroupsWire,
  DescribeConfigs: DescribeConfigsWire,
  FindCoordinator: FindCoordinatorWire,
  OffsetCommit: OffsetCommitWire,
  ListPartitionReassignments: ListPartitionReassignmentsWire,
} as const;

const ourDefinitions = new WeakMap<object, RequestDefinition>();
function requestDefinitionOf<A, R>(api: WireApi<A, R>): RequestDefinition {
  if ('kafkajs' in api) return api.kafkajs;
  let d = ourDefinitions.get(api);
  if (!d) ourDefinitions.set(api, (d = toRequestDefinition(api)));
  return d;
}

function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'KafkaJSConnectionError' || err.name === 'KafkaJSConnectionClosedError') return true;
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT';
}

export interface RequestOptions {
  /** Longer than the connection's request timeout, for requests the broker may hold (server-side timeouts). */
  requestTimeoutMs?: number;
}

export interface WireOptions {
  ssl: boolean | TlsOptions;
  sasl?: SASLOptions;
  clientId: string;
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
  /** Requests in flight to this broker at a time, across every connection of this process (default 4). */
  maxRequestsPerBroker?: number;
}

/** Process-wide: every pass (snapshots, operations) shares one budget per broker address. */
const inFlightPerBroker = new KeyedSemaphores();
export const DEFAULT_MAX_REQUESTS_PER_BROKER = 4;

/** One broker connection that returns decoded responses with their error codes intact. */
export class WireBroker {
  private readonly broker: KafkajsBroker;
  private connecting: Promise<void> | null = null;
  private readonly maxInFlight: number;

  constructor(
    readonly host: string,
    readonly port: number,
    private id: number | null,
    options: WireOptions,
  ) {
    this.maxInFlight = options.maxRequestsPerBroker ?? DEFAULT_MAX_REQUESTS_PER_BROKER;
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
      nodeId: id,
      allowAutoTopicCreation: false,
      authenticationTimeout: options.connectionTimeoutMs * 2,
    });
  }

  get address(): string {
    return `${this.host}:${this.port}`;
  }

  /** The broker id Metadata gave this address; null for a bootstrap server not yet known by id. */
  get nodeId(): number | null {
    return this.id;
  }

  /** This connection, now known as broker `id` (a bootstrap server found in Metadata). */
  as(id: number): this {
    this.id = id;
    return this;
  }

  connect(): Promise<void> {
    // One attempt at a time, shared by concurrent callers: kafkajs reports the socket
    // connected before its ApiVersions exchange is over, so "connected" alone is not ready.
    if (this.connecting) return this.connecting;
    if (this.broker.isConnected() && this.broker.versions) return Promise.resolve();
    // A new socket may reach a restarted (upgraded, downgraded) broker: its ApiVersions
    // are asked again, as Java clients do (kafkajs only asks while they are unset).
    this.connecting = (async () => {
      this.broker.versions = null;
      await this.broker.connect();
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  async disconnect(): Promise<void> {
    try {
      await this.broker.disconnect();
    } catch {
      // Closing a dead socket is not news.
    }
  }

  /**
   * Closes the connection now, failing whatever is still in flight on it. For a
   * request the broker holds (DescribeQuorum with no quorum leader): kafkajs's
   * disconnect waits for every pending request, i.e. until the connection's own
   * request timeout, and so would whoever awaits it.
   */
  async abandon(): Promise<void> {
    const abandoned = new Error(`the connection to ${this.address} was closed with the request in flight`);
    abandoned.name = 'AbandonedRequestError';
    for (const c of this.broker.connectionPool.pool ?? []) c.rejectRequests(abandoned);
    await this.disconnect();
  }

  /** This broker's ApiVersions (null before the first connect). */
  get apiVersions(): Record<number, ApiVersionRange> | null {
    return this.broker.versions;
  }

  /**
   * The one way to send: an API of ours (lib/kafka/api/<name>/codec.ts) or one of
   * kafkajs's (KAFKAJS below), decoded with every error code kept.
   */
  request<A, R>(api: WireApi<A, R>, args: A, options: RequestOptions = {}): Promise<R> {
    return this.sendVia(api.apiName, api.apiKey, requestDefinitionOf(api), args, options) as Promise<R>;
  }

  /**
   * Sends at the highest version both sides support and returns the decoded
   * response with every error code in it (kafkajs's parse step, which throws on
   * the first one, is dropped). Connects first if needed; a socket that dies
   * under the request is reconnected once and the request sent again (what we
   * send is idempotent). A broker that cannot be reached at all is not retried.
   */
  private async sendVia(apiName: string, apiKey: number, definition: RequestDefinition, args: unknown, options: RequestOptions): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      await this.connect();
      const range = this.broker.versions?.[apiKey];
      const version = pickVersion(definition.versions.map(Number), range);
      if (version === null) {
        throw new UnsupportedVersionError(
          apiName,
          this.address,
          range
            ? `broker ${this.address} supports ${apiName} v${range.minVersion}-v${range.maxVersion}, we implement v${definition.versions.join(', v')}`
            : `broker ${this.address} does not support ${apiName} (API key ${apiKey})`,
        );
      }
      // kafkajs's lookup takes min(our highest, broker's highest): offer it only the version we picked.
      const { request, response } = this.broker.lookupRequest(apiKey, { versions: [String(version)], protocol: definition.protocol })(args);
      try {
        // Waits for a slot when this process already has the broker's maximum in flight.
        return await inFlightPerBroker.for(this.address, this.maxInFlight).use(() =>
          this.broker.connectionPool.send({
            request,
            response: { decode: response.decode, parse: async (d: unknown) => d },
            ...(options.requestTimeoutMs ? { requestTimeout: options.requestTimeoutMs } : {}),
          }),
        );
      } catch (err) {
        if (attempt > 0 || !isConnectionError(err)) throw err;
        await this.disconnect();
      }
    }
  }

  /** topics = null asks for every topic (the only way to list them); otherwise exactly these ([] = brokers and controller only). */
  metadata(topics: string[] | null): Promise<RawMetadata> {
    return this.request(Metadata, { topics, allowAutoTopicCreation: false });
  }

  listGroups(): Promise<ListGroupsResult> {
    return this.request(ListGroups, undefined);
  }

  describeGroups(groupIds: string[]): Promise<RawDescribeGroups> {
    return this.request(DescribeGroupsWire, { groupIds });
  }

  describeTopicConfigs(topics: string[], configNames: string[]): Promise<RawDescribeConfigs> {
    return this.request(DescribeConfigsWire, {
      resources: topics.map((name) => ({ type: TOPIC_RESOURCE_TYPE, name, configNames })),
      includeSynonyms: false,
    });
  }

  listPartitionReassignments(timeoutMs: number): Promise<RawReassignments> {
    return this.request(ListPartitionReassignmentsWire, { topics: null, timeout: timeoutMs });
  }
}
