// The reassign request, as users type it, checked before it can reach a plan.
import * as z from 'zod';
import { PartitionAssignment } from '../../validate.ts';

export const ExplicitReassignmentRequest = z.object({
  partitions: z
    .array(PartitionAssignment)
    .min(1)
    .max(20_000)
    .refine((ps) => new Set(ps.map((p) => `${p.topic}\u0000${p.partition}`)).size === ps.length, 'a partition appears twice'),
});
export type ExplicitReassignmentRequest = z.infer<typeof ExplicitReassignmentRequest>;
