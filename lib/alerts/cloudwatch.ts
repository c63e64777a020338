// CloudWatch alarms delivered by SNS to a Lambda subscription. Lambda-invoked
// SNS needs no signature check (AWS invokes us); the message still is outside
// input and is validated.
import * as z from 'zod';
import { formatIssues } from '../config/schema.ts';
import type { SnsEvent } from '../runtime/lambda-types.ts';
import type { ParseResult } from './alertmanager.ts';
import { clip } from '../slack/limits.ts';
import { MAX_SUMMARY_CHARS, boundLabels, extractTargets, groupKey, type AlertEvent } from './event.ts';

const dimension = z.object({ name: z.string(), value: z.string() });

export const cloudwatchAlarmSchema = z.object({
  AlarmName: z.string().min(1),
  AlarmDescription: z.string().nullish(),
  AWSAccountId: z.string().optional(),
  NewStateValue: z.enum(['ALARM', 'OK', 'INSUFFICIENT_DATA']),
  NewStateReason: z.string().default(''),
  StateChangeTime: z.string(),
  Region: z.string().optional(),
  AlarmArn: z.string().min(1),
  OldStateValue: z.enum(['ALARM', 'OK', 'INSUFFICIENT_DATA']).optional(),
  Trigger: z
    .object({
      MetricName: z.string().optional(),
      Namespace: z.string().optional(),
      Dimensions: z.array(dimension).default([]),
      Metrics: z.array(z.unknown()).optional(),
    })
    .passthrough()
    .optional(),
});
export type CloudWatchAlarm = z.infer<typeof cloudwatchAlarmSchema>;

export const snsEventSchema = z.object({
  Records: z
    .array(
      z.object({
        Sns: z.object({ MessageId: z.string().optional(), Message: z.string(), Subject: z.string().nullish() }).passthrough(),
      }).passthrough(),
    )
    .min(1),
});

/** MSK metrics we know how to read, with what the alarm means for an operator. */
export const MSK_METRICS: Record<string, string> = {
  OfflinePartitionsCount: 'partitions without a leader: producers and consumers of those partitions are stuck',
  UnderReplicatedPartitions: 'partitions whose ISR is smaller than their replica set',
  UnderMinIsrPartitionCount: 'partitions below min.insync.replicas: acks=all producers are failing',
  ActiveControllerCount: 'the cluster should have exactly one active controller',
  KafkaDataLogsDiskUsed: 'data log disk usage on a broker',
};

/** null for INSUFFICIENT_DATA: neither firing nor resolved, so it opens and closes nothing. */
export function toAlertEvent(alarm: CloudWatchAlarm): AlertEvent | null {
  if (alarm.NewStateValue === 'INSUFFICIENT_DATA') return null;
  const labels: Record<string, string> = {};
  for (const d of alarm.Trigger?.Dimensions ?? []) labels[d.name] = d.value;
  const metric = alarm.Trigger?.MetricName;
  const alertname = metric ?? alarm.AlarmName;
  const targets = extractTargets([labels]);
  const meaning = metric ? MSK_METRICS[metric] : undefined;
  return {
    source: 'cloudwatch',
    groupKey: groupKey(`cw:${alarm.AlarmArn}`),
    status: alarm.NewStateValue === 'ALARM' ? 'firing' : 'resolved',
    alertname: clip(alertname, 200),
    title: clip(`${alarm.AlarmName}${targets.clusterHint ? ` on ${targets.clusterHint}` : ''}`, 300),
    summary: clip([meaning, alarm.NewStateReason].filter(Boolean).join('. '), MAX_SUMMARY_CHARS),
    labels: boundLabels({ ...labels, AlarmName: alarm.AlarmName, ...(alarm.Trigger?.Namespace ? { Namespace: alarm.Trigger.Namespace } : {}) }),
    at: alarm.StateChangeTime,
    ...targets,
    count: 1,
  };
}

export interface SnsParseOutcome {
  events: AlertEvent[];
  rejected: { messageId?: string; reason: string }[];
  ignored: { messageId?: string; reason: string }[];
}

export function parseSnsEvent(input: SnsEvent | unknown): ParseResult<SnsParseOutcome> {
  const parsed = snsEventSchema.safeParse(input);
  if (!parsed.success) return { ok: false, reason: `not an SNS event:\n${formatIssues(parsed.error)}` };
  const outcome: SnsParseOutcome = { events: [], rejected: [], ignored: [] };
  for (const record of parsed.data.Records) {
    const messageId = record.Sns.MessageId;
    let json: unknown;
    try {
      json = JSON.parse(record.Sns.Message);
    } catch {
      outcome.rejected.push({ messageId, reason: 'SNS Message is not JSON' });
      continue;
    }
    const alarm = cloudwatchAlarmSchema.safeParse(json);
    if (!alarm.success) {
      outcome.rejected.push({ messageId, reason: `not a CloudWatch alarm:\n${formatIssues(alarm.error)}` });
      continue;
    }
    const event = toAlertEvent(alarm.data);
    if (event) outcome.events.push(event);
    else outcome.ignored.push({ messageId, reason: 'INSUFFICIENT_DATA is neither firing nor resolved' });
  }
  return { ok: true, value: outcome };
}
