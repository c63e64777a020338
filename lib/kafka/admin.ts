// Kafka admin operations over the Kafka protocol, for what kafkajs 2.2.4's
// Admin client cannot do (ElectLeaders, IncrementalAlterConfigs,
// DescribeLogDirs, cancelling a reassignment) or does badly (it throws on the
// first per-partition error code, and retries). Every result keeps Kafka's
// error codes and names per partition / resource / group; only failures of a
// whole call throw, as KafkaAdminError.
//
// One folder per API in api/ (its codec, route and results), listed in
// api/index.ts; router/router.ts routes and retries (the rules are written
// there); router/nodes.ts holds the connections and what Metadata said. This
// façade gives each call its name and its argument checks.

import { type ConnectionConfig, wireOptionsFor } from './connection.ts';
import { KafkaAdminError } from './errors.ts';
import { errorMessage } from '../runtime/errors.ts';
import { assertUnique } from './partitions.ts';
import { transportError } from './router/results.ts';
import { Nodes, type OpenConnections } from './router/nodes.ts';
import { Router } from './router/router.ts';
import { KAFKA_APIS } from './api/index.ts';
import type { ConfigQuery } from './api/describe-configs/call.ts';
import { describeGroupsOfEitherProtocol } from './api/consumer-group-describe/call.ts';
import type { PartitionProducers } from './api/describe-producers/call.ts';
import type { TransactionDescription } from './api/describe-transactions/call.ts';
import type { TransactionList } from './api/list-transactions/call.ts';
import type { AbortSpec } from './api/write-txn-markers/call.ts';
import type {
  AdminOptions,
  BrokerLogDirs,
  CommittedOffset,
  ConfigAlteration,
  ConfigDescription,
  ConfigResult,
  ElectionType,
  GroupDescription,
  GroupListing,
  KafkaAdmin,
  OngoingReassignment,
  PartitionOffset,
  PartitionResult,
  RawMetadata,
  ReassignmentTarget,
  TopicPartition,
} from './admin/types.ts';

export type * from './admin/types.ts';
export type { OpenConnections } from './router/nodes.ts';
export { KafkaAdminError } from './errors.ts';
export { describeError } from './errors.ts';

export async function openAdmin(config: ConnectionConfig, options: AdminOptions): Promise<KafkaAdmin> {
  const nodes = new Nodes(config.bootstrap, wireOptionsFor(config, options.timeoutMs), options.timeoutMs, options.concurrency ?? 8, options.knownLeaders ?? null);
  try {
    await nodes.bootstrap();
  } catch (err) {
    await nodes.close();
    throw err;
  }
  return new Admin(nodes);
}

/**
 * An admin over connections a snapshot already has open: no bootstrap
 * Metadata, no connect or ApiVersions of its own; they stay open at close
 * (their owner closes them), any it opens itself do not.
 */
export function adminOver(config: ConnectionConfig, open: OpenConnections, options: AdminOptions): KafkaAdmin {
  const nodes = new Nodes(config.bootstrap, open.wire, options.timeoutMs, options.concurrency ?? 8, options.knownLeaders ?? null);
  nodes.adopt(open);
  return new Admin(nodes);
}

class Admin implements KafkaAdmin {
  private readonly router: Router;

  constructor(private readonly nodes: Nodes) {
    this.router = new Router(nodes);
  }

  metadata(topics: string[] | null): Promise<RawMetadata> {
    return this.router.call('Metadata', () => this.nodes.freshMetadata(topics));
  }

  alterPartitionReassignments(targets: ReassignmentTarget[], timeoutMs?: number): Promise<PartitionResult[]> {
    if (targets.length === 0) return Promise.resolve([]);
    assertUnique('alterPartitionReassignments', targets);
    return this.router.single(KAFKA_APIS.AlterPartitionReassignments.call, { targets, timeoutMs: timeoutMs ?? this.nodes.timeoutMs });
  }

  listPartitionReassignments(partitions?: TopicPartition[] | null): Promise<OngoingReassignment[]> {
    if (partitions && partitions.length === 0) return Promise.resolve([]);
    return this.router.single(KAFKA_APIS.ListPartitionReassignments.call, partitions ?? null);
  }

  electLeaders(type: ElectionType, partitions: TopicPartition[], timeoutMs?: number): Promise<PartitionResult[]> {
    if (partitions.length === 0) return Promise.resolve([]);
    assertUnique('electLeaders', partitions);
    return this.router.single(KAFKA_APIS.ElectLeaders.call, { type, partitions, timeoutMs: timeoutMs ?? this.nodes.timeoutMs });
  }

  incrementalAlterConfigs(resources: ConfigAlteration[]): Promise<ConfigResult[]> {
    if (resources.length === 0) return Promise.resolve([]);
    return this.router.fanOut(KAFKA_APIS.IncrementalAlterConfigs.call, resources);
  }

  describeConfigs(resources: ConfigQuery[]): Promise<ConfigDescription[]> {
    if (resources.length === 0) return Promise.resolve([]);
    return this.router.fanOut(KAFKA_APIS.DescribeConfigs.call, resources);
  }

