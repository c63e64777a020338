// Payloads of the diagnosis job kinds, validated again by the worker: a queue
// message is input from outside the process like any other.
import { z } from 'zod';
import { CLUSTER_NAME, TOPIC_NAME } from '../config/schema.ts';
import { slackOriginSchema } from '../queue/job.ts';

export const diagnoseJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  topic: z.string().regex(TOPIC_NAME).optional(),
  origin: slackOriginSchema,
});
export type DiagnoseJob = z.infer<typeof diagnoseJobSchema>;

export const canRestartJobSchema = z.object({
  cluster: z.string().regex(CLUSTER_NAME),
  brokerId: z.number().int().min(0).max(2_147_483_647),
  origin: slackOriginSchema,
});
export type CanRestartJob = z.infer<typeof canRestartJobSchema>;

export const DIAGNOSE_JOB_KINDS = { diagnose: 'diagnose', canRestart: 'can-restart' } as const;
