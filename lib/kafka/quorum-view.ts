// The KRaft controller quorum as one diagnosis sees it: who leads the metadata
// log (__cluster_metadata-0) in which epoch, its high watermark, and each voter
// (controller) and observer (broker, or a controller not yet a voter) with its
// log end offset, its lag and when it last fetched. Pure: built from one
// DescribeQuorum answer (lib/kafka/quorum-read.ts asks it), no I/O here.
//
// kraft.version (static voters from controller.quorum.voters = 0, dynamic voters
// in the metadata log = 1, KIP-853) is read off the answer rather than ApiVersions'
// finalized features (kafkajs's ApiVersions v2 does not carry them): from v2 on
// (Kafka 3.9+) the leader reports each voter's directory id, which only a dynamic
// quorum knows (a static voter's is the zero UUID); lines that answer v0/v1
// predate kraft.version 1, so their quorum is static.
import type { DescribeQuorumResult, QuorumReplicaState } from './api/describe-quorum/codec.ts';
import { ZERO_DIRECTORY_ID } from './api/describe-quorum/codec.ts';

export interface QuorumReplica {
  id: number;
  role: 'leader' | 'follower' | 'observer';
  /** null before v2; ZERO_DIRECTORY_ID when the leader does not know it. */
  directoryId: string | null;
  /** null when the leader does not know it (-1 on the wire: it has not fetched since this leader took over). */
  logEndOffset: number | null;
  /** Records behind the leader's log end offset (kafka-metadata-quorum.sh's Lag column); null unknown. */
  lag: number | null;
  /** Records below the high watermark (0 at or above it); null unknown. */
  behindHighWatermark: number | null;
  /** Epoch ms on the leader's clock (v1+); null unknown or before v1. */
  lastFetchTimestamp: number | null;
  lastCaughtUpTimestamp: number | null;
  /** Ms since its last fetch / since it was last caught up, on the leader's clock; null unknown. */
  lastFetchAgeMs: number | null;
  caughtUpAgeMs: number | null;
}

export type QuorumStatus = 'ok' | 'no-leader' | 'unavailable' | 'failed';

export interface QuorumView {
  /**
   * ok: a leader answered. no-leader: the quorum has no leader (an answer with leader -1,
   * or brokers that could not reach an active controller: see noLeaderEvidence).
   * unavailable: the brokers do not serve DescribeQuorum (ZooKeeper mode). failed: could not be read.
   */
  status: QuorumStatus;
  reason: string | null;
  /** Epoch ms when it was read (our clock). */
  at: number;
  /** Ms the read took. */
  tookMs: number;
  /** The DescribeQuorum version answered; null when none. */
  version: number | null;
  /** Brokers asked (the answer's source first when there is one). */
  askedBrokers: number[];
  /** The broker whose answer this is. */
  source: number | null;
  leaderId: number | null;
  leaderEpoch: number | null;
  highWatermark: number | null;
  voters: QuorumReplica[];
  observers: QuorumReplica[];
  /** 0 static voters, 1 dynamic voters (KIP-853); null unknown. */
  kraftVersion: 0 | 1 | null;
  /** The line can run a dynamic quorum (it answers DescribeQuorum v2: Kafka 3.9+); null unknown. */
  dynamicQuorumSupported: boolean | null;
  /** v2+: each voter's controller listeners, "NAME://host:port". */
  voterEndpoints?: { id: number; endpoints: string[] }[];
  /** How "no-leader" was concluded: each asked broker's outcome (an error code or our bound). */
  noLeaderEvidence?: { broker: number; outcome: string }[];
}

/** Unknown timestamps are -1 on the wire; an age is taken on the leader's clock, never ours. */
const known = (v: number | null): number | null => (v === null || v < 0 ? null : v);

function replicaOf(r: QuorumReplicaState, role: QuorumReplica['role'], leaderEnd: number | null, highWatermark: number | null, leaderNow: number): QuorumReplica {
  const end = known(r.logEndOffset);
  const lastFetch = known(r.lastFetchTimestamp);
  const caughtUp = known(r.lastCaughtUpTimestamp);
  return {
    id: r.replicaId,
    role,
    directoryId: r.directoryId,
    logEndOffset: end,
    lag: end === null || leaderEnd === null ? null : Math.max(0, leaderEnd - end),
    behindHighWatermark: end === null || highWatermark === null ? null : Math.max(0, highWatermark - end),
    lastFetchTimestamp: lastFetch,
    lastCaughtUpTimestamp: caughtUp,
    lastFetchAgeMs: lastFetch === null ? null : Math.max(0, leaderNow - lastFetch),
    caughtUpAgeMs: caughtUp === null ? null : Math.max(0, leaderNow - caughtUp),
  };
}

