// Hand-built DescribeQuorum answers for the quorum detector and audit tests,
// turned into views the way the snapshot does (quorumViewFrom).
import type { DescribeQuorumResult, QuorumReplicaState } from '../../lib/kafka/api/describe-quorum/codec.ts';
import { ZERO_DIRECTORY_ID } from '../../lib/kafka/api/describe-quorum/codec.ts';
import { quorumViewFrom, quorumViewWithout, type QuorumView } from '../../lib/kafka/quorum-view.ts';

/** The leader's clock at the answer (its own last caught-up time). */
export const LEADER_NOW = 1_800_000_000_000;

export interface ReplicaSpec {
  id: number;
  /** Records behind the leader's end (default 0); null: log end unknown (-1). */
  behind?: number | null;
  /** Ms since its last fetch (default 200). */
  fetchedAgo?: number;
  /** Ms since it was last caught up (default = fetchedAgo). */
  caughtUpAgo?: number;
  directoryId?: string;
}

const LEADER_END = 50_000;

function replica(r: ReplicaSpec, version: number): QuorumReplicaState {
  const fetchedAgo = r.fetchedAgo ?? 200;
  return {
    replicaId: r.id,
    directoryId: version >= 2 ? (r.directoryId ?? ZERO_DIRECTORY_ID) : null,
    logEndOffset: r.behind === null ? -1 : LEADER_END - (r.behind ?? 0),
    lastFetchTimestamp: version >= 1 ? LEADER_NOW - fetchedAgo : null,
    lastCaughtUpTimestamp: version >= 1 ? LEADER_NOW - (r.caughtUpAgo ?? fetchedAgo) : null,
  };
}

/** A quorum led by `leader` (the first voter by default), answered at `version` through broker 1. */
export function quorum(spec: { voters: (number | ReplicaSpec)[]; observers?: (number | ReplicaSpec)[]; leader?: number; epoch?: number; version?: number; dynamic?: boolean }): QuorumView {
  const version = spec.version ?? 2;
  const asSpec = (r: number | ReplicaSpec): ReplicaSpec => (typeof r === 'number' ? { id: r } : r);
  const voters = spec.voters.map(asSpec);
  const leader = spec.leader ?? voters[0]!.id;
  const result: DescribeQuorumResult = {
    errorCode: 0,
    errorMessage: null,
    topics: [
      {
        topicName: '__cluster_metadata',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            errorMessage: null,
            leaderId: leader,
            leaderEpoch: spec.epoch ?? 4,
            highWatermark: LEADER_END - 2,
            currentVoters: voters.map((v) => {
              const r = replica(v.id === leader ? { ...v, behind: 0, fetchedAgo: 0, caughtUpAgo: 0 } : v, version);
              return spec.dynamic && version >= 2 ? { ...r, directoryId: v.directoryId ?? `dir-of-${v.id}` } : r;
            }),
            observers: (spec.observers ?? [1, 2, 3]).map((o) => replica(asSpec(o), version)),
          },
        ],
      },
    ],
    nodes: [],
  };
  return quorumViewFrom(result, version, LEADER_NOW + 5_000, 1);
}

/** Two brokers whose forwarded DescribeQuorum went unanswered. */
export function lostQuorum(): QuorumView {
  return quorumViewWithout('no-leader', 'no active controller answered through the brokers (broker 1: no answer within 3000 ms; broker 2: no answer within 3000 ms)', LEADER_NOW, {
    askedBrokers: [1, 2],
    tookMs: 3001,
    noLeaderEvidence: [
      { broker: 1, outcome: 'no answer within 3000 ms' },
      { broker: 2, outcome: 'no answer within 3000 ms' },
    ],
  });
}
