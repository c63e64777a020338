// Findings, progress and assessments as Block Kit, always within Slack's
// limits: at most 50 blocks, 3,000 characters a section. What does not fit is
// summarised in the message and returned as a file for upload.
import type { KnownBlock } from '@slack/types';
import { OPS_ACTIONS } from '../operations/actions.ts';
import { button, context, header, section, type SlackMessage } from '../slack/blocks.ts';
import { SLACK_LIMITS, clip, clipEscaped, escapeMrkdwn } from '../slack/limits.ts';
import type { DiagnoseProgress } from './diagnoser.ts';
import type { RestartAssessment } from './restart-assessment.ts';
import { isBrokerAnswer, restartNoun } from './restart-assessment.ts';
import { sortFindings } from './finding.ts';
import { offerFor } from './checks/index.ts';
import { changeLines } from './render-changes.ts';
import type { DiagnosisReport, Finding, Severity } from './types.ts';
import { andMore } from '../runtime/format.ts';
import { unknownTopicText } from './topic-scope.ts';

export interface RenderedReport extends SlackMessage {
  /** Full detail when the message had to be summarised. */
  file?: { filename: string; title: string; content: string };
}

const SEVERITY_ICON: Record<Severity, string> = {
  critical: ':red_circle:',
  error: ':large_orange_circle:',
  warning: ':large_yellow_circle:',
  info: ':information_source:',
};

/** Findings shown in full in the thread; the rest are counted and go to the file. */
export const MAX_DETAILED_FINDINGS = 15;

const MAX_EVIDENCE_LINES = 3;
/** Changes listed in the message; the attached file has them all. */
const MAX_CHANGE_LINES = 12;

const MAX_AFFECTED_LISTED = 10;

function countBySeverity(findings: Finding[]): string {
  const counts = new Map<Severity, number>();
  for (const f of findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  return (['critical', 'error', 'warning', 'info'] as const)
    .filter((s) => counts.get(s))
    .map((s) => `${counts.get(s)} ${s}`)
    .join(', ');
}

function listSome<T>(items: T[], show: (t: T) => string, max = MAX_AFFECTED_LISTED): string {
  return andMore(items.slice(0, max).map(show), max, items.length);
}

function affectedLine(f: Finding): string {
  const parts: string[] = [];
  if (f.affected.partitions.length) parts.push(`partitions ${listSome(f.affected.partitions, (p) => `${p.topic}-${p.partition}`)}`);
  if (f.affected.brokers.length) parts.push(`brokers ${listSome(f.affected.brokers, String)}`);
  if (f.affected.controllers?.length) parts.push(`controllers ${listSome(f.affected.controllers, String)}`);
  if (f.affected.groups.length) parts.push(`groups ${listSome(f.affected.groups, (g) => g)}`);
  return parts.join('; ');
}

/**
 * The operation a finding offers, as a "Plan …" button (issue 5): the check
 * that raised it declared the request (operation kind + parameters) and the
 * button's text; nothing here names a kind. It only plans: the plan is posted
 * for two approvals like the slash commands'. The value stays small (cluster + request).
 */
export function planButtonFor(f: Finding, cluster: string): ReturnType<typeof button> | undefined {
  const offer = offerFor(f);
  if (!offer) return undefined;
  return button({ text: offer.label, actionId: OPS_ACTIONS.plan, value: JSON.stringify({ cluster, request: offer.request }) });
}

/** One finding as one section of at most 3,000 characters; true in `cut` when detail was dropped. */
export function findingSection(f: Finding, cluster?: string): { block: KnownBlock; cut: boolean } {
  const lines = [`${SEVERITY_ICON[f.severity]} *${escapeMrkdwn(f.title)}*`, escapeMrkdwn(f.summary)];
  const affected = affectedLine(f);
  if (affected) lines.push(`*Affected:* ${escapeMrkdwn(affected)}`);
  const evidence = f.evidence.slice(0, MAX_EVIDENCE_LINES).map((e) => {
    const where = e.source ? ` (${e.source})` : '';
    return `• ${escapeMrkdwn(e.label)}${escapeMrkdwn(where)}: \`${escapeMrkdwn(clip(e.value.replace(/`/g, "'"), 400))}\``;
  });
  if (evidence.length) lines.push('*Evidence:*', ...evidence);
  if (f.evidence.length > MAX_EVIDENCE_LINES) lines.push(`_…${f.evidence.length - MAX_EVIDENCE_LINES} more evidence lines in the attached file_`);
  if (f.nextActions.length) lines.push(`*Next:* ${escapeMrkdwn(f.nextActions.slice(0, 3).join(' · '))}`);
  lines.push(`*Runbook:* \`/kafka runbook ${f.runbook}\``);
  const text = lines.join('\n');
  const cut =
    text.length > SLACK_LIMITS.sectionText ||
    f.evidence.length > MAX_EVIDENCE_LINES ||
    f.affected.partitions.length > MAX_AFFECTED_LISTED ||
    f.affected.brokers.length > MAX_AFFECTED_LISTED ||
    f.affected.groups.length > MAX_AFFECTED_LISTED;
  const accessory = cluster ? planButtonFor(f, cluster) : undefined;
  // A section accessory, not an actions block: the 50-block budget of renderDiagnosis stays as it is.
  const block: KnownBlock = accessory ? { type: 'section', text: { type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) }, accessory } : section(text);
  return { block, cut };
}

