// What `/kafka status` lists: running jobs or operations, open incidents
// (alert threads) and Slack messages that could not be delivered. One item per
// entry in the state store's lists (StateStore.put/list): every request writes
// its own item, so a burst of commands never contends on a shared one.
// Bookkeeping only: every write here is best-effort and never fails the
// command or job that records it (a failure is logged).
// Each list is per Slack channel: `/kafka status` shows what belongs to the
// channel it is asked in, never another channel's incidents, jobs or messages
// (a private incident channel stays private). Entries without a channel (a
// scheduled job) are listed nowhere.
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

/** A message to another tool (PagerDuty) not delivered yet: queued, being retried, or given up on. */
export interface OutboundDelivery {
  id: string;
  /** "PagerDuty change event", "PagerDuty note". */
  target: string;
  /** One line a human recognises it by. */
  what: string;
  state: 'pending' | 'retrying' | 'failed';
  attempts: number;
  error?: string;
  at: string;
  channel: string;
}

const LISTS = { running: 'running', incidents: 'incidents', undelivered: 'undelivered', outbound: 'outbound' } as const;
/** One list per kind and channel: a listing reads its own channel's list only (and its bound is the channel's). */
const channelList = (list: string, channel: string | undefined) => `${list}:${channel ?? '-'}`;
const INCIDENT_TTL_SECONDS = 7 * 24 * 3600;
const UNDELIVERED_TTL_SECONDS = 3 * 24 * 3600;
const outboundKey = (id: string) => `outbound:${id}`;
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
  return bestEffort('record the running job', log, () => store.put(runningKey(a.id), a, STALE_RUNNING_SECONDS, channelList(LISTS.running, a.channelId)));
}

export function finishActivity(store: StateStore, id: string, log?: Log): Promise<boolean> {
  return bestEffort('clear the running job', log, () => store.remove(runningKey(id)));
}

export async function listRunning(store: StateStore, channel: string): Promise<Activity[]> {
  return (await store.list<Activity>(channelList(LISTS.running, channel), MAX_LISTED)).map((i) => i.value).reverse();
}

export function upsertIncident(store: StateStore, incident: OpenIncident, log?: Log): Promise<boolean> {
  return bestEffort('record the open incident', log, () => store.put(incidentKey(incident.groupKey), incident, INCIDENT_TTL_SECONDS, channelList(LISTS.incidents, incident.channelId)));
}

export function closeIncident(store: StateStore, groupKey: string, log?: Log): Promise<boolean> {
  return bestEffort('close the incident', log, () => store.remove(incidentKey(groupKey)));
}

export async function listIncidents(store: StateStore, channel: string): Promise<OpenIncident[]> {
  return (await store.list<OpenIncident>(channelList(LISTS.incidents, channel), MAX_LISTED)).map((i) => i.value).reverse();
}

export function recordUndelivered(store: StateStore, message: UndeliveredMessage, log?: Log): Promise<boolean> {
  return bestEffort('record the undelivered Slack message', log, () => store.put(`undelivered:${randomUUID()}`, message, UNDELIVERED_TTL_SECONDS, channelList(LISTS.undelivered, message.channel || undefined)));
}

export async function listUndelivered(store: StateStore, channel: string): Promise<UndeliveredMessage[]> {
  return (await store.list<UndeliveredMessage>(channelList(LISTS.undelivered, channel), MAX_LISTED)).map((i) => i.value);
}

/** Lists (or updates) a delivery while it is pending, retried or failed; a failed one stays listed until it expires. */
export function listDelivery(store: StateStore, d: OutboundDelivery, log?: Log): Promise<boolean> {
  return bestEffort('list the delivery', log, () => store.put(outboundKey(d.id), d, UNDELIVERED_TTL_SECONDS, channelList(LISTS.outbound, d.channel)));
}

export function unlistDelivery(store: StateStore, id: string, log?: Log): Promise<boolean> {
  return bestEffort('clear the delivery', log, () => store.remove(outboundKey(id)));
}

export async function listDeliveries(store: StateStore, channel: string): Promise<OutboundDelivery[]> {
  return (await store.list<OutboundDelivery>(channelList(LISTS.outbound, channel), MAX_LISTED)).map((i) => i.value);
}
