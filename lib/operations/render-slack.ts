// Operation plans and their approval state as Block Kit: the plan message
// (steps, impact, what each leader choice loses, fingerprint, expiry,
// approvals, buttons while open), step lines and the closing summary.
// Buttons carry only the request id; everything else is read from DynamoDB.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest, StepReport } from '../approvals/types.ts';
import type { Notice } from './failures.ts';
import { runTiming, type RunTiming } from '../approvals/run-timing.ts';
import { formatElapsed } from '../runtime/format.ts';
import type { PlanSection } from './kind.ts';
import { capped, pages } from './lists.ts';
import { kindOf } from './registry.ts';
import { noticeText } from './render-text.ts';
import type { Plan, PlanStep } from './types.ts';
import { button, context, header, section, type SlackMessage } from '../slack/blocks.ts';
import { SLACK_LIMITS, clip, clipEscaped, escapeMrkdwn } from '../slack/limits.ts';
import { OPS_ACTIONS } from './actions.ts';

export { OPS_ACTIONS } from './actions.ts';

const STATUS_ICON: Record<string, string> = {
  REQUESTED: ':hourglass_flowing_sand:',
  APPROVED: ':white_check_mark:',
  EXECUTING: ':gear:',
  SUCCEEDED: ':large_green_circle:',
  FAILED: ':red_circle:',
  REJECTED: ':no_entry:',
  EXPIRED: ':alarm_clock:',
  STALE: ':warning:',
  CANCELLED: ':heavy_multiplication_x:',
};

const MAX_STEPS_SHOWN = 12;
/** Warnings and section lines on the plan message; the rest is in its thread (renderPlanDetails). */
const MAX_WARNINGS_SHOWN = 8;
const MAX_SECTION_LINES = 12;
const IN_THREAD = (n: number) => `…and ${n.toLocaleString('en-US')} more (full list in the thread)`;

/** The step as planned: its description already says the throttle or the election type (each fact once). */
function stepLine(step: PlanStep, i: number): string {
  return `${i + 1}. ${escapeMrkdwn(step.description)}`;
}

function sectionsOf(plan: Plan): PlanSection[] {
  return kindOf(plan.kind).render.sections?.(plan as never) ?? [];
}

const warningText = (plan: Plan, w: Notice) => noticeText(w, plan.kind);

/** Whether the plan message shortened these lines (by count or by Slack's size limit): then its thread gets them all. */
function shortened(lines: readonly string[], max: number): boolean {
  return lines.length > max || lines.reduce((n, l) => n + l.length + 3, 0) > SLACK_LIMITS.sectionText - 100;
}

function approvalsText(r: ApprovalRequest<Plan>): string {
  const who = r.approvals.map((a) => `<@${a.user}>${a.user === r.requester ? ' (requester)' : ''}`).join(', ');
  return `*Approvals:* ${r.approvals.length} of ${r.requiredApprovals}${who ? ` — ${who}` : ''}`;
}

/**
 * The plan message as it stands; buttons only while a decision is still
 * possible. Read in ten seconds: the kind's headline (at most three lines),
 * the steps, the kind's sections (a per-replica table, the restart order),
 * then the warnings; each fact once, lists capped with "…and N more".
 */
export function renderPlanMessage(r: ApprovalRequest<Plan>): SlackMessage {
  const plan = r.plan;
  const open = r.status === 'REQUESTED' || r.status === 'APPROVED';
  const headline = kindOf(plan.kind).render.headline(plan as never).slice(0, 3);
  const blocks: KnownBlock[] = [
    header(`Plan: ${plan.title}`),
    section(`${STATUS_ICON[r.status] ?? ''} *${r.status}* · requested by <@${r.requester}> · needs ${r.requiredApprovals} distinct approvers · ${plan.impact.risk} risk\n${headline.map((l) => (l.startsWith('Loss:') ? `*${escapeMrkdwn(l)}*` : escapeMrkdwn(l))).join('\n')}`),
  ];
  // Each section within Slack's limit by whole lines: what does not fit is counted, and in the thread.
  const fit = SLACK_LIMITS.sectionText - 100;
  blocks.push(section(`*Steps:*\n${capped(plan.steps, MAX_STEPS_SHOWN, stepLine, (n) => `…and ${n} more steps`, fit).join('\n')}`));
  for (const s of sectionsOf(plan)) blocks.push(section(`*${escapeMrkdwn(s.title)}:*\n${capped(s.lines, MAX_SECTION_LINES, (l) => `• ${escapeMrkdwn(l)}`, IN_THREAD, fit).join('\n')}`));
  if (plan.warnings.length) blocks.push(section(`*Warnings:*\n${capped(plan.warnings, MAX_WARNINGS_SHOWN, (w) => `• ${escapeMrkdwn(warningText(plan, w))}`, IN_THREAD, fit).join('\n')}`));
  blocks.push(section(approvalsText(r)));
  if (r.outcome) blocks.push(section(`*Result:* ${r.outcome.status}: ${escapeMrkdwn(clip(r.outcome.summary, 1500))}`));
  if (r.closedBy) blocks.push(section(`Closed by <@${r.closedBy.user}>${r.closedBy.reason ? `: ${escapeMrkdwn(clip(r.closedBy.reason, 300))}` : ''}`));
  const expiry = Math.floor(r.expiresAt / 1000);
  blocks.push(
    context(
      `fingerprint \`${plan.fingerprint.slice(0, 16)}\` (recomputed from the live cluster right before running; any change → STALE, nothing runs) · ` +
        (open ? `expires <!date^${expiry}^{date_short_pretty} {time}|${new Date(r.expiresAt).toISOString()}>` : `request \`${r.id}\``),
    ),
  );
  if (r.status === 'EXECUTING') blocks.push(...runningBlocks(r));
  if (open) {
    blocks.push({
      type: 'actions',
      block_id: `ops:${r.id}`,
      elements: [
        button({ text: 'Approve', actionId: OPS_ACTIONS.approve, value: r.id, style: 'primary' }),
        button({ text: 'Reject', actionId: OPS_ACTIONS.reject, value: r.id, style: 'danger' }),
        button({ text: 'Cancel (requester)', actionId: OPS_ACTIONS.cancel, value: r.id }),
      ],
    });
  }
  return { text: clipEscaped(`${r.status}: ${plan.title} (${r.approvals.length} of ${r.requiredApprovals} approvals)`, SLACK_LIMITS.fallbackText), blocks };
}

