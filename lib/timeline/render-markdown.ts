// The postmortem timeline as a Markdown file: what the bot saw and did, in
// time order, each with its time, and the headed sections people fill in.
// People are named by their Slack ids, clusters and partitions as they
// appear. Text from outside (alert titles, finding titles, audit messages)
// is escaped so it cannot turn into markup or break the table.
import { describeChange } from '../diagnose/render-changes.ts';
import type { Timeline, TimelineEntry } from './build.ts';
import { formatElapsed } from '../runtime/format.ts';

/** Markdown-inert text for one table cell. */
function cell(text: string): string {
  return text.replace(/([\\`*_[\]<>|#~])/g, '\\$1').replace(/\r?\n/g, ' ');
}

/** "2026-12-01 17:04:05" (UTC). */
export function timeOf(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().replace('T', ' ').slice(0, 19) : iso;
}

const AUDIT_WORDS: Record<string, string> = {
  requested: 'Plan requested',
  approved: 'Approved',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
  expired: 'Expired',
  claimed: 'Run started',
  step: 'Step',
  succeeded: 'Operation SUCCEEDED',
  failed: 'Operation FAILED',
  stale: 'Operation STALE (cluster changed since the plan)',
  abandoned: 'Run abandoned',
  resumed: 'Run resumed',
  'cancel-requested': 'Cancel requested',
  'resume-requested': 'Resume requested',
};

/** Who did it: a person by Slack id; the bot's workers as "the bot". */
function actor(id: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(id) ? id : 'the bot';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function describeEntry(e: TimelineEntry): string {
  switch (e.code) {
    case 'alert-firing':
    case 'alert-resolved':
      return `Alert **${e.code === 'alert-firing' ? 'firing' : 'resolved'}**: ${cell(e.title)} (${cell(e.source)} \`${cell(e.alertname)}\`${e.count > 1 ? `, ${e.count} alerts` : ''})`;
    case 'diagnosis':
      return `Diagnosis of ${cell(e.cluster)}${e.requestedBy ? ` asked by ${e.requestedBy}` : ''}: ${plural(e.findings, 'finding')}${e.partial ? ' (partial snapshot)' : ''}, took ${(e.durationMs / 1000).toFixed(1)} s`;
    case 'finding-first-seen':
      return `Finding first seen: ${e.finding.severity.toUpperCase()} ${cell(e.finding.title)} (\`${cell(e.finding.kind)}\`, fingerprint \`${e.finding.fingerprint.slice(0, 12)}\`)`;
    case 'finding-changed':
      return `Finding changed: ${e.before.severity.toUpperCase()} ${cell(e.before.title)} → ${e.finding.severity.toUpperCase()} ${cell(e.finding.title)} (fingerprint \`${e.finding.fingerprint.slice(0, 12)}\`)`;
    case 'finding-cleared':
      return `Finding cleared: ${cell(e.finding.title)} (\`${cell(e.finding.kind)}\`, fingerprint \`${e.finding.fingerprint.slice(0, 12)}\`)`;
    case 'cluster-change':
      return `Cluster changed: ${cell(describeChange(e.change))}`;
    case 'plan-unreadable':
      return `Plan requested by ${e.requestedBy}: ${cell(e.title)} (request \`${cell(e.requestId)}\`; its audit trail could not be read)`;
    case 'audit': {
      const ev = e.event;
      const who = actor(ev.actor);
      const what = AUDIT_WORDS[ev.type] ?? ev.type;
      if (ev.type === 'requested') return `${what} by ${who}: ${cell(e.planTitle)} (request \`${cell(e.requestId)}\`)`;
      const phase = e.phase ? ` — **${e.phase.phase}**, ${formatElapsed(e.phase.afterMs)} after the last approval` : '';
      if (ev.type === 'step') return `${what}: ${cell(ev.message)}${phase}`;
      return `${what}${who === 'the bot' ? '' : ` by ${who}`}: ${cell(ev.message)}${phase}`;
    }
  }
}

/** A file posted with the timeline (the metrics graph, when a chart function provides one). */
export interface TimelineAttachment {
  filename: string;
  title: string;
}

export function renderTimelineMarkdown(t: Timeline, exportedAt: string, attachments: readonly TimelineAttachment[] = []): string {
  const inc = t.incident;
  const first = t.entries[0]?.at;
  const last = t.entries.at(-1)?.at;
  const lines = [
    `# Postmortem: ${cell(inc.title)}`,
    '',
    `- **Cluster${t.clusters.length === 1 ? '' : 's'}:** ${t.clusters.length ? t.clusters.map(cell).join(', ') : 'unknown'}`,
    `- **Slack thread:** channel ${cell(inc.channel)}, thread ${cell(inc.threadTs)}`,
    `- **From** ${first ? timeOf(first) : '—'} **to** ${last ? timeOf(last) : '—'} UTC`,
    `- **People involved:** ${t.people.length ? t.people.join(', ') : 'none recorded'}`,
    `- Exported ${timeOf(exportedAt)} UTC by kafka-responder (incident \`${inc.id}\`)`,
    '',
    '## Summary',
    '',
    '_To fill in: what happened, in two sentences._',
    '',
    '## Impact',
    '',
    '_To fill in: who and what was affected (producers, consumers, data lost or delayed), and for how long._',
    '',
    '## Timeline (UTC)',
    '',
  ];
  if (t.entries.length === 0) lines.push('Nothing was recorded for this thread.', '');
  else {
    lines.push('| Time (UTC) | Event |', '|---|---|');
    for (const e of t.entries) lines.push(`| ${timeOf(e.at)} | ${describeEntry(e)} |`);
    lines.push('');
  }
  if (attachments.length) {
    lines.push('## Graphs', '');
    for (const a of attachments) lines.push(`- ${cell(a.title)}: \`${cell(a.filename)}\` (posted with this file in the thread)`);
    lines.push('');
  }
  lines.push(
    '## Root cause',
    '',
    '_To fill in: why it happened, and why it was not caught earlier._',
    '',
    '## What went well, what did not',
    '',
    '_To fill in._',
    '',
    '## Follow-ups',
    '',
    '- [ ] _To fill in: action, owner, ticket._',
    '',
  );
  return lines.join('\n');
}
