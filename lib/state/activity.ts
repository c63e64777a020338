// What `/kafka status` lists: open incidents (alert threads) and running jobs
// or operations. Kept as two small bounded lists in the state store, each
// updated with conditional writes (mutate), so no table scan is needed.
import { mutate, type StateStore } from './state-store.ts';

export interface Activity {
  id: string;
  /** "diagnose", "can-restart", or an operation kind registered by lib/operations. */
  kind: string;
  title: string;
  correlationId: string;
  startedAt: string;
  channelId?: string;
  threadTs?: string;
  userId?: string;
}

export interface OpenIncident {
  groupKey: string;
  title: string;
  cluster?: string;
  openedAt: string;
  channelId: string;
  threadTs: string;
  flapping: boolean;
}

const RUNNING_KEY = 'index:running';
const INCIDENTS_KEY = 'index:incidents';
const INDEX_TTL_SECONDS = 7 * 24 * 3600;
const MAX_ENTRIES = 100;
/** A job that never reported back (its Lambda died) drops off after this. */
const STALE_RUNNING_MS = 30 * 60 * 1000;

export async function startActivity(store: StateStore, a: Activity): Promise<void> {
  await mutate<Activity[]>(store, RUNNING_KEY, INDEX_TTL_SECONDS, (cur) =>
    [...(cur ?? []).filter((x) => x.id !== a.id), a].slice(-MAX_ENTRIES),
  );
}

export async function finishActivity(store: StateStore, id: string): Promise<void> {
  await mutate<Activity[]>(store, RUNNING_KEY, INDEX_TTL_SECONDS, (cur) => (cur ?? []).filter((x) => x.id !== id));
}

export async function listRunning(store: StateStore, now = Date.now()): Promise<Activity[]> {
  const item = await store.get<Activity[]>(RUNNING_KEY);
  return (item?.value ?? []).filter((a) => now - Date.parse(a.startedAt) < STALE_RUNNING_MS);
}

export async function upsertIncident(store: StateStore, incident: OpenIncident): Promise<void> {
  await mutate<OpenIncident[]>(store, INCIDENTS_KEY, INDEX_TTL_SECONDS, (cur) =>
    [...(cur ?? []).filter((x) => x.groupKey !== incident.groupKey), incident].slice(-MAX_ENTRIES),
  );
}

export async function closeIncident(store: StateStore, groupKey: string): Promise<void> {
  await mutate<OpenIncident[]>(store, INCIDENTS_KEY, INDEX_TTL_SECONDS, (cur) => (cur ?? []).filter((x) => x.groupKey !== groupKey));
}

export async function listIncidents(store: StateStore): Promise<OpenIncident[]> {
  return (await store.get<OpenIncident[]>(INCIDENTS_KEY))?.value ?? [];
}
