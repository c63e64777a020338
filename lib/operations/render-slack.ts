// Operation plans and their approval state as Block Kit: the plan message
// (steps, impact, what each leader choice loses, fingerprint, expiry,
// approvals, buttons while open), step lines and the closing summary.
// Buttons carry only the request id; everything else is read from DynamoDB.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest, StepReport } from '../approvals/types.ts';
import { candidateLossText, formatBytes, leaderOverrideLossLines } from './loss-text.ts';
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

function stepLine(step: PlanStep, i: number): string {
  let extra = '';
  if (step.action === 'reassign') extra = ` (${step.partitions.length} partitions${step.throttleBytesPerSec ? `, throttle ${Math.round(step.throttleBytesPerSec / 1024 / 1024)} MiB/s` : ''})`;
  if (step.action === 'elect-leaders') extra = ` (${step.electionType})`;
  return `${i + 1}. ${escapeMrkdwn(clip(step.description, 400))}${extra}`;
}

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '?' : n.toLocaleString('en-US'));

/** Per-replica data and what each choice would lose (leader override). */
function candidatesText(plan: Plan): string | null {
  const c = plan.impact.candidates;
  if (!c?.length) return null;
  const chosen = plan.kind === 'leader-override' ? plan.params.replica : undefined;
  const lines = c.slice(0, 20).map((r) => {
    const marks = [r.brokerId === chosen ? '*chosen*' : '', r.defaultChoice ? 'default unclean choice' : '', r.inIsr ? 'in ISR' : 'out of ISR', r.live ? 'live' : 'down']
      .filter(Boolean)
      .join(', ');
    const why = r.ineligible ? ` — not eligible: ${escapeMrkdwn(clip(r.ineligible, 120))}` : '';
    const size = r.sizeBytes !== null ? `, ${formatBytes(r.sizeBytes)}` : '';
    return `• broker ${r.brokerId}: log end ${fmt(r.logEndOffset)}, checkpointed HW ${fmt(r.checkpointedHighWatermark)}${size}, lost if it leads: *${escapeMrkdwn(candidateLossText(r))}* (${marks})${why}`;
  });
  return `*Replicas:*\n${lines.join('\n')}`;
}

/** Restart: per broker, in order, what the plan was decided from. */
function restartsText(plan: Plan): string | null {
  const r = plan.impact.restarts;
  if (!r?.length) return null;
  const timeout = (t: number | null) => (t === null ? 'unknown' : t < 0 ? 'infinity' : `${t} s`);
  const lines = r.slice(0, 20).map((b, i) => {
    const offsets = b.offsetsPartitionsLed.length ? `leads __consumer_offsets ${b.offsetsPartitionsLed.slice(0, 12).join(', ')}${b.offsetsPartitionsLed.length > 12 ? '…' : ''}` : 'leads no __consumer_offsets partition';
    const verdict = b.verdict === 'yes' ? 'can-restart: yes' : `can-restart: *no* (${escapeMrkdwn(clip(b.reasons[0] ?? '', 200))})`;
    return `${i + 1}. broker ${b.brokerId}: ${verdict} · last controlled shutdown ${b.lastShutdownSeconds === null ? 'not in the log' : `${b.lastShutdownSeconds.toFixed(1)} s`} · systemd stop timeout ${timeout(b.systemdStopTimeoutSeconds)} · ${b.leaders} leader(s), ${offsets}`;
  });
  return `*Restart order:*\n${lines.join('\n')}`;
}

function approvalsText(r: ApprovalRequest<Plan>): string {
  const who = r.approvals.map((a) => `<@${a.user}>${a.user === r.requester ? ' (requester)' : ''}`).join(', ');
  return `*Approvals:* ${r.approvals.length} of ${r.requiredApprovals}${who ? ` — ${who}` : ''}`;
}

/** The plan message as it stands; buttons only while a decision is still possible. */
export function renderPlanMessage(r: ApprovalRequest<Plan>): SlackMessage {
  const plan = r.plan;
  const open = r.status === 'REQUESTED' || r.status === 'APPROVED';
  const blocks: KnownBlock[] = [
    header(`Plan: ${plan.title}`),
    section(`${STATUS_ICON[r.status] ?? ''} *${r.status}* · requested by <@${r.requester}> · needs ${r.requiredApprovals} distinct approvers\n${escapeMrkdwn(clip(plan.description, 1500))}`),
  ];
  const steps = plan.steps.slice(0, MAX_STEPS_SHOWN).map(stepLine);
  if (plan.steps.length > MAX_STEPS_SHOWN) steps.push(`…and ${plan.steps.length - MAX_STEPS_SHOWN} more steps`);
  blocks.push(section(`*Steps:*\n${steps.join('\n')}`));
  const impact = [
    `*Impact* (${plan.impact.risk} risk): ${escapeMrkdwn(clip(plan.impact.summary, 800))}`,
    `partitions affected: ${plan.impact.partitionsAffected}`,
    ...(plan.impact.replicasToCopy !== undefined ? [`replicas to copy: ${plan.impact.replicasToCopy}`] : []),
  ];
  blocks.push(section(impact.join('\n')));
  // Leader override: the loss headline ("unknown — at least N…") and the consumer groups it strands, before anyone clicks.
  const loss = leaderOverrideLossLines(plan);
  if (loss.length) blocks.push(section(clip(loss.map((l, i) => (i === 0 ? `*${escapeMrkdwn(l)}*` : escapeMrkdwn(l))).join('\n'), SLACK_LIMITS.sectionText)));
  const restarts = restartsText(plan);
  if (restarts) blocks.push(section(clip(restarts, SLACK_LIMITS.sectionText)));
  const cands = candidatesText(plan);
  if (cands) blocks.push(section(cands));
  if (plan.warnings.length) blocks.push(section(`*Warnings:*\n${plan.warnings.slice(0, 8).map((w) => `• ${escapeMrkdwn(clip(w, 300))}`).join('\n')}`));
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

export interface RunSummary {
  status: string;
  summary: string;
  steps: StepReport[];
  audit: string[];
  durationMs: number;
}

export function renderSummary(r: ApprovalRequest<Plan>, s: RunSummary): SlackMessage {
  const icon = STATUS_ICON[s.status] ?? '';
  const blocks: KnownBlock[] = [
    section(`${icon} *${escapeMrkdwn(r.plan.title)}: ${s.status}* in ${(s.durationMs / 1000).toFixed(1)} s\n${escapeMrkdwn(clip(s.summary, 1500))}`),
  ];
  if (s.steps.length) blocks.push(section(`*What ran:*\n${s.steps.slice(0, 20).map((st) => `• ${st.index < 0 ? 'check' : st.index + 1}. ${escapeMrkdwn(st.name)}: ${st.status}`).join('\n')}`));
  if (s.audit.length) blocks.push(section(`*Audit trail (DynamoDB, request \`${r.id}\`):*\n${s.audit.slice(-25).map((a) => `• ${escapeMrkdwn(clip(a, 200))}`).join('\n')}`));
  return { text: clipEscaped(`${r.plan.title}: ${s.status}`, SLACK_LIMITS.fallbackText), blocks };
}
