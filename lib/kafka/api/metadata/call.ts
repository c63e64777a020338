// Metadata (API key 3), our own codec (codec.ts): brokers,
// controller, and the topics asked (null = every topic, [] = none).
import { Metadata as Definition, type MetadataArgs, type MetadataResult } from './codec.ts';
import type { AdminApi } from '../../router/spec.ts';

export const Metadata: AdminApi<string[] | null, MetadataArgs, MetadataResult, MetadataResult> = {
  name: 'Metadata',
  api: Definition,
  route: { to: 'any' },
  build: (topics) => ({ topics, allowAutoTopicCreation: false }),
  toResults(md) {
    for (const t of md.topicMetadata) t.partitionMetadata.sort((a, b) => a.partitionId - b.partitionId);
    return md;
  },
};
