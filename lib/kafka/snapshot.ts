// One bounded pass over a cluster's metadata: brokers and controller, every
// topic (internal ones included) with leader / replicas / ISR / offline
// replicas, the topic configs detectors need, in-progress reassignments, and
// consumer groups with their coordinator state. Every call runs under a
// timeout; a broker that fails becomes `unreachableBrokers` + `errors` and the
// snapshot is marked partial rather than thrown away. Its calls go through the
// admin's router (router/), over one Nodes bounded by the pass's deadline:
// the same connections, routes and result mapping as every admin call.

import type { BrokerInfo, ClusterSnapshot, SnapshotError, TopicState, TransactionsView } from './types.ts';
import { Nodes, type OpenConnections } from './router/nodes.ts';
import { Router } from './router/router.ts';
import { type ConnectionConfig, wireOptionsFor } from './connection.ts';
import { CONSUMER_OFFSETS_TOPIC, DEFAULT_OFFSETS_TOPIC_PARTITIONS } from './group-partition.ts';
import type { RawMetadata, WireBroker } from './wire.ts';
import { withTimeout } from './limits.ts';
import { readElrInto } from './partition-details.ts';
import { describeConfigs, listGroupsPass, readGroupsAndLag, readReassignmentsInto, topicsOf, type SnapshotPass } from './cluster-reads.ts';
import { readRegisteredBrokers } from './registered-brokers-read.ts';
import { NO_QUORUM_LEADER, QUORUM_READ_TIMEOUT_MS, readQuorum, whenQuorumLost } from './quorum-read.ts';
import type { RegisteredBrokersView } from './registered-brokers-view.ts';
import { ResponderError, errorMessage } from '../runtime/errors.ts';
import { KeyedSemaphores } from '../runtime/semaphore.ts';


export interface SnapshotOptions {
  /** Limit to these topics (__consumer_offsets is always added, for group attribution). */
  topics?: string[] | null;
  /** Budget for the whole pass. */
  timeoutMs: number;
  /** Requests in flight at once across the cluster. */
  concurrency?: number;
  /** Topics per DescribeConfigs request. */
  configBatchSize?: number;
  /** Groups per DescribeGroups request. */
  groupBatchSize?: number;
  /** Read consumer groups' committed offsets and their partitions' log start/end (default true). */
  consumers?: boolean;
  /**
   * When some group lags in the first consumer sample, read a second one this
   * long after it (lag is judged over samples). 0 or absent: one sample.
   */
  consumerSampleWindowMs?: number;
  /**
   * Read alongside the rest of the snapshot, over its connections (no
   * handshakes of its own), once every broker has been reached: its answer is
   * the snapshot's `transactions`.
   */
  transactions?: (shared: SharedConnections) => Promise<TransactionsView>;
  /** Injected for tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a read alongside the snapshot gets: its open connections, the partitions' leaders, who answered, the budget left. */
export interface SharedConnections {
  open: OpenConnections;
  topics: readonly TopicState[];
  /** Brokers that answered the ListGroups pass. */
  reachable: number[];
  timeoutMs: number;
}

export class BootstrapUnreachableError extends ResponderError {
  readonly failure = 'transient';
  constructor(message: string) {
    super(message);
    this.name = 'BootstrapUnreachableError';
  }
}

/** One snapshot per cluster at a time in this process: a sick cluster is read once, not once per request. */
const snapshotPerCluster = new KeyedSemaphores();

/**
 * Snapshots of one cluster (same bootstrap list) run one after another; the
 * wait counts against the caller's budget, and a caller whose budget runs out
 * while waiting gets a timeout, never an unbounded queue.
 */
export async function takeSnapshot(config: ConnectionConfig, options: SnapshotOptions): Promise<ClusterSnapshot> {
  const now = options.now ?? Date.now;
  const started = now();
  const turn = snapshotPerCluster.for([...config.bootstrap].sort().join(','), 1).acquire();
  let release: () => void;
  try {
    release = await withTimeout(turn, options.timeoutMs, 'waiting for the snapshot of this cluster already running');
  } catch (err) {
    // Give the slot back once it is ours, or it would be held for ever.
    void turn.then((r) => r());
    throw err;
  }
  try {
    return await snapshotPass(config, { ...options, timeoutMs: Math.max(1000, options.timeoutMs - (now() - started)) });
  } finally {
    release();
  }
}

async function snapshotPass(config: ConnectionConfig, options: SnapshotOptions): Promise<ClusterSnapshot> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const remaining = () => Math.max(1, deadline - now());
  const budget = (perCall: number) => Math.min(perCall, remaining());
  const wireOptions = wireOptionsFor(config, options.timeoutMs);
  const concurrency = options.concurrency ?? 8;
  // A routed call of the snapshot (reassignments) gets one request timeout, as each of its reads always has.
  const nodes = new Nodes(config.bootstrap, wireOptions, wireOptions.requestTimeoutMs, concurrency, null, { remaining });
  const router = new Router(nodes);
  const errors: SnapshotError[] = [];
  // The brokers this pass found down (Nodes.down): not asked again, and reported.
  const unreachable = nodes.down;
  let transactionsRead: Promise<TransactionsView> | undefined;
  const pass: SnapshotPass = { wireOptions, concurrency, errors, budget, remaining, now, nodes, router };

