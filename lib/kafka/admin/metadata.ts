// Metadata (API key 3), through kafkajs's definition: brokers, controller, and
// the topics asked (null = every topic, [] = none).
import { KAFKAJS, type RawMetadata } from '../wire.ts';
import type { AdminApi } from './api.ts';

export const Metadata: AdminApi<string[] | null, { topics: string[] | null; allowAutoTopicCreation: boolean }, RawMetadata, RawMetadata> = {
  name: 'Metadata',
  api: KAFKAJS.Metadata,
  route: { to: 'any' },
  build: (topics) => ({ topics, allowAutoTopicCreation: false }),
  toResults(md) {
    for (const t of md.topicMetadata) t.partitionMetadata.sort((a, b) => a.partitionId - b.partitionId);
    return md;
  },
};
