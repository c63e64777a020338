// A diagnosis asked for one topic, from the cluster-wide one: shared work is
// keyed by cluster (every topic's request in flight shares one snapshot), and
// each requester keeps what concerns its topic. Pure: the metadata request
// that answers a TopicCheck is topic-check.ts.
import { CONSUMER_OFFSETS_TOPIC } from '../kafka/group-partition.ts';
import type { ConnectionConfig } from '../kafka/connection.ts';
import type { DiagnosisReport, Finding } from './types.ts';
import { ResponderError } from '../runtime/errors.ts';

/** A code for the renderer: the topic exists, does not (names close to it, if any were cheap to know), or could not be checked. */
export type TopicCheck = { status: 'exists' } | { status: 'missing'; nearMisses: string[]; reason?: string } | { status: 'unknown'; reason: string };

export type CheckTopicFn = (connection: ConnectionConfig, topic: string, opts: { timeoutMs: number }) => Promise<TopicCheck>;

/**
 * What a topic-limited snapshot would have shown: findings on the topic's
 * partitions, on __consumer_offsets (its consumers' coordinators) and those
 * tied to no partition (brokers, hosts, the quorum).
 */
export function findingConcernsTopic(f: Finding, topic: string): boolean {
  const parts = f.affected.partitions;
  return parts.length === 0 || parts.some((p) => p.topic === topic || p.topic === CONSUMER_OFFSETS_TOPIC);
}

export function reportForTopic(report: DiagnosisReport, topic: string): DiagnosisReport {
  return { ...report, findings: report.findings.filter((f) => findingConcernsTopic(f, topic)) };
}

/** Levenshtein distance, stopping once it exceeds `max` (names are short; the list can be long). */
function distanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      row.push(v);
      best = Math.min(best, v);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length]!;
}

/** Up to `limit` names close to `topic` (typos, case, a missing suffix), closest first. */
export function nearMisses(topic: string, names: readonly string[], limit = 3): string[] {
  const max = Math.max(2, Math.floor(topic.length / 4));
  const lower = topic.toLowerCase();
  return names
    .filter((n) => n !== topic)
    .map((n) => {
      const l = n.toLowerCase();
      const d = l === lower ? 0 : l.startsWith(lower) || lower.startsWith(l) ? 1 : distanceWithin(lower, l, max);
      return { n, d };
    })
    .filter((x) => x.d <= max)
    .sort((a, b) => a.d - b.d || a.n.localeCompare(b.n))
    .slice(0, limit)
    .map((x) => x.n);
}

/** The named topic is not on the cluster: answered from metadata, nothing else was read. */
export class UnknownTopicError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'UnknownTopicError';
  constructor(
    readonly topic: string,
    readonly cluster: string,
    readonly nearMisses: string[] = [],
    readonly reason?: string,
  ) {
    super(unknownTopicText(topic, cluster, nearMisses, reason));
  }
}

/** The words for a topic that is not there (the renderer's: the check returns codes). */
export function unknownTopicText(topic: string, cluster: string, nearMisses: readonly string[] = [], reason?: string): string {
  const close = nearMisses.length ? `; did you mean ${nearMisses.map((n) => `\`${n}\``).join(', ')}?` : '';
  // A refusal (not authorized to describe it) is not an absence: say what the broker said.
  if (reason && !reason.startsWith('UNKNOWN_TOPIC_OR_PARTITION')) return `topic ${topic} cannot be read on ${cluster} (${reason})${close}`;
  return `topic ${topic} does not exist on ${cluster}${reason ? ` (${reason})` : ''}${close}`;
}