  describeLogDirs(brokerIds: number[], partitions: TopicPartition[] | null): Promise<Map<number, BrokerLogDirs>> {
    if (this.nodes.closed) return Promise.reject(new KafkaAdminError('the admin client is closed'));
    const ids = [...new Set(brokerIds)];
    const out = new Map<number, BrokerLogDirs>();
    // Each broker under its own timeout, so a hung broker becomes its entry's error.
    return this.router
      .call('Metadata', () => this.nodes.knowBrokers(ids))
      .catch(() => undefined)
      .then(() =>
        this.nodes.each(ids, async (brokerId) => {
          if (!this.nodes.brokers.has(brokerId)) {
            return void out.set(brokerId, { error: `broker ${brokerId} is not in the cluster metadata (not registered, or fenced)`, logDirs: [] });
          }
          try {
            out.set(brokerId, await this.router.single(KAFKA_APIS.DescribeLogDirs.call, { brokerId, partitions }));
          } catch (err) {
            out.set(brokerId, { error: transportError(err, `broker ${brokerId}`).error, logDirs: [] });
          }
        }),
      )
      .then(() => new Map(ids.map((id) => [id, out.get(id)!])));
  }

  listOffsets(partitions: TopicPartition[], which: 'earliest' | 'latest' | 'last-stable'): Promise<PartitionOffset[]> {
    if (partitions.length === 0) return Promise.resolve([]);
    assertUnique('listOffsets', partitions);
    const timestamp = which === 'earliest' ? -2 : -1;
    // READ_COMMITTED answers "latest" with the last stable offset (Kafka's LSO).
    const readCommitted = which === 'last-stable';
    return this.router.fanOut(
      KAFKA_APIS.ListOffsets.call,
      partitions.map(({ topic, partition }) => ({ topic, partition, timestamp, readCommitted })),
    );
  }

  // ------------------------------------------------- transactions (KIP-664): APIs that spread their own items over the router's connections

  describeProducers(partitions: TopicPartition[], options: { brokerId?: number } = {}): Promise<PartitionProducers[]> {
    if (partitions.length === 0) return Promise.resolve([]);
    assertUnique('describeProducers', partitions);
    return this.router.call('DescribeProducers', () => KAFKA_APIS.DescribeProducers.call(this.router.lend(), partitions, options.brokerId));
  }

  listTransactions(filter: { producerIds?: number[]; states?: string[] } = {}): Promise<TransactionList> {
    return this.router.call('ListTransactions', () => KAFKA_APIS.ListTransactions.call(this.router.lend(), filter));
  }

  describeTransactions(transactionalIds: string[]): Promise<TransactionDescription[]> {
    if (transactionalIds.length === 0) return Promise.resolve([]);
    return this.router.call('DescribeTransactions', () => KAFKA_APIS.DescribeTransactions.call(this.router.lend(), transactionalIds));
  }

  abortTransaction(spec: AbortSpec): Promise<{ errorCode: number; error: string | null; leader: number | null }> {
    return this.router.call('WriteTxnMarkers', () => KAFKA_APIS.WriteTxnMarkers.call(this.router.lend(), spec));
  }

  listGroups(): Promise<GroupListing[]> {
    return this.router.call('ListGroups', async () => {
      await this.nodes.freshMetadata([]);
      const groups = new Map<string, GroupListing>();
      const failures: string[] = [];
      await this.nodes.each(this.nodes.brokerOrder(), async (id) => {
        try {
          const res = await this.router.single(KAFKA_APIS.ListGroups.call, id);
          if (res.error) failures.push(`broker ${id}: ${res.error}`);
          for (const g of res.groups) groups.set(g.groupId, g);
        } catch (err) {
          failures.push(`broker ${id}: ${errorMessage(err)}`);
        }
      });
      if (failures.length > 0) throw new KafkaAdminError(`ListGroups: the list would miss these brokers' groups: ${failures.sort().join('; ')}`);
      return [...groups.values()].sort((a, b) => a.groupId.localeCompare(b.groupId));
    });
  }

  describeGroups(groupIds: string[]): Promise<GroupDescription[]> {
    const ids = [...new Set(groupIds)];
    if (ids.length === 0) return Promise.resolve([]);
    // DescribeGroups, then ConsumerGroupDescribe for the groups it does not know (KIP-848's protocol).
    return describeGroupsOfEitherProtocol(this.router, ids);
  }

  fetchCommittedOffsets(groupId: string, partitions?: TopicPartition[]): Promise<CommittedOffset[]> {
    if (partitions && partitions.length === 0) return Promise.resolve([]);
    return this.router.single(KAFKA_APIS.OffsetFetch.call, { groupId, partitions });
  }

  commitOffsets(groupId: string, offsets: (TopicPartition & { offset: number })[]): Promise<PartitionResult[]> {
    if (offsets.length === 0) return Promise.resolve([]);
    assertUnique('commitOffsets', offsets);
    return this.router.single(KAFKA_APIS.OffsetCommit.call, { groupId, offsets });
  }

  close(): Promise<void> {
    return this.nodes.close();
  }
}
