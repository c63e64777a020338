// The drain-broker request, as users type it, checked before it can reach a plan.
import * as z from 'zod';
import { BrokerId, fromText } from '../../../kafka/names.ts';

export const DrainRequest = z.object({
  broker: fromText(BrokerId),
  /**
   * Move what can keep its replication factor elsewhere and leave the rest
   * (e.g. RF 3 on a 3-broker cluster): those stay online, under-replicated,
   * while the broker is down. Without it such a cluster is refused.
   */
  partial: z.boolean().default(false),
});
export type DrainRequest = z.infer<typeof DrainRequest>;
