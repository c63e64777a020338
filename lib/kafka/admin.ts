// Kafka admin operations over the Kafka protocol, for what kafkajs 2.2.4's
// Admin client cannot do (ElectLeaders, IncrementalAlterConfigs,
// DescribeLogDirs, cancelling a reassignment) or does badly (it throws on the
// first per-partition error code, and retries). Every result keeps Kafka's
// error codes and names per partition / resource / group; only failures of a
// whole call throw, as KafkaAdminError.
//
// Routing follows Java's AdminClient:
//   ElectLeaders, Alter/ListPartitionReassignments → the controller named by
//     Metadata. ZooKeeper clusters need the real controller (others answer
//     NOT_CONTROLLER); KRaft brokers name a random live broker as "controller"
//     and every broker forwards these requests to the active KRaft controller.
//     NOT_CONTROLLER or an unreachable controller → fresh Metadata, one retry.
//   Broker config resources → that broker: only it accepts them (any other
//     answers INVALID_REQUEST "Unexpected broker id", in both modes). If it
//     cannot be reached we still ask another broker, and report its answer.
//   Topic config resources, Metadata, FindCoordinator → any broker.
//   DescribeLogDirs → each broker asked about. ListOffsets → each partition's
//     leader. Group calls → the group's coordinator (FindCoordinator).
// Every call runs under the admin's timeout; a dead socket is reconnected once
// (lib/kafka/wire.ts).

import { type ConnectionConfig, wireOptionsFor } from './connection.ts';
import { mapLimit, TimeoutError, withTimeout } from './limits.ts';
import { errorMessage } from '../runtime/errors.ts';
import { AlterPartitionReassignments } from './protocol/alter-partition-reassignments.ts';
import { DescribeLogDirs } from './protocol/describe-log-dirs.ts';
import { ElectLeaders, type ElectLeadersResult } from './protocol/elect-leaders.ts';
import { CONFIG_RESOURCE_TYPE, IncrementalAlterConfigs, type ConfigOperation, type ConfigResourceType } from './protocol/incremental-alter-configs.ts';
import {
  type AbortSpec,
  type PartitionProducers,
  type TransactionDescription,
  type TransactionList,
  type TxnRouting,
  abortTransactionVia,
  describeProducersVia,
  describeTransactionsVia,
  listTransactionsVia,
} from './transactions-admin.ts';
import {
  type RawConfigEntry,
  type RawDescribeGroupsFull,
  type RawFindCoordinator,
  type RawListGroups,
  type RawListOffsets,
  type RawMetadata,
  type RawOffsetCommit,
  type RawOffsetFetch,
  type RawReassignments,
  UnsupportedVersionError,
  WireBroker,
  type WireOptions,
  kafkaError,
} from './wire.ts';

export type { ConfigOperation, ConfigResourceType, RawMetadata };

// ------------------------------------------------------------------ types

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** Outcome for one partition: errorCode 0 and error null on success, else Kafka's code and "NAME: message". */
export interface PartitionResult extends TopicPartition {
  errorCode: number;
  error: string | null;
}

export interface ReassignmentTarget extends TopicPartition {
  /** The new replica list, preferred leader first; null cancels the partition's pending reassignment. */
  replicas: number[] | null;
}

