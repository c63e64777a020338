// A bounded digest of one alert group, however many alerts it holds: counts
// by the labels that matter for triage (alertname, severity, cluster and the
// labels that route), the first alerts in full with oversized labels and
// annotations cut, and the rest counted. Incidents are exactly when a group
// holds thousands of alerts (one per under-replicated partition, per consumer
// group, per broker disk): the digest keeps what a human reads and a queue
// message can carry, and says what it left out.
import * as z from 'zod';

/** Alerts kept in full (the thread shows fewer; the rest is counted). */
export const DIGEST_ALERTS_KEPT = 50;
/** Values listed per counted label; the others are summed. */
export const DIGEST_VALUES_PER_LABEL = 10;
/** Longest label or annotation value kept, in characters. */
export const DIGEST_VALUE_CHARS = 1000;
/** Labels and annotations kept per alert. */
export const DIGEST_KEYS_PER_ALERT = 40;
/** Labels counted beyond the fixed ones (the group's own labels: what Alertmanager routed by). */
const MAX_ROUTING_LABELS = 8;

/** An alert's measured values (Grafana's values), kept as this annotation: the thread shows them as its evidence. */
export const VALUE_ANNOTATION = '__value__';

/** The labels counted in every digest, in this order; group labels follow. */
export const COUNTED_LABELS = ['alertname', 'severity', 'cluster', 'topic', 'broker'] as const;

const valueCount = z.object({ value: z.string(), count: z.number().int().min(0) });
export const labelCountsSchema = z.object({
  label: z.string(),
  /** The most frequent values, most frequent first. */
  values: z.array(valueCount),
  /** Alerts whose value is not listed (another value, or the label missing). */
  others: z.number().int().min(0),
  /** How many distinct values there were in all. */
  distinct: z.number().int().min(0),
});
export type LabelCounts = z.infer<typeof labelCountsSchema>;

export const digestAlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
  startsAt: z.string(),
  endsAt: z.string().optional(),
});
export type DigestAlert = z.infer<typeof digestAlertSchema>;

export const alertDigestSchema = z.object({
  /** Alerts in the group: those received (malformed ones included) plus those the sender left out (truncatedAlerts). */
  total: z.number().int().min(0),
  received: z.number().int().min(0),
  firing: z.number().int().min(0),
  resolved: z.number().int().min(0),
  /** Left out by the sender (max_alerts): counted in total, not in the label counts. */
  truncatedBySender: z.number().int().min(0),
  /** Alerts in the notification that were not alerts (counted, never a reason to refuse the group). */
  malformed: z.number().int().min(0),
  counts: z.array(labelCountsSchema),
  /** The first alerts in full (firing ones first), values cut to DIGEST_VALUE_CHARS. */
  alerts: z.array(digestAlertSchema),
  /** Label and annotation values that were cut (or dropped) in the kept alerts. */
  valuesCut: z.number().int().min(0),
});
export type AlertDigest = z.infer<typeof alertDigestSchema>;

/** Cuts a value to the digest's bound, marking the cut with how much was left out. */
export function cutValue(value: string, max = DIGEST_VALUE_CHARS): { text: string; cut: boolean } {
  if (value.length <= max) return { text: value, cut: false };
  const note = `… [${value.length - max} more characters]`;
  return { text: value.slice(0, max) + note, cut: true };
}

function cutRecord(record: Record<string, string>): { record: Record<string, string>; cut: number } {
  const out: Record<string, string> = {};
  let cut = 0;
  let kept = 0;
  for (const [k, v] of Object.entries(record)) {
    if (kept >= DIGEST_KEYS_PER_ALERT) {
      cut++;
      continue;
    }
    const key = k.slice(0, 200);
    const value = cutValue(v);
    if (value.cut || key !== k) cut++;
    out[key] = value.text;
    kept++;
  }
  return { record: out, cut };
}

export interface DigestInput {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt?: string | undefined;
}

/**
 * Folds alerts one at a time: memory grows with the distinct values of the
 * counted labels only (bounded by the alerts themselves), never with their
 * annotations.
 */
export class DigestBuilder {
  private received = 0;
  private firing = 0;
  private malformed = 0;
  private readonly firingKept: { alert: DigestAlert; cut: number }[] = [];
  private readonly resolvedKept: { alert: DigestAlert; cut: number }[] = [];
  private readonly tallies = new Map<string, Map<string, number>>();

  constructor(routingLabels: string[] = []) {
    const labels = [...COUNTED_LABELS, ...routingLabels.filter((l) => !(COUNTED_LABELS as readonly string[]).includes(l)).slice(0, MAX_ROUTING_LABELS)];
    for (const l of labels) this.tallies.set(l, new Map());
  }

  add(alert: DigestInput): void {
    this.received++;
    if (alert.status === 'firing') this.firing++;
    for (const [label, tally] of this.tallies) {
      const v = alert.labels[label];
      if (v === undefined) continue;
      const key = v.length > 200 ? `${v.slice(0, 200)}…` : v;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    // Firing alerts are what a human acts on: keep those first, resolved ones only to fill up.
    const kept = alert.status === 'firing' ? this.firingKept : this.resolvedKept;
    if (kept.length >= DIGEST_ALERTS_KEPT) return;
    const labels = cutRecord(alert.labels);
    const annotations = cutRecord(alert.annotations);
    kept.push({
      alert: {
        status: alert.status,
        labels: labels.record,
        annotations: annotations.record,
        startsAt: alert.startsAt.slice(0, 40),
        ...(alert.endsAt ? { endsAt: alert.endsAt.slice(0, 40) } : {}),
      },
      cut: labels.cut + annotations.cut,
    });
  }

  addMalformed(): void {
    this.malformed++;
  }

  get size(): number {
    return this.received;
  }

  build(truncatedBySender = 0): AlertDigest {
    const counts: LabelCounts[] = [];
    for (const [label, tally] of this.tallies) {
      if (tally.size === 0) continue;
      const sorted = [...tally.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const values = sorted.slice(0, DIGEST_VALUES_PER_LABEL).map(([value, count]) => ({ value, count }));
      const listed = values.reduce((s, v) => s + v.count, 0);
      counts.push({ label, values, others: this.received - listed, distinct: tally.size });
    }
    const kept = [...this.firingKept, ...this.resolvedKept].slice(0, DIGEST_ALERTS_KEPT);
    return {
      total: this.received + this.malformed + truncatedBySender,
      received: this.received,
      firing: this.firing,
      resolved: this.received - this.firing,
      truncatedBySender,
      malformed: this.malformed,
      counts,
      alerts: kept.map((k) => k.alert),
      valuesCut: kept.reduce((s, k) => s + k.cut, 0),
    };
  }
}
