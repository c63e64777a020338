// Two-person-approved operations from Slack, ack side: one slash command per
// entry in each kind's `commands` (kinds/<kind>/: elect-leader, drain,
// raise-rf, reassign, preferred-election, restart, rolling-restart), and the
// Approve / Reject / Cancel / Resume / "Plan …" buttons. Each handler
// validates (zod, Kafka's naming rules), makes at most one conditional write
// (ApprovalService) and enqueues; planning and running happen in the worker
// (lib/operations/jobs.ts). No kafkajs, SSM or operations code is imported here.
// The approval service comes from the composition root (operationsSlack).
import * as z from 'zod';
import type { PlanAdmission, ServiceResult } from '../approvals/service.ts';
import { findCluster, type ClusterConfig, type Config } from '../config/schema.ts';
import { enqueueTracked } from '../slack/enqueue.ts';
import { approvalsConfigured } from '../approvals/runtime.ts';
import { newJob } from '../queue/job.ts';
import { updatesGroup } from '../queue/groups.ts';
import { OPS_JOB_KINDS, describeOpsRequest, opsRequestSchema, type OpsExecuteJob, type OpsPlanJob, type OpsRefreshJob, type OpsRequest } from './requests.ts';
import { describeIssues } from './validate.ts';
import type { Plan, PlanKind } from './types.ts';
import type { KindCommand, OperationKind } from './kind.ts';
import { ALL_KINDS } from './registry.ts';
import { LEAVE_STOPPED_REASON } from './kind.ts';
import { ephemeral } from '../slack/commands.ts';
import { clip, escapeMrkdwn } from '../slack/limits.ts';
import { OPS_ACTIONS } from './render-slack.ts';
import type { ApprovalService } from '../approvals/service.ts';
import type { AckDeps, ActionHandler, ActionInvocation, CommandInvocation, CommandReply, SlackContribution, SlashSubcommand } from '../slack/registry.ts';
import { errorMessage } from '../runtime/errors.ts';

/** The ack path's infrastructure plus the approval service (absent when no approvals table is configured). */
export interface OpsAckDeps extends AckDeps {
  approvals?: ApprovalService<Plan>;
}
type OpsSubcommand = Omit<SlashSubcommand, 'run'> & { run(invocation: CommandInvocation, deps: OpsAckDeps): Promise<CommandReply> };
type OpsActionHandler = Omit<ActionHandler, 'run'> & { run(invocation: ActionInvocation, deps: OpsAckDeps): Promise<CommandReply | void> };

type Parsed = { request: OpsRequest; cluster: ClusterConfig } | { error: string };

function noCluster(config: Config): string {
  return `no default cluster: name one of ${config.clusters.map((c) => `\`${c.name}\``).join(', ')} as the last word`;
}

/** Slack words → the kind's command → the one request schema; the words' problems first, then a missing cluster. */
export function parseCommand(kind: PlanKind, command: KindCommand, args: string[], config: Config): Parsed {
  const words = command.parse(args, (w) => findCluster(config, w) !== undefined);
  if ('error' in words) return words;
  const cluster = findCluster(config, words.cluster);
  if (words.cluster !== undefined && !cluster) return { error: `unknown cluster \`${words.cluster}\`` };
  const parsed = opsRequestSchema.safeParse({ ...words.fields, kind });
  if (!parsed.success) return { error: describeIssues(parsed.error) };
  if (!cluster) return { error: noCluster(config) };
  return { request: parsed.data, cluster };
}

/** The command named `name` (e.g. "drain"), for tests and help. */
export function parseOpsCommand(name: string, args: string[], config: Config): Parsed {
  for (const k of ALL_KINDS) for (const c of k.commands) if (c.name === name) return parseCommand(k.kind, c, args, config);
  return { error: `no operation command ${name}` };
}

/**
 * Validated, authorized requests become a plan job; the worker posts the plan
 * for approval. Null when queued, else the reply saying nothing was started.
 */
export async function enqueuePlan(
  request: OpsRequest,
  cluster: string,
  origin: OpsPlanJob['origin'],
  correlationId: string,
  deps: OpsAckDeps,
): Promise<CommandReply | null> {
  if (deps.approvals) {
    // Before anything is written or queued: a flood of requests never reaches the approvals table or the channel.
    const admitted = await deps.approvals.admitPlanRequest(origin.userId, cluster, deps.config.operations.planRequests);
    if (!admitted.ok) {
      deps.log.info('plan request over its limit', { cluster, scope: admitted.scope, retryAfterSeconds: admitted.retryAfterSeconds });
      return ephemeral(planLimitText(admitted, cluster));
    }
  }
  const payload: OpsPlanJob = { cluster, request, origin };
  const job = newJob(OPS_JOB_KINDS.plan, payload, correlationId);
  const refused = await enqueueTracked(deps, job, { title: clip(`plan: ${describeOpsRequest(request)} on ${cluster}`, 120), channelId: origin.channelId, userId: origin.userId });
  if (!refused) deps.log.info('operation plan enqueued', { jobId: job.id, cluster, request });
  return refused;
}