  try {
    const topicFilter = options.topics && options.topics.length > 0 ? [...new Set([...options.topics, CONSUMER_OFFSETS_TOPIC])] : null;
    const metadata = await bootstrapMetadata(nodes, topicFilter, wireOptions.requestTimeoutMs + wireOptions.connectionTimeoutMs * 2);
    const takenAt = new Date(now()).toISOString();

    const brokers = brokersOf(metadata);
    // A bootstrap server Metadata advertises by the same address keeps its connection (Nodes.brokerConn).
    const brokerConns = new Map(brokers.map((b) => [b.id, nodes.brokerConn(b.id)!]));
    const fail = (brokerId: number, what: string, err: unknown) => {
      errors.push({ scope: `broker:${brokerId}`, message: `${what}: ${errorMessage(err)}` });
    };
    /** Brokers to use for cluster-wide questions, answering ones first. */
    const healthyBrokers = () => brokers.filter((b) => !unreachable.has(b.id)).map((b) => b.id);

    const topics = topicsOf(metadata, errors);
    const offsetsTopic = topics.find((t) => t.name === CONSUMER_OFFSETS_TOPIC);
    const offsetsTopicPartitions = offsetsTopic?.partitions.length || DEFAULT_OFFSETS_TOPIC_PARTITIONS;

    // Liveness first, so the slower questions go to brokers that answer. This is
    // also the ListGroups pass: each broker lists the groups it coordinates.
    const { listed, coordinatorErrors } = await listGroupsPass(pass, brokers, fail);

    // From here on, beside everything else the snapshot asks.
    if (options.transactions) {
      const shared = { open: nodes.openConnections(), topics, reachable: healthyBrokers(), timeoutMs: remaining() };
      transactionsRead = readTransactions(options.transactions, shared, now());
    }

    const alongside = { topics, topicFilter, healthyBrokers, brokerConns, configBatchSize: options.configBatchSize ?? 200 };
    const { quorumRead, configs, partitionSource, registeredBrokers } = await readAlongsideQuorum(pass, alongside);
    for (const t of topics) t.config = configs.get(t.name) ?? null;

    const { groups, consumerSamples } = await readGroupsAndLag(pass, { listed, offsetsTopic, offsetsTopicPartitions, topics, brokerConns, unreachable }, options);

    const transactions = await transactionsRead;
    return {
      takenAt,
      clusterId: metadata.clusterId ?? null,
      controllerId: metadata.controllerId >= 0 ? metadata.controllerId : null,
      brokers,
      topics,
      groups,
      offsetsTopicPartitions,
      unreachableBrokers: [...unreachable].sort((a, b) => a - b),
      errors,
      partial: isPartial(unreachable, errors),
      coordinatorErrors,
      topicFilter: topicFilter ? (options.topics ?? null) : null,
      partitionSource,
      ...(consumerSamples.length > 0 ? { consumerSamples } : {}),
      ...(transactions ? { transactions } : {}),
      registeredBrokers,
      quorum: await quorumRead,
    };
  } finally {
    // Its connections are the snapshot's: they close once it is done with them.
    await transactionsRead;
    await nodes.close();
  }
}

