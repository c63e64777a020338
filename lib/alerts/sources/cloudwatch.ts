// CloudWatch alarms (the MSK metrics) through SNS: an SNS subscription
// deployed (AWS invokes the function), an HTTP route in serve.
import { cloudwatchAlarmSchema, parseSnsEvent } from '../cloudwatch.ts';
import { ALERTMANAGER_SECRET, bearerAuth } from './auth.ts';
import type { SnsAlertSource } from './types.ts';

export const cloudwatchSource: SnsAlertSource = {
  name: 'cloudwatch',
  label: 'CloudWatch',
  idPrefix: 'cw',
  kind: 'sns',
  path: '/alerts/sns',
  topic: 'alarms',
  // In serve there is no AWS in front: the Alertmanager token stands in.
  servedAuth: bearerAuth(ALERTMANAGER_SECRET),
  schema: cloudwatchAlarmSchema,
  maps: 'one thread per alarm ARN; cluster and broker from the MSK dimensions (`Cluster Name`, `Broker ID`); `ALARM` fires, `OK` resolves, `INSUFFICIENT_DATA` is ignored',
  parse: parseSnsEvent,
  examples: [
    {
      title: 'offline partitions on an MSK cluster',
      body: {
        AlarmName: 'prod-msk-OfflinePartitionsCount',
        NewStateValue: 'ALARM',
        NewStateReason: 'Threshold Crossed: 1 out of the last 1 datapoints [3.0] was greater than the threshold (0.0).',
        StateChangeTime: '2026-11-29T07:00:12.345+0000',
        AlarmArn: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:prod-msk-OfflinePartitionsCount',
        Trigger: { MetricName: 'OfflinePartitionsCount', Namespace: 'AWS/Kafka', Dimensions: [{ name: 'Cluster Name', value: 'prod-msk' }] },
      },
    },
  ],
};