/** Why a plan request was not taken, and when one will be. */
export function planLimitText(refusal: Extract<PlanAdmission, { ok: false }>, cluster: string): string {
  const { requests, windowSeconds } = refusal.limit;
  const whose = refusal.scope === 'user' ? 'from one person' : `for cluster *${escapeMrkdwn(cluster)}*`;
  return `:hourglass_flowing_sand: Too many plan requests ${whose}: at most ${requests} every ${windowSeconds} s. Nothing was planned; try again in ${refusal.retryAfterSeconds} s.`;
}

function opsCommand(kind: OperationKind<PlanKind>, command: KindCommand): OpsSubcommand {
  return {
    name: command.name,
    usage: command.usage,
    summary: command.summary ?? kind.summary,
    async run(inv: CommandInvocation, deps: OpsAckDeps): Promise<CommandReply> {
      const parsed = parseCommand(kind.kind, command, inv.args, deps.config);
      if ('error' in parsed) return ephemeral(`:warning: ${escapeMrkdwn(clip(parsed.error, 500))}\nUsage: \`/kafka ${command.usage}\``);
      if (!deps.approvals || !approvalsConfigured(deps.config)) {
        return ephemeral(':no_entry: Operations need two-person approval, and no approvers (or no approvals table) are configured for this bot.');
      }
      const refused = await enqueuePlan(parsed.request, parsed.cluster.name, { channelId: inv.channelId, userId: inv.userId, teamId: inv.teamId, responseUrl: inv.responseUrl }, inv.correlationId, deps);
      if (refused) return refused;
      return ephemeral(
        `:clipboard: Planning: ${escapeMrkdwn(describeOpsRequest(parsed.request))} on *${escapeMrkdwn(parsed.cluster.name)}*. The plan will be posted here for two approvals; nothing changes before that. (correlation id \`${inv.correlationId}\`)`,
      );
    },
  };
}

/** Every kind's slash commands, in table order. */
export const opsCommands: OpsSubcommand[] = ALL_KINDS.flatMap((k) => k.commands.map((c) => opsCommand(k, c)));

/** Why a click did not count, as the clicker reads it. */
export function refusalText(result: Extract<ServiceResult<Plan>, { ok: false }>): string {
  const lead: Partial<Record<string, string>> = {
    'self-approval': ':no_entry_sign: Not counted:',
    'duplicate-approval': ':no_entry_sign: Not counted twice:',
    unauthorized: ':no_entry_sign: Not counted: you are not an authorized approver for operations.',
    expired: ':alarm_clock: Too late: this request expired; request a new plan.',
    'not-requester': ':no_entry_sign: Only the requester can cancel.',
    'already-approved': ':information_source: It already has the approvals it needs.',
    closed: ':information_source: This request is closed.',
    'already-executed': ':information_source: This plan already ran.',
    'already-claimed': ':information_source: This plan is running.',
    'lease-active': ':hourglass_flowing_sand: Still running, not marked failed:',
    'not-executing': ':information_source: It is not running:',
    'not-found': ':grey_question: I cannot find that request.',
  };
  const head = lead[result.code] ?? ':no_entry_sign: Refused:';
  return `${head} ${escapeMrkdwn(clip(result.message, 500))}`;
}

const requestIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** The value of a "Plan …" button: the request and its cluster (well under 2,000 characters). */
export const opsPlanButtonSchema = z.object({ cluster: z.string().min(1).max(64), request: opsRequestSchema });
export type OpsPlanButton = z.infer<typeof opsPlanButtonSchema>;

async function enqueueRefresh(requestId: string, line: string | undefined, correlationId: string, deps: AckDeps): Promise<void> {
  const payload: OpsRefreshJob = { requestId, ...(line ? { line: clip(line, 3000) } : {}) };
  // Its own FIFO lane: a retried update never delays the execute job (group `ops-<id>`).
  await deps.queue.enqueue(newJob(OPS_JOB_KINDS.refresh, payload, correlationId, updatesGroup(`ops-${requestId}`)));
}

