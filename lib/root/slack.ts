// The Slack handler's composition root: every `/kafka` command and button, by
// feature. The Slack Lambda (handlers/slack.ts), `serve` and the test harness
// all build their handler here. Ack side only: what this imports is on the
// 3-second path (no kafkajs, no diagnosis, no operations code).
import type { ApprovalService } from '../approvals/service.ts';
import { auditSlack } from '../audit/slack.ts';
import { diagnoseSlack } from '../diagnose/slack.ts';
import { operationsSlack } from '../operations/slack.ts';
import type { Plan } from '../operations/types.ts';
import { createSlackHandler, type ListGroupMembers, type SlackAppDeps, type SlackHandler } from '../slack/app.ts';
import { generalSlack } from '../slack/commands.ts';
import { timelineSlack } from '../timeline/slack.ts';
import type { SlackContribution } from '../slack/registry.ts';

/** Every feature's commands and buttons, in `help` order (after `help` itself). A new feature is one line here. */
export function slackFeatures(approvals: ApprovalService<Plan> | undefined): SlackContribution[] {
  return [diagnoseSlack, auditSlack, timelineSlack, generalSlack, operationsSlack(approvals)];
}

export interface SlackRootOptions extends Omit<SlackAppDeps, 'features'> {
  /** The approval service, or a factory given Slack's user-group lookup (approver groups). */
  approvals?: ApprovalService<Plan> | ((listGroup: ListGroupMembers) => ApprovalService<Plan>);
}

export function buildSlackHandler(opts: SlackRootOptions): SlackHandler {
  const { approvals, ...app } = opts;
  return createSlackHandler({ ...app, features: ({ listGroup }) => slackFeatures(typeof approvals === 'function' ? approvals(listGroup) : approvals) });
}
