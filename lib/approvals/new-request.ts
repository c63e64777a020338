// A new approval request, and whether a request already stored under its id
// is the same one asked again: pure functions, no clock, no I/O (the state
// machine in machine.ts decides everything after creation).
//
// Every write a plan job makes must survive SQS retrying the job with the
// same request id: a retry of the same request completes it, a different
// request under an existing id is refused. `sameRequest` is that test.

import { digestOf } from './fingerprint.ts';
import type { ApprovalPolicy } from './policy.ts';
import { approvalsRequired } from './policy.ts';
import { makeEvent } from './events.ts';
import type { ApprovablePlan, ApprovalRequest, AuditEvent, Refusal } from './types.ts';

export interface NewRequestInput<P extends ApprovablePlan> {
  id: string;
  plan: P;
  requester: string;
  context?: Record<string, string>;
  /** People who may not approve it whoever else does (the requester of the run that proposed it). */
  excludedApprovers?: readonly string[];
}

export function createRequest<P extends ApprovablePlan>(
  input: NewRequestInput<P>,
  policy: ApprovalPolicy,
  now: number,
): { ok: true; request: ApprovalRequest<P>; event: AuditEvent } | { ok: false; refusal: Refusal } {
  const required = approvalsRequired(policy);
  const excluded = [...new Set(input.excludedApprovers ?? [])].sort();
  // Refused now rather than left open for a quorum nobody can reach.
  const eligible = [...policy.approvers].filter((a) => !excluded.includes(a)).length;
  if (eligible < required) {
    return {
      ok: false,
      refusal: {
        code: 'policy-unsatisfiable',
        message:
          eligible === policy.approvers.size
            ? `only ${policy.approvers.size} authorized approver(s) are configured but ${required} approvals are required`
            : `only ${eligible} authorized approver(s) may approve this plan (its requester may not) but ${required} approvals are required`,
      },
    };
  }
  const request: ApprovalRequest<P> = {
    id: input.id,
    status: 'REQUESTED',
    version: 1,
    plan: input.plan,
    planDigest: digestOf(input.plan),
    requester: input.requester,
    requiredApprovals: required,
    createdAt: now,
    expiresAt: now + policy.ttlMs,
    approvals: [],
    events: [],
    ...(excluded.length > 0 ? { excludedApprovers: excluded } : {}),
    ...(input.context ? { context: input.context } : {}),
  };
  const others = excluded.length > 0 ? ' from people other than its requester' : '';
  const event = makeEvent(
    request,
    1,
    now,
    'requested',
    input.requester,
    `requested ${input.plan.kind}: ${input.plan.title} (needs ${required} approvals${others} on the posted plan)`,
    { planId: input.plan.id, fingerprint: input.plan.fingerprint, planDigest: request.planDigest, ...(excluded.length > 0 ? { excludedApprovers: excluded } : {}) },
  );
  request.events = [event];
  return { ok: true, request, event };
}

/**
 * Whether `stored` is `incoming` asked again (a retried job): same requester,
 * same exclusions, same cluster, and the same plan. A retry plans again, so
 * its plan may differ from the stored one in when it was made; the same plan
 * id (kind and parameters) on the same fingerprint (cluster state) is the
 * same operation. The stored request is then the answer: it is what was
 * posted and what approvers approve.
 */
export function sameRequest(stored: ApprovalRequest, incoming: ApprovalRequest): boolean {
  const samePlan =
    stored.planDigest === incoming.planDigest ||
    (stored.plan.id === incoming.plan.id && stored.plan.kind === incoming.plan.kind && stored.plan.fingerprint === incoming.plan.fingerprint);
  const excluded = (r: ApprovalRequest) => [...new Set(r.excludedApprovers ?? [])].sort().join(',');
  return (
    samePlan &&
    stored.requester === incoming.requester &&
    excluded(stored) === excluded(incoming) &&
    stored.context?.cluster === incoming.context?.cluster
  );
}
