// Payloads of the operation jobs: plan, execute, refresh. Checked again by
// the worker like every queue message. Ack-path safe: zod and the kinds'
// pure modules only (no kafkajs, no AWS SDK).
import * as z from 'zod';
import { CLUSTER_NAME } from '../config/schema.ts';
import { slackOriginSchema } from '../queue/job.ts';
import { ALL_KINDS, kindOf } from './registry.ts';
import type { PlanKind } from './types.ts';

export const OPS_JOB_KINDS = { plan: 'ops.plan', execute: 'ops.execute', refresh: 'ops.refresh', sweep: 'ops.sweep' } as const;

/**
 * What someone asked for: one schema, the same rules whether the request comes
 * as Slack text (numbers as digits), a button's value or a queue message.
 * Each kind's fields are its own request schema (kinds/<kind>/).
 */
const requestSchemas = ALL_KINDS.map((k) => k.request.extend({ kind: z.literal(k.kind) }));
export const opsRequestSchema = z.discriminatedUnion('kind', requestSchemas as unknown as [z.ZodObject, ...z.ZodObject[]]) as unknown as z.ZodType<OpsRequest>;
export type OpsRequest = { kind: PlanKind } & Record<string, unknown>;

const requestId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

export const opsPlanJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  request: opsRequestSchema,
  origin: slackOriginSchema,
  /** A plan a run proposes (lib/operations/follow-ups.ts): its request id, fixed so it is planned once. */
  requestId: requestId.optional(),
  /** The run that proposed it. */
  proposedBy: requestId.optional(),
});
export type OpsPlanJob = z.infer<typeof opsPlanJobSchema>;

export const opsExecuteJobSchema = z.object({ requestId, cluster: z.string().regex(CLUSTER_NAME) });
export type OpsExecuteJob = z.infer<typeof opsExecuteJobSchema>;

/** The scheduled sweep (every minute): resume stalled runs, expire untouched plans, finish owed cleanups. */
/** A sweep from the schedule starts at the oldest request; its continuation (it ran out of time) resumes `after`. */
export const opsSweepJobSchema = z.object({ after: z.string().min(1).max(2000).optional() }).passthrough();

/** Re-render the plan message from the stored request and post the audit line in its thread. */
export const opsRefreshJobSchema = z.object({ requestId, line: z.string().max(3000).optional() });
export type OpsRefreshJob = z.infer<typeof opsRefreshJobSchema>;

/** The one line a request is known by in Slack ("drain broker 3"). */
export function describeOpsRequest(r: OpsRequest): string {
  return kindOf(r.kind).describeRequest(r);
}
