// The `pagerduty` section of the configuration (lib/pagerduty/): which
// incidents map to which cluster, and where change events and notes go.
// Secrets are never here: the webhook secrets, the Events API routing key and
// the REST API token are SecureString parameters (lib/config/secrets.ts SECRETS).
import * as z from 'zod';

/** PagerDuty object ids: service, incident, user… ("PXXXXXX", upper-case letters and digits). */
export const PAGERDUTY_ID = /^[A-Z0-9]{2,20}$/;
const CLUSTER_REF = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$/;

/**
 * https, or http on the loopback only (tests and `serve` point at a local stand-in):
 * a routing key or API token never crosses a network in clear.
 */
const apiBase = z
  .string()
  .regex(/^(https:\/\/[A-Za-z0-9.-]+(:\d{1,5})?|http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?)\/?$/, 'expected https://host (or http://127.0.0.1:port for a local stand-in)')
  .transform((u) => u.replace(/\/$/, ''));

export const pagerDutySchema = z
  .object({
    /** Incidents in (V3 webhook subscriptions): which cluster an incident is about. */
    incidents: z
      .object({
        /** PagerDuty service id → cluster name or alias, e.g. { "PKAFKA1": "prod-eu" }. */
        services: z.record(z.string().regex(PAGERDUTY_ID, 'service ids look like PABC123'), z.string().regex(CLUSTER_REF)).default({}),
        /** A custom field (or label) of the incident whose value names the cluster, e.g. "kafka_cluster". */
        clusterField: z.string().min(1).max(100).optional(),
      })
      .prefault({}),
    /** Approved operations and their outcomes as Change Events (Events API v2); routing key from SecureString. */
    changeEvents: z.object({ enabled: z.boolean().default(true), source: z.string().min(1).max(255).default('kafka-responder') }).optional(),
    /** The thread's findings as a note on the incident it came from (REST API; token from SecureString). */
    notes: z.object({ enabled: z.boolean().default(true), fromEmail: z.email('the From header is the email of a PagerDuty user') }).optional(),
    eventsApiUrl: apiBase.default('https://events.pagerduty.com'),
    restApiUrl: apiBase.default('https://api.pagerduty.com'),
    /** How a delivery is retried: never in the operation's path, by its own delayed job. */
    delivery: z
      .object({
        timeoutMs: z.number().int().min(100).max(30_000).default(5_000),
        maxAttempts: z.number().int().min(1).max(20).default(8),
        /** The wait before the 2nd attempt; doubled each time, at most 15 minutes (SQS's longest delay). */
        firstRetryMs: z.number().int().min(50).max(900_000).default(30_000),
      })
      .prefault({}),
  })
  .optional();

export type PagerDutyConfig = NonNullable<z.infer<typeof pagerDutySchema>>;
