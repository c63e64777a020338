// Lag history between bot runs, in the state store (DynamoDB in the bot): one
// small item per cluster with each group's aggregate position per run.
import { mutate, type StateStore } from '../state/state-store.ts';
import { appendHistory, type LagHistorySample } from './lag-verdict.ts';

export interface LagHistoryStore {
  load(): Promise<LagHistorySample[]>;
  append(samples: readonly LagHistorySample[], nowMs: number): Promise<void>;
}

const TTL_SECONDS = 24 * 3600;

export function stateLagHistory(store: StateStore, cluster: string): LagHistoryStore {
  const key = `lag-history:${cluster}`;
  return {
    async load() {
      return (await store.get<LagHistorySample[]>(key))?.value ?? [];
    },
    async append(samples, nowMs) {
      await mutate<LagHistorySample[]>(store, key, TTL_SECONDS, (current) => appendHistory(current ?? [], samples, nowMs));
    },
  };
}
