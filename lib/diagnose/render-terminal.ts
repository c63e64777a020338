// Findings for a human at a terminal: grouped by severity, counted, the most
// useful evidence first, coloured only when writing to a TTY.

import type { DiagnosisReport, Finding, Severity } from './types.ts';
import type { RestartAssessment } from './restart-assessment.ts';
import { isBrokerAnswer, restartNoun } from './restart-assessment.ts';
import { SEVERITY_RANK, plural } from './finding.ts';
import { changeLines } from './render-changes.ts';

export interface Style {
  color: boolean;
}

const CODES: Record<Severity | 'dim' | 'bold' | 'green', string> = {
  critical: '\x1b[1;31m',
  error: '\x1b[31m',
  warning: '\x1b[33m',
  info: '\x1b[36m',
  dim: '\x1b[2m',
  bold: '\x1b[1m',
  green: '\x1b[32m',
};

function paint(style: Style, code: keyof typeof CODES, text: string): string {
  return style.color ? `${CODES[code]}${text}\x1b[0m` : text;
}

const MAX_EVIDENCE_LINES = 5;
const MAX_PARTITIONS_SHOWN = 8;

function renderFinding(f: Finding, style: Style): string[] {
  const out: string[] = [];
  out.push(`  ${paint(style, f.severity, f.severity.toUpperCase().padEnd(8))} ${paint(style, 'bold', f.title)}  ${paint(style, 'dim', `[${f.kind} ${f.fingerprint.slice(0, 8)}]`)}`);
  out.push(`           ${f.summary}`);
  const a = f.affected;
  const parts: string[] = [];
  if (a.brokers.length) parts.push(`brokers ${a.brokers.join(', ')}`);
  if (a.controllers?.length) parts.push(`controllers ${a.controllers.join(', ')}`);
  if (a.groups.length) parts.push(`${plural(a.groups.length, 'group')}: ${a.groups.slice(0, 5).join(', ')}${a.groups.length > 5 ? ', …' : ''}`);
  if (a.partitions.length) {
    const shown = a.partitions.slice(0, MAX_PARTITIONS_SHOWN).map((p) => `${p.topic}-${p.partition}`);
    parts.push(`${plural(a.partitions.length, 'partition')}: ${shown.join(', ')}${a.partitions.length > MAX_PARTITIONS_SHOWN ? ', …' : ''}`);
  }
  if (parts.length) out.push(`           affected: ${parts.join('; ')}`);
  for (const e of f.evidence.slice(0, MAX_EVIDENCE_LINES)) {
    out.push(paint(style, 'dim', `           ${e.label}${e.source ? ` (${e.source})` : ''}: ${e.value}`));
  }
  if (f.evidence.length > MAX_EVIDENCE_LINES) out.push(paint(style, 'dim', `           … ${f.evidence.length - MAX_EVIDENCE_LINES} more evidence items (--json)`));
  if (f.prevents) out.push(`           prevents: ${f.prevents}`);
  for (const n of f.nextActions) out.push(`           → ${n}`);
  out.push(paint(style, 'dim', `           runbook: runbooks/${f.runbook}.md`));
  return out;
}

export function renderReport(report: DiagnosisReport, style: Style, title = 'Diagnosis'): string {
  const lines: string[] = [];
  const counts = new Map<Severity, number>();
  for (const f of report.findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  const countText = [...counts]
    .sort((a, b) => SEVERITY_RANK[a[0]] - SEVERITY_RANK[b[0]])
    .map(([s, n]) => paint(style, s, `${n} ${s}`))
    .join(', ');
  lines.push(`${paint(style, 'bold', `${title} of ${report.cluster}`)}  ${paint(style, 'dim', `${report.startedAt}, ${report.durationMs} ms`)}`);
  lines.push(report.findings.length === 0 ? paint(style, 'green', 'No findings: the cluster looks healthy.') : `${plural(report.findings.length, 'finding')}: ${countText}`);
  if (report.partial) {
    lines.push(paint(style, 'warning', 'Partial: some brokers or calls did not answer; findings may be incomplete.'));
    for (const e of (report.snapshotErrors ?? []).slice(0, 5)) lines.push(paint(style, 'dim', `  ${e.scope}: ${e.message}`));
  }
  if (report.changes?.length) {
    lines.push('', paint(style, 'bold', 'Changed in the last hour:'));
    for (const l of changeLines(report.changes)) lines.push(`  - ${l}`);
  }
  let current: Severity | null = null;
  for (const f of report.findings) {
    if (f.severity !== current) {
      current = f.severity;
      lines.push('', paint(style, f.severity, `${f.severity.toUpperCase()} (${counts.get(f.severity)})`));
    }
    lines.push(...renderFinding(f, style));
  }
  if (report.skippedChecks.length) {
    lines.push('', paint(style, 'dim', 'Not checked:'));
    for (const s of report.skippedChecks) lines.push(paint(style, 'dim', `  - ${s}`));
  }
  return lines.join('\n');
}

export function renderRestart(a: RestartAssessment, style: Style): string {
  const lines: string[] = [];
  const verdict = a.verdict === 'yes' ? paint(style, 'green', 'YES') : paint(style, 'critical', 'NO');
  lines.push(`${paint(style, 'bold', `Can ${restartNoun(a)} ${a.brokerId} be restarted now?`)} ${verdict}`);
  for (const r of a.reasons) lines.push(`  ✗ ${r}`);
  const list = (title: string, refs: { topic: string; partition: number }[]) => {
    if (!refs.length) return;
    lines.push(`  ${title} (${refs.length}): ${refs.slice(0, 10).map((r) => `${r.topic}-${r.partition}`).join(', ')}${refs.length > 10 ? ', …' : ''}`);
  };
  list('would go offline', a.wouldGoOffline);
  list('would fall below min.insync.replicas', a.wouldFallBelowMinIsr);
  if (a.coordinatorsMoving.length) {
    lines.push(`  group coordinators that move and reload: ${a.coordinatorsMoving.map((c) => `__consumer_offsets-${c.offsetsPartition}→${c.newLeader ?? 'none'}${c.groups.length ? ` (${plural(c.groups.length, 'group')})` : ''}`).join(', ')}`);
  }
  if (isBrokerAnswer(a)) lines.push(`  recovering logs: ${a.recovering === null ? 'unknown (no host access)' : a.recovering ? 'yes' : 'no'}`);
  for (const n of a.notes) lines.push(paint(style, 'dim', `  · ${n}`));
  return lines.join('\n');
}