/** A broker did not answer, or a read failed; topic and group errors are Kafka's answers, and unknown ELR is said where it matters (findings, plans). */
function isPartial(unreachable: ReadonlySet<number>, errors: readonly SnapshotError[]): boolean {
  return unreachable.size > 0 || errors.some((e) => !e.scope.startsWith('topic:') && !e.scope.startsWith('groups:') && e.scope !== 'elr');
}

/** Metadata's brokers, by id. */
function brokersOf(metadata: RawMetadata): BrokerInfo[] {
  return metadata.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null })).sort((a, b) => a.id - b.id);
}

/** The read alongside the snapshot (SnapshotOptions.transactions), started now; a failure is its view's status. */
function readTransactions(read: (shared: SharedConnections) => Promise<TransactionsView>, shared: SharedConnections, at: number): Promise<TransactionsView> {
  return Promise.resolve()
    .then(() => read(shared))
    .catch((err: unknown) => ({ status: 'failed', reason: errorMessage(err), at, maxTransactionTimeoutMs: null, partitions: [], errors: [] }));
}

/**
 * The KRaft quorum, through two brokers under a short bound, and at the same
 * time the topic configs, reassignments, ELR and registered brokers: reads only
 * the controller answers wait for the quorum, and are not sent without a leader.
 */
async function readAlongsideQuorum(
  pass: SnapshotPass,
  input: {
    topics: TopicState[];
    topicFilter: string[] | null;
    healthyBrokers: () => number[];
    brokerConns: Map<number, WireBroker>;
    configBatchSize: number;
  },
) {
  const { topics, topicFilter, healthyBrokers, brokerConns } = input;
  const { budget, errors, wireOptions, now, nodes } = pass;
  const open = (host: string, port: number, nodeId: number | null) => nodes.dedicated({ host, port }, nodeId);
  const quorumRead = readQuorum(healthyBrokers().map((id) => brokerConns.get(id)!), { open, timeoutMs: budget(QUORUM_READ_TIMEOUT_MS), now });
  // Reads the brokers answer from their metadata but that an absent controller could hold: once the quorum is
  // known lost they stop waiting, and the snapshot says why (topics keep Metadata's view).
  const quorumLost = whenQuorumLost(quorumRead).then(() => NO_QUORUM_LEADER);
  const [configs, , partitionSource, registeredBrokers] = await Promise.all([
    describeConfigs(pass, topics.map((t) => t.name), input.configBatchSize),
    readReassignmentsInto(pass, topics, quorumRead),
    // Same snapshot, ELR added where the brokers serve it (else Metadata's view stands).
    readElrInto(topics, healthyBrokers().map((id) => brokerConns.get(id)!), topicFilter, () => budget(wireOptions.requestTimeoutMs), errors, quorumLost),
    // Fenced brokers (KIP-1073), where the line can list them; never an error (the view says why not).
    Promise.race([
      readRegisteredBrokers(healthyBrokers().map((id) => brokerConns.get(id)!), () => budget(wireOptions.requestTimeoutMs)),
      quorumLost.then((reason): RegisteredBrokersView => ({ status: 'failed', brokers: [], reason, answeredBy: null })),
    ]),
  ]);
  return { quorumRead, configs, partitionSource, registeredBrokers };
}

/** Metadata from the bootstrap servers (Nodes.bootstrap), or why none answered. */
async function bootstrapMetadata(nodes: Nodes, topics: string[] | null, perAttemptMs: number): Promise<RawMetadata> {
  try {
    return await nodes.bootstrap(topics, perAttemptMs);
  } catch (err) {
    throw new BootstrapUnreachableError(errorMessage(err));
  }
}