/**
 * While it runs: where it is (step, progress, invocations), who holds it, and
 * the Cancel button any one approver may press. A worker that dies is resumed
 * by the next tick or the minute sweep; "Mark failed" is for a run that keeps failing to resume.
 */
function runningBlocks(r: ApprovalRequest<Plan>): KnownBlock[] {
  const run = r.run;
  const lines: string[] = [];
  if (run) {
    const step = r.plan.steps[run.cursor];
    lines.push(`:gear: *Running* step ${Math.min(run.cursor + 1, r.plan.steps.length)} of ${r.plan.steps.length}${step ? `: ${escapeMrkdwn(clip(step.description, 200))}` : ''}`);
    if (run.progress) lines.push(`:hourglass_flowing_sand: ${escapeMrkdwn(clip(run.progress.text, 600))} (<!date^${Math.floor(run.progress.at / 1000)}^{time_secs}|${new Date(run.progress.at).toISOString()}>)`);
    lines.push(`started <!date^${Math.floor(run.startedAt / 1000)}^{date_short_pretty} {time}|${new Date(run.startedAt).toISOString()}> · ${run.invocations} worker invocation(s)`);
  }
  if (r.lease) {
    const until = Math.floor(r.lease.until / 1000);
    lines.push(
      r.lease.parked
        ? `waiting for its next check (resumed by the minute sweep if that does not come by <!date^${until}^{time_secs}|${new Date(r.lease.until).toISOString()}>)`
        : `on \`${escapeMrkdwn(r.lease.owner)}\`, lease until <!date^${until}^{time_secs}|${new Date(r.lease.until).toISOString()}>; if that worker dies, the next one resumes at this step`,
    );
  }
  if (r.cancelRequested) lines.push(`:octagonal_sign: <@${r.cancelRequested.user}> asked to cancel: stopping in-flight reassignments and removing throttles`);
  const buttons = [
    ...(r.cancelRequested ? [] : [button({ text: 'Cancel operation', actionId: OPS_ACTIONS.stop, value: r.id, style: 'danger' })]),
    button({ text: 'Mark failed (stuck)', actionId: OPS_ACTIONS.abandon, value: r.id }),
  ];
  return [section(lines.join('\n')), { type: 'actions', block_id: `ops-exec:${r.id}`, elements: buttons }];
}

export function renderStep(step: StepReport): SlackMessage {
  const icon = step.status === 'ok' ? ':white_check_mark:' : step.status === 'failed' ? ':x:' : ':fast_forward:';
  const which = step.index < 0 ? 'before step 1' : `step ${step.index + 1}`;
  const text = `${icon} ${which} *${escapeMrkdwn(step.name)}*: ${step.status}${step.detail ? ` — ${escapeMrkdwn(clip(step.detail, 1500))}` : ''}`;
  return { text: clipEscaped(`${which} ${step.name}: ${step.status}`, SLACK_LIMITS.fallbackText), blocks: [section(text)] };
}

/** A run's step proposed new plans (posted next in this thread, each for two approvals). */
export function renderFollowUps(what: string[]): SlackMessage {
  const text = `:point_down: This run found more to do and proposes ${what.length === 1 ? 'a new plan' : `${what.length} new plans`}, each for two approvals: ${what.map(escapeMrkdwn).join('; ')}. The plan follows in this thread.`;
  return { text: clipEscaped(text, SLACK_LIMITS.fallbackText), blocks: [section(clipEscaped(text, SLACK_LIMITS.sectionText))] };
}

