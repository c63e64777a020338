// The approval policy and service from the configuration, shared by the Slack
// ack path (Approve/Reject/Cancel are one conditional write each) and the
// worker (request, claim, audit). DynamoDB only: safe for the ack bundle.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Config } from '../config/schema.ts';
import { dynamoClient } from '../runtime/aws.ts';
import type { ApprovalPolicy } from './policy.ts';
import { MIN_REQUIRED_APPROVALS, SLACK_USER_ID } from './policy.ts';
import { ApprovalService } from './service.ts';
import { ApprovalStore } from './store.ts';
import type { ApprovablePlan } from './types.ts';

export type ListGroupMembers = (groupId: string) => Promise<string[]>;

/** True when someone can approve at all: otherwise operations are refused up front. */
export function approvalsConfigured(config: Config): boolean {
  return config.approvals.approvers.length > 0 || config.approvals.approverGroup !== undefined;
}

/**
 * Configured approvers plus the user group's current members (cached: the
 * Slack method is rate-limited). A failed group lookup leaves the configured
 * ids only: fail closed, never open.
 */
export function approvalPolicy(config: Config, listGroup?: ListGroupMembers, cacheMs = 60_000): () => Promise<ApprovalPolicy> {
  const a = config.approvals;
  let cached: { at: number; members: string[] } | undefined;
  return async () => {
    let members: string[] = [];
    if (a.approverGroup && listGroup) {
      if (!cached || Date.now() - cached.at > cacheMs) {
        try {
          cached = { at: Date.now(), members: await listGroup(a.approverGroup) };
        } catch {
          cached = undefined;
        }
      }
      members = cached?.members ?? [];
    }
    const approvers = new Set<string>(a.approvers);
    for (const m of members) if (SLACK_USER_ID.test(m)) approvers.add(m);
    return { approvers, requiredApprovals: Math.max(MIN_REQUIRED_APPROVALS, a.required), ttlMs: a.ttlSeconds * 1000 };
  };
}

export function createApprovalService<P extends ApprovablePlan>(opts: {
  client: DynamoDBClient;
  tableName: string;
  config: Config;
  listGroup?: ListGroupMembers;
  now?: () => number;
}): ApprovalService<P> {
  const store = new ApprovalStore(opts.client, { tableName: opts.tableName });
  return new ApprovalService<P>({ store, policy: approvalPolicy(opts.config, opts.listGroup), ...(opts.now ? { now: opts.now } : {}) });
}

/**
 * The approvals table (APPROVALS_TABLE), or undefined when it is not set:
 * operations are then refused with a clear message instead of failing.
 */
export function awsApprovalService<P extends ApprovablePlan>(config: Config, listGroup?: ListGroupMembers, env: NodeJS.ProcessEnv = process.env): ApprovalService<P> | undefined {
  const tableName = env.APPROVALS_TABLE;
  if (!tableName) return undefined;
  return createApprovalService<P>({ client: dynamoClient(3), tableName, config, ...(listGroup ? { listGroup } : {}) });
}
