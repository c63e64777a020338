// The preferred-election request, as users type it, checked before it can reach a plan.
import * as z from 'zod';
import { PartitionId, TopicName, fromText } from '../../../kafka/names.ts';

export const PreferredElectionRequest = z.object({
  /** Limit to these topics (every partition of each). */
  topics: z.array(TopicName).max(100).optional(),
  /** Limit to these partitions; with neither, every partition not led by its preferred replica. */
  partitions: z.array(z.object({ topic: TopicName, partition: fromText(PartitionId) })).max(20_000).optional(),
});
export type PreferredElectionRequest = z.infer<typeof PreferredElectionRequest>;
