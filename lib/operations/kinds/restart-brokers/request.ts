// The restart-brokers request, as users type it, checked before it can reach a plan.
import * as z from 'zod';
import { BrokerId, fromText } from '../../../kafka/names.ts';

export const RestartRequest = z.object({
  /** The brokers to restart; a rolling restart orders them itself. Empty with `rolling`: every broker. */
  brokers: z.array(fromText(BrokerId)).max(64).refine((b) => new Set(b).size === b.length, 'a broker appears twice'),
  rolling: z.boolean().default(false),
});
export type RestartRequest = z.infer<typeof RestartRequest>;
