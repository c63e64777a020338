// The words for "what changed" (lib/diagnose/what-changed.ts codes), shared by
// the Slack, terminal and Markdown renderers and the postmortem timeline.
// Plain text: each renderer escapes it for its own markup.
import type { ClusterChange } from './what-changed.ts';

/** "14:05:09 UTC": the changes are all within the last hour. */
export function clock(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(11, 19)} UTC` : iso;
}

const between = (c: { at: string; since: string }) => `between ${clock(c.since)} and ${clock(c.at)}`;
const broker = (id: number | null) => (id === null ? 'none' : `broker ${id}`);

function setting(c: { setting: string; from: string | null; to: string | null }): string {
  if (c.from === null) return `${c.setting} set to ${c.to}`;
  if (c.to === null) return `${c.setting} (${c.from}) removed, back to its default`;
  return `${c.setting} changed from ${c.from} to ${c.to}`;
}

function more(listed: number, count: number | null): string {
  return count !== null && count > listed ? `, and ${count - listed} more` : '';
}

const epoch = (e: number | null) => (e === null ? '' : ` (epoch ${e})`);

/** KRaft controller failovers, from the quorum leader before and after. */
function quorumLeaderText(c: Extract<ClusterChange, { code: 'quorum-leader-changed' }>): string {
  if (c.to === null) return `the controller quorum lost its leader (controller ${c.from}${c.fromEpoch === null ? '' : `, epoch ${c.fromEpoch}`}) ${between(c)}`;
  if (c.from === null) return `controller ${c.to} was elected quorum leader${epoch(c.toEpoch)} after a time without one ${between(c)}`;
  if (c.from === c.to) return `controller ${c.to} was re-elected quorum leader (epoch ${c.fromEpoch ?? '?'} → ${c.toEpoch ?? '?'}) ${between(c)}`;
  return `the active controller moved from controller ${c.from}${epoch(c.fromEpoch)} to controller ${c.to}${epoch(c.toEpoch)} ${between(c)}`;
}

/** What happened, without its time (the caller puts it where its layout wants it). */
export function describeChange(c: ClusterChange): string {
  switch (c.code) {
    case 'broker-started':
      return `${c.node ?? 'broker'} ${c.broker} (re)started: its process started at ${clock(c.at)} (host probe)`;
    case 'broker-joined':
      return `broker ${c.broker} joined the cluster ${between(c)}`;
    case 'broker-left':
      return `broker ${c.broker} left the cluster ${between(c)}`;
    case 'controller-changed':
      return `the controller moved from ${broker(c.from)} to ${broker(c.to)} ${between(c)}`;
    case 'quorum-leader-changed':
      return quorumLeaderText(c);
    case 'leaders-changed':
      return c.partitions.length
        ? `leaders of ${c.topic} changed ${between(c)}: ${c.partitions.map((p) => `${c.topic}-${p.partition} ${p.from === -1 ? 'none' : p.from}→${p.to === -1 ? 'none' : p.to}`).join(', ')}${more(c.partitions.length, c.count)}`
        : `leaders or replicas of ${c.topic} changed ${between(c)}`;
    case 'replicas-changed':
      return `replicas of ${c.topic} were reassigned ${between(c)}: ${c.partitions.map((p) => `${c.topic}-${p.partition} [${p.from.join(',')}]→[${p.to.join(',')}]`).join(', ')}${more(c.partitions.length, c.count)}`;
    case 'reassignment-in-progress':
      return `reassignment in progress on ${c.topic}: ${c.partitions.map((p) => `${c.topic}-${p.partition} adding ${p.adding.join(',')}`).join(', ')}${more(c.partitions.length, c.count)}`;
    case 'topic-config-changed':
      return `topic ${c.topic}: ${setting(c)} ${between(c)}`;
    case 'broker-config-changed':
      return `${c.broker === null ? 'cluster-wide broker default' : `broker ${c.broker} config`}: ${setting(c)} ${between(c)}`;
    case 'topic-created':
      return `topic ${c.topic} was created ${between(c)}`;
    case 'topic-deleted':
      return `topic ${c.topic} was deleted ${between(c)}`;
    case 'operation-run':
      return `the bot ran "${c.title}": ${c.outcome}`;
  }
}

/** One line per change, oldest first, each with when it was seen. */
export function changeLines(changes: readonly ClusterChange[]): string[] {
  return changes.map((c) => `${clock(c.at)} · ${describeChange(c)}`);
}
