// What eligible leader replicas (KIP-966) add to the offline-partition
// finding, where the snapshot read them (DescribeTopicPartitions): who holds
// the committed writes, and who the controller will elect on return even with
// unclean election off. Pure; prose only.

import type { PartitionState } from '../kafka/types.ts';
import type { Evidence } from './types.ts';
import { elrStateText, returnElectionText } from '../operations/kinds/leader-override/elr.ts';
import { MAX_EVIDENCE_SAMPLES, brokerList, plural } from './finding.ts';

export interface OfflineElrNote {
  /** Sentences for the summary, each starting with a space; '' when ELR was not read. */
  summary: string;
  /** True when some partition would be re-elected through its last known leader (unclean election or not). */
  lastKnownLeaderElection: boolean;
  evidence: Evidence[];
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const sorted = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b);
const verb = (n: number, one: string, many: string) => (n === 1 ? one : many);

export function offlineElrNote(parts: readonly PartitionState[], live: ReadonlySet<number>): OfflineElrNote {
  const read = parts.filter((p) => p.elr !== undefined);
  if (read.length === 0) return { summary: '', lastKnownLeaderElection: false, evidence: [] };
  const states = new Map<string, number>();
  const inElr = new Set<number>();
  const lastKnownOnly = new Set<number>();
  for (const p of read) {
    const text = elrStateText(p)!;
    states.set(text, (states.get(text) ?? 0) + 1);
    if (p.isr.length > 0) continue;
    for (const r of p.elr!) if (!live.has(r)) inElr.add(r);
    for (const r of p.lastKnownElr ?? []) if (!live.has(r) && !p.elr!.includes(r)) lastKnownOnly.add(r);
  }
  const byCount = [...states].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = byCount.slice(0, MAX_EVIDENCE_SAMPLES).map(([t, n]) => `${t} (${plural(n, 'partition')})`);
  if (byCount.length > MAX_EVIDENCE_SAMPLES) shown.push(`… (+${byCount.length - MAX_EVIDENCE_SAMPLES} more)`);
  const evidence: Evidence[] = [{ label: 'eligible leader replicas', value: shown.join('; '), source: 'DescribeTopicPartitions' }];

  let summary = ` Eligible leader replicas: ${byCount[0]![0]}${byCount.length > 1 ? ` on ${plural(byCount[0]![1], 'partition')}, and other states` : ''}.`;
  const elr = sorted(inElr);
  if (elr.length > 0) {
    summary +=
      ` ${cap(brokerList(elr))} ${verb(elr.length, 'is', 'are')} in the ELR: ${verb(elr.length, 'it', 'they')} held every committed write when the ISR emptied, ` +
      `so bringing ${verb(elr.length, 'it', 'them')} back with ${verb(elr.length, 'its', 'their')} data is the lossless fix ` +
      '(after an unclean stop a broker leaves the ELR as it registers again; then only the last known leader is elected without an unclean election).';
  }
  const lastKnown = sorted(lastKnownOnly);
  if (lastKnown.length > 0) {
    summary +=
      ` ${cap(brokerList(lastKnown))} led last (last known ELR) but ${verb(lastKnown.length, 'is', 'are')} no longer eligible (an unclean shutdown takes a broker out of the ELR), yet when it returns ` +
      `${returnElectionText(true)}, and the live replicas truncate to its log.`;
  }
  const lastKnownLeaderElection = read.some((p) => p.isr.length === 0 && (p.lastKnownElr?.length ?? 0) === 1);
  return { summary, lastKnownLeaderElection, evidence };
}
