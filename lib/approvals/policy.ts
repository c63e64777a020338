import * as z from 'zod';

// Who may approve and how many must: read from config, validated once.
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,30}$/;
export const SLACK_USERGROUP_ID = /^S[A-Z0-9]{2,30}$/;

export const DEFAULT_TTL_MINUTES = 30;
/** The two-person rule is the point of this module: no config may lower it. */
export const MIN_REQUIRED_APPROVALS = 2;

export const ApprovalPolicyConfigSchema = z
  .object({
    approverUserIds: z.array(z.string().regex(SLACK_USER_ID, 'not a Slack user id')).default([]),
    approverUserGroup: z.string().regex(SLACK_USERGROUP_ID, 'not a Slack user group id').optional(),
    requiredApprovals: z.number().int().min(MIN_REQUIRED_APPROVALS).default(MIN_REQUIRED_APPROVALS),
    ttlMinutes: z.number().int().min(1).max(24 * 60).default(DEFAULT_TTL_MINUTES),
  })
  .refine((c) => c.approverUserIds.length > 0 || c.approverUserGroup !== undefined, {
    message: 'configure approverUserIds and/or approverUserGroup',
  });
export type ApprovalPolicyConfig = z.infer<typeof ApprovalPolicyConfigSchema>;

/** The policy the state machine applies: configured ids plus the user group's current members. */
export interface ApprovalPolicy {
  approvers: ReadonlySet<string>;
  requiredApprovals: number;
  ttlMs: number;
}

export function resolvePolicy(config: ApprovalPolicyConfig, userGroupMembers: readonly string[] = []): ApprovalPolicy {
  const approvers = new Set<string>(config.approverUserIds);
  for (const member of userGroupMembers) if (SLACK_USER_ID.test(member)) approvers.add(member);
  return {
    approvers,
    requiredApprovals: Math.max(MIN_REQUIRED_APPROVALS, config.requiredApprovals),
    ttlMs: config.ttlMinutes * 60_000,
  };
}

/** Approvals a new request needs under `policy`: never fewer than the two-person minimum. */
export function approvalsRequired(policy: Pick<ApprovalPolicy, 'requiredApprovals'>): number {
  return Math.max(MIN_REQUIRED_APPROVALS, policy.requiredApprovals);
}
