// The thread's findings as a note on the PagerDuty incident the alert came
// from, so whoever looks at the incident in PagerDuty sees what the bot found
// without opening Slack. Queued through the outbox like every delivery: once
// per thread and diagnosis, retried, never in the diagnosis' way.
//
// Wiring (lib/alerts/triage.ts, after the diagnosis is posted):
//   const incident = incidentIdOf(event);
//   if (incident) await queueIncidentNote(ctx, { incidentId: incident, report, channel, threadTs, key: job.id });
import type { DiagnosisReport } from '../diagnose/types.ts';
import type { JobContext } from '../worker/worker.ts';
import { PAGERDUTY_ID } from '../config/pagerduty.ts';
import { slackThreadUrl } from './change-events.ts';
import { queueDelivery } from './deliveries.ts';

/** PagerDuty keeps at most 25,000 characters of a note; ours stays well below. */
export const MAX_NOTE_CHARS = 10_000;
const MAX_FINDINGS = 15;

/** Plain text (PagerDuty shows notes as they are): the verdict, each finding in two lines, the thread. */
export function findingsNote(report: DiagnosisReport, threadUrl?: string): string {
  const head = report.findings.length
    ? `kafka-responder: ${report.findings.length} finding${report.findings.length === 1 ? '' : 's'} on ${report.cluster}${report.partial ? ' (partial: some of the cluster could not be read)' : ''}`
    : `kafka-responder: no problem found on ${report.cluster}${report.partial ? ' (partial: some of the cluster could not be read)' : ''}`;
  const lines = report.findings.slice(0, MAX_FINDINGS).map((f) => {
    const next = f.nextActions[0] ? `\n  next: ${f.nextActions[0]}` : '';
    return `- [${f.severity}] ${f.title}: ${f.summary}${next}`;
  });
  if (report.findings.length > MAX_FINDINGS) lines.push(`- …and ${report.findings.length - MAX_FINDINGS} more in the thread`);
  const tail = [threadUrl ? `Thread: ${threadUrl}` : '', `Diagnosed ${report.startedAt} in ${(report.durationMs / 1000).toFixed(1)} s.`].filter(Boolean);
  const text = [head, ...lines, ...tail].join('\n');
  return text.length <= MAX_NOTE_CHARS ? text : `${text.slice(0, MAX_NOTE_CHARS - 1)}…`;
}

export interface IncidentNoteRequest {
  incidentId: string;
  report: DiagnosisReport;
  channel: string;
  threadTs: string;
  /** What makes this note one of a kind (the job that diagnosed): a retry of it queues nothing more. */
  key: string;
}

/** Queues the findings note when notes are configured and the id is PagerDuty's; true when queued now. */
export async function queueIncidentNote(ctx: Pick<JobContext, 'store' | 'queue' | 'log' | 'job' | 'config'>, note: IncidentNoteRequest): Promise<boolean> {
  if (!ctx.config.pagerduty?.notes?.enabled) return false;
  // It becomes part of a URL path: only PagerDuty's own id shape.
  if (!PAGERDUTY_ID.test(note.incidentId)) {
    ctx.log.warn('not a PagerDuty incident id; no note', { incidentId: note.incidentId.slice(0, 40) });
    return false;
  }
  const content = findingsNote(note.report, slackThreadUrl(note.channel, note.threadTs));
  const what = `note on incident ${note.incidentId}: ${content.split('\n')[0]}`;
  return queueDelivery(ctx, `note:${note.incidentId}:${note.key}`, { target: 'incident-note', incidentId: note.incidentId, content }, what, note.channel);
}
