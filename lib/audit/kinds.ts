// Payloads of the audit's job kinds, validated again by the worker.
import * as z from 'zod';
import { CLUSTER_NAME } from '../config/schema.ts';
import { slackOriginSchema } from '../queue/job.ts';

export const AUDIT_JOB_KINDS = { audit: 'audit', scheduled: 'audit-scheduled' } as const;

/** `/kafka audit [cluster]`: the full report, in the thread of the request. */
export const auditJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  origin: slackOriginSchema,
});
export type AuditJob = z.infer<typeof auditJobSchema>;

/** The schedule: `changes` posts what is new or changed since the last report; `summary` posts everything (weekly). */
export const scheduledAuditSchema = z.object({ mode: z.enum(['changes', 'summary']) });
export type ScheduledAuditJob = z.infer<typeof scheduledAuditSchema>;
