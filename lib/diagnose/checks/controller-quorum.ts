// The KRaft controller quorum, a pure function of the snapshot's `quorum` view
// (lib/kafka/quorum-read.ts reads it through the brokers):
//   quorum-lost: no leader. Brokers keep serving with the leaders they have, but
//     nothing that needs the controller happens until a majority of voters is back.
//   quorum-at-risk: the voters still fetching are exactly a majority (or fewer):
//     one more failure and the quorum has no leader. Names the voters missing or behind.
//   metadata-log-lag: a voter (while the quorum still has margin) or an observer
//     (a broker) not fetching or falling behind the metadata log.
// The quorum's shape (a single voter, an even count, static voters) is the
// preventive audit's (checks/quorum-shape.ts), not a diagnosis finding.
import type { ClusterSnapshot } from '../../kafka/types.ts';
import { majorityOf, type QuorumReplica, type QuorumView } from '../../kafka/quorum-view.ts';
import type { Evidence, Finding } from '../types.ts';
import { plural } from '../finding.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { DIAGNOSIS_TOLERANCE, replicaHealth } from '../../kafka/quorum-health.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'quorum-at-risk': true;
    'quorum-lost': true;
    'metadata-log-lag': true;
  }
}

export const QUORUM_FINDING_KINDS = ['quorum-at-risk', 'quorum-lost', 'metadata-log-lag'] as const;

export type ReplicaHealth = 'following' | 'behind' | 'not-fetching';

/** How a replica other than the leader follows the metadata log, with the diagnosis's tolerance (lib/kafka/quorum-health.ts). */
export function followHealth(q: QuorumView, r: QuorumReplica): ReplicaHealth {
  const { state } = replicaHealth(q, r, DIAGNOSIS_TOLERANCE);
  return state === 'not-fetching' ? state : state === 'lagging' ? 'behind' : 'following';
}

export function formatAge(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 120 ? `${m} min` : `${Math.round(m / 60)} h`;
}

/** "not fetching: last fetch 42 s ago; log end 4200, 810 records behind the leader" (the leader's clock). */
export function replicaText(q: QuorumView, r: QuorumReplica): string {
  const health = followHealth(q, r);
  const state = health === 'not-fetching' ? 'not fetching' : health === 'behind' ? 'behind' : 'following';
  const fetched = r.lastFetchAgeMs === null ? (r.logEndOffset === null ? 'no fetch since this leader took over' : 'last fetch unknown') : `last fetch ${formatAge(r.lastFetchAgeMs)} ago`;
  const caught = r.caughtUpAgeMs === null ? '' : `, caught up ${formatAge(r.caughtUpAgeMs)} ago`;
  const end = r.logEndOffset === null ? 'log end unknown' : `log end ${r.logEndOffset}${r.lag === null ? '' : `, ${plural(r.lag, 'record')} behind the leader`}`;
  return `${state}: ${fetched}${caught}; ${end}`;
}

const nodeName = (id: number, voter: boolean, brokers: ReadonlySet<number>) => (voter ? `controller ${id}` : brokers.has(id) ? `broker ${id}` : `node ${id} (observer)`);

function quorumLine(q: QuorumView): string {
  return `leader ${q.leaderId}, epoch ${q.leaderEpoch ?? '?'}, high watermark ${q.highWatermark ?? '?'}; ${plural(q.voters.length, 'voter')}, majority ${majorityOf(q.voters.length)}`;
}

const readFrom = (q: QuorumView) => `DescribeQuorum v${q.version} via broker ${q.source}`;
const QUORUM_TOOL = 'kafka-metadata-quorum.sh --bootstrap-server <brokers> describe --status and describe --replication';

/**
 * What the renderer words, by kind: nothing for a lost quorum; the voters, how
 * many follow, the weak ones and whether all are merely behind, and the
 * quorum's kraft.version for one at risk; the node, its role and how it
 * follows, and the voters the quorum can still lose for a lagging one.
 */
type Facts =
  | { kind: 'quorum-lost' }
  | { kind: 'quorum-at-risk'; voters: number; following: number; weak: number[]; allBehind: boolean; kraftVersion: QuorumView['kraftVersion'] }
  | { kind: 'metadata-log-lag'; id: number; voter: boolean; isBroker: boolean; notFetching: boolean; lag: number | null; margin: number };

