// Alertmanager and SNS payloads into the real intake handlers: valid ones are
// enqueued with the right targets, bad ones get a 4xx with the reason and
// enqueue nothing.
import { describe, expect, it } from 'vitest';
import { createAlertmanagerHandler, createSnsHandler } from '../../lib/alerts/intake.ts';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import type { HttpEvent } from '../../lib/runtime/lambda-types.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import type { Job } from '../../lib/queue/job.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { alertmanagerPayload, cloudwatchAlarm, snsEvent } from './fixtures/samples.ts';

const TOKEN = 'am-token-0123456789abcdef';

function setup() {
  const enqueued: Job[] = [];
  const log = recordingLog();
  const queue = { enqueue: async (j: Job) => void enqueued.push(j) };
  const store = new MemoryStateStore();
  return { enqueued, log, store, am: createAlertmanagerHandler({ queue, store, log, bearerToken: TOKEN }), sns: createSnsHandler({ queue, store, log }) };
}

function post(body: string, auth: string | null = `Bearer ${TOKEN}`): HttpEvent {
  return {
    rawPath: '/alerts/alertmanager',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body,
    requestContext: { http: { method: 'POST' } },
  };
}

describe('Alertmanager webhook', () => {
  it('accepts a v4 payload and enqueues one alert job for its group', async () => {
    const { am, enqueued } = setup();
    const res = await am(post(JSON.stringify(alertmanagerPayload('firing'))));
    expect(res.statusCode).toBe(202);
    expect(enqueued).toHaveLength(1);
    const job = enqueued[0]!;
    expect(job.kind).toBe('alert');
    expect(job.group).toMatch(/^[0-9a-f]{64}$/);
    expect(job.payload).toMatchObject({
      source: 'alertmanager',
      status: 'firing',
      alertname: 'KafkaUnderReplicatedPartitions',
      clusterHint: 'sandbox',
      brokers: [2],
      topics: ['orders'],
      summary: 'Broker 2 reports 12 under-replicated partitions',
    } satisfies Partial<AlertEvent>);
    expect(JSON.parse(res.body).correlationId).toBe(job.correlationId);
  });

  it.each([
    ['no Authorization header', null, /missing Authorization/],
    ['a wrong token', 'Bearer wrong-token-wrong-token', /invalid bearer token/],
    ['basic auth', 'Basic dXNlcjpwYXNz', /not a bearer token/],
  ])('rejects %s with 401 and enqueues nothing', async (_name, auth, reason) => {
    const { am, enqueued, log } = setup();
    const res = await am(post(JSON.stringify(alertmanagerPayload('firing')), auth));
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body).error).toMatch(reason);
    expect(enqueued).toHaveLength(0);
    expect(log.records.some((r) => r.message === 'rejected alert: unauthenticated')).toBe(true);
  });

  it('rejects bodies that are not JSON (400) or not v4 (422), naming the problem', async () => {
    const { am, enqueued } = setup();
    const notJson = await am(post('{"version":'));
    expect(notJson.statusCode).toBe(400);
    expect(JSON.parse(notJson.body).error).toMatch(/not JSON/);
    const v3 = await am(post(JSON.stringify(alertmanagerPayload('firing', { version: '3' }))));
    expect(v3.statusCode).toBe(422);
    expect(JSON.parse(v3.body).error).toMatch(/version: only Alertmanager webhook payload version "4"/);
    const noAlerts = await am(post(JSON.stringify(alertmanagerPayload('firing', { alerts: [] }))));
    expect(noAlerts.statusCode).toBe(422);
    expect(JSON.parse(noAlerts.body).error).toMatch(/alerts: alerts must not be empty/);
    const badStatus = await am(post(JSON.stringify(alertmanagerPayload('firing', { status: 'burning' }))));
    expect(badStatus.statusCode).toBe(422);
    expect(enqueued).toHaveLength(0);
  });

  it('a receiver name of any length gives a short group key of its own: the group is kept, its records stay small', async () => {
    const { am, enqueued } = setup();
    const long = (suffix: string) => 'r'.repeat(2_000_000) + suffix;
    for (const receiver of [long('a'), long('a'), long('b')]) expect((await am(post(JSON.stringify(alertmanagerPayload('firing', { receiver }))))).statusCode).toBe(202);
    const keys = enqueued.map((j) => (j.payload as AlertEvent).groupKey);
    for (const k of keys) expect(k.length).toBeLessThanOrEqual(1024);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(enqueued.every((j) => JSON.stringify(j).length < 64 * 1024)).toBe(true);
  });

  it('answers 503 when the queue is down, so Alertmanager retries', async () => {
    const am = createAlertmanagerHandler({ queue: { enqueue: async () => { throw new Error('SQS unreachable'); } }, store: new MemoryStateStore(), log: recordingLog(), bearerToken: TOKEN });
    const res = await am(post(JSON.stringify(alertmanagerPayload('firing'))));
    expect(res.statusCode).toBe(503);
  });

  it('refuses a short bearer token at start-up rather than accept weak auth', () => {
    expect(() => createAlertmanagerHandler({ queue: { enqueue: async () => {} }, store: new MemoryStateStore(), log: recordingLog(), bearerToken: 'short' })).toThrow(/at least 16/);
  });
});

