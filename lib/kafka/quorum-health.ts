// Where each voter of the KRaft controller quorum stands, judged from one
// DescribeQuorum answer (quorum-view.ts): the leader, caught up, lagging, or
// not fetching. Pure. Shared by can-restart (may this controller stop now?)
// and the rolling restart (is the controller it restarted back?).
//
// The rule is Kafka's own, as its operations guide states it for replacing a
// controller's disk (ops.html, "Replace KRaft Controller Disk"): a voter has
// the committed metadata when its lag is 0 (or small while the leader appends)
// and its LastFetchTimestamp and LastCaughtUpTimestamp are close; Strimzi's
// roller counts a voter as caught up when the leader's last caught-up time
// minus its own is under controller.quorum.fetch.timeout.ms. Ages are on the
// leader's clock (quorum-view.ts), never ours.
import { majorityOf, type QuorumReplica, type QuorumView } from './quorum-view.ts';

/** How long a replica may go without fetching, or without catching up, before it no longer counts as following. */
export interface FollowTolerance {
  /** A replica that fetched within this is fetching. */
  fetchRecentMs: number;
  /** A replica last caught up with the leader's log end within this is caught up. */
  caughtUpRecentMs: number;
  /** Without timestamps (DescribeQuorum v0): caught up at this many records behind or fewer. */
  laggingRecords: number;
}

/**
 * Kafka's followers fetch continuously (controller.quorum.fetch.timeout.ms is
 * 2 s, and a leader that hears from no majority within 1.5 times that
 * resigns); 5 s leaves room for a loaded host without calling a stopped
 * controller alive. Operations (may this controller stop now? is the one just
 * restarted back?) ask for a voter that is caught up now.
 */
export const QUORUM_FETCH_RECENT_MS = 5_000;
export const OPERATION_TOLERANCE: FollowTolerance = { fetchRecentMs: QUORUM_FETCH_RECENT_MS, caughtUpRecentMs: 5_000, laggingRecords: 0 };
/**
 * The diagnosis reports a replica as behind only once it has not caught up for
 * 10 s (an idle metadata log still gains a record every 500 ms, so a healthy
 * follower is a few records behind at any instant), or 1,000 records without timestamps.
 */
export const DIAGNOSIS_TOLERANCE: FollowTolerance = { fetchRecentMs: QUORUM_FETCH_RECENT_MS, caughtUpRecentMs: 10_000, laggingRecords: 1_000 };

export type VoterState = 'leader' | 'caught-up' | 'lagging' | 'not-fetching';

export interface VoterHealth {
  id: number;
  state: VoterState;
  lag: number | null;
  lastFetchAgeMs: number | null;
  caughtUpAgeMs: number | null;
}

/** One voter (or observer) of an answered view. */
export function replicaHealth(view: Pick<QuorumView, 'leaderId' | 'version'>, r: QuorumReplica, tolerance: FollowTolerance = OPERATION_TOLERANCE): VoterHealth {
  const facts = { id: r.id, lag: r.lag, lastFetchAgeMs: r.lastFetchAgeMs, caughtUpAgeMs: r.caughtUpAgeMs };
  if (r.id === view.leaderId) return { ...facts, state: 'leader' };
  // Before v1 (no timestamps) the lag alone says it; an unknown end means it has not fetched from this leader.
  const timestamps = (view.version ?? 0) >= 1;
  if (r.logEndOffset === null) return { ...facts, state: 'not-fetching' };
  if (timestamps && (r.lastFetchAgeMs === null || r.lastFetchAgeMs > tolerance.fetchRecentMs)) return { ...facts, state: 'not-fetching' };
  const caughtUp = r.lag === 0 || (timestamps ? r.caughtUpAgeMs !== null && r.caughtUpAgeMs <= tolerance.caughtUpRecentMs : r.lag !== null && r.lag <= tolerance.laggingRecords);
  return { ...facts, state: caughtUp ? 'caught-up' : 'lagging' };
}

export interface QuorumHealth {
  voters: VoterHealth[];
  /** Voters holding the committed metadata now: the leader and the caught-up followers. */
  inSync: number[];
  majority: number;
}

/** Every voter of an answered view (status ok); null otherwise. */
export function quorumHealth(view: QuorumView | undefined): QuorumHealth | null {
  if (!view || view.status !== 'ok') return null;
  const voters = view.voters.map((v) => replicaHealth(view, v));
  return { voters, inSync: voters.filter((v) => v.state === 'leader' || v.state === 'caught-up').map((v) => v.id), majority: majorityOf(view.voters.length) };
}

/** A controller as the quorum knows it: a voter, or an observer that is not a broker (a controller not yet a voter). */
export function controllerRoleOf(view: QuorumView | undefined, id: number, brokerIds: readonly number[]): 'voter' | 'observer' | null {
  if (!view || view.status !== 'ok') return null;
  if (view.voters.some((v) => v.id === id)) return 'voter';
  // Brokers fetch the metadata log as observers too: only a node that is no broker is a controller here.
  if (view.observers.some((o) => o.id === id) && !brokerIds.includes(id)) return 'observer';
  return null;
}

/** The voters' ids, sorted; empty when the view has none (no answer). */
export const voterIds = (view: QuorumView | undefined): number[] => (view?.voters ?? []).map((v) => v.id).sort((a, b) => a - b);
