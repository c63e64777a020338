// An approved operation as PagerDuty Change Events (Events API v2), so "what
// changed" on the service's timeline shows the override, the drain, the
// restart: one event when the second approval lets it run, one for how it
// ended and what it left. Pure: the body without its routing key (added when
// sent, client.ts), built from the request as the approvals table holds it.
import type { ApprovalRequest, FinalOutcome } from '../approvals/types.ts';
import type { Plan } from '../operations/types.ts';

/** Events API v2 change event, less `routing_key`. */
export interface ChangeEventBody {
  payload: {
    /** At most 1,024 characters (PagerDuty's limit). */
    summary: string;
    timestamp: string;
    source: string;
    custom_details: Record<string, unknown>;
  };
  links: { href: string; text: string }[];
}

export const MAX_SUMMARY_CHARS = 1024;
const MAX_STEPS_LISTED = 20;
const MAX_DETAIL_CHARS = 2000;

export type ChangeMoment = 'approved' | 'outcome';

const cut = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** The approval that made the request runnable: the latest audited `approved`. */
function approvedAt(request: ApprovalRequest<Plan>): number {
  return request.events.findLast((e) => e.type === 'approved')?.at ?? request.approvals.at(-1)?.at ?? request.createdAt;
}

/** Approved: two (or the required number of) distinct approvals recorded. */
export function isApproved(request: ApprovalRequest<Plan>): boolean {
  return request.approvals.length >= request.requiredApprovals;
}

/** How the run ended, as people say it: a human marking a dead run failed is "abandoned". */
export function outcomeWord(request: ApprovalRequest<Plan>): string | null {
  if (request.events.some((e) => e.type === 'abandoned')) return 'abandoned';
  const status = request.outcome?.status ?? (request.status === 'EXPIRED' || request.status === 'CANCELLED' ? request.status : null);
  const words: Record<FinalOutcome | 'EXPIRED', string> = { SUCCEEDED: 'finished', FAILED: 'failed', STALE: 'stale', CANCELLED: 'cancelled', EXPIRED: 'expired before it ran' };
  return status ? words[status] : null;
}

export interface ChangeContext {
  source: string;
  /** The plan's Slack thread, linked from the event. */
  threadUrl?: string;
}

function common(request: ApprovalRequest<Plan>): Record<string, unknown> {
  return {
    request_id: request.id,
    kind: request.plan.kind,
    cluster: request.context?.cluster ?? null,
    plan: request.plan.title,
    requested_by: request.requester,
    approved_by: request.approvals.map((a) => a.user),
    fingerprint: request.plan.fingerprint,
  };
}

export function approvalChangeEvent(request: ApprovalRequest<Plan>, ctx: ChangeContext): ChangeEventBody {
  const cluster = request.context?.cluster;
  const steps = request.plan.steps.map((s) => s.description);
  const summary = `Approved: ${request.plan.title}${cluster ? ` on ${cluster}` : ''} (approved by ${request.approvals.map((a) => a.user).join(', ')})`;
  return {
    payload: {
      summary: cut(summary, MAX_SUMMARY_CHARS),
      timestamp: new Date(approvedAt(request)).toISOString(),
      source: ctx.source,
      custom_details: {
        event: 'approved',
        ...common(request),
        risk: request.plan.impact.risk,
        steps: [...steps.slice(0, MAX_STEPS_LISTED).map((s) => cut(s, 300)), ...(steps.length > MAX_STEPS_LISTED ? [`…and ${steps.length - MAX_STEPS_LISTED} more`] : [])],
      },
    },
    links: ctx.threadUrl ? [{ href: ctx.threadUrl, text: 'Plan and approvals in Slack' }] : [],
  };
}

export function outcomeChangeEvent(request: ApprovalRequest<Plan>, ctx: ChangeContext): ChangeEventBody {
  const cluster = request.context?.cluster;
  const word = outcomeWord(request) ?? request.status.toLowerCase();
  const left = request.outcome?.summary ?? request.closedBy?.reason ?? '';
  const ran = request.run?.cursor ?? 0;
  const summary = `${word[0]!.toUpperCase()}${word.slice(1)}: ${request.plan.title}${cluster ? ` on ${cluster}` : ''}${left ? ` — ${left}` : ''}`;
  const at = request.outcome?.at ?? request.closedBy?.at ?? request.events.at(-1)?.at ?? Date.now();
  return {
    payload: {
      summary: cut(summary, MAX_SUMMARY_CHARS),
      timestamp: new Date(at).toISOString(),
      source: ctx.source,
      custom_details: {
        event: 'outcome',
        outcome: word,
        status: request.status,
        ...common(request),
        steps_run: `${ran} of ${request.plan.steps.length}`,
        ...(request.run ? { duration_ms: at - request.run.startedAt } : {}),
        // What it left: the run's own summary (compensation included), and cleanup still owed.
        ...(left ? { left: cut(left, MAX_DETAIL_CHARS) } : {}),
        cleanup_pending: Boolean(request.run?.cleanupPending),
      },
    },
    links: ctx.threadUrl ? [{ href: ctx.threadUrl, text: 'Run and summary in Slack' }] : [],
  };
}

/** A Slack thread's web address (Slack redirects it into the workspace). */
export function slackThreadUrl(channel: string, ts: string): string | undefined {
  if (!/^[CGD][A-Z0-9]{2,}$/.test(channel) || !/^\d+\.\d+$/.test(ts)) return undefined;
  return `https://slack.com/archives/${channel}/p${ts.replace('.', '')}`;
}
