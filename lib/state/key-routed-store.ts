// One StateStore made of two: keys with one of the given prefixes live in
// `routed`, every other key (and every list) in `rest`. `serve` keeps its ack
// path's short-lived marks (replay checks, command windows) in process memory
// when its DynamoDB is an in-process dynalite, which is process memory too:
// the same lifetime, without an HTTP round trip, a request signature and a
// parse per write (lib/local/server.ts).
import type { ListedItem, StateStore, StoredItem } from './state-store.ts';

export class KeyRoutedStateStore implements StateStore {
  constructor(
    private readonly rest: StateStore,
    private readonly routed: StateStore,
    private readonly prefixes: readonly string[],
  ) {}

  private storeOf(key: string): StateStore {
    return this.prefixes.some((p) => key.startsWith(p)) ? this.routed : this.rest;
  }

  get<T>(key: string): Promise<StoredItem<T> | null> {
    return this.storeOf(key).get<T>(key);
  }

  create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean> {
    return this.storeOf(key).create(key, value, ttlSeconds);
  }

  replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean> {
    return this.storeOf(key).replace(key, expectedVersion, value, ttlSeconds);
  }

  put<T>(key: string, value: T, ttlSeconds: number, list: string): Promise<void> {
    return this.storeOf(key).put(key, value, ttlSeconds, list);
  }

  remove(key: string): Promise<void> {
    return this.storeOf(key).remove(key);
  }

  /** Lists are the rest's: routed keys are marks and counters, never listed. */
  list<T = unknown>(list: string, limit: number): Promise<ListedItem<T>[]> {
    return this.rest.list<T>(list, limit);
  }

  count(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean> {
    return this.storeOf(key).count(key, by, ttlSeconds, limit);
  }
}
