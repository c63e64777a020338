// Pure parts of alert handling: routing table, flapping arithmetic, and the
// worker's SQS batch semantics.
import { describe, expect, it } from 'vitest';
import { toAlertEvent } from '../../lib/alerts/alertmanager.ts';
import { countCycles, isFlapping, recordTransition, type Transition } from '../../lib/alerts/flapping.ts';
import { routeAlert } from '../../lib/alerts/routing.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { processSqsBatch } from '../../lib/worker/sqs-batch.ts';
import type { SqsRecord } from '../../lib/runtime/lambda-types.ts';
import { PermanentJobError } from '../../lib/worker/worker.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';
import { alertmanagerPayload } from './fixtures/samples.ts';

describe('routing table', () => {
  const am = toAlertEvent(alertmanagerPayload('firing') as Parameters<typeof toAlertEvent>[0]);

  it('uses the built-in route for a known alert and resolves the cluster label', () => {
    const r = routeAlert(am, parseConfig(BASE_CONFIG));
    expect(r).toMatchObject({ builtin: true, scope: ['cluster', 'brokers'], brokers: [2], channel: 'C0INCIDENT', cluster: { name: 'sandbox' } });
    expect(r.topic).toBeUndefined();
  });

  it('lets a configured route (first match wins) override scope and channel', () => {
    const config = parseConfig({
      ...BASE_CONFIG,
      alerts: {
        routes: [
          { match: { alertname: 'KafkaUnderReplicatedPartitions', labels: { severity: 'warning' } }, diagnose: ['cluster'] },
          { match: { alertname: 'KafkaUnderReplicatedPartitions', labels: { severity: 'critical' } }, diagnose: ['topics'], channel: 'C0PAGER' },
        ],
      },
    });
    expect(routeAlert(am, config)).toMatchObject({ builtin: false, scope: ['topics'], topic: 'orders', channel: 'C0PAGER' });
  });

  it('falls back to a whole-cluster diagnosis for an unknown alert', () => {
    const r = routeAlert({ ...am, alertname: 'SomethingElse' }, parseConfig(BASE_CONFIG));
    expect(r.scope).toEqual(['cluster']);
  });
});

describe('flapping', () => {
  const at = (min: number) => min * 60_000;
  const replay = (steps: [Transition['status'], number][], now: number, windowMs = at(60)) =>
    steps.reduce<Transition[]>((h, [status, t]) => recordTransition(h, { status, at: at(t) }, windowMs, now), []);

  it('counts fire→resolve cycles and ignores repeats of the same status', () => {
    const h = replay([['firing', 0], ['firing', 1], ['resolved', 2], ['resolved', 3], ['firing', 4], ['resolved', 5]], at(10));
    expect(h.map((t) => t.status)).toEqual(['firing', 'resolved', 'firing', 'resolved']);
    expect(countCycles(h)).toBe(2);
    expect(isFlapping(h, 2)).toBe(true);
    expect(isFlapping(h, 3)).toBe(false);
  });

  it('forgets transitions that fell out of the window', () => {
    const h = replay([['firing', 0], ['resolved', 1], ['firing', 100], ['resolved', 101]], at(102));
    expect(countCycles(h)).toBe(1);
  });
});

describe('worker SQS batches', () => {
  // An SQS FIFO record as Lambda delivers it.
  const rec = (id: string, body: string): SqsRecord => ({
    messageId: id,
    receiptHandle: `rh-${id}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1700000000000', SenderId: 'AIDA', ApproximateFirstReceiveTimestamp: '1700000000000', MessageGroupId: 'jobs', MessageDeduplicationId: id, SequenceNumber: id },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:kafka-responder-jobs.fifo',
    awsRegion: 'eu-west-1',
  });

  it('drops permanent failures, retries others, and keeps FIFO order after a failure', async () => {
    const seen: string[] = [];
    const run = async (job: unknown) => {
      const { n } = job as { n: string };
      seen.push(n);
      if (n === 'bad') throw new PermanentJobError('malformed');
      if (n === 'flaky') throw new Error('Slack timed out');
    };
    const out = await processSqsBatch(
      { Records: [rec('1', '{"n":"ok"}'), rec('2', 'not json'), rec('3', '{"n":"bad"}'), rec('4', '{"n":"flaky"}'), rec('5', '{"n":"later"}')] },
      run,
      recordingLog(),
    );
    expect(seen).toEqual(['ok', 'bad', 'flaky']);
    expect(out.batchItemFailures).toEqual([{ itemIdentifier: '4' }, { itemIdentifier: '5' }]);
  });
});