function quorumLost(snapshot: ClusterSnapshot, q: QuorumView): Detected<Facts> {
  const led = snapshot.topics.reduce((n, t) => n + t.partitions.filter((p) => p.leader >= 0).length, 0);
  const evidence: Evidence[] = [
    ...(q.noLeaderEvidence ?? []).map((e) => ({ label: 'DescribeQuorum (forwarded to the active controller)', value: e.outcome, source: `broker:${e.broker}` })),
    ...(q.noLeaderEvidence ? [] : [{ label: 'quorum', value: q.reason ?? 'no leader', source: q.source === null ? 'cluster' : `broker:${q.source}` }]),
    { label: 'brokers still serving', value: `${plural(snapshot.brokers.length, 'broker')} listed, ${plural(led, 'partition')} with a leader`, source: 'metadata' },
  ];
  return { finding: { kind: 'quorum-lost', severity: 'critical', brokers: [], evidence, identity: ['quorum'] }, facts: { kind: 'quorum-lost' } };
}

function quorumAtRisk(q: QuorumView, weak: QuorumReplica[], following: number): Detected<Facts> {
  const lost = following < majorityOf(q.voters.length);
  return {
    finding: {
      kind: 'quorum-at-risk',
      severity: lost ? 'critical' : 'error',
      controllers: weak.map((r) => r.id),
      evidence: [
        { label: 'quorum', value: quorumLine(q), source: readFrom(q) },
        ...weak.map((r) => ({ label: `controller ${r.id}`, value: replicaText(q, r), source: `leader:${q.leaderId}` })),
      ],
      identity: ['quorum', ...weak.map((r) => `controller:${r.id}`)],
    },
    facts: { kind: 'quorum-at-risk', voters: q.voters.length, following, weak: weak.map((r) => r.id), allBehind: weak.every((r) => followHealth(q, r) === 'behind'), kraftVersion: q.kraftVersion },
  };
}

function metadataLogLag(q: QuorumView, r: QuorumReplica, voter: boolean, brokers: ReadonlySet<number>, margin: number): Detected<Facts> {
  const name = nodeName(r.id, voter, brokers);
  return {
    finding: {
      kind: 'metadata-log-lag',
      severity: 'warning',
      ...(voter ? { controllers: [r.id] } : { brokers: [r.id] }),
      evidence: [
        { label: name, value: replicaText(q, r), source: `leader:${q.leaderId}` },
        { label: 'quorum', value: quorumLine(q), source: readFrom(q) },
      ],
      identity: [`${voter ? 'controller' : 'observer'}:${r.id}`],
    },
    facts: { kind: 'metadata-log-lag', id: r.id, voter, isBroker: brokers.has(r.id), notFetching: followHealth(q, r) === 'not-fetching', lag: r.lag, margin },
  };
}

const LOST_PROSE: FindingProse = {
  title: 'The KRaft controller quorum has no leader',
  summary:
    'No active controller answers: a majority of the controller quorum is down or cannot reach each other. Brokers keep serving reads and writes with the partition leaders ' +
    'they have, but nothing that needs the controller happens: no leader election (a broker that fails now leaves its partitions offline), no ISR change (acks=all writes ' +
    'stall on a partition whose follower fails), no reassignment, no topic creation or deletion, no config or ACL change, and brokers cannot register, be fenced or unfenced.',
  nextActions: [
    'Find the controllers (controller.quorum.voters or controller.quorum.bootstrap.servers in any broker\'s config) and check each one\'s process, host, disk and controller log: a majority of the voters must run and reach each other.',
    'Start the controllers that are down, with their metadata directories as they are; the quorum elects a leader as soon as a majority is back.',
    'Do not restart or stop brokers until a controller leads again: a restarted broker cannot register and stays fenced, its partitions without it.',
    `Confirm: ${QUORUM_TOOL} (it answers only once a leader is elected).`,
  ],
};

function renderAtRisk({ voters, following, weak, allBehind, kraftVersion }: Extract<Facts, { kind: 'quorum-at-risk' }>): FindingProse {
  const majority = majorityOf(voters);
  const lost = following < majority;
  const names = weak.map((id) => nodeName(id, true, new Set()));
  return {
    title: lost
      ? `Controller quorum below its majority: ${following} of ${voters} voters following (${names.join(', ')} not)`
      : `Controller quorum one failure from losing its majority: ${names.join(', ')} ${weak.length === 1 ? 'is' : 'are'} ${allBehind ? 'behind' : 'not following'}`,
    summary: lost
      ? `Only ${following} of ${voters} controllers follow the leader, fewer than the ${majority} needed: the leader cannot commit metadata and resigns; the quorum is about to have no leader.`
      : `${following} of ${voters} controllers follow the leader, exactly the ${majority} a majority needs. Losing one more (a crash, a restart, a rolling upgrade) leaves the quorum without a leader: ` +
        'no leader election, reassignment, topic or config change until it is back.',
    nextActions: [
      `Bring back ${names.join(' and ')}: check ${weak.length === 1 ? 'its' : 'their'} process, host, disk and controller log (a controller that cannot fetch logs why).`,
      'Do not stop, restart or roll any other controller until it follows again: one more loss stops every metadata change.',
      kraftVersion === 1
        ? 'A controller lost for good can be replaced (dynamic quorum): format a new one with kafka-storage.sh format --no-initial-controllers, start it, then kafka-metadata-quorum.sh add-controller and remove-controller for the lost one.'
        : 'A controller lost for good (static quorum) comes back with the same node id on fresh storage (kafka-storage.sh format); do that only while the other voters follow.',
      `Confirm: ${QUORUM_TOOL}.`,
    ],
  };
}

