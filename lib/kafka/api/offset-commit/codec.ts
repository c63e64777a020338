// OffsetCommit (API key 8) through kafkajs's encoder and decoder (every
// error code kept: the connection layer drops kafkajs's throwing parse step).
import { kafkajsApi } from '../../protocol/kafkajs.ts';

export interface RawOffsetCommit {
  responses: { topic: string; partitions: { partition: number; errorCode: number }[] }[];
}

export const OffsetCommitWire = kafkajsApi<
  { groupId: string; groupGenerationId: number; memberId: string; retentionTime: number; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] },
  RawOffsetCommit
>('OffsetCommit');