/** An empty view with a status other than ok. */
export function quorumViewWithout(status: Exclude<QuorumStatus, 'ok'>, reason: string, at: number, extra: Partial<QuorumView> = {}): QuorumView {
  return {
    status,
    reason,
    at,
    tookMs: 0,
    version: null,
    askedBrokers: [],
    source: null,
    leaderId: null,
    leaderEpoch: null,
    highWatermark: null,
    voters: [],
    observers: [],
    kraftVersion: null,
    dynamicQuorumSupported: null,
    ...extra,
  };
}

/**
 * The view from one answer without a top-level or partition error (pure). The
 * leader's own last caught-up time is "now" on its clock (DescribeQuorum's
 * contract): ages are measured from it, so a skewed clock on our side changes nothing.
 */
export function quorumViewFrom(result: DescribeQuorumResult, version: number, at: number, source: number | null): QuorumView {
  const partition = result.topics[0]?.partitions[0];
  if (!partition) return quorumViewWithout('failed', 'DescribeQuorum answered without the metadata partition', at, { version, source });
  const leaderId = partition.leaderId >= 0 ? partition.leaderId : null;
  const leaderState = partition.currentVoters.find((v) => v.replicaId === leaderId);
  const leaderEnd = leaderState ? known(leaderState.logEndOffset) : null;
  const highWatermark = known(partition.highWatermark);
  const leaderNow = known(leaderState?.lastCaughtUpTimestamp ?? null) ?? at;
  const voters = partition.currentVoters
    .map((v) => replicaOf(v, v.replicaId === leaderId ? 'leader' : 'follower', leaderEnd, highWatermark, leaderNow))
    .sort((a, b) => a.id - b.id);
  const observers = latestPerNode(partition.observers.map((o) => replicaOf(o, 'observer', leaderEnd, highWatermark, leaderNow)));
  const dynamic = version >= 2 && voters.some((v) => v.directoryId !== null && v.directoryId !== ZERO_DIRECTORY_ID);
  const endpoints = result.nodes.map((n) => ({ id: n.nodeId, endpoints: n.listeners.map((l) => `${l.name}://${l.host}:${l.port}`) })).sort((a, b) => a.id - b.id);
  return {
    status: leaderId === null ? 'no-leader' : 'ok',
    reason: leaderId === null ? `the quorum reports no leader (epoch ${partition.leaderEpoch})` : null,
    at,
    tookMs: 0,
    version,
    askedBrokers: source === null ? [] : [source],
    source,
    leaderId,
    leaderEpoch: partition.leaderEpoch >= 0 ? partition.leaderEpoch : null,
    highWatermark,
    voters,
    observers,
    kraftVersion: dynamic ? 1 : 0,
    dynamicQuorumSupported: version >= 2,
    ...(endpoints.length > 0 ? { voterEndpoints: endpoints } : {}),
  };
}

/**
 * One observer per node id, the one that fetched last. A node whose storage was
 * wiped comes back with a new directory id, and the leader keeps the old
 * incarnation's entry (never fetching again) until it expires minutes later:
 * that entry is not the node, which is following.
 */
function latestPerNode(observers: QuorumReplica[]): QuorumReplica[] {
  const byId = new Map<number, QuorumReplica>();
  const age = (r: QuorumReplica) => r.lastFetchAgeMs ?? Number.POSITIVE_INFINITY;
  for (const o of observers) {
    const seen = byId.get(o.id);
    if (!seen || age(o) < age(seen) || (age(o) === age(seen) && (o.logEndOffset ?? -1) > (seen.logEndOffset ?? -1))) byId.set(o.id, o);
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** Votes needed to elect a leader or commit a record: a strict majority. */
export const majorityOf = (voters: number): number => Math.floor(voters / 2) + 1;
