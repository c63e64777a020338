// What happened in one incident thread, for its postmortem timeline
// (lib/timeline/): alert transitions, diagnoses (their findings by
// fingerprint and what changed in the cluster) and the plans requested in the
// thread. An incident is a Slack thread: an alert group's or a diagnosis's.
// Its id is derived from the thread (channel and parent ts), so a button
// clicked anywhere in the thread, an operation planned from it and the CLI all
// name the same incident without storing a mapping.
//
// One item per event in the state store's list `incident:<id>` (put/list): an
// alert storm appends without contending on a shared item. Bookkeeping only:
// a write that fails is logged and never fails the job that records it.
import { createHash, randomUUID } from 'node:crypto';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { StateStore } from './state-store.ts';

/** A finding as the timeline needs it: enough to say first seen, changed, cleared. */
export interface LoggedFinding {
  fingerprint: string;
  kind: string;
  severity: string;
  title: string;
}

export type IncidentEvent =
  | { type: 'alert'; at: string; status: 'firing' | 'resolved'; source: string; alertname: string; title: string; cluster?: string; count: number }
  | {
      type: 'diagnosis';
      at: string;
      cluster: string;
      /** Who asked (Slack user id); absent for an alert's diagnosis. */
      requestedBy?: string;
      durationMs: number;
      partial: boolean;
      findings: LoggedFinding[];
      /** Findings left out of `findings` to keep the item small. */
      findingsOmitted?: number;
      /** What changed in the cluster (lib/diagnose/what-changed.ts codes), as reported. */
      changes: Record<string, unknown>[];
    }
  | { type: 'plan'; at: string; requestId: string; cluster: string; kind: string; title: string; requestedBy: string };

/** The incident's thread and what it is about. */
export interface IncidentMeta {
  id: string;
  channel: string;
  threadTs: string;
  title: string;
  cluster?: string;
  openedAt: string;
  origin: 'alert' | 'diagnosis';
}

const TTL_SECONDS = 60 * 24 * 3600;
const MAX_EVENTS = 1000;
/** Keeps a diagnosis event far under DynamoDB's 400 KB item. */
export const MAX_LOGGED_FINDINGS = 200;

export const INCIDENT_ID = /^[0-9a-f]{16}$/;

/** The incident a thread is: the same id from the alert, the diagnosis, a button in the thread and the CLI. */
export function incidentIdOf(channel: string, threadTs: string): string {
  return createHash('sha256').update(`${channel}:${threadTs}`).digest('hex').slice(0, 16);
}

const metaKey = (id: string) => `incident-meta:${id}`;
const listOf = (id: string) => `incident:${id}`;

async function bestEffort(what: string, log: Log | undefined, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    log?.warn(`could not record ${what} for the incident timeline (the job goes on)`, { error: errorMessage(err) });
  }
}

/** Records the thread once (the first writer's title stays). */
export function openIncident(store: StateStore, meta: Omit<IncidentMeta, 'id'>, log?: Log): Promise<void> {
  const id = incidentIdOf(meta.channel, meta.threadTs);
  return bestEffort('the incident', log, async () => {
    await store.create<IncidentMeta>(metaKey(id), { id, ...meta }, TTL_SECONDS);
  });
}

/**
 * `eventId` names the event where a job may record it again (its retry after
 * the worker died): the job's id and what it records, so the retry overwrites
 * the same item instead of adding a second one. Without it the key is random
 * (callers that record it once by other means).
 */
export function recordIncidentEvent(store: StateStore, thread: { channel: string; threadTs: string }, event: IncidentEvent, log?: Log, eventId?: string): Promise<void> {
  const id = incidentIdOf(thread.channel, thread.threadTs);
  const key = `incident-event:${id}:${eventId ? `job:${eventId}` : randomUUID()}`;
  return bestEffort(`the ${event.type} event`, log, () => store.put(key, event, TTL_SECONDS, listOf(id)));
}

export async function incidentMeta(store: StateStore, id: string): Promise<IncidentMeta | null> {
  return (await store.get<IncidentMeta>(metaKey(id)))?.value ?? null;
}

/** The incident's events, oldest first. */
export async function incidentEvents(store: StateStore, id: string): Promise<IncidentEvent[]> {
  const items = await store.list<IncidentEvent>(listOf(id), MAX_EVENTS);
  return items.map((i) => i.value).sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** A diagnosis's findings, bounded, as the log keeps them. */
export function loggedFindings(findings: readonly LoggedFinding[]): { findings: LoggedFinding[]; findingsOmitted?: number } {
  const kept = findings.slice(0, MAX_LOGGED_FINDINGS).map((f) => ({ fingerprint: f.fingerprint, kind: f.kind, severity: f.severity, title: f.title.slice(0, 300) }));
  return findings.length > kept.length ? { findings: kept, findingsOmitted: findings.length - kept.length } : { findings: kept };
}
