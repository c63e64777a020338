// The leader-override request, as users type it, checked before it can reach a plan.
import * as z from 'zod';
import { BrokerId, PartitionId, TopicName, fromText } from '../../../kafka/names.ts';

export const LeaderOverrideRequest = z.object({
  topic: TopicName,
  partition: fromText(PartitionId),
  replica: fromText(BrokerId).optional(),
});
export type LeaderOverrideRequest = z.infer<typeof LeaderOverrideRequest>;