describe('CloudWatch alarms through SNS', () => {
  it('enqueues MSK alarms with the cluster and broker from the dimensions', async () => {
    const { sns, enqueued } = setup();
    const out = await sns(snsEvent([cloudwatchAlarm('ALARM', 'OfflinePartitionsCount'), cloudwatchAlarm('ALARM', 'KafkaDataLogsDiskUsed')]));
    expect(out.rejected).toEqual([]);
    expect(enqueued.map((j) => j.payload)).toMatchObject([
      { source: 'cloudwatch', status: 'firing', alertname: 'OfflinePartitionsCount', clusterHint: 'prod-msk', brokers: [] },
      { source: 'cloudwatch', status: 'firing', alertname: 'KafkaDataLogsDiskUsed', clusterHint: 'prod-msk', brokers: [2] },
    ]);
    const first = enqueued[0]!.payload as AlertEvent;
    expect(first.groupKey).toBe('cw:arn:aws:cloudwatch:eu-west-1:123456789012:alarm:prod-msk-OfflinePartitionsCount');
    expect(first.summary).toMatch(/partitions without a leader.*Threshold Crossed/s);
    expect(first.labels['Cluster Name']).toBe('prod-msk');
  });

  it('maps OK to resolved and ignores INSUFFICIENT_DATA', async () => {
    const { sns, enqueued } = setup();
    const out = await sns(snsEvent([cloudwatchAlarm('OK', 'ActiveControllerCount'), cloudwatchAlarm('INSUFFICIENT_DATA', 'ActiveControllerCount')]));
    expect(enqueued.map((j) => (j.payload as AlertEvent).status)).toEqual(['resolved']);
    expect(out.ignored).toHaveLength(1);
  });

  it('drops malformed records with a reason and keeps the good ones', async () => {
    const { sns, enqueued, log } = setup();
    const out = await sns(snsEvent(['not json', { AlarmName: 'x' }, cloudwatchAlarm('ALARM', 'UnderMinIsrPartitionCount')]));
    expect(out.rejected.map((r) => r.reason)).toEqual([expect.stringMatching(/not JSON/), expect.stringMatching(/not a CloudWatch alarm:.*NewStateValue/s)]);
    expect(enqueued).toHaveLength(1);
    expect(log.records.filter((r) => r.message === 'rejected SNS record: malformed')).toHaveLength(2);
  });

  it('rejects something that is not an SNS event at all', async () => {
    const { sns, enqueued } = setup();
    const out = await sns({ hello: 'world' });
    expect(out.rejected[0]!.reason).toMatch(/not an SNS event/);
    expect(enqueued).toHaveLength(0);
  });
});
