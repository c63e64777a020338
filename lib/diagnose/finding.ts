// Building blocks shared by the checks: a finding constructor that derives
// the runbook and fingerprint the same way everywhere, and small formatters
// for evidence so every check quotes partitions alike.

import type { PartitionState } from '../kafka/types.ts';
import { createHash } from 'node:crypto';
import type { Evidence, Finding, FindingKind, OperationOffer, Severity, TopicPartitionRef } from './types.ts';

/** Evidence lists stay readable (and Slack-sized): the full set is in `affected`. */
export const MAX_EVIDENCE_SAMPLES = 10;

export const SEVERITY_RANK: Record<Severity, number> = { critical: 0, error: 1, warning: 2, info: 3 };

/**
 * kind + the identity of what is affected (e.g. "broker:1"), hashed so the id is
 * short and opaque. Identity strings are built from sorted ids, so re-runs of
 * the same problem give the same fingerprint whatever order the cluster lists
 * things in.
 */
export function fingerprint(kind: FindingKind, identity: readonly string[]): string {
  return createHash('sha256').update(kind + [...identity].sort().map((part) => '\n' + part).join(''), 'utf8').digest('hex').slice(0, 20);
}

export interface FindingInput {
  kind: FindingKind;
  severity: Severity;
  title: string;
  summary: string;
  partitions?: TopicPartitionRef[];
  brokers?: Iterable<number>;
  groups?: Iterable<string>;
  /** KRaft controllers named by the finding (quorum findings). */
  controllers?: Iterable<number>;
  evidence?: Evidence[];
  nextActions?: string[];
  /** What makes this finding "the same problem" on a re-run; defaults to the affected brokers and groups. */
  identity?: string[];
  /** The operation the finding offers (its Slack button). */
  offer?: OperationOffer;
}

function controllersOf(input: FindingInput): { controllers?: number[] } {
  const ids = [...new Set(input.controllers ?? [])].sort((a, b) => a - b);
  return ids.length > 0 ? { controllers: ids } : {};
}

export function makeFinding(input: FindingInput): Finding {
  const brokers = [...new Set(input.brokers ?? [])].sort((a, b) => a - b);
  const groups = [...new Set(input.groups ?? [])].sort();
  const identity = input.identity ?? [...brokers.map((b) => `broker:${b}`), ...groups.map((g) => `group:${g}`)];
  return {
    kind: input.kind,
    severity: input.severity,
    title: input.title,
    summary: input.summary,
    affected: { partitions: input.partitions ?? [], brokers, groups, ...controllersOf(input) },
    evidence: input.evidence ?? [],
    runbook: input.kind,
    nextActions: input.nextActions ?? [],
    fingerprint: fingerprint(input.kind, identity),
    ...(input.offer ? { offer: input.offer } : {}),
  };
}

/** Most severe first, then by kind and title: a new array, the input is left as it is. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.kind.localeCompare(b.kind) || a.title.localeCompare(b.title),
  );
}

export function describePartition(topic: string, p: PartitionState): string {
  const elr = p.elr ? ` elr=[${p.elr.join(',')}] lastKnownElr=[${(p.lastKnownElr ?? []).join(',')}]` : '';
  return `${topic}-${p.partition} leader=${p.leader < 0 ? 'none' : p.leader} replicas=[${p.replicas.join(',')}] isr=[${p.isr.join(',')}]${elr}`;
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

export function brokerList(ids: readonly number[]): string {
  if (ids.length === 0) return 'no broker';
  return ids.length === 1 ? `broker ${ids[0]}` : `brokers ${ids.join(', ')}`;
}

/** Per-topic counts, largest first, capped: "orders: 12, payments: 3, … (+4 topics)". */
export function topicCounts(counts: Map<string, number>, max = MAX_EVIDENCE_SAMPLES): string {
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = sorted.slice(0, max).map(([t, n]) => `${t}: ${n}`);
  if (sorted.length > max) shown.push(`… (+${sorted.length - max} topics)`);
  return shown.join(', ');
}