/** The complete report as plain text, for the uploaded file. */
export function reportAsText(report: DiagnosisReport): string {
  const out = [
    `Diagnosis of cluster ${report.cluster}`,
    `started ${report.startedAt}, took ${report.durationMs} ms${report.partial ? ', PARTIAL (some reads timed out)' : ''}`,
    '',
  ];
  if (report.skippedChecks.length) out.push('Checks that could not run:', ...report.skippedChecks.map((s) => `  - ${s}`), '');
  if (report.changes?.length) out.push('Changed in the last hour:', ...changeLines(report.changes).map((l) => `  - ${l}`), '');
  for (const f of sortFindings(report.findings)) {
    out.push(`[${f.severity.toUpperCase()}] ${f.title}  (${f.kind}, fingerprint ${f.fingerprint})`, `  ${f.summary}`);
    if (f.affected.partitions.length) out.push(`  partitions: ${f.affected.partitions.map((p) => `${p.topic}-${p.partition}`).join(', ')}`);
    if (f.affected.brokers.length) out.push(`  brokers: ${f.affected.brokers.join(', ')}`);
    if (f.affected.controllers?.length) out.push(`  controllers: ${f.affected.controllers.join(', ')}`);
    if (f.affected.groups.length) out.push(`  groups: ${f.affected.groups.join(', ')}`);
    for (const e of f.evidence) out.push(`  evidence ${e.label}${e.source ? ` (${e.source})` : ''}: ${e.value}`);
    for (const a of f.nextActions) out.push(`  next: ${a}`);
    out.push(`  runbook: runbooks/${f.runbook}.md`, '');
  }
  return out.join('\n');
}

export function headline(report: DiagnosisReport): string {
  if (!report.findings.length) return `No problems found on ${report.cluster}${report.partial ? ' (partial: some reads timed out)' : ''}`;
  return `${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} on ${report.cluster}: ${countBySeverity(report.findings)}`;
}

export function renderDiagnosis(report: DiagnosisReport, opts: { correlationId: string; topic?: string }): RenderedReport {
  const findings = sortFindings(report.findings);
  const blocks: KnownBlock[] = [
    header(`Diagnosis: ${report.cluster}${opts.topic ? ` / ${opts.topic}` : ''}`),
    section(`*${escapeMrkdwn(headline(report))}*`),
    context(`took ${(report.durationMs / 1000).toFixed(1)} s · correlation id \`${opts.correlationId}\`${report.partial ? ' · :warning: partial snapshot' : ''}`),
  ];
  if (report.skippedChecks.length) {
    blocks.push(section(`*Checks that could not run:*\n${report.skippedChecks.slice(0, 10).map((s) => `• ${escapeMrkdwn(s)}`).join('\n')}`));
  }
  let needsFile = report.skippedChecks.length > 10;
  // Said only when something is known: a diagnosis with no change reads as before.
  if (report.changes?.length) {
    const lines = changeLines(report.changes);
    const shown = lines.slice(0, MAX_CHANGE_LINES).map((l) => `• ${escapeMrkdwn(l)}`);
    if (lines.length > MAX_CHANGE_LINES) shown.push(`…and ${lines.length - MAX_CHANGE_LINES} more`);
    blocks.push(section(`*Changed in the last hour:*\n${shown.join('\n')}`));
    needsFile ||= lines.length > MAX_CHANGE_LINES;
  }
  const detailed = findings.slice(0, MAX_DETAILED_FINDINGS);
  for (const f of detailed) {
    const { block, cut } = findingSection(f, report.cluster);
    blocks.push({ type: 'divider' }, block);
    needsFile ||= cut;
  }
  const rest = findings.slice(MAX_DETAILED_FINDINGS);
  if (rest.length) {
    needsFile = true;
    const byKind = new Map<string, number>();
    for (const f of rest) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
    const summary = [...byKind].map(([k, n]) => `${k} ×${n}`).join(', ');
    blocks.push({ type: 'divider' }, section(`*…and ${rest.length} more findings:* ${escapeMrkdwn(summary)}`));
  }
  if (needsFile) blocks.push(context(':page_facing_up: Full report attached as a file in this thread.'));
  // 3 + 1 + 1 + 2×15 + 2 + 1 = 38 at most: under 50 by construction; asserted in tests.
  const rendered: RenderedReport = { text: clipEscaped(headline(report), SLACK_LIMITS.fallbackText), blocks };
  if (needsFile) {
    const stamp = report.startedAt.replace(/[:.]/g, '-');
    rendered.file = { filename: `diagnosis-${report.cluster}-${stamp}.txt`, title: `Full diagnosis of ${report.cluster}`, content: reportAsText(report) };
  }
  return rendered;
}

