// Plans a run proposes when one of its steps finds something to do next: the
// check after a leader override's election finds a hanging transaction and
// proposes its abort. Each proposal becomes an ordinary plan job (the same
// planner, re-check and two-person approval as a request typed in Slack),
// posted into the run's thread. Its request id is derived from the run and
// the proposal, so a step reported twice (a worker that died after the
// audit) still plans it once.
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { ApprovalRequest, StepReport } from '../approvals/types.ts';
import { newJob, type Job } from '../queue/job.ts';
import { OPS_JOB_KINDS, opsRequestSchema, type OpsPlanJob, type OpsRequest } from './requests.ts';
import type { Plan } from './types.ts';

/** Enough for every open transaction a partition can show in one check; more is a bug, not a plan. */
const MAX_PROPOSALS = 10;
const proposalsSchema = z.array(opsRequestSchema).max(MAX_PROPOSALS);

/** The requests a finished step proposes (its `data.proposals`), validated like any request from outside. */
export function proposalsOf(report: StepReport): OpsRequest[] {
  const parsed = proposalsSchema.safeParse(report.data?.proposals ?? []);
  return parsed.success ? parsed.data : [];
}

/** Stable per (run, proposal): a second plan job for it finds the request already made and adds none. */
export function followUpRequestId(parentId: string, proposal: OpsRequest): string {
  return `fu-${createHash('sha256').update(`${parentId}\n${JSON.stringify(proposal)}`).digest('hex').slice(0, 40)}`;
}

/**
 * The plan jobs for a step's proposals, in the run's thread, asked by the
 * person who asked for the run. They cannot approve it; two others must:
 * `proposedBy` makes the approval service record the run's requester as
 * excluded from approving the new request (lib/approvals/service.ts), and
 * the state machine refuses them, approver or not. Without `proposedBy` the
 * requester, if an approver, would count as one of the two.
 */
export function followUpJobs(parent: ApprovalRequest<Plan>, report: StepReport, thread: { channel: string; threadTs: string }, correlationId: string): Job[] {
  const cluster = parent.context?.cluster;
  if (!cluster) return [];
  return proposalsOf(report).map((request) => {
    const payload: OpsPlanJob = {
      cluster,
      request,
      origin: { channelId: thread.channel, userId: parent.requester, threadTs: thread.threadTs },
      requestId: followUpRequestId(parent.id, request),
      // Never optional here: it is what excludes the run's requester from approving (fail closed).
      proposedBy: parent.id,
    };
    return newJob(OPS_JOB_KINDS.plan, payload, correlationId);
  });
}
