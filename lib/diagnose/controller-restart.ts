// Can controller N be restarted right now? The quorum's part of can-restart
// (can-restart.ts calls in here): a KRaft controller is recognised from the
// quorum's voters (or an observer that is no broker: a controller not yet a
// voter), and judged by what its stop costs the metadata quorum. Pure.
//
//   no   when the voters that are live and caught up, minus this one, would be
//        fewer than a majority (no leader could be elected, no metadata committed);
//   no   while another voter is lagging or not fetching (one at a time, each
//        caught up before the next, as Kafka's guide asks before a controller's
//        disk is replaced, and as Strimzi's roller counts caught-up voters);
//   yes, with a note, for the active controller: its restart causes a leader
//        election, so it goes last;
//   and every answer says what a controller restart does (brokers keep serving).
// While the quorum has no leader no node should restart (brokers included).

import type { ClusterSnapshot } from '../kafka/types.ts';
import { controllerRoleOf, quorumHealth, type VoterHealth } from '../kafka/quorum-health.ts';
import type { RestartAssessment } from './restart-assessment.ts';

const ids = (list: readonly number[]) => (list.length === 1 ? `controller ${list[0]}` : `controllers ${list.slice(0, -1).join(', ')} and ${list.at(-1)}`);
const secs = (ms: number | null) => (ms === null ? 'never' : `${Math.round(ms / 1000)} s ago`);

function behind(v: VoterHealth): string {
  if (v.state === 'not-fetching') return `is not fetching from the leader (last fetch ${secs(v.lastFetchAgeMs)})`;
  return `is lagging (${v.lag === null ? 'an unknown number of' : v.lag.toLocaleString('en-US')} records behind the leader, last caught up ${secs(v.caughtUpAgeMs)})`;
}

/** Every node the snapshot knows as a broker: live, registered (fenced too), or holding replicas. */
function brokerIds(s: ClusterSnapshot): number[] {
  const out = new Set<number>([...s.brokers.map((b) => b.id), ...s.unreachableBrokers]);
  for (const b of s.registeredBrokers?.brokers ?? []) out.add(b.id);
  for (const t of s.topics) for (const p of t.partitions) for (const r of p.replicas) out.add(r);
  return [...out];
}

/** Why no node should restart while the quorum has no leader; null when it has one (or none was read). */
export function quorumLostReason(s: ClusterSnapshot): string | null {
  if (s.quorum?.status !== 'no-leader') return null;
  return (
    'The KRaft controller quorum has no leader: restart nothing until a majority of the controllers is back. ' +
    'Meanwhile brokers keep serving with the leaders they have, but no leader election, reassignment, topic creation or config change can happen, and a broker restarted now cannot register again.'
  );
}

/** The quorum's reasons and notes for a voter's restart (a dedicated controller, or a combined node's controller role). */
export function voterRestartFacts(s: ClusterSnapshot, id: number): { reasons: string[]; notes: string[] } | null {
  const view = s.quorum;
  const health = quorumHealth(view);
  if (!view || !health || !health.voters.some((v) => v.id === id)) return null;
  const reasons: string[] = [];
  const notes: string[] = [];
  const n = health.voters.length;
  const remaining = health.inSync.filter((v) => v !== id);
  if (remaining.length < health.majority) {
    reasons.push(
      `Restarting controller ${id} would cost the quorum its majority: ${remaining.length ? `only ${ids(remaining)} would remain` : 'no voter would remain'} live and caught up of ${n} voters, and ${health.majority} are needed to elect a leader and commit metadata.`,
    );
  }
  for (const other of health.voters.filter((v) => v.id !== id && (v.state === 'lagging' || v.state === 'not-fetching'))) {
    reasons.push(`Controller ${other.id} ${behind(other)}: restart one controller at a time, each only once every other voter is caught up (kafka-metadata-quorum.sh describe --replication).`);
  }
  const self = health.voters.find((v) => v.id === id)!;
  if (self.state === 'leader') {
    notes.push(
      `Controller ${id} is the active controller (the quorum's leader${view.leaderEpoch !== null ? ` in epoch ${view.leaderEpoch}` : ''}): restarting it makes the other voters elect a new leader, and metadata changes wait for that election (usually a second or two). Restart the other controllers first and this one last.`,
    );
  } else if (self.state !== 'caught-up') {
    notes.push(`Controller ${id} itself ${behind(self)}: it is not counted in the quorum's majority now, so its restart takes nothing from it.`);
  }
  const spare = n - 1 - health.majority;
  notes.push(
    `What a controller restart does: brokers keep serving produce and fetch requests with the leaders they have; while controller ${id} is down the quorum runs on ${n - 1} of ${n} voters ` +
      `(${spare > 0 ? `it survives ${spare} more failure${spare === 1 ? '' : 's'}` : 'one more failure then loses the majority'}), and metadata changes (leader elections, topic creation, reassignments, config changes) need ${health.majority} of them.`,
  );
  return { reasons, notes };
}

/**
 * The answer for a node that is a controller and no broker (a dedicated
 * KRaft controller), or that cannot be told apart while the quorum has no
 * leader; null for a broker, which can-restart judges itself.
 */
export function assessControllerRestart(s: ClusterSnapshot, id: number): RestartAssessment | null {
  const brokers = brokerIds(s);
  if (brokers.includes(id)) return null;
  const base = { brokerId: id, wouldGoOffline: [], wouldFallBelowMinIsr: [], coordinatorsMoving: [], recovering: null };
  const lost = quorumLostReason(s);
  if (lost) {
    const reasons = [lost, `Node ${id} is not a live broker, and whether it is a controller cannot be told while the quorum has no leader (only a leader describes its voters).`];
    return { ...base, role: 'node', verdict: 'no', reasons, notes: [] };
  }
  const role = controllerRoleOf(s.quorum, id, brokers);
  if (role === null) return null;
  if (role === 'observer') {
    const notes = [
      `Controller ${id} is an observer of the metadata log, not a voter (a controller not yet added with kafka-metadata-quorum.sh add-controller): its restart does not change the quorum's majority, and brokers keep serving.`,
    ];
    return { ...base, role: 'controller', verdict: 'yes', reasons: [], notes };
  }
  const facts = voterRestartFacts(s, id)!;
  return { ...base, role: 'controller', verdict: facts.reasons.length ? 'no' : 'yes', reasons: facts.reasons, notes: facts.notes };
}

/** What the quorum adds to a broker's answer: no while it has no leader; a combined node's controller facts. */
export function quorumPartOfBrokerRestart(s: ClusterSnapshot, id: number): { reasons: string[]; notes: string[] } {
  const lost = quorumLostReason(s);
  if (lost) return { reasons: [lost], notes: [] };
  return voterRestartFacts(s, id) ?? { reasons: [], notes: [] };
}
