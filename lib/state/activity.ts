// What `/kafka status` lists: running jobs or operations, open incidents
// (alert threads) and Slack messages that could not be delivered. One item per
// entry in the state store's lists (StateStore.put/list): every request writes
// its own item, so a burst of commands never contends on a shared one.
// Bookkeeping only: every write here is best-effort and never fails the
// command or job that records it (a failure is logged).
import { createHash, randomUUID } from 'node:crypto';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { StateStore } from './state-store.ts';

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

/** A Slack message given up on after its retries (lib/slack/web.ts). */
export interface UndeliveredMessage {
  method: string;
  channel: string;
  threadTs?: string;
  /** The start of the message's text, for a human to recognise it. */
  excerpt: string;
  error: string;
  at: string;
}

const LISTS = { running: 'running', incidents: 'incidents', undelivered: 'undelivered' } as const;
const INCIDENT_TTL_SECONDS = 7 * 24 * 3600;
const UNDELIVERED_TTL_SECONDS = 3 * 24 * 3600;
/** A job that never reported back (its Lambda died) drops off after this: its record expires. */
const STALE_RUNNING_SECONDS = 30 * 60;
const MAX_LISTED = 100;

const runningKey = (id: string) => `activity:${id}`;
const incidentKey = (groupKey: string) => `incident:${createHash('sha256').update(groupKey).digest('hex').slice(0, 40)}`;

/** Runs a bookkeeping write; a failure is logged, never thrown. True when it was written. */
async function bestEffort(what: string, log: Log | undefined, write: () => Promise<void>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    log?.warn(`could not ${what} (status listing only; the request goes on)`, { error: errorMessage(err) });
    return false;
  }
}

export function startActivity(store: StateStore, a: Activity, log?: Log): Promise<boolean> {
  return bestEffort('record the running job', log, () => store.put(runningKey(a.id), a, STALE_RUNNING_SECONDS, LISTS.running));
}

export function finishActivity(store: StateStore, id: string, log?: Log): Promise<boolean> {
  return bestEffort('clear the running job', log, () => store.remove(runningKey(id)));
}

export async function listRunning(store: StateStore): Promise<Activity[]> {
  return (await store.list<Activity>(LISTS.running, MAX_LISTED)).map((i) => i.value).reverse();
}

export function upsertIncident(store: StateStore, incident: OpenIncident, log?: Log): Promise<boolean> {
  return bestEffort('record the open incident', log, () => store.put(incidentKey(incident.groupKey), incident, INCIDENT_TTL_SECONDS, LISTS.incidents));
}

export function closeIncident(store: StateStore, groupKey: string, log?: Log): Promise<boolean> {
  return bestEffort('close the incident', log, () => store.remove(incidentKey(groupKey)));
}

export async function listIncidents(store: StateStore): Promise<OpenIncident[]> {
  return (await store.list<OpenIncident>(LISTS.incidents, MAX_LISTED)).map((i) => i.value).reverse();
}

export function recordUndelivered(store: StateStore, message: UndeliveredMessage, log?: Log): Promise<boolean> {
  return bestEffort('record the undelivered Slack message', log, () => store.put(`undelivered:${randomUUID()}`, message, UNDELIVERED_TTL_SECONDS, LISTS.undelivered));
}

export async function listUndelivered(store: StateStore): Promise<UndeliveredMessage[]> {
  return (await store.list<UndeliveredMessage>(LISTS.undelivered, MAX_LISTED)).map((i) => i.value);
}
