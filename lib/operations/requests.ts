// Payloads of the operation jobs (issue 5): plan, execute, refresh. Checked
// again by the worker like every queue message. Ack-path safe: zod only.
import { z } from 'zod';
import { CLUSTER_NAME } from '../config/schema.ts';
import { slackOriginSchema } from '../queue/job.ts';
import { DrainRequest, LeaderOverrideRequest, RaiseReplicationFactorRequest, RestartRequest } from './validate.ts';

export const OPS_JOB_KINDS = { plan: 'ops.plan', execute: 'ops.execute', refresh: 'ops.refresh', sweep: 'ops.sweep' } as const;

/**
 * What someone asked for: one schema, the same rules whether the request comes
 * as Slack text (numbers as digits), a button's value or a queue message.
 * Each kind's fields are its planner's own schema (validate.ts).
 */
export const opsRequestSchema = z.discriminatedUnion('kind', [
  LeaderOverrideRequest.extend({ kind: z.literal('leader-override') }),
  DrainRequest.extend({ kind: z.literal('drain-broker') }),
  RaiseReplicationFactorRequest.extend({ kind: z.literal('raise-replication-factor') }),
  RestartRequest.extend({ kind: z.literal('restart-brokers') }),
]);
export type OpsRequest = z.infer<typeof opsRequestSchema>;

export const opsPlanJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  request: opsRequestSchema,
  origin: slackOriginSchema,
});
export type OpsPlanJob = z.infer<typeof opsPlanJobSchema>;

const requestId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

export const opsExecuteJobSchema = z.object({ requestId, cluster: z.string().regex(CLUSTER_NAME) });
export type OpsExecuteJob = z.infer<typeof opsExecuteJobSchema>;

/** The scheduled sweep (every minute): resume stalled runs, expire untouched plans, finish owed cleanups. */
export const opsSweepJobSchema = z.object({}).passthrough();

/** Re-render the plan message from the stored request and post the audit line in its thread. */
export const opsRefreshJobSchema = z.object({ requestId, line: z.string().max(3000).optional() });
export type OpsRefreshJob = z.infer<typeof opsRefreshJobSchema>;

/** The one line a request is known by in Slack ("make broker 3 lead orders-0"). */
export function describeOpsRequest(r: OpsRequest): string {
  switch (r.kind) {
    case 'leader-override':
      return `elect a leader for ${r.topic}-${r.partition}${r.replica !== undefined ? ` (replica ${r.replica})` : ''}`;
    case 'drain-broker':
      return `${r.partial ? 'partially drain' : 'drain'} broker ${r.broker}`;
    case 'raise-replication-factor':
      return `raise the replication factor of ${r.topic} to ${r.replicationFactor}`;
    case 'restart-brokers':
      return r.rolling ? `rolling restart of ${r.brokers.length ? `brokers ${r.brokers.join(', ')}` : 'every broker'}` : `restart broker ${r.brokers[0]}`;
  }
}