export interface OngoingReassignment extends TopicPartition {
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export type ElectionType = 'preferred' | 'unclean';

export interface ConfigAlteration {
  type: ConfigResourceType;
  /** Topic name, broker id as a string, or '' for the cluster-wide broker default. */
  name: string;
  ops: { name: string; op: ConfigOperation; value: string | null }[];
}

export interface ConfigResult {
  type: ConfigResourceType;
  name: string;
  errorCode: number;
  error: string | null;
}

export interface ConfigEntry {
  name: string;
  /** null for sensitive values (passwords) and unset ones. */
  value: string | null;
  isDefault: boolean;
  /** Kafka's ConfigSource id: 1 dynamic topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker (server.properties), 5 default. */
  source: number;
  isSensitive: boolean;
  readOnly: boolean;
}

export interface ConfigDescription extends ConfigResult {
  entries: ConfigEntry[];
}

export interface LogDirReplica extends TopicPartition {
  sizeBytes: number;
  offsetLag: number;
  /** A replica being moved here by AlterReplicaLogDirs. */
  isFuture: boolean;
}

export interface LogDir {
  path: string;
  errorCode: number;
  error: string | null;
  /** Volume size and free space (DescribeLogDirs v4, Kafka 3.3+); null when the broker does not say. */
  totalBytes: number | null;
  usableBytes: number | null;
  partitions: LogDirReplica[];
}

export interface BrokerLogDirs {
  /** Set when the broker could not be asked (or refused as a whole); logDirs is then empty. */
  error: string | null;
  logDirs: LogDir[];
}

export interface PartitionOffset extends PartitionResult {
  offset: number | null;
}

export interface GroupListing {
  groupId: string;
  protocolType: string;
}

export interface GroupDescription {
  groupId: string;
  errorCode: number;
  error: string | null;
  /** Kafka's state (Empty, Stable, PreparingRebalance, CompletingRebalance, Dead), or 'Unknown' on error. */
  state: string;
  protocolType: string;
  members: number;
  /** The coordinator broker asked, or null when FindCoordinator failed. */
  coordinator: number | null;
}

export interface CommittedOffset extends PartitionResult {
  /** -1 when the group has no committed offset for the partition. */
  offset: number;
}

export interface KafkaAdmin {
  /** Metadata for these topics (null = every topic, [] = brokers and controller only). */
  metadata(topics: string[] | null): Promise<RawMetadata>;
  /** KIP-455, via the controller. Per-partition errors are returned, not thrown. */
  alterPartitionReassignments(targets: ReassignmentTarget[], timeoutMs?: number): Promise<PartitionResult[]>;
  /** Reassignments in progress (all of them when partitions is omitted or null). */
  listPartitionReassignments(partitions?: TopicPartition[] | null): Promise<OngoingReassignment[]>;
  /** KIP-460, via the controller. errorCode 84 ELECTION_NOT_NEEDED: the partition already has a valid leader. */
  electLeaders(type: ElectionType, partitions: TopicPartition[], timeoutMs?: number): Promise<PartitionResult[]>;
  /** KIP-339: set | delete | append | subtract, per resource; per-resource errors returned. */
  incrementalAlterConfigs(resources: ConfigAlteration[]): Promise<ConfigResult[]>;
  /** Current values (dynamic and static; broker ones from that broker), all or the named ones. */
  describeConfigs(resources: { type: ConfigResourceType; name: string; names?: string[] }[]): Promise<ConfigDescription[]>;
  /** KIP-113, each broker asked on its own; an unreachable broker gets `error`, never a throw. */
  describeLogDirs(brokerIds: number[], partitions: TopicPartition[] | null): Promise<Map<number, BrokerLogDirs>>;
  /**
   * Earliest / latest (high watermark) / last-stable (LSO: ListOffsets READ_COMMITTED) offsets from each
   * partition's leader; per-partition errors keep offset null.
   */
  listOffsets(partitions: TopicPartition[], which: 'earliest' | 'latest' | 'last-stable'): Promise<PartitionOffset[]>;
  /** KIP-664 DescribeProducers, at each leader; per-partition errors (UNSUPPORTED_VERSION before 3.0) returned. */
  describeProducers(partitions: TopicPartition[], options?: { brokerId?: number }): Promise<PartitionProducers[]>;
  /** KIP-664 ListTransactions on every broker; brokers that fail are listed, not thrown. */
  listTransactions(filter?: { producerIds?: number[]; states?: string[] }): Promise<TransactionList>;
  /** KIP-664 DescribeTransactions, at each transactional id's coordinator; per-id errors returned. */
  describeTransactions(transactionalIds: string[]): Promise<TransactionDescription[]>;
  /** The ABORT marker `kafka-transactions.sh abort` writes (WriteTxnMarkers at the partition's leader). */
  abortTransaction(spec: AbortSpec): Promise<{ errorCode: number; error: string | null; leader: number | null }>;
  /** Every group of every broker (throws if a broker in the metadata does not answer). */
  listGroups(): Promise<GroupListing[]>;
  /** State and member count, from each group's coordinator. */
  describeGroups(groupIds: string[]): Promise<GroupDescription[]>;
  /** Committed offsets of one group (all its partitions when partitions is omitted). */
  fetchCommittedOffsets(groupId: string, partitions?: TopicPartition[]): Promise<CommittedOffset[]>;
  /** Commits as an admin (generation -1, no member id): Kafka accepts it only while the group has no active members. */
  commitOffsets(groupId: string, offsets: (TopicPartition & { offset: number })[]): Promise<PartitionResult[]>;
  close(): Promise<void>;
}

export interface AdminOptions {
  /** Budget of each call (calls with a server-side timeout get that plus one request timeout, if longer). */
  timeoutMs: number;
  /** Requests in flight at once within one call. */
  concurrency?: number;
}

/** A whole call failed: no broker answered, or Kafka refused it as a whole (code and type then set). */
export class KafkaAdminError extends Error {
  constructor(
    message: string,
    readonly code: number | null = null,
    readonly type: string | null = null,
  ) {
    super(message);
    this.name = 'KafkaAdminError';
  }
}

// ------------------------------------------------------------------ error codes

const NONE = 0;
const UNKNOWN_SERVER_ERROR = -1;
const UNKNOWN_TOPIC_OR_PARTITION = 3;
const LEADER_NOT_AVAILABLE = 5;
const NOT_LEADER_OR_FOLLOWER = 6;
const REQUEST_TIMED_OUT = 7;
const NETWORK_EXCEPTION = 13;
const COORDINATOR_NOT_AVAILABLE = 15;
const NOT_COORDINATOR = 16;
const UNSUPPORTED_VERSION = 35;
const NOT_CONTROLLER = 41;
const UNKNOWN_LEADER_EPOCH = 74;
const FENCED_LEADER_EPOCH = 75;

/** "NAME: message" for a Kafka error code, null for 0. */
export function describeError(code: number, message?: string | null): string | null {
  if (code === NONE) return null;
  const e = kafkaError(code);
  return `${e.type}: ${message || e.message}`;
}

/** A request that got no answer, in Kafka's terms (the codes Java clients report for the same). */
function transportError(err: unknown, where: string): { errorCode: number; error: string } {
  const timedOut = err instanceof TimeoutError || (err instanceof Error && err.name === 'KafkaJSRequestTimeoutError');
  const errorCode = timedOut ? REQUEST_TIMED_OUT : err instanceof UnsupportedVersionError ? UNSUPPORTED_VERSION : NETWORK_EXCEPTION;
  return { errorCode, error: `${kafkaError(errorCode).type}: ${where}: ${errorMessage(err)}` };
}

function wholeCallError(what: string, code: number, message?: string | null): KafkaAdminError {
  const e = kafkaError(code);
  return new KafkaAdminError(`${what}: ${e.type}: ${message || e.message}`, code, e.type);
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

function groupByTopic<T extends TopicPartition>(items: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const list = m.get(it.topic);
    if (list) list.push(it);
    else m.set(it.topic, [it]);
  }
  return m;
}

function assertUnique(what: string, items: readonly TopicPartition[]): void {
  const seen = new Set<string>();
  for (const { topic, partition } of items) {
    const k = tpKey(topic, partition);
    if (seen.has(k)) throw new Error(`${what}: ${topic}-${partition} appears more than once`);
    seen.add(k);
  }
}

function parseAddress(hostPort: string): { host: string; port: number } {
  const i = hostPort.lastIndexOf(':');
  return { host: hostPort.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(hostPort.slice(i + 1)) };
}

// ------------------------------------------------------------------ admin

export async function openAdmin(config: ConnectionConfig, options: AdminOptions): Promise<KafkaAdmin> {
  const wireOptions = wireOptionsFor(config, options.timeoutMs);
  const admin = new Admin(config.bootstrap, wireOptions, options);
  try {
    await admin.bootstrap();
  } catch (err) {
    await admin.close();
    throw err;
  }
  return admin;
}

interface BrokerAddress {
  host: string;
  port: number;
}

class Admin implements KafkaAdmin {
  private readonly conns = new Map<string, WireBroker>();
  private brokers = new Map<number, BrokerAddress>();
  private controllerId = -1;
  /** Brokers that failed us lately: asked last for cluster-wide questions. */
  private readonly suspects = new Set<number>();
  private closed = false;
  private readonly timeoutMs: number;
  private readonly concurrency: number;

