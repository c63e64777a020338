// Payloads of the diagnosis job kinds, validated again by the worker: a queue
// message is input from outside the process like any other.
import * as z from 'zod';
import { CLUSTER_NAME } from '../config/schema.ts';
import { BrokerId, TopicName } from '../kafka/names.ts';
import { slackOriginSchema } from '../queue/job.ts';

export const diagnoseJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  topic: TopicName.optional(),
  /** `/kafka transactions`: only the transaction findings (hanging-transaction, lso-stalled) are posted. */
  focus: z.enum(['transactions']).optional(),
  origin: slackOriginSchema,
});
export type DiagnoseJob = z.infer<typeof diagnoseJobSchema>;

export const canRestartJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  brokerId: BrokerId,
  origin: slackOriginSchema,
});
export type CanRestartJob = z.infer<typeof canRestartJobSchema>;

export const DIAGNOSE_JOB_KINDS = { diagnose: 'diagnose', canRestart: 'can-restart' } as const;
