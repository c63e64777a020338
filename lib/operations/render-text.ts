// Prose for coded notices: the shared codes here, each kind's own codes in
// its module's renderer (kinds/<kind>/). Plain text; Slack escapes it.
// A code nobody knows is shown as itself with its fields, never dropped.

import type { Notice } from './failures.ts';
import { namesText, type NameList } from './lists.ts';
import { plural } from './planners.ts';
import { ALL_KINDS, OPERATION_KINDS } from './registry.ts';
import { quorumNoticeText } from './render-quorum.ts';

type SharedNotice =
  | { code: 'invalid-request' | 'bad-throttle'; issues: string }
  | { code: 'topic-not-found'; topic: string }
  | { code: 'partition-not-found'; topic: string; partition: number; partitions: number }
  | { code: 'reassignment-running'; partitions: NameList }
  | { code: 'snapshot-partial' }
  | { code: 'stale'; change: string }
  | { code: 'other-reassignment'; partitions: NameList }
  | { code: 'reassignments-stopped' | 'foreign-reassignments-left'; partitions: number }
  | { code: 'reassignment-cancel-failed'; message: string }
  | { code: 'reassignment-revert-pending'; partitions: string[]; total: number; waitedSeconds: number }
  | { code: 'throttles-removed' }
  | { code: 'throttles-left'; problems: string[] }
  | { code: 'reassignment-refused'; partitions: NameList; errors: string[] }
  | { code: 'election-failed'; electionType: string; partitions: NameList; errors: string[] }
  | { code: 'leaders-not-as-expected'; wrong: string[] }
  | { code: 'assignment-not-as-planned'; partitions: number; example: string; actual: string; planned: string }
  | { code: 'log-end-unreadable'; partition: string; errorCode: number | null }
  | { code: 'commit-not-read-back'; group: string; committed: number; read: number | null }
  | { code: 'unreachable' | 'unexpected-error' | 'kafka-refused' | 'host-script-refused'; message: string };

function sharedText(n: Notice): string | undefined {
  const d = n as SharedNotice;
  switch (d.code) {
    case 'invalid-request':
      return d.issues;
    case 'bad-throttle':
      return `throttle: ${d.issues}`;
    case 'topic-not-found':
      return `topic ${d.topic} not found in the cluster snapshot`;
    case 'partition-not-found':
      return `topic ${d.topic} has no partition ${d.partition} (it has ${plural(d.partitions, 'partition')})`;
    case 'reassignment-running':
      return `a reassignment is already running for ${namesText(d.partitions)}`;
    case 'snapshot-partial':
      return 'the cluster snapshot is incomplete, so a safe plan cannot be made';
    case 'stale':
      return `the cluster changed since the plan was made: ${d.change}`;
    case 'other-reassignment':
      return `another reassignment is running: ${namesText(d.partitions)}`;
    case 'reassignments-stopped':
      return `${plural(d.partitions, 'partition')} still copying ${d.partitions === 1 ? 'was' : 'were'} stopped and keep ${d.partitions === 1 ? 'its' : 'their'} original replicas`;
    case 'foreign-reassignments-left':
      return `${plural(d.partitions, 'reassignment')} of the same partitions towards another target (not ours) left alone`;
    case 'reassignment-revert-pending':
      return `the copy of ${plural(d.total, 'partition')} (${d.partitions.join(', ')}${d.total > d.partitions.length ? ', …' : ''}) was stopped, but the metadata did not yet show the original replicas after ${d.waitedSeconds} s: Kafka's controller finishes the revert on its own; check with kafka-topics.sh --describe`;
    case 'reassignment-cancel-failed':
      return `could not stop the reassignment (${d.message}): retried every minute`;
    case 'throttles-removed':
      return 'throttles removed';
    case 'throttles-left':
      return `throttles not yet removed (${d.problems.join('; ')}): retried every minute until gone`;
    case 'reassignment-refused':
      return `the controller refused the reassignment of ${plural(d.partitions.total, 'partition')}: ${d.errors.join('; ')}`;
    case 'election-failed':
      return `${d.electionType} election failed for ${plural(d.partitions.total, 'partition')}: ${d.errors.join('; ')}`;
    case 'leaders-not-as-expected':
      return `not as expected: ${d.wrong.join('; ')}`;
    case 'assignment-not-as-planned':
      return `${plural(d.partitions, 'partition')} ${d.partitions === 1 ? 'does' : 'do'} not have the planned replicas, e.g. ${d.example}: ${d.actual} (planned ${d.planned})`;
    case 'log-end-unreadable':
      return `cannot read the new log end of ${d.partition} (error ${d.errorCode ?? '?'})`;
    case 'commit-not-read-back':
      return `${d.group}: committed ${d.committed} but reads back ${d.read ?? 'nothing'}`;
    case 'unreachable':
    case 'unexpected-error':
    case 'kafka-refused':
    case 'host-script-refused':
      return d.message;
    default:
      return undefined;
  }
}

/** One notice in words: the plan's kind first (its own codes), then the shared codes, then any kind. */
export function noticeText(n: Notice, kind?: string): string {
  // Plans stored before warnings were coded carry their sentences.
  if (typeof n === 'string') return n;
  const own = kind ? (OPERATION_KINDS as Record<string, (typeof ALL_KINDS)[number] | undefined>)[kind]?.render.notice(n) : undefined;
  if (own !== undefined) return own;
  const shared = sharedText(n) ?? quorumNoticeText(n);
  if (shared !== undefined) return shared;
  for (const k of ALL_KINDS) {
    const t = k.render.notice(n);
    if (t !== undefined) return t;
  }
  const { code, ...fields } = n;
  return Object.keys(fields).length ? `${code} ${JSON.stringify(fields)}` : code;
}

/** Why no plan was made, for the requester. */
export const refusalText = (refusal: Notice, kind?: string) => noticeText(refusal, kind);

/** Several notices (a compensation's, a cleanup's) as one clause list. */
export const noticesText = (notices: readonly Notice[], kind?: string) => notices.map((n) => noticeText(n, kind)).join('; ');