  constructor(
    private readonly bootstrapServers: string[],
    private readonly wire: WireOptions,
    options: AdminOptions,
  ) {
    this.timeoutMs = options.timeoutMs;
    this.concurrency = options.concurrency ?? 8;
  }

  // ---------------------------------------------------------- plumbing

  private conn(address: BrokerAddress, nodeId: number | null): WireBroker {
    if (this.closed) throw new KafkaAdminError('the admin client is closed');
    const key = `${address.host}:${address.port}`;
    let c = this.conns.get(key);
    if (!c) {
      c = new WireBroker(address.host, address.port, nodeId, this.wire);
      this.conns.set(key, c);
    }
    return c;
  }

  private brokerConn(id: number): WireBroker | null {
    const address = this.brokers.get(id);
    return address ? this.conn(address, id) : null;
  }

  /** Known brokers, the ones that failed lately last. */
  private brokerOrder(): number[] {
    const ids = [...this.brokers.keys()].sort((a, b) => a - b);
    return [...ids.filter((id) => !this.suspects.has(id)), ...ids.filter((id) => this.suspects.has(id))];
  }

  private call<T>(what: string, fn: () => Promise<T>, budgetMs = this.timeoutMs): Promise<T> {
    if (this.closed) return Promise.reject(new KafkaAdminError('the admin client is closed'));
    return withTimeout(fn(), budgetMs, what);
  }

  /** Client-side budget for a request the broker may hold for `serverTimeoutMs`. */
  private heldBudget(serverTimeoutMs: number): { budgetMs: number; requestTimeoutMs: number } {
    const requestTimeoutMs = serverTimeoutMs + this.wire.requestTimeoutMs;
    return { budgetMs: Math.max(this.timeoutMs, requestTimeoutMs), requestTimeoutMs };
  }

  private learn(md: RawMetadata): void {
    if (md.brokers.length > 0) this.brokers = new Map(md.brokers.map((b) => [b.nodeId, { host: b.host, port: b.port }]));
    this.controllerId = md.controllerId;
  }

  /** The first answer among all bootstrap servers, asked at once (a dead first entry must not eat the budget). */
  async bootstrap(): Promise<void> {
    const failures: string[] = [];
    const attempts = this.bootstrapServers.map(async (addr) => {
      try {
        return await withTimeout(this.conn(parseAddress(addr), null).kafkajsRequest<RawMetadata>('Metadata', { topics: [], allowAutoTopicCreation: false }), this.timeoutMs, `Metadata from ${addr}`);
      } catch (err) {
        failures.push(`${addr}: ${errorMessage(err)}`);
        throw err;
      }
    });
    let md: RawMetadata;
    try {
      md = await Promise.any(attempts);
    } catch {
      throw new KafkaAdminError(`could not read cluster metadata from any bootstrap server (${failures.join('; ')})`);
    }
    this.learn(md);
  }

  /**
   * Sends to one broker after another until one answers; for questions any
   * broker can answer. After every known broker, the bootstrap servers: when the
   * brokers we last heard of are all down (the others were down when we asked),
   * they are the way back in. Throws the failures if nobody answered.
   */
  private async anyBroker<T>(what: string, send: (c: WireBroker, id: number | null) => Promise<T>, order = this.brokerOrder()): Promise<{ result: T; brokerId: number | null }> {
    const failures: string[] = [];
    const tried = new Set<WireBroker>();
    const targets: { id: number | null; conn: () => WireBroker | null; label: string }[] = [
      ...order.map((id) => ({ id, conn: () => this.brokerConn(id), label: `broker ${id}` })),
      ...this.bootstrapServers.map((addr) => ({ id: null, conn: () => this.conn(parseAddress(addr), null), label: addr })),
    ];
    for (const t of targets) {
      const c = t.conn();
      if (!c || tried.has(c)) continue;
      tried.add(c);
      try {
        const result = await send(c, t.id);
        if (t.id !== null) this.suspects.delete(t.id);
        return { result, brokerId: t.id };
      } catch (err) {
        if (err instanceof UnsupportedVersionError) throw err;
        if (t.id !== null) this.suspects.add(t.id);
        failures.push(`${t.label}: ${errorMessage(err)}`);
      }
    }
    throw new KafkaAdminError(`${what}: no broker answered (${failures.join('; ') || 'no broker known'})`);
  }