export interface RunSummary {
  status: string;
  summary: string;
  /** tookMs: from the step's recorded start to its audit event, when its start was recorded. */
  steps: (StepReport & { tookMs?: number })[];
  audit: string[];
  durationMs: number;
}

/** "re-checked 120 ms · elected 310 ms · writable 420 ms · done 900 ms"; null when no phase was reached. */
export function phasesText(t: RunTiming): string | null {
  return t.phases.length ? t.phases.map((p) => `${p.phase} ${formatElapsed(p.afterMs)}`).join(' · ') : null;
}

export function renderSummary(r: ApprovalRequest<Plan>, s: RunSummary): SlackMessage {
  const icon = STATUS_ICON[s.status] ?? '';
  const blocks: KnownBlock[] = [
    section(`${icon} *${escapeMrkdwn(r.plan.title)}: ${s.status}* in ${(s.durationMs / 1000).toFixed(1)} s\n${escapeMrkdwn(clip(s.summary, 1500))}`),
  ];
  const timing = runTiming(r);
  const phases = timing && phasesText(timing);
  if (phases) blocks.push(section(`*Timing* (from the last approval): ${phases}`));
  const took = (st: RunSummary['steps'][number]) => (st.tookMs !== undefined ? ` (${formatElapsed(st.tookMs)})` : '');
  if (s.steps.length) blocks.push(section(`*What ran:*\n${s.steps.slice(0, 20).map((st) => `• ${st.index < 0 ? 'check' : st.index + 1}. ${escapeMrkdwn(st.name)}: ${st.status}${took(st)}`).join('\n')}`));
  if (s.audit.length) blocks.push(section(`*Audit trail (DynamoDB, request \`${r.id}\`):*\n${s.audit.slice(-25).map((a) => `• ${escapeMrkdwn(clip(a, 200))}`).join('\n')}`));
  return { text: clipEscaped(`${r.plan.title}: ${s.status}`, SLACK_LIMITS.fallbackText), blocks };
}

/** The full lists a plan message shortened, for its thread; [] when nothing was shortened. */
export function renderPlanDetails(plan: Plan): SlackMessage[] {
  const out: SlackMessage[] = [];
  const chunks = (title: string, lines: string[]) => {
    // Whole lines per message, each message within Slack's section limit.
    const all = pages(lines.map((l) => `• ${escapeMrkdwn(l)}`), SLACK_LIMITS.sectionText - 200);
    let from = 1;
    for (const page of all) {
      const range = all.length > 1 ? ` (${from}–${from + page.length - 1} of ${lines.length})` : '';
      out.push({ text: clipEscaped(`${title}: ${lines.length}`, SLACK_LIMITS.fallbackText), blocks: [section(clip(`*${escapeMrkdwn(title)}${range}:*\n${page.join('\n')}`, SLACK_LIMITS.sectionText))] });
      from += page.length;
    }
  };
  for (const s of sectionsOf(plan)) if (shortened(s.lines, MAX_SECTION_LINES)) chunks(s.title, s.lines);
  const warnings = plan.warnings.map((w) => warningText(plan, w));
  if (shortened(warnings, MAX_WARNINGS_SHOWN)) chunks('All warnings', warnings);
  return out;
}

/** A paused run: why, and what any one approver can do (Resume, Cancel, and the kind's own choices). */
export function renderPaused(r: ApprovalRequest<Plan>, reason: string): SlackMessage {
  const choices = kindOf(r.plan.kind).pauseChoices ?? [];
  const leave = choices.includes('leave-stopped');
  return {
    text: clipEscaped(`Paused: ${reason}`, SLACK_LIMITS.fallbackText),
    blocks: [
      section(
        `:double_vertical_bar: *Paused* at step ${(r.run?.cursor ?? 0) + 1} of ${r.plan.steps.length}: ${escapeMrkdwn(clip(reason, 2500))}\n` +
          `*Resume* (any one approver) checks again and continues only if it is safe; *Cancel* ends the operation${leave ? ' and starts any broker it stopped; *Leave stopped* ends it and leaves that broker stopped' : ''}.`,
      ),
      {
        type: 'actions',
        block_id: `ops-paused:${r.id}`,
        elements: [
          button({ text: 'Resume', actionId: OPS_ACTIONS.resume, value: r.id, style: 'primary' }),
          button({ text: 'Cancel operation', actionId: OPS_ACTIONS.stop, value: r.id, style: 'danger' }),
          ...(leave ? [button({ text: 'Leave stopped', actionId: OPS_ACTIONS.leaveStopped, value: r.id })] : []),
        ],
      },
    ],
  };
}
