// Prose for the quorum gate's notice (quorum-gate.ts): why no plan is made and
// why a run pauses while the KRaft controller quorum has no leader.
import { majorityOf } from '../kafka/quorum-view.ts';
import type { Notice } from './failures.ts';
import { QUORUM_NO_LEADER, type QuorumNoLeaderNotice } from './quorum-gate.ts';

const utc = (ms: number) => `${new Date(ms).toISOString().slice(11, 19)} UTC`;
const ago = (ms: number | null) => (ms === null ? 'never fetched from the last leader' : `last fetch ${Math.round(ms / 1000)} s ago`);

/** The words for a `quorum-no-leader` notice; undefined for any other code. */
export function quorumNoticeText(n: Notice): string | undefined {
  if (n.code !== QUORUM_NO_LEADER) return undefined;
  const d = n as QuorumNoLeaderNotice;
  const last = d.lastLeader ? `; last seen with a leader, controller ${d.lastLeader.id}${d.lastLeader.epoch !== null ? ` in epoch ${d.lastLeader.epoch}` : ''}, at ${utc(d.lastLeader.at)}` : '';
  const head = `The KRaft controller quorum has no leader (seen without one since ${utc(d.since)}${last}).`;
  const voters = d.voters.length
    ? ` Voters: ${d.voters.join(', ')}${
        d.notFetching === null
          ? ' (which of them are down cannot be told through the brokers: only a quorum leader describes its voters)'
          : d.notFetching.length
            ? `; not fetching: ${d.notFetching.map((v) => `${v.id} (${ago(v.lastFetchAgeMs)})`).join(', ')}`
            : ''
      }.`
    : ' Its voters are not known here (only a quorum leader describes them).';
  const majority = d.voters.length ? ` (${majorityOf(d.voters.length)} of ${d.voters.length})` : '';
  const why =
    ` Until a majority of the controllers${majority} is back, no leader election, reassignment, topic creation or config change can happen.` +
    ' Brokers keep serving with the leaders they have, but a partition whose leader fails now stays without one.';
  const next =
    d.stage === 'plan'
      ? ' No plan can be made: bring the controllers back (start their services; `kafka-metadata-quorum.sh describe --status` shows a leader once one is elected), then ask again.'
      : ' The run does not start or go on: it is paused. Bring the controllers back; once a leader is elected, Resume checks again.';
  return head + voters + why + next;
}