  /** A broker id we have not heard of may have joined since: ask Metadata again before calling it absent. */
  private async knowBrokers(ids: readonly number[]): Promise<void> {
    if (ids.some((id) => !this.brokers.has(id))) await this.freshMetadata([]).catch(() => undefined);
  }

  private async freshMetadata(topics: string[] | null): Promise<RawMetadata> {
    const { result } = await this.anyBroker('Metadata', (c) => c.kafkajsRequest<RawMetadata>('Metadata', { topics, allowAutoTopicCreation: false }));
    this.learn(result);
    for (const t of result.topicMetadata) t.partitionMetadata.sort((a, b) => a.partitionId - b.partitionId);
    return result;
  }

  /**
   * A request for the controller: to Metadata's controller id, then once more
   * after fresh Metadata if it answered NOT_CONTROLLER (to the controller the
   * new Metadata names) or could not be reached (to another broker if Metadata
   * still names that one: in KRaft any broker forwards).
   */
  private async onController<T>(what: string, send: (c: WireBroker) => Promise<T>, notController: (res: T) => boolean): Promise<T> {
    await this.freshMetadata([]);
    const unreachable = new Set<number>();
    for (let attempt = 0; ; attempt++) {
      const target =
        this.controllerId >= 0 && this.brokers.has(this.controllerId) && !unreachable.has(this.controllerId)
          ? this.controllerId
          : this.brokerOrder().find((id) => !unreachable.has(id));
      if (target === undefined) throw new KafkaAdminError(`${what}: no broker left to ask for the controller`);
      try {
        const res = await send(this.brokerConn(target)!);
        if (attempt === 0 && notController(res)) {
          await this.freshMetadata([]);
          continue;
        }
        return res;
      } catch (err) {
        if (attempt > 0 || err instanceof UnsupportedVersionError) throw err;
        unreachable.add(target);
        this.suspects.add(target);
        await this.freshMetadata([]);
      }
    }
  }

  // ---------------------------------------------------------- metadata

  metadata(topics: string[] | null): Promise<RawMetadata> {
    return this.call('Metadata', () => this.freshMetadata(topics));
  }

  // ---------------------------------------------------------- reassignments and elections

  alterPartitionReassignments(targets: ReassignmentTarget[], timeoutMs?: number): Promise<PartitionResult[]> {
    if (targets.length === 0) return Promise.resolve([]);
    assertUnique('alterPartitionReassignments', targets);
    const serverTimeoutMs = timeoutMs ?? this.timeoutMs;
    const { budgetMs, requestTimeoutMs } = this.heldBudget(serverTimeoutMs);
    return this.call(
      'AlterPartitionReassignments',
      async () => {
        const res = await this.onController(
          'AlterPartitionReassignments',
          (c) => c.request(AlterPartitionReassignments, { targets, timeoutMs: serverTimeoutMs }, { requestTimeoutMs }),
          (r) => r.errorCode === NOT_CONTROLLER,
        );
        const byPartition = new Map<string, { errorCode: number; errorMessage: string | null }>();
        for (const t of res.responses) for (const p of t.partitions) byPartition.set(tpKey(t.name, p.partition), p);
        return targets.map(({ topic, partition }) => {
          // A top-level error (NOT_CONTROLLER, CLUSTER_AUTHORIZATION_FAILED...) applies to every partition, as in Java.
          const p = res.errorCode !== NONE ? { errorCode: res.errorCode, errorMessage: res.errorMessage } : byPartition.get(tpKey(topic, partition));
          if (!p) return { topic, partition, errorCode: UNKNOWN_SERVER_ERROR, error: 'UNKNOWN_SERVER_ERROR: the response has no result for this partition' };
          return { topic, partition, errorCode: p.errorCode, error: describeError(p.errorCode, p.errorMessage) };
        });
      },
      budgetMs,
    );
  }

