// Two-person approvals on a real DynamoDB-compatible table, as the runner tests
// need them: a service with two approvers, and a plan both have approved.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import type { Plan } from '../../lib/operations/types.ts';

export const APPROVERS = ['UALICE', 'UBOB'] as const;
export const twoApproverPolicy = (ttlMs = 600_000) => ({ approvers: new Set<string>(APPROVERS), requiredApprovals: 2, ttlMs });

/** A fresh approvals table and the service on it. */
export async function approvalsOn(client: DynamoDBClient, tableName: string, ttlMs?: number): Promise<{ store: ApprovalStore; approvals: ApprovalService<Plan> }> {
  const store = new ApprovalStore(client, { tableName });
  await store.ensureTable({ pollMs: 5 });
  return { store, approvals: new ApprovalService<Plan>({ store, policy: twoApproverPolicy(ttlMs) }) };
}

/** Requests `plan` for `cluster` and has both approvers approve it: the request id, ready to execute. */
export async function approvedByTwo(approvals: ApprovalService<Plan>, plan: Plan, cluster: string, requester = 'UREQ'): Promise<string> {
  const created = await approvals.request(plan, requester, { context: { cluster } });
  if (!created.ok) throw new Error(created.message);
  for (const approver of APPROVERS) {
    const r = await approvals.approve(created.request.id, approver);
    if (!r.ok) throw new Error(r.message);
    if (approver === APPROVERS[1] && !r.readyToExecute) throw new Error(`request ${created.request.id} is not ready to execute after two approvals`);
  }
  return created.request.id;
}
