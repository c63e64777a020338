// The raise-replication-factor request, as users type it, checked before it can reach a plan.
import * as z from 'zod';
import { TopicName, fromText } from '../../../kafka/names.ts';

export const RaiseReplicationFactorRequest = z.object({
  topic: TopicName,
  replicationFactor: fromText(z.number({ error: 'replication factor must be an integer' }).int('replication factor must be an integer').min(2, 'replication factor must be ≥ 2').max(32, 'replication factor must be ≤ 32')),
});
export type RaiseReplicationFactorRequest = z.infer<typeof RaiseReplicationFactorRequest>;