  listPartitionReassignments(partitions?: TopicPartition[] | null): Promise<OngoingReassignment[]> {
    if (partitions && partitions.length === 0) return Promise.resolve([]);
    return this.call('ListPartitionReassignments', async () => {
      const topics = partitions ? [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) })) : null;
      const res = await this.onController(
        'ListPartitionReassignments',
        (c) => c.kafkajsRequest<RawReassignments>('ListPartitionReassignments', { topics, timeout: this.wire.requestTimeoutMs }),
        (r) => r.errorCode === NOT_CONTROLLER,
      );
      if (res.errorCode !== NONE) throw wholeCallError('ListPartitionReassignments', res.errorCode);
      return (res.topics ?? [])
        .flatMap((t) =>
          (t.partitions ?? []).map((p) => ({
            topic: t.name,
            partition: p.partition,
            replicas: p.replicas ?? [],
            addingReplicas: p.addingReplicas ?? [],
            removingReplicas: p.removingReplicas ?? [],
          })),
        )
        .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    });
  }

  electLeaders(type: ElectionType, partitions: TopicPartition[], timeoutMs?: number): Promise<PartitionResult[]> {
    if (partitions.length === 0) return Promise.resolve([]);
    assertUnique('electLeaders', partitions);
    const serverTimeoutMs = timeoutMs ?? this.timeoutMs;
    const { budgetMs, requestTimeoutMs } = this.heldBudget(serverTimeoutMs);
    // ZooKeeper-mode controllers that lost the role answer NOT_CONTROLLER per partition.
    const notController = (r: ElectLeadersResult) =>
      r.errorCode === NOT_CONTROLLER || (r.results.length > 0 && r.results.every((t) => t.partitions.every((p) => p.errorCode === NOT_CONTROLLER)));
    return this.call(
      'ElectLeaders',
      async () => {
        const res = await this.onController(
          'ElectLeaders',
          (c) => c.request(ElectLeaders, { electionType: type, partitions, timeoutMs: serverTimeoutMs }, { requestTimeoutMs }),
          notController,
        );
        const byPartition = new Map<string, { errorCode: number; errorMessage: string | null }>();
        for (const t of res.results) for (const p of t.partitions) byPartition.set(tpKey(t.topic, p.partition), p);
        return partitions.map(({ topic, partition }) => {
          const p = res.errorCode !== NONE ? { errorCode: res.errorCode, errorMessage: null } : byPartition.get(tpKey(topic, partition));
          if (!p) return { topic, partition, errorCode: UNKNOWN_SERVER_ERROR, error: 'UNKNOWN_SERVER_ERROR: the response has no result for this partition' };
          return { topic, partition, errorCode: p.errorCode, error: describeError(p.errorCode, p.errorMessage) };
        });
      },
      budgetMs,
    );
  }

  // ---------------------------------------------------------- configs

  /**
   * Sends per-destination batches: a broker resource to its own broker (if it
   * cannot be reached, to another broker, whose answer, normally INVALID_REQUEST
   * "Unexpected broker id", is what the caller gets, with why); the rest to any
   * broker. `send` returns one result per resource of its batch, keyed by type/name.
   */
  private async routeConfigResources<R extends { type: ConfigResourceType; name: string }, T>(
    what: string,
    resources: readonly R[],
    send: (c: WireBroker, batch: R[]) => Promise<Map<string, T>>,
    failed: (r: R, errorCode: number, error: string) => T,
  ): Promise<T[]> {
    const key = (type: ConfigResourceType | number, name: string) => `${typeof type === 'number' ? type : CONFIG_RESOURCE_TYPE[type]}\u0000${name}`;
    const seen = new Set<string>();
    for (const r of resources) {
      if (r.type === 'broker' && r.name !== '' && !/^\d+$/.test(r.name)) throw new Error(`${what}: broker resource name must be a broker id or '' (cluster default), got '${r.name}'`);
      if (seen.has(key(r.type, r.name))) throw new Error(`${what}: ${r.type} ${r.name} appears more than once`);
      seen.add(key(r.type, r.name));
    }
    await this.knowBrokers(resources.filter((r) => r.type === 'broker' && r.name !== '').map((r) => Number(r.name)));
    const batches = new Map<number | 'any', R[]>();
    for (const r of resources) {
      const dest = r.type === 'broker' && r.name !== '' ? Number(r.name) : 'any';
      const list = batches.get(dest);
      if (list) list.push(r);
      else batches.set(dest, [r]);
    }
    const results = new Map<string, T>();
    await mapLimit([...batches], this.concurrency, async ([dest, batch]) => {
      const record = (answers: Map<string, T>) => {
        for (const r of batch) {
          const a = answers.get(key(r.type, r.name));
          results.set(key(r.type, r.name), a ?? failed(r, UNKNOWN_SERVER_ERROR, 'UNKNOWN_SERVER_ERROR: the response has no result for this resource'));
        }
      };
      let firstFailure: string | null = null;
      if (dest !== 'any') {
        const c = this.brokerConn(dest);
        if (!c) firstFailure = `broker ${dest} is not in the cluster metadata`;
        else {
          try {
            record(await send(c, batch));
            this.suspects.delete(dest);
            return;
          } catch (err) {
            if (err instanceof UnsupportedVersionError) throw err;
            this.suspects.add(dest);
            firstFailure = `broker ${dest}: ${errorMessage(err)}`;
          }
        }
      }
      try {
        const order = this.brokerOrder().filter((id) => id !== dest);
        const { result } = await this.anyBroker(what, (c) => send(c, batch), order);
        if (firstFailure) {
          // Say why another broker answered for this one.
          for (const [k, v] of result) {
            const x = v as { errorCode?: number; error?: string | null };
            if (x.errorCode && x.error) result.set(k, { ...v, error: `${x.error} (asked another broker: ${firstFailure})` });
          }
        }
        record(result);
      } catch (err) {
        const t = transportError(err, firstFailure ?? what);
        for (const r of batch) results.set(key(r.type, r.name), failed(r, t.errorCode, t.error));
      }
    });
    return resources.map((r) => results.get(key(r.type, r.name))!);
  }

  incrementalAlterConfigs(resources: ConfigAlteration[]): Promise<ConfigResult[]> {
    if (resources.length === 0) return Promise.resolve([]);
    return this.call('IncrementalAlterConfigs', () =>
      this.routeConfigResources<ConfigAlteration, ConfigResult>(
        'IncrementalAlterConfigs',
        resources,
        async (c, batch) => {
          const res = await c.request(IncrementalAlterConfigs, { resources: batch });
          const out = new Map<string, ConfigResult>();
          for (const r of res.responses) {
            const type: ConfigResourceType = r.resourceType === CONFIG_RESOURCE_TYPE.broker ? 'broker' : 'topic';
            out.set(`${r.resourceType}\u0000${r.resourceName}`, { type, name: r.resourceName, errorCode: r.errorCode, error: describeError(r.errorCode, r.errorMessage) });
          }
          return out;
        },
        (r, errorCode, error) => ({ type: r.type, name: r.name, errorCode, error }),
      ),
    );
  }

  describeConfigs(resources: { type: ConfigResourceType; name: string; names?: string[] }[]): Promise<ConfigDescription[]> {
    if (resources.length === 0) return Promise.resolve([]);
    interface RawResource {
      errorCode: number;
      errorMessage: string | null;
      resourceType: number;
      resourceName: string;
      configEntries: RawConfigEntry[];
    }
    return this.call('DescribeConfigs', () =>
      this.routeConfigResources<{ type: ConfigResourceType; name: string; names?: string[] }, ConfigDescription>(
        'DescribeConfigs',
        resources,
        async (c, batch) => {
          const res = await c.kafkajsRequest<{ resources: RawResource[] }>('DescribeConfigs', {
            // kafkajs writes an empty name list as null: every config.
            resources: batch.map((r) => ({ type: CONFIG_RESOURCE_TYPE[r.type], name: r.name, configNames: r.names ?? [] })),
            includeSynonyms: false,
          });
          const out = new Map<string, ConfigDescription>();
          for (const r of res.resources) {
            const type: ConfigResourceType = r.resourceType === CONFIG_RESOURCE_TYPE.broker ? 'broker' : 'topic';
            out.set(`${r.resourceType}\u0000${r.resourceName}`, {
              type,
              name: r.resourceName,
              errorCode: r.errorCode,
              error: describeError(r.errorCode, r.errorMessage),
              entries: (r.configEntries ?? []).map((e) => ({
                name: e.configName,
                value: e.configValue,
                isDefault: e.isDefault,
                source: e.configSource,
                isSensitive: e.isSensitive,
                readOnly: e.readOnly,
              })),
            });
          }
          return out;
        },
        (r, errorCode, error) => ({ type: r.type, name: r.name, errorCode, error, entries: [] }),
      ),
    );
  }

  // ---------------------------------------------------------- log dirs and offsets

  describeLogDirs(brokerIds: number[], partitions: TopicPartition[] | null): Promise<Map<number, BrokerLogDirs>> {
    if (this.closed) return Promise.reject(new KafkaAdminError('the admin client is closed'));
    const ids = [...new Set(brokerIds)];
    const out = new Map<number, BrokerLogDirs>();
    // No outer timeout: each step has its own, so a hung broker becomes its entry's error.
    return withTimeout(this.knowBrokers(ids), this.timeoutMs, 'Metadata').catch(() => undefined).then(() => mapLimit(ids, this.concurrency, async (id) => {
      const c = this.brokerConn(id);
      if (!c) {
        out.set(id, { error: `broker ${id} is not in the cluster metadata (not registered, or fenced)`, logDirs: [] });
        return;
      }
      try {
        const res = await withTimeout(c.request(DescribeLogDirs, { partitions }), this.timeoutMs, `DescribeLogDirs on broker ${id}`);
        this.suspects.delete(id);
        if (res.errorCode !== NONE) {
          out.set(id, { error: describeError(res.errorCode), logDirs: [] });
          return;
        }
        out.set(id, {
          error: null,
          logDirs: res.results.map((d) => ({
            path: d.logDir,
            errorCode: d.errorCode,
            error: describeError(d.errorCode),
            totalBytes: d.totalBytes >= 0 ? d.totalBytes : null,
            usableBytes: d.usableBytes >= 0 ? d.usableBytes : null,
            partitions: d.topics
              .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, sizeBytes: p.sizeBytes, offsetLag: p.offsetLag, isFuture: p.isFuture })))
              .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition),
          })),
        });
      } catch (err) {
        this.suspects.add(id);
        out.set(id, { error: transportError(err, `broker ${id}`).error, logDirs: [] });
      }
    })).then(() => new Map(ids.map((id) => [id, out.get(id)!])));
  }

  listOffsets(partitions: TopicPartition[], which: 'earliest' | 'latest' | 'last-stable'): Promise<PartitionOffset[]> {
    if (partitions.length === 0) return Promise.resolve([]);
    assertUnique('listOffsets', partitions);
    const timestamp = which === 'earliest' ? -2 : -1;
    // READ_COMMITTED answers "latest" with the last stable offset (Kafka's LSO).
    const isolationLevel = which === 'last-stable' ? 1 : 0;
    return this.call('ListOffsets', async () => {
      const results = new Map<string, PartitionOffset>();
      const set = (topic: string, partition: number, errorCode: number, offset: number | null, error: string | null = describeError(errorCode)) =>
        results.set(tpKey(topic, partition), { topic, partition, offset, errorCode, error });
      // A leader that moved between Metadata and ListOffsets: one more round with fresh Metadata.
      const retriable = new Set([NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, UNKNOWN_LEADER_EPOCH, FENCED_LEADER_EPOCH, REQUEST_TIMED_OUT, NETWORK_EXCEPTION]);
      let pending = partitions;
      for (let round = 0; round < 2 && pending.length > 0; round++) {
        const md = await this.freshMetadata([...new Set(pending.map((p) => p.topic))]);
        const leaders = new Map<string, number>();
        for (const t of md.topicMetadata) for (const p of t.partitionMetadata) leaders.set(tpKey(t.topic, p.partitionId), p.leader);
        const topicErrors = new Map(md.topicMetadata.map((t) => [t.topic, t.topicErrorCode]));
        const byLeader = new Map<number, TopicPartition[]>();
        for (const tp of pending) {
          const leader = leaders.get(tpKey(tp.topic, tp.partition));
          if (leader === undefined) set(tp.topic, tp.partition, topicErrors.get(tp.topic) || UNKNOWN_TOPIC_OR_PARTITION, null);
          else if (leader < 0 || !this.brokers.has(leader)) set(tp.topic, tp.partition, LEADER_NOT_AVAILABLE, null);
          else byLeader.set(leader, [...(byLeader.get(leader) ?? []), tp]);
        }
        await mapLimit([...byLeader], this.concurrency, async ([leader, tps]) => {
          try {
            const res = await this.brokerConn(leader)!.kafkajsRequest<RawListOffsets>('ListOffsets', {
              replicaId: -1,
              // READ_UNCOMMITTED: the high watermark, as kafka-get-offsets.sh and Java's Admin report it.
              isolationLevel,
              topics: [...groupByTopic(tps)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition, timestamp })) })),
            });
            for (const t of res.responses) {
              for (const p of t.partitions) {
                const raw = p.offset ?? p.offsets?.[0];
                set(t.topic, p.partition, p.errorCode, p.errorCode === NONE && raw !== undefined ? Number(raw) : null);
              }
            }
            for (const tp of tps) if (!results.has(tpKey(tp.topic, tp.partition))) set(tp.topic, tp.partition, UNKNOWN_SERVER_ERROR, null, 'UNKNOWN_SERVER_ERROR: the response has no result for this partition');
          } catch (err) {
            const t = transportError(err, `leader ${leader}`);
            for (const tp of tps) set(tp.topic, tp.partition, t.errorCode, null, t.error);
          }
        });
        if (round === 0) pending = pending.filter((tp) => retriable.has(results.get(tpKey(tp.topic, tp.partition))?.errorCode ?? NONE));
      }
      return partitions.map((tp) => results.get(tpKey(tp.topic, tp.partition))!);
    });
  }

  // ---------------------------------------------------------- transactions (lib/kafka/transactions-admin.ts)

  private txnRouting(): TxnRouting {
    return {
      leaders: async (topics) => {
        const md = await this.freshMetadata(topics);
        const out = new Map<string, number>();
        for (const t of md.topicMetadata) for (const p of t.partitionMetadata) out.set(tpKey(t.topic, p.partitionId), this.brokers.has(p.leader) ? p.leader : -1);
        return out;
      },
      brokerConn: (id) => this.brokerConn(id),
      brokerIds: async () => (await this.freshMetadata([]), [...this.brokers.keys()].sort((a, b) => a - b)),
      anyBroker: async (what, send) => (await this.anyBroker(what, (c) => send(c))).result,
      connTo: (host, port, nodeId) => this.conn({ host, port }, nodeId),
      concurrency: this.concurrency,
    };
  }

  describeProducers(partitions: TopicPartition[], options: { brokerId?: number } = {}): Promise<PartitionProducers[]> {
    if (partitions.length === 0) return Promise.resolve([]);
    assertUnique('describeProducers', partitions);
    return this.call('DescribeProducers', () => describeProducersVia(this.txnRouting(), partitions, options.brokerId));
  }

  listTransactions(filter: { producerIds?: number[]; states?: string[] } = {}): Promise<TransactionList> {
    return this.call('ListTransactions', () => listTransactionsVia(this.txnRouting(), filter));
  }

  describeTransactions(transactionalIds: string[]): Promise<TransactionDescription[]> {
    if (transactionalIds.length === 0) return Promise.resolve([]);
    return this.call('DescribeTransactions', () => describeTransactionsVia(this.txnRouting(), transactionalIds));
  }

  abortTransaction(spec: AbortSpec): Promise<{ errorCode: number; error: string | null; leader: number | null }> {
    return this.call('WriteTxnMarkers', () => abortTransactionVia(this.txnRouting(), spec));
  }

  // ---------------------------------------------------------- groups

  listGroups(): Promise<GroupListing[]> {
    return this.call('ListGroups', async () => {
      await this.freshMetadata([]);
      const groups = new Map<string, GroupListing>();
      const failures: string[] = [];
      await mapLimit(this.brokerOrder(), this.concurrency, async (id) => {
        try {
          const res = await this.brokerConn(id)!.kafkajsRequest<RawListGroups>('ListGroups');
          if (res.errorCode !== NONE) failures.push(`broker ${id}: ${describeError(res.errorCode)}`);
          for (const g of res.groups) groups.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType });
        } catch (err) {
          failures.push(`broker ${id}: ${errorMessage(err)}`);
        }
      });
      if (failures.length > 0) throw new KafkaAdminError(`ListGroups: the list would miss these brokers' groups: ${failures.sort().join('; ')}`);
      return [...groups.values()].sort((a, b) => a.groupId.localeCompare(b.groupId));
    });
  }

  /** The group's coordinator, from FindCoordinator on any broker. */
  private async findCoordinator(groupId: string): Promise<{ errorCode: number; error: string | null; nodeId: number; conn: WireBroker | null }> {
    const { result } = await this.anyBroker(`FindCoordinator ${groupId}`, (c) => c.kafkajsRequest<RawFindCoordinator>('GroupCoordinator', { groupId }));
    if (result.errorCode !== NONE) return { errorCode: result.errorCode, error: describeError(result.errorCode, result.errorMessage), nodeId: -1, conn: null };
    const { nodeId, host, port } = result.coordinator;
    return { errorCode: NONE, error: null, nodeId, conn: this.conn({ host, port }, nodeId) };
  }

  /**
   * Runs `fn` against the group's coordinator; once more after a new
   * FindCoordinator when the answer says it moved (NOT_COORDINATOR,
   * COORDINATOR_NOT_AVAILABLE) or it could not be reached.
   */
  private async onCoordinator<T>(groupId: string, fn: (c: WireBroker, nodeId: number) => Promise<T>, moved: (res: T) => boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const coord = await this.findCoordinator(groupId);
      if (!coord.conn) throw wholeCallError(`FindCoordinator for group ${groupId}`, coord.errorCode, coord.error?.replace(/^[A-Z_]+: /, ''));
      try {
        const res = await fn(coord.conn, coord.nodeId);
        if (attempt === 0 && moved(res)) continue;
        return res;
      } catch (err) {
        if (attempt > 0 || err instanceof UnsupportedVersionError) throw err;
      }
    }
  }

  describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    const ids = [...new Set(groupIds)];
    if (ids.length === 0) return Promise.resolve([]);
    return this.call('DescribeGroups', async () => {
      const out = new Map<string, GroupDescription>();
      const unknown = (groupId: string, errorCode: number, error: string | null, coordinator: number | null): GroupDescription => ({
        groupId,
        errorCode,
        error,
        state: 'Unknown',
        protocolType: '',
        members: 0,
        coordinator,
      });
      const describeOn = async (pending: string[], final: boolean) => {
        // FindCoordinator v0-v3 (kafkajs has v0-v2) takes one group per request.
        const byCoordinator = new Map<number, { conn: WireBroker; ids: string[] }>();
        await mapLimit(pending, this.concurrency, async (groupId) => {
          try {
            const coord = await this.findCoordinator(groupId);
            if (!coord.conn) {
              // No coordinator yet (its offsets partition has no leader, or is being loaded elsewhere): ask once more.
              if (!final && coord.errorCode === COORDINATOR_NOT_AVAILABLE) return;
              return void out.set(groupId, unknown(groupId, coord.errorCode, coord.error, null));
            }
            const entry = byCoordinator.get(coord.nodeId) ?? { conn: coord.conn, ids: [] };
            entry.ids.push(groupId);
            byCoordinator.set(coord.nodeId, entry);
          } catch (err) {
            if (!final) return;
            const t = transportError(err, 'FindCoordinator');
            out.set(groupId, unknown(groupId, t.errorCode, t.error, null));
          }
        });
        await mapLimit([...byCoordinator], this.concurrency, async ([nodeId, { conn, ids }]) => {
          try {
            const res = await conn.kafkajsRequest<RawDescribeGroupsFull>('DescribeGroups', { groupIds: ids });
            for (const g of res.groups) {
              if (!ids.includes(g.groupId)) continue;
              if (!final && (g.errorCode === NOT_COORDINATOR || g.errorCode === COORDINATOR_NOT_AVAILABLE)) continue;
              out.set(g.groupId, {
                groupId: g.groupId,
                errorCode: g.errorCode,
                error: describeError(g.errorCode),
                state: g.errorCode === NONE ? g.state : 'Unknown',
                protocolType: g.protocolType ?? '',
                members: g.errorCode === NONE ? (g.members ?? []).length : 0,
                coordinator: nodeId,
              });
            }
          } catch (err) {
            if (!final) return;
            const t = transportError(err, `coordinator ${nodeId}`);
            for (const id of ids) out.set(id, unknown(id, t.errorCode, t.error, nodeId));
          }
        });
      };
      await describeOn(ids, false);
      // Coordinators that moved or did not answer: find them again, once.
      const again = ids.filter((id) => !out.has(id));
      if (again.length > 0) await describeOn(again, true);
      return ids.map((id) => out.get(id) ?? unknown(id, UNKNOWN_SERVER_ERROR, 'UNKNOWN_SERVER_ERROR: the coordinator did not describe this group', null));
    });
  }

  fetchCommittedOffsets(groupId: string, partitions?: TopicPartition[]): Promise<CommittedOffset[]> {
    if (partitions && partitions.length === 0) return Promise.resolve([]);
    return this.call(`OffsetFetch ${groupId}`, async () => {
      // kafkajs writes no topics as the null array: every partition the group committed (v2+).
      const topics = partitions ? [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition })) })) : [];
      const res = await this.onCoordinator(
        groupId,
        (c) => c.kafkajsRequest<RawOffsetFetch>('OffsetFetch', { groupId, topics }),
        (r) => r.errorCode === NOT_COORDINATOR || r.errorCode === COORDINATOR_NOT_AVAILABLE,
      );
      if (res.errorCode) throw wholeCallError(`OffsetFetch for group ${groupId}`, res.errorCode);
      return res.responses
        .flatMap((t) =>
          t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: Number(p.offset), errorCode: p.errorCode, error: describeError(p.errorCode) })),
        )
        .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
    });
  }

  commitOffsets(groupId: string, offsets: (TopicPartition & { offset: number })[]): Promise<PartitionResult[]> {
    if (offsets.length === 0) return Promise.resolve([]);
    assertUnique('commitOffsets', offsets);
    return this.call(`OffsetCommit ${groupId}`, async () => {
      const topics = [...groupByTopic(offsets)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => ({ partition: p.partition, offset: String(p.offset) })) }));
      const res = await this.onCoordinator(
        groupId,
        // Generation -1 and no member id: an admin commit, as kafka-consumer-groups.sh --reset-offsets sends.
        (c) => c.kafkajsRequest<RawOffsetCommit>('OffsetCommit', { groupId, groupGenerationId: -1, memberId: '', retentionTime: -1, topics }),
        (r) => r.responses.length > 0 && r.responses.every((t) => t.partitions.every((p) => p.errorCode === NOT_COORDINATOR || p.errorCode === COORDINATOR_NOT_AVAILABLE)),
      );
      const byPartition = new Map<string, number>();
      for (const t of res.responses) for (const p of t.partitions) byPartition.set(tpKey(t.topic, p.partition), p.errorCode);
      return offsets.map(({ topic, partition }) => {
        const errorCode = byPartition.get(tpKey(topic, partition));
        if (errorCode === undefined) return { topic, partition, errorCode: UNKNOWN_SERVER_ERROR, error: 'UNKNOWN_SERVER_ERROR: the response has no result for this partition' };
        return { topic, partition, errorCode, error: describeError(errorCode) };
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const conns = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(conns.map((c) => c.disconnect()));
  }
}
