// What the last diagnosis of a cluster saw, in the state store (DynamoDB in
// the bot), for the next one's "changed in the last hour": one item per
// cluster (facts bounded by MAX_TRACKED_PARTITIONS, changes by the window),
// plus the operations the bot finished there (lib/state/cluster-ops.ts).
import { finishedOperations } from '../state/cluster-ops.ts';
import { mutate, type StateStore } from '../state/state-store.ts';
import { parseChanges, type BotOperation, type ClusterChange, type ClusterFacts, type KeptHistory } from './what-changed.ts';

export interface ClusterHistoryStore {
  load(): Promise<KeptHistory & { operations: BotOperation[] }>;
  save(kept: { facts: ClusterFacts; changes: ClusterChange[] }): Promise<void>;
}

const TTL_SECONDS = 7 * 24 * 3600;

interface StoredHistory {
  facts: ClusterFacts | null;
  changes: unknown[];
}

export function stateClusterHistory(store: StateStore, cluster: string): ClusterHistoryStore {
  const key = `cluster-history:${cluster}`;
  return {
    async load() {
      const [stored, operations] = await Promise.all([store.get<StoredHistory>(key), finishedOperations(store, cluster)]);
      const facts = stored?.value.facts && typeof stored.value.facts === 'object' && stored.value.facts.topics ? stored.value.facts : null;
      return { facts, changes: parseChanges(stored?.value.changes ?? []), operations };
    },
    async save(kept) {
      // Last writer wins: two diagnoses racing both saw the cluster as it is.
      await mutate<StoredHistory>(store, key, TTL_SECONDS, () => kept);
    },
  };
}
