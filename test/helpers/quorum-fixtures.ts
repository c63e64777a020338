// KRaft quorum views as DescribeQuorum answers make them (lib/kafka/quorum-view.ts),
// for the tests of what operations and can-restart do with the quorum.
import { quorumViewWithout, type QuorumReplica, type QuorumView } from '../../lib/kafka/quorum-view.ts';

export interface VoterSpec {
  id: number;
  /** Records behind the leader (default 0). */
  lag?: number;
  /** Ms since its last fetch on the leader's clock (default 100); null: never fetched from this leader. */
  fetchAgo?: number | null;
  /** Ms since it was last caught up (default: fetchAgo when lag is 0, else 60 s). */
  caughtUpAgo?: number | null;
}

const AT = Date.parse('2026-12-01T10:00:00.000Z');

function replica(v: VoterSpec, role: QuorumReplica['role'], leaderEnd: number): QuorumReplica {
  const lag = v.lag ?? 0;
  const fetchAgo = v.fetchAgo === undefined ? 100 : v.fetchAgo;
  const caughtUpAgo = v.caughtUpAgo !== undefined ? v.caughtUpAgo : lag === 0 ? fetchAgo : 60_000;
  const never = fetchAgo === null;
  return {
    id: v.id,
    role,
    directoryId: null,
    logEndOffset: never ? null : leaderEnd - lag,
    lag: never ? null : lag,
    behindHighWatermark: never ? null : lag,
    lastFetchTimestamp: never ? null : AT - fetchAgo,
    lastCaughtUpTimestamp: caughtUpAgo === null ? null : AT - caughtUpAgo,
    lastFetchAgeMs: fetchAgo,
    caughtUpAgeMs: caughtUpAgo,
  };
}

/** A quorum that answered: `leader` (null: an answer naming no leader), its voters, and observers (brokers, by default 1, 2, 3). */
export function answeredQuorum(leader: number | null, voters: (number | VoterSpec)[], observers: number[] = [1, 2, 3], at = AT): QuorumView {
  const end = 500;
  const specs = voters.map((v) => (typeof v === 'number' ? { id: v } : v));
  return {
    status: leader === null ? 'no-leader' : 'ok',
    reason: leader === null ? 'the quorum reports no leader (epoch 7)' : null,
    at,
    tookMs: 3,
    version: 2,
    askedBrokers: [1],
    source: 1,
    leaderId: leader,
    leaderEpoch: 7,
    highWatermark: end,
    voters: specs.map((v) => replica(v, v.id === leader ? 'leader' : 'follower', end)).sort((a, b) => a.id - b.id),
    observers: observers.map((id) => replica({ id }, 'observer', end)),
    kraftVersion: 1,
    dynamicQuorumSupported: true,
  };
}

/** What the brokers say when no controller leads: they could not forward DescribeQuorum. */
export function lostQuorum(at = AT + 30_000): QuorumView {
  return quorumViewWithout('no-leader', 'no active controller answered through the brokers (broker 1: no answer within 3000 ms; broker 2: no answer within 3000 ms)', at, {
    tookMs: 3000,
    askedBrokers: [1, 2],
    noLeaderEvidence: [
      { broker: 1, outcome: 'no answer within 3000 ms' },
      { broker: 2, outcome: 'no answer within 3000 ms' },
    ],
  });
}

export const QUORUM_AT = AT;
