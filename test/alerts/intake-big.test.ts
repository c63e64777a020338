// Alert groups at incident size into the real intake handler: every valid
// notification is accepted (2xx) however many alerts it holds, its digest
// counts them all and keeps the first ones in full, oversized values are cut,
// and no job is ever larger than a queue message (a payload that would be is
// stored in the state table and read back).
import { describe, expect, it } from 'vitest';
import { DIGEST_ALERTS_KEPT, DIGEST_VALUE_CHARS, type AlertDigest } from '../../lib/alerts/digest.ts';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import { createAlertmanagerHandler } from '../../lib/alerts/intake.ts';
import { alertJobPayloadSchema } from '../../lib/alerts/triage.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { MAX_JOB_BYTES, SQS_MAX_MESSAGE_BYTES, fitJob, isSpilled, jobBytes, readSpilled } from '../../lib/queue/oversize.ts';
import { SqsJobQueue } from '../../lib/queue/queue.ts';
import type { HttpEvent } from '../../lib/runtime/lambda-types.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BIG_ALERTNAME, bigNotification, hugeAnnotationNotification } from './fixtures/big.ts';

const TOKEN = 'am-token-0123456789abcdef';

function setup() {
  const enqueued: Job[] = [];
  const store = new MemoryStateStore();
  const log = recordingLog();
  const am = createAlertmanagerHandler({ queue: { enqueue: async (j: Job) => void enqueued.push(j) }, store, log, bearerToken: TOKEN });
  return { enqueued, store, log, am };
}

const post = (body: unknown): HttpEvent => ({
  rawPath: '/alerts/alertmanager',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  requestContext: { http: { method: 'POST' } },
});

const countsOf = (d: AlertDigest, label: string) => d.counts.find((c) => c.label === label);

describe('intake at incident size', () => {
  it.each([10_000, 20_000])('%i alerts in one notification: 202, one job under the SQS limit, every alert counted', async (alerts) => {
    const { am, enqueued } = setup();
    const res = await am(post(bigNotification(alerts, { resolved: 10, truncatedAlerts: 5 })));
    expect(res.statusCode).toBe(202);
    expect(JSON.parse(res.body).alerts).toBe(alerts + 5);
    expect(enqueued).toHaveLength(1);
    expect(jobBytes(enqueued[0]!)).toBeLessThanOrEqual(MAX_JOB_BYTES);
    const event = enqueued[0]!.payload as AlertEvent;
    expect(event.count).toBe(alerts + 5);
    const d = event.digest!;
    expect(d).toMatchObject({ total: alerts + 5, received: alerts, firing: alerts - 10, resolved: 10, truncatedBySender: 5, malformed: 0 });
    expect(d.alerts).toHaveLength(DIGEST_ALERTS_KEPT);
    expect(d.alerts.every((a) => a.status === 'firing')).toBe(true);
    expect(countsOf(d, 'alertname')).toEqual({ label: 'alertname', values: [{ value: BIG_ALERTNAME, count: alerts }], others: 0, distinct: 1 });
    expect(countsOf(d, 'severity')!.values).toEqual([
      { value: 'warning', count: alerts * 0.9 },
      { value: 'critical', count: alerts * 0.1 },
    ]);
    // 500 topics, 10 listed, the rest summed; cluster is a group label (commonLabels), not on each alert.
    expect(countsOf(d, 'topic')).toMatchObject({ distinct: 500, others: alerts - 10 * (alerts / 500) });
    expect(countsOf(d, 'broker')!.values.map((v) => v.count).reduce((a, b) => a + b, 0)).toBe(alerts);
    expect(event.brokers).toEqual([1, 2, 3]);
    expect(event.topics.length).toBeLessThanOrEqual(50);
  });

  it('one alert with a 900 KB annotation: 202, the annotation cut in the digest, the job small', async () => {
    const { am, enqueued } = setup();
    const res = await am(post(hugeAnnotationNotification()));
    expect(res.statusCode).toBe(202);
    const job = enqueued[0]!;
    expect(jobBytes(job)).toBeLessThan(16 * 1024);
    const d = (job.payload as AlertEvent).digest!;
    expect(d.total).toBe(1);
    expect(d.valuesCut).toBe(1);
    const description = d.alerts[0]!.annotations.description!;
    expect(description.length).toBeLessThan(DIGEST_VALUE_CHARS + 50);
    expect(description).toMatch(/… \[\d+ more characters\]$/);
    expect(d.alerts[0]!.annotations.summary).toBe('Broker 2 is down');
  });

  it('a malformed alert among good ones is counted, not a reason to refuse the group', async () => {
    const { am, enqueued, log } = setup();
    const n = bigNotification(3);
    const res = await am(post({ ...n, alerts: [...n.alerts, { status: 'burning', labels: {} }] }));
    expect(res.statusCode).toBe(202);
    expect((enqueued[0]!.payload as AlertEvent).digest).toMatchObject({ total: 4, received: 3, malformed: 1 });
    expect(log.records.some((r) => /malformed; counted/.test(r.message))).toBe(true);
  });

  it('still refuses a notification with no well-formed alert (422) and a body larger than API Gateway takes (413)', async () => {
    const { am, enqueued } = setup();
    const n = bigNotification(1);
    expect((await am(post({ ...n, alerts: [{ status: 'burning' }] }))).statusCode).toBe(422);
    const tooBig = JSON.stringify(bigNotification(1)).replace('"receiver"', `"padding":"${'x'.repeat(10 * 1024 * 1024)}","receiver"`);
    expect((await am(post(tooBig))).statusCode).toBe(413);
    expect(enqueued).toHaveLength(0);
  });
});

describe('a job too large for a queue message', () => {
  const big = { source: 'alertmanager', blob: 'y'.repeat(700 * 1024), digits: Array.from({ length: 20_000 }, (_, i) => i) };

  it('is stored in parts and carries its key; the consumer reads back exactly the payload', async () => {
    const store = new MemoryStateStore();
    const fitted = await fitJob(newJob('alert', big, 'c-1', 'g'), store);
    expect(fitted.spilledBytes).toBe(Buffer.byteLength(JSON.stringify(big)));
    expect(fitted.bytes).toBeLessThan(1024);
    expect(isSpilled(fitted.job.payload)).toBe(true);
    // The alert job schema takes the stored form.
    expect(alertJobPayloadSchema.safeParse(fitted.job.payload).success).toBe(true);
    expect(await readSpilled(fitted.job.payload as never, store)).toEqual(big);
  });

  it('a job that fits travels as it is', async () => {
    const job = newJob('alert', { small: true }, 'c-2');
    expect((await fitJob(job, new MemoryStateStore())).job).toBe(job);
  });

  it('a missing part is an error (the job is retried), not an empty alert', async () => {
    const store = new MemoryStateStore();
    const fitted = await fitJob(newJob('alert', big, 'c-3'), store);
    await store.remove(`spill:${fitted.job.id}:0`);
    await expect(readSpilled(fitted.job.payload as never, store)).rejects.toThrow(/missing part 1/);
  });

  it('SqsJobQueue never sends a message over the limit', async () => {
    const sent: string[] = [];
    const queue = new SqsJobQueue({ sendMessage: async (m) => void sent.push(m.MessageBody) }, 'https://sqs/q.fifo');
    await expect(queue.enqueue(newJob('alert', big, 'c-4'))).rejects.toThrow(/at most/);
    await queue.enqueue(newJob('alert', { ok: 1 }, 'c-5'));
    expect(sent).toHaveLength(1);
    expect(Buffer.byteLength(sent[0]!)).toBeLessThan(SQS_MAX_MESSAGE_BYTES);
  });
});
