// The PagerDuty V3 webhook envelope, as sent to a webhook subscription:
// {"event": {id, event_type, resource_type, occurred_at, agent, client, data}}.
// Incident events carry the incident in `data`; incident.annotated carries the
// note, with the incident as a reference. Only what the mapping reads is
// required; every other field is dropped. Validated after the signature.
import * as z from 'zod';
import { formatIssues } from '../config/schema.ts';

/** PagerDuty links go into Slack threads: https only, bounded. */
const httpsUrl = z.url({ protocol: /^https$/ }).max(2048);
const text = (max: number) => z.string().max(max);

/** A reference to another PagerDuty object (service, priority, user, incident). */
const reference = z.object({
  id: z.string().min(1).max(64),
  type: text(64).optional(),
  summary: text(1024).nullish(),
  html_url: httpsUrl.nullish(),
});

/** Custom field values as the incident shows them (and as incident.custom_field_values.updated sends them). */
const customField = z.object({
  name: text(200),
  display_name: text(200).nullish(),
  value: z.union([z.string().max(1000), z.number(), z.boolean(), z.array(z.string().max(1000)).max(50)]).nullish(),
});

export const pagerDutyIncidentSchema = z.object({
  id: z.string().min(1).max(64),
  type: z.literal('incident'),
  number: z.number().int().nonnegative().optional(),
  title: text(1024).default(''),
  status: z.enum(['triggered', 'acknowledged', 'resolved']),
  html_url: httpsUrl.optional(),
  incident_key: text(255).nullish(),
  created_at: z.string().max(64).optional(),
  service: reference,
  urgency: z.enum(['high', 'low']).optional(),
  priority: reference.nullish(),
  custom_fields: z.array(customField).max(100).optional(),
});
export type PagerDutyIncident = z.infer<typeof pagerDutyIncidentSchema>;

/** incident.annotated: the note, and the incident it is on. */
const noteSchema = z.object({ type: z.literal('incident_note'), id: z.string().max(64), content: text(65_536).optional(), incident: reference });

/** The event types that carry the incident itself and change what the thread shows. */
export const INCIDENT_EVENT_TYPES = ['incident.triggered', 'incident.acknowledged', 'incident.unacknowledged', 'incident.reopened', 'incident.resolved'] as const;
const HANDLED: ReadonlySet<string> = new Set(INCIDENT_EVENT_TYPES);

const envelope = {
  id: z.string().min(1).max(128),
  resource_type: text(64),
  occurred_at: z.iso.datetime({ offset: true }),
  agent: reference.nullish(),
  client: z.object({ name: text(200).optional() }).nullish(),
};

/**
 * An incident event (its incident checked in full), or any other event (kept
 * to be ignored with a reason: incident.annotated's note, a priority change…).
 * An incident event whose incident does not parse is refused, not ignored.
 */
export const pagerDutyWebhookSchema = z.object({
  event: z.union([
    z.object({ ...envelope, event_type: z.enum(INCIDENT_EVENT_TYPES), data: pagerDutyIncidentSchema }),
    z.object({
      ...envelope,
      event_type: z.string().regex(/^[a-z_]+(\.[a-z_]+)+$/, 'expected an event type like incident.triggered').refine((t) => !HANDLED.has(t), 'an incident event without a valid incident'),
      data: z.union([noteSchema, z.record(z.string(), z.unknown())]).optional(),
    }),
  ]),
});
export type PagerDutyWebhook = z.infer<typeof pagerDutyWebhookSchema>;

export type WebhookParse = { ok: true; webhook: PagerDutyWebhook } | { ok: false; error: string };

/** Parses a verified body; a body that is not the V3 envelope is a 400 with the problems listed. */
export function parsePagerDutyWebhook(body: string | unknown): WebhookParse {
  let json: unknown = body;
  if (typeof body === 'string') {
    try {
      json = JSON.parse(body);
    } catch {
      return { ok: false, error: 'body is not JSON' };
    }
  }
  const parsed = pagerDutyWebhookSchema.safeParse(json);
  return parsed.success ? { ok: true, webhook: parsed.data } : { ok: false, error: `not a PagerDuty V3 webhook:\n${formatIssues(parsed.error)}` };
}