/** `wakeRun`: the run should notice now (a parked run would otherwise wait for its next tick). */
function decisionHandler(actionIdPrefix: string, act: (inv: ActionInvocation, deps: OpsAckDeps, id: string) => Promise<ServiceResult<Plan>>, wakeRun = false): OpsActionHandler {
  return {
    actionIdPrefix,
    async run(inv, deps) {
      if (!deps.approvals) return ephemeral(':no_entry: Approvals are not configured for this bot.');
      const id = requestIdSchema.safeParse(inv.value);
      if (!id.success) return ephemeral(':warning: This button carries no valid request id.');
      const result = await act(inv, deps, id.data);
      if (!result.ok) {
        deps.log.info('operation action refused', { requestId: id.data, code: result.code, action: inv.actionId });
        // An expiry found on the way changed the state: show it on the plan message.
        if (result.code === 'expired' && result.request) await enqueueRefresh(id.data, undefined, inv.correlationId, deps);
        return ephemeral(refusalText(result));
      }
      deps.log.info('operation action recorded', { requestId: id.data, status: result.request.status, readyToExecute: result.readyToExecute });
      await enqueueRefresh(id.data, result.message, inv.correlationId, deps);
      if (result.readyToExecute || wakeRun) {
        const cluster = result.request.context?.cluster;
        if (!cluster) return ephemeral(':x: The request has no cluster recorded; it cannot run.');
        const payload: OpsExecuteJob = { requestId: id.data, cluster };
        try {
          await deps.queue.enqueue(newJob(OPS_JOB_KINDS.execute, payload, inv.correlationId, `ops-${id.data}`));
          deps.log.info('operation execution enqueued', { requestId: id.data });
        } catch (err) {
          // Recorded as approved already: the minute sweep enqueues it again, nothing is lost.
          deps.log.warn('could not enqueue the execution; the sweep will', { requestId: id.data, error: errorMessage(err) });
          return ephemeral(':hourglass_flowing_sand: Recorded. The job queue did not answer, so the run starts with the next sweep (within about 2 minutes).');
        }
      }
    },
  };
}

export const approveAction = decisionHandler(OPS_ACTIONS.approve, (inv, deps, id) => deps.approvals!.approve(id, inv.userId, inv.actionTs));
export const rejectAction = decisionHandler(OPS_ACTIONS.reject, (inv, deps, id) => deps.approvals!.reject(id, inv.userId));
export const cancelAction = decisionHandler(OPS_ACTIONS.cancel, (inv, deps, id) => deps.approvals!.cancel(id, inv.userId));
export const stopAction = decisionHandler(OPS_ACTIONS.stop, (inv, deps, id) => deps.approvals!.requestCancel(id, inv.userId, 'cancel pressed in Slack'), true);
export const resumeAction = decisionHandler(OPS_ACTIONS.resume, (inv, deps, id) => deps.approvals!.requestResume(id, inv.userId), true);
export const abandonAction = decisionHandler(OPS_ACTIONS.abandon, (inv, deps, id) => deps.approvals!.abandon(id, inv.userId, 'marked failed from Slack'));
/** Ends a paused restart and records that the broker it stopped stays stopped (its compensation reads this reason). */
export const leaveStoppedAction = decisionHandler(OPS_ACTIONS.leaveStopped, (inv, deps, id) => deps.approvals!.requestCancel(id, inv.userId, LEAVE_STOPPED_REASON), true);

/** Where a button was clicked: the thread it sits in, so the plan joins the conversation. */
function threadOf(payload: unknown): string | undefined {
  const p = payload as { container?: { thread_ts?: string; message_ts?: string }; message?: { thread_ts?: string; ts?: string } };
  return p.container?.thread_ts ?? p.message?.thread_ts ?? p.message?.ts;
}

export const planAction: OpsActionHandler = {
  actionIdPrefix: OPS_ACTIONS.plan,
  async run(inv, deps) {
    if (!deps.approvals || !approvalsConfigured(deps.config)) return ephemeral(':no_entry: No approvers are configured for operations.');
    let value: unknown;
    try {
      value = JSON.parse(inv.value ?? '');
    } catch {
      return ephemeral(':warning: This button carries no valid request.');
    }
    const parsed = opsPlanButtonSchema.safeParse(value);
    if (!parsed.success) return ephemeral(':warning: This button carries no valid request.');
    const cluster = findCluster(deps.config, parsed.data.cluster);
    if (!cluster || !inv.channelId) return ephemeral(`:warning: Unknown cluster "${escapeMrkdwn(clip(parsed.data.cluster, 64))}".`);
    const threadTs = threadOf(inv.payload);
    const refused = await enqueuePlan(parsed.data.request, cluster.name, { channelId: inv.channelId, userId: inv.userId, ...(threadTs ? { threadTs } : {}), ...(inv.responseUrl ? { responseUrl: inv.responseUrl } : {}) }, inv.correlationId, deps);
    if (refused) return refused;
    return ephemeral(`:clipboard: Planning: ${escapeMrkdwn(describeOpsRequest(parsed.data.request))}. The plan will appear in this thread for two approvals.`);
  },
};

/** What operations add to the Slack app: every kind's slash commands and the approval buttons. */
export function operationsSlack(approvals: ApprovalService<Plan> | undefined): SlackContribution {
  const withApprovals = (deps: AckDeps): OpsAckDeps => ({ ...deps, ...(approvals ? { approvals } : {}) });
  return {
    commands: opsCommands.map((c): SlashSubcommand => ({ ...c, run: (inv, deps) => c.run(inv, withApprovals(deps)) })),
    actions: [approveAction, rejectAction, cancelAction, stopAction, resumeAction, abandonAction, leaveStoppedAction, planAction].map((a): ActionHandler => ({ ...a, run: (inv, deps) => a.run(inv, withApprovals(deps)) })),
  };
}
