// Findings as Markdown, for pasting into a ticket or a postmortem: a heading,
// a summary table, then each finding with what it affects, its evidence and
// its runbook. Values read from the cluster go into code spans, so a topic or
// a log line cannot turn into markup.

import type { DiagnosisReport, Finding } from './types.ts';
import type { RestartAssessment } from './restart-assessment.ts';
import { isBrokerAnswer, restartNoun } from './restart-assessment.ts';
import { plural, sortFindings } from './finding.ts';
import { changeLines } from './render-changes.ts';

const MAX_PARTITIONS_SHOWN = 20;
const MAX_EVIDENCE = 8;

/** A code span that survives any content: fenced with more backticks than the text holds. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text.replace(/\r?\n/g, ' ')}${pad}${fence}`;
}

/** Prose from our own checks can still quote cluster names: keep it from forming markup. */
function prose(text: string): string {
  return text.replace(/([\\`*_[\]<>|#])/g, '\\$1').replace(/\r?\n/g, ' ');
}

function finding(f: Finding): string[] {
  const out = [`### ${f.severity.toUpperCase()}: ${prose(f.title)}`, '', prose(f.summary), ''];
  if (f.prevents) out.push(`- **Prevents:** ${prose(f.prevents)}`);
  const a = f.affected;
  if (a.brokers.length) out.push(`- **Brokers:** ${a.brokers.join(', ')}`);
  if (a.controllers?.length) out.push(`- **Controllers:** ${a.controllers.join(', ')}`);
  if (a.groups.length) out.push(`- **${plural(a.groups.length, 'consumer group')}:** ${a.groups.slice(0, 10).map(code).join(', ')}${a.groups.length > 10 ? ', …' : ''}`);
  if (a.partitions.length) {
    const shown = a.partitions.slice(0, MAX_PARTITIONS_SHOWN).map((p) => code(`${p.topic}-${p.partition}`));
    out.push(`- **${plural(a.partitions.length, 'partition')}:** ${shown.join(', ')}${a.partitions.length > MAX_PARTITIONS_SHOWN ? `, … (${a.partitions.length - MAX_PARTITIONS_SHOWN} more)` : ''}`);
  }
  for (const e of f.evidence.slice(0, MAX_EVIDENCE)) out.push(`- ${prose(e.label)}${e.source ? ` (${prose(e.source)})` : ''}: ${code(e.value)}`);
  if (f.evidence.length > MAX_EVIDENCE) out.push(`- … ${f.evidence.length - MAX_EVIDENCE} more evidence items (--format json)`);
  if (f.nextActions.length) {
    out.push('', '**Next:**');
    for (const n of f.nextActions) out.push(`1. ${prose(n)}`);
  }
  out.push('', `Runbook: \`runbooks/${f.runbook}.md\` · kind \`${f.kind}\` · fingerprint \`${f.fingerprint.slice(0, 12)}\``, '');
  return out;
}

/** The audit reuses this with its own heading and its own word for "nothing found". */
export interface MarkdownReportWording {
  heading: string;
  nothingFound: string;
}
const DIAGNOSIS_WORDING: MarkdownReportWording = { heading: 'Kafka diagnosis', nothingFound: 'No findings: the cluster looks healthy.' };

export function renderReportMarkdown(report: DiagnosisReport, wording: MarkdownReportWording = DIAGNOSIS_WORDING): string {
  const lines = [`## ${wording.heading}: ${prose(report.cluster)}`, '', `${report.startedAt} · ${report.durationMs} ms`, ''];
  const ordered = sortFindings(report.findings);
  if (ordered.length === 0) lines.push(wording.nothingFound, '');
  else {
    lines.push('| Severity | Finding | Affected |', '|---|---|---|');
    for (const f of ordered) {
      const a = f.affected;
      const affected = [a.partitions.length && plural(a.partitions.length, 'partition'), a.brokers.length && `brokers ${a.brokers.join(', ')}`, a.groups.length && plural(a.groups.length, 'group')].filter(Boolean).join('; ');
      lines.push(`| ${f.severity} | ${prose(f.title)} | ${affected || '—'} |`);
    }
    lines.push('');
  }
  if (report.partial) {
    lines.push('> **Partial:** some brokers or calls did not answer; findings may be incomplete.');
    for (const e of (report.snapshotErrors ?? []).slice(0, 5)) lines.push(`> - ${prose(e.scope)}: ${code(e.message)}`);
    lines.push('');
  }
  if (report.changes?.length) {
    lines.push('**Changed in the last hour:**');
    for (const l of changeLines(report.changes)) lines.push(`- ${prose(l)}`);
    lines.push('');
  }
  for (const f of ordered) lines.push(...finding(f));
  if (report.skippedChecks.length) {
    lines.push('**Not checked:**');
    for (const s of report.skippedChecks) lines.push(`- ${prose(s)}`);
    lines.push('');
  }
  return lines.join('\n').trimEnd() + '\n';
}

export function renderRestartMarkdown(cluster: string, a: RestartAssessment): string {
  const lines = [`## Can ${restartNoun(a)} ${a.brokerId} of ${prose(cluster)} restart now? **${a.verdict === 'yes' ? 'Yes' : 'No'}**`, ''];
  for (const r of a.reasons) lines.push(`- ✗ ${prose(r)}`);
  if (a.reasons.length) lines.push('');
  const list = (title: string, refs: { topic: string; partition: number }[]) => {
    if (refs.length) lines.push(`- **${title} (${refs.length}):** ${refs.slice(0, MAX_PARTITIONS_SHOWN).map((r) => code(`${r.topic}-${r.partition}`)).join(', ')}${refs.length > MAX_PARTITIONS_SHOWN ? ', …' : ''}`);
  };
  list('Would go offline', a.wouldGoOffline);
  list('Would fall below min.insync.replicas', a.wouldFallBelowMinIsr);
  for (const c of a.coordinatorsMoving) {
    if (c.groups.length) lines.push(`- Coordinator of \`__consumer_offsets-${c.offsetsPartition}\` moves to ${c.newLeader === null ? 'no broker' : `broker ${c.newLeader}`} (${plural(c.groups.length, 'group')} reload)`);
  }
  if (isBrokerAnswer(a)) lines.push(`- Recovering logs: ${a.recovering === null ? 'unknown (no host access)' : a.recovering ? 'yes' : 'no'}`);
  for (const n of a.notes) lines.push(`- ${prose(n)}`);
  return lines.join('\n') + '\n';
}
