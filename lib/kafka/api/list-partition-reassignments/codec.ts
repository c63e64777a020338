// ListPartitionReassignments (API key 46) through kafkajs's encoder and
// decoder (every error code kept: the connection layer drops kafkajs's
// throwing parse step).
import { kafkajsApi } from '../../protocol/kafkajs.ts';

export interface RawReassignments {
  errorCode: number;
  topics: { name: string; partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] }[];
}

export const ListPartitionReassignmentsWire = kafkajsApi<{ topics: { topic: string; partitions: number[] }[] | null; timeout: number }, RawReassignments>(
  'ListPartitionReassignments',
);