function renderLag({ id, voter, isBroker, notFetching, lag, margin }: Extract<Facts, { kind: 'metadata-log-lag' }>): FindingProse {
  const name = nodeName(id, voter, new Set(isBroker ? [id] : []));
  const what = notFetching ? 'is not fetching the metadata log' : `is behind on the metadata log${lag === null ? '' : ` by ${plural(lag, 'record')}`}`;
  return {
    title: `${name[0]!.toUpperCase()}${name.slice(1)} ${what}`,
    summary: voter
      ? `Controller ${id} does not count toward the majority while it ${notFetching ? 'does not fetch' : 'lags'}; the quorum can still lose ${plural(margin, 'more voter')} before it has no leader.`
      : `Broker ${id} serves metadata as of its last fetch: leaders, ISRs, topics and configs changed since are unknown to it (clients it answers may be sent to old leaders), and a broker that does not catch up stays fenced.`,
    nextActions: voter
      ? [`Check controller ${id}: process, disk latency, GC pauses and its controller log (fetch errors, "Leader election", connection failures to the leader).`, `Confirm: ${QUORUM_TOOL}.`]
      : [
          `Check broker ${id}: its server.log for metadata loading errors, its path to the controllers (controller.listener.names, network), disk latency and GC pauses.`,
          `Confirm: ${QUORUM_TOOL} (broker ${id} is an observer row).`,
        ],
  };
}

function render(facts: Facts): FindingProse {
  return facts.kind === 'quorum-lost' ? LOST_PROSE : facts.kind === 'quorum-at-risk' ? renderAtRisk(facts) : renderLag(facts);
}

/** What one snapshot's quorum view says (pure). */
function detect(snapshot: ClusterSnapshot): Detected<Facts>[] {
  const q = snapshot.quorum;
  if (!q) return [];
  if (q.status === 'no-leader') return [quorumLost(snapshot, q)];
  if (q.status !== 'ok' || q.voters.length === 0) return [];
  const brokers = new Set([...snapshot.brokers.map((b) => b.id), ...(snapshot.registeredBrokers?.brokers ?? []).map((b) => b.id)]);
  const live = new Set(snapshot.brokers.map((b) => b.id));
  const majority = majorityOf(q.voters.length);
  const weak = q.voters.filter((v) => followHealth(q, v) !== 'following');
  const following = q.voters.length - weak.length;
  const findings: Detected<Facts>[] = [];
  if (weak.length > 0 && following <= majority) findings.push(quorumAtRisk(q, weak, following));
  else for (const v of weak) findings.push(metadataLogLag(q, v, true, brokers, following - majority));
  for (const o of q.observers) {
    const health = followHealth(q, o);
    if (health === 'following') continue;
    // An observer that stopped fetching and is not a live broker is a stopped node (the leader forgets it after a few minutes): the broker findings say that.
    if (health === 'not-fetching' && !live.has(o.id)) continue;
    findings.push(metadataLogLag(q, o, false, brokers, following - majority));
  }
  return findings;
}

/** Every quorum finding of one snapshot (pure). */
export function detectQuorumFindings(snapshot: ClusterSnapshot): Finding[] {
  return detect(snapshot).map((d) => renderFinding(d, render));
}

/** The skipped-check line for the report: a quorum that could not be read, or ZooKeeper mode (said once, never as an error). */
export function quorumSkippedCheck(snapshot: ClusterSnapshot): string | null {
  const q = snapshot.quorum;
  const kinds = QUORUM_FINDING_KINDS.join(', ');
  if (q?.status === 'unavailable') return `Quorum checks (${kinds}): ${q.reason}.`;
  if (q?.status === 'failed') return `Quorum checks (${kinds}) could not run: ${q.reason}`;
  return null;
}

/** One check, three kinds: they come from one pass over the quorum view. */
export const quorumCheck: Check = { kinds: QUORUM_FINDING_KINDS, needs: ['metadata'], detect: ({ snapshot }) => detectQuorumFindings(snapshot) };
