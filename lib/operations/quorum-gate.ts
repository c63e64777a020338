// Operations respect the KRaft quorum: while the controller quorum has no
// leader nothing an operation asks for can happen (no leader election,
// reassignment, topic creation or config change is committed until a majority
// of the controllers is back), so no plan is made and no run starts or goes
// on. One place for every kind:
//   planning  planUnlessQuorumLost wraps the kind's I/O (backend.ts): the first
//             snapshot without a quorum leader ends the planning with a refusal;
//   running   the runner's precondition check (runner.ts) pauses the run
//             (needs a human); Resume checks again.
// The refusal is a coded Notice (render-quorum.ts owns the words) with the
// facts: the voters, which are not fetching, since when. Through the brokers a
// quorum without a leader answers nothing about its voters (only the leader
// answers DescribeQuorum), so the last view with a leader this process saw
// stands in for who the voters were and when it was last seen whole.
import type { ClusterSnapshot } from '../kafka/types.ts';
import { replicaHealth, voterIds } from '../kafka/quorum-health.ts';
import type { Notice } from './failures.ts';
import type { OperationIo } from './kind.ts';
import type { PlanResult } from './types.ts';
import { ResponderError } from '../runtime/errors.ts';

export const QUORUM_NO_LEADER = 'quorum-no-leader';

export interface QuorumNoLeaderNotice extends Notice {
  code: typeof QUORUM_NO_LEADER;
  /** Asked before planning, or before a run's step. */
  stage: 'plan' | 'run';
  /** The voters, as the quorum answered or as last seen with a leader; empty when never seen. */
  voters: number[];
  /** Voters known not to fetch from a leader (null age: never, or unknown). Null: cannot be told. */
  notFetching: { id: number; lastFetchAgeMs: number | null }[] | null;
  /** Epoch ms since when this process has seen the quorum without a leader (this snapshot's time when first seen now). */
  since: number;
  /** The last leader this process saw, its epoch, and when. */
  lastLeader: { id: number; epoch: number | null; at: number } | null;
  /** What the brokers asked answered (an error code, or our bound). */
  asked: { broker: number; outcome: string }[];
}

interface Seen {
  lastLeader?: { id: number; epoch: number | null; at: number; voters: number[] };
  noLeaderSince?: number;
}

/** What this process saw of each cluster's quorum (by Kafka's cluster id): its last leader, and since when it has none. */
export class QuorumMemory {
  private readonly seen = new Map<string, Seen>();

  /** Records what a snapshot shows; returns what was seen before it, updated. */
  note(s: ClusterSnapshot): Seen {
    const key = s.clusterId ?? '';
    const q = s.quorum;
    const was = this.seen.get(key) ?? {};
    if (!q) return was;
    const at = Number.isFinite(q.at) ? q.at : Date.parse(s.takenAt);
    let now: Seen = was;
    if (q.status === 'ok' && q.leaderId !== null) now = { lastLeader: { id: q.leaderId, epoch: q.leaderEpoch, at, voters: voterIds(q) } };
    else if (q.status === 'no-leader') now = { ...was, noLeaderSince: was.noLeaderSince ?? at };
    this.seen.set(key, now);
    return now;
  }
}

/** The process's memory (a worker, `serve`): planning and runs share it. */
export const quorumMemory = new QuorumMemory();

/** The refusal when the snapshot's quorum has no leader (pure but for the memory it is given); null otherwise. */
export function quorumRefusal(s: ClusterSnapshot, stage: 'plan' | 'run', memory: QuorumMemory = quorumMemory): QuorumNoLeaderNotice | null {
  const seen = memory.note(s);
  const q = s.quorum;
  if (q?.status !== 'no-leader') return null;
  // An answer that names no leader still lists its voters (with their last fetches); a broker that could not reach a leader lists none.
  const answered = q.voters.length > 0;
  const notFetching = answered
    ? q.voters
        .map((v) => ({ v, h: replicaHealth(q, v) }))
        .filter(({ h }) => h.state === 'not-fetching')
        .map(({ v }) => ({ id: v.id, lastFetchAgeMs: v.lastFetchAgeMs }))
    : null;
  const last = seen.lastLeader;
  return {
    code: QUORUM_NO_LEADER,
    stage,
    voters: answered ? voterIds(q) : (last?.voters ?? []),
    notFetching,
    since: seen.noLeaderSince ?? q.at,
    lastLeader: last ? { id: last.id, epoch: last.epoch, at: last.at } : null,
    asked: q.noLeaderEvidence ?? [],
  };
}

class QuorumLost extends ResponderError {
  readonly failure = 'fatal';
  override name = 'QuorumLost';
  constructor(readonly notice: QuorumNoLeaderNotice) {
    super(QUORUM_NO_LEADER);
  }
}

/**
 * Plans with the kind's own planner, through I/O whose snapshots refuse a
 * quorum without a leader: the first snapshot that shows one ends the planning
 * with that refusal (nothing after it is measured or asked).
 */
export async function planUnlessQuorumLost(plan: (io: OperationIo) => Promise<PlanResult>, io: OperationIo, memory: QuorumMemory = quorumMemory): Promise<PlanResult> {
  const snapshot = async (topics: string[] | null) => {
    const s = await io.snapshot(topics);
    const refusal = quorumRefusal(s, 'plan', memory);
    if (refusal) throw new QuorumLost(refusal);
    return s;
  };
  // The kind's own I/O in every other respect (its methods called on it, whatever it is).
  const gated = new Proxy(io, {
    get(target, prop) {
      if (prop === 'snapshot') return snapshot;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  try {
    return await plan(gated);
  } catch (err) {
    if (err instanceof QuorumLost) return { ok: false, refusal: err.notice };
    throw err;
  }
}