export function renderProgress(cluster: string, progress: DiagnoseProgress | null, requestedBy?: string): SlackMessage {
  const who = requestedBy ? ` (asked by <@${requestedBy}>)` : '';
  const step = progress ? `${progress.done}/${progress.total} ${progress.stage}` : 'starting';
  const text = `:hourglass_flowing_sand: Diagnosing *${escapeMrkdwn(cluster)}*${who}: ${step}`;
  return { text: escapeMrkdwn(`Diagnosing ${cluster}: ${step}`), blocks: [section(text)] };
}

export function renderDone(report: DiagnosisReport, requestedBy?: string): SlackMessage {
  const worst = sortFindings(report.findings)[0];
  const icon = worst ? SEVERITY_ICON[worst.severity] : ':white_check_mark:';
  const who = requestedBy ? ` (asked by <@${requestedBy}>)` : '';
  const text = `${icon} ${escapeMrkdwn(headline(report))}${who}. Details in the thread.`;
  return { text: escapeMrkdwn(headline(report)), blocks: [section(text)] };
}

export function renderCanRestart(cluster: string, a: RestartAssessment, correlationId: string): SlackMessage {
  const safe = a.verdict === 'yes';
  const verdict = safe ? 'Yes, it can restart now.' : `No: ${a.reasons[0] ?? 'not safe'}`;
  // The first reason is already the verdict.
  const reasons = [...(safe ? a.reasons : a.reasons.slice(1)), ...a.notes];
  const atRisk = [
    ...a.wouldGoOffline.map((p) => `${p.topic}-${p.partition} (offline)`),
    ...a.wouldFallBelowMinIsr.map((p) => `${p.topic}-${p.partition} (ISR ${p.isr} < min ${p.minIsr})`),
  ];
  const icon = safe ? ':white_check_mark:' : ':no_entry:';
  const noun = restartNoun(a);
  const blocks: KnownBlock[] = [section(`${icon} *Can ${noun} ${a.brokerId} of ${escapeMrkdwn(cluster)} restart now?* ${escapeMrkdwn(verdict)}`)];
  if (reasons.length) blocks.push(section(reasons.slice(0, 15).map((r) => `• ${escapeMrkdwn(r)}`).join('\n')));
  if (atRisk.length) blocks.push(section(`*At risk:* ${escapeMrkdwn(listSome(atRisk, (p) => p, 30))}`));
  if (!safe && isBrokerAnswer(a)) {
    // Not safe to stop as it is: offer to move its replicas away first (two approvals).
    const value = JSON.stringify({ cluster, request: { kind: 'drain-broker', broker: a.brokerId, partial: false } });
    blocks.push({ type: 'actions', elements: [button({ text: `Plan drain of broker ${a.brokerId}`, actionId: OPS_ACTIONS.plan, value })] });
  }
  blocks.push(context(`correlation id \`${correlationId}\``));
  return { text: clipEscaped(`${noun[0]!.toUpperCase()}${noun.slice(1)} ${a.brokerId}: ${verdict}`, SLACK_LIMITS.fallbackText), blocks };
}

/** A topic the cluster's metadata does not have: nothing else was read. */
export function renderUnknownTopic(topic: string, cluster: string, nearMisses: readonly string[], reason?: string): SlackMessage {
  const text = `:grey_question: ${escapeMrkdwn(unknownTopicText(topic, cluster, nearMisses, reason))}. Nothing was diagnosed: check the name, or run \`/kafka diagnose ${escapeMrkdwn(cluster)}\` for the whole cluster.`;
  return { text: clip(escapeMrkdwn(unknownTopicText(topic, cluster, nearMisses, reason)), 300), blocks: [section(text)] };
}
