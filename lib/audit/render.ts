// The audit in Slack: the same finding sections as the diagnosis, each with
// the failure it prevents; the scheduled run posts only a diff.
import type { KnownBlock } from '@slack/types';
import { context, header, section, type SlackMessage } from '../slack/blocks.ts';
import { clip, escapeMrkdwn } from '../slack/limits.ts';
import { findingSection, headline } from '../diagnose/render-slack.ts';
import { sortFindings } from '../diagnose/finding.ts';
import type { Finding } from '../diagnose/types.ts';
import type { AuditReport } from './run.ts';
import type { ReportDiff } from './last-report.ts';

/** 4 leading blocks + 3 per finding + 2 trailing stays under Slack's 50. */
const MAX_DETAILED = 14;

function findingBlocks(findings: readonly Finding[], cluster: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (const f of sortFindings(findings).slice(0, MAX_DETAILED)) {
    blocks.push({ type: 'divider' }, findingSection(f, cluster).block);
    if (f.prevents) blocks.push(context(`Prevents: ${escapeMrkdwn(f.prevents)}`));
  }
  const rest = findings.length - MAX_DETAILED;
  if (rest > 0) {
    const byKind = new Map<string, number>();
    for (const f of sortFindings(findings).slice(MAX_DETAILED)) byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
    blocks.push(section(`*…and ${rest} more:* ${escapeMrkdwn([...byKind].map(([k, n]) => `${k} ×${n}`).join(', '))} (\`kafka-responder audit --json\` lists them all)`));
  }
  return blocks;
}

function leading(title: string, report: AuditReport, line: string, correlationId: string): KnownBlock[] {
  const blocks: KnownBlock[] = [
    header(title),
    section(`*${escapeMrkdwn(line)}*`),
    context(`took ${(report.durationMs / 1000).toFixed(1)} s · ${report.checks.length} checks · correlation id \`${correlationId}\`${report.partial ? ' · :warning: partial snapshot' : ''}`),
  ];
  if (report.skippedChecks.length) blocks.push(section(`*Not checked:*\n${report.skippedChecks.slice(0, 5).map((s) => `• ${escapeMrkdwn(s)}`).join('\n')}`));
  return blocks;
}

/** The whole report (`/kafka audit`, the weekly summary). */
export function renderAudit(report: AuditReport, opts: { correlationId: string; weekly?: boolean }): SlackMessage {
  const title = `${opts.weekly ? 'Weekly risk audit' : 'Risk audit'}: ${report.cluster}`;
  const line = report.findings.length ? headline(report) : `No risks found on ${report.cluster}`;
  return { text: clip(`${title}: ${line}`, 3000), blocks: [...leading(title, report, line, opts.correlationId), ...findingBlocks(report.findings, report.cluster)] };
}

/** What is new or changed since the last posted report, and what went away. */
export function renderAuditChanges(report: AuditReport, diff: ReportDiff, opts: { correlationId: string }): SlackMessage {
  const title = `Risk audit: ${report.cluster}, changes`;
  const parts = [
    diff.added.length ? `${diff.added.length} new` : '',
    diff.changed.length ? `${diff.changed.length} changed` : '',
    diff.resolved.length ? `${diff.resolved.length} resolved` : '',
  ].filter(Boolean);
  const line = `${parts.join(', ')} since the last report (${report.findings.length} open in total)`;
  const blocks = [...leading(title, report, line, opts.correlationId), ...findingBlocks([...diff.added, ...diff.changed], report.cluster)];
  if (diff.resolved.length) {
    blocks.push(section(`*Resolved:*\n${diff.resolved.slice(0, 20).map((r) => `• ${escapeMrkdwn(r.title)} (${r.kind})`).join('\n')}`));
  }
  return { text: clip(`${title}: ${line}`, 3000), blocks };
}
