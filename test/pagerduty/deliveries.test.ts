// Change Event bodies, and the outbox: one attempt per job, transient failures
// retried with backoff, refusals failed at once, everything not delivered
// listed for /kafka status; notes with PagerDuty's REST headers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../lib/approvals/types.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { newJob } from '../../lib/queue/job.ts';
import { listDeliveries, listDelivery } from '../../lib/state/activity.ts';
import { statusCommand } from '../../lib/slack/commands.ts';
import { approvalChangeEvent, outcomeChangeEvent, MAX_SUMMARY_CHARS } from '../../lib/pagerduty/change-events.ts';
import { deliveryId, outboxRecord, queueDelivery } from '../../lib/pagerduty/deliveries.ts';
import { queueIncidentNote } from '../../lib/pagerduty/notes.ts';
import { EXAMPLE_INCIDENT_ID } from '../../lib/pagerduty/examples.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { BASE_CONFIG, buildHarness, finding, report, type Harness } from '../slack/helpers/harness.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';
import { closedPort } from '../helpers/net.ts';
import { PagerDutyStandIn } from './stand-in.ts';

let db: DynaliteHandle;
let stub: SlackStub;
let pd: PagerDutyStandIn;
let h: Harness;

const SECRETS = { routingKey: 'R0UTINGKEY0123456789abcdef012345', apiToken: 'y_NbAkKc66ryYTWUXYEu' };

function build(eventsApiUrl = pd.url, delivery: Record<string, number> = { firstRetryMs: 50, maxAttempts: 3, timeoutMs: 2000 }) {
  const config = { ...BASE_CONFIG, pagerduty: { changeEvents: {}, notes: { fromEmail: 'oncall-bot@example.com' }, eventsApiUrl, restApiUrl: eventsApiUrl, delivery } };
  h = buildHarness({ stub, store: db.store, config, features: { pagerdutySecret: async (name) => SECRETS[name] } });
}
const ctx = () => ({ store: h.worker.store, queue: h.queue, log: h.log, job: newJob('test', {}, 'kr-test'), config: h.config });

beforeAll(async () => {
  db = await startDynalite();
  stub = await new SlackStub().start();
  pd = await new PagerDutyStandIn().start();
});
afterAll(async () => {
  await pd.stop();
  await stub.stop();
  await db.close();
});
beforeEach(() => {
  pd.received.length = 0;
  pd.answers = [];
  pd.status = 202;
  build();
});

let n = 0;
function request(overrides: Partial<ApprovalRequest<Plan>> = {}): ApprovalRequest<Plan> {
  const id = `req-${++n}-${Date.now()}`;
  const plan = {
    id: `plan-${n}`, kind: 'leader-override', title: 'make broker 3 lead orders-0', createdAt: '2026-03-02T09:30:00.000Z', fingerprint: 'f'.repeat(64), preconditions: {},
    steps: [{ action: 'verify-leaders', description: 'verify broker 3 leads orders-0', expected: [] }], impact: { risk: 'high', partitionsAffected: 1 }, warnings: [], dryRun: true,
    params: { topic: 'orders', partition: 0, replica: 3, requestedReplica: 3 },
  } as unknown as Plan;
  return {
    id, status: 'APPROVED', version: 3, plan, planDigest: 'd'.repeat(64), requester: 'U0REQ', requiredApprovals: 2, createdAt: Date.parse('2026-03-02T09:30:00Z'), expiresAt: Date.parse('2026-03-02T10:00:00Z'),
    approvals: [{ user: 'U0ALICE', at: Date.parse('2026-03-02T09:31:00Z'), via: 'button' }, { user: 'U0BOB', at: Date.parse('2026-03-02T09:32:00Z'), via: 'button' }],
    context: { cluster: 'sandbox', channel: 'C0OPS' },
    events: [{ requestId: id, seq: 3, at: Date.parse('2026-03-02T09:32:00Z'), type: 'approved', actor: 'U0BOB', message: 'approved (2 of 2)' }],
    ...overrides,
  };
}

describe('Change Event bodies (Events API v2)', () => {
  it('approval: summary, timestamp of the second approval, source, custom details, the thread link', () => {
    const body = approvalChangeEvent(request(), { source: 'kafka-responder', threadUrl: 'https://slack.com/archives/C0OPS/p1700000100000100' });
    expect(body).toEqual({
      payload: {
        summary: 'Approved: make broker 3 lead orders-0 on sandbox (approved by U0ALICE, U0BOB)',
        timestamp: '2026-03-02T09:32:00.000Z',
        source: 'kafka-responder',
        custom_details: expect.objectContaining({ event: 'approved', kind: 'leader-override', cluster: 'sandbox', requested_by: 'U0REQ', approved_by: ['U0ALICE', 'U0BOB'], risk: 'high', steps: ['verify broker 3 leads orders-0'] }),
      },
      links: [{ href: 'https://slack.com/archives/C0OPS/p1700000100000100', text: 'Plan and approvals in Slack' }],
    });
  });

  it('outcome: how it ended, what it left, steps run; abandoned told apart from failed; the summary fits 1,024 characters', () => {
    const startedAt = Date.parse('2026-03-02T09:32:05Z');
    const done = request({ status: 'FAILED', outcome: { status: 'FAILED', summary: `failed at step 1: ${'x'.repeat(3000)}`, at: startedAt + 4000 }, run: { cursor: 0, checked: true, startedAt, stepStartedAt: startedAt, invocations: 1, cleanupPending: true } });
    const body = outcomeChangeEvent(done, { source: 'kafka-responder' });
    expect(body.payload.summary.length).toBe(MAX_SUMMARY_CHARS);
    expect(body.payload.summary).toMatch(/^Failed: make broker 3 lead orders-0 on sandbox — failed at step 1/);
    expect(body.payload.custom_details).toMatchObject({ event: 'outcome', outcome: 'failed', status: 'FAILED', steps_run: '0 of 1', duration_ms: 4000, cleanup_pending: true });
    expect(String(body.payload.custom_details.left).length).toBeLessThanOrEqual(2000);
    expect(body.links).toEqual([]);
    const abandoned = request({ status: 'FAILED', outcome: { status: 'FAILED', summary: 'marked failed from Slack', at: startedAt + 9000 }, events: [...request().events, { requestId: 'x', seq: 9, at: startedAt + 9000, type: 'abandoned', actor: 'U0ALICE', message: 'abandoned' }] });
    expect(outcomeChangeEvent(abandoned, { source: 's' }).payload.summary).toMatch(/^Abandoned: /);
  });
});

describe('the outbox', () => {
  it('delivers a Change Event once, with the routing key added at send time (never stored), and lists nothing after', async () => {
    const body = approvalChangeEvent(request(), { source: 'kafka-responder' });
    expect(await queueDelivery(ctx(), 'change:a:approved', { target: 'change-event', body }, body.payload.summary, 'C0OPS')).toBe(true);
    // The same purpose again (a retried tick): nothing more queued.
    expect(await queueDelivery(ctx(), 'change:a:approved', { target: 'change-event', body }, body.payload.summary, 'C0OPS')).toBe(false);
    await h.queue.idle();
    expect(pd.changeEvents()).toEqual([{ routing_key: SECRETS.routingKey, ...body }]);
    expect(pd.received[0]!.headers['content-type']).toBe('application/json');
    const record = await outboxRecord(db.store, deliveryId('change:a:approved'));
    expect(record).toMatchObject({ state: 'delivered', attempts: 1 });
    expect(JSON.stringify(record)).not.toContain(SECRETS.routingKey);
    expect(await listDeliveries(db.store, 'C0OPS')).toEqual([]);
  });

  it('retries a 5xx or 429 with backoff, then delivers', async () => {
    pd.answers = [{ status: 500 }, { status: 429, body: { status: 'throttle event', message: 'Requests for this service are arriving too quickly' } }];
    const body = approvalChangeEvent(request(), { source: 'kafka-responder' });
    await queueDelivery(ctx(), 'change:b:approved', { target: 'change-event', body }, 'b', 'C0RETRY');
    await h.queue.idle();
    expect(pd.changeEvents()).toHaveLength(3);
    const gaps = pd.received.slice(1).map((r, i) => r.at - pd.received[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(await outboxRecord(db.store, deliveryId('change:b:approved'))).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  it('a refusal (a wrong routing key) fails at once, listed with PagerDuty\'s reason', async () => {
    pd.answers = [{ status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors: ['Invalid routing key'] } }];
    await queueDelivery(ctx(), 'change:c:approved', { target: 'change-event', body: approvalChangeEvent(request(), { source: 's' }) }, 'Approved: make broker 3 lead orders-0', 'C0REFUSED');
    await h.queue.idle();
    expect(pd.received).toHaveLength(1);
    expect(await listDeliveries(db.store, 'C0REFUSED')).toEqual([
      expect.objectContaining({ target: 'PagerDuty change event', state: 'failed', attempts: 1, what: 'Approved: make broker 3 lead orders-0', error: 'PagerDuty answered 400: Event object is invalid: Invalid routing key' }),
    ]);
  });

  it('PagerDuty unreachable: every attempt made, then failed and listed', async () => {
    build(`http://127.0.0.1:${await closedPort()}`);
    await queueDelivery(ctx(), 'change:d:approved', { target: 'change-event', body: approvalChangeEvent(request(), { source: 's' }) }, 'd', 'C0DOWN');
    await h.queue.idle();
    const [listed] = await listDeliveries(db.store, 'C0DOWN');
    expect(listed).toMatchObject({ state: 'failed', attempts: 3, error: expect.stringMatching(/^PagerDuty unreachable: .*ECONNREFUSED/) });
  });

  it('the findings note: REST API headers, the findings in plain text, the thread linked', async () => {
    const queued = await queueIncidentNote(ctx(), { incidentId: EXAMPLE_INCIDENT_ID, report: report([finding(0), finding(1, { severity: 'warning' })]), channel: 'C0INCIDENT', threadTs: '1700000100.000100', key: 'job-1' });
    expect(queued).toBe(true);
    expect(await queueIncidentNote(ctx(), { incidentId: 'x/../../users', report: report([]), channel: 'C0INCIDENT', threadTs: '1.2', key: 'job-2' })).toBe(false);
    await h.queue.idle();
    expect(pd.received).toHaveLength(1);
    const [note] = pd.received;
    expect(note).toMatchObject({ method: 'POST', path: `/incidents/${EXAMPLE_INCIDENT_ID}/notes` });
    expect(note!.headers).toMatchObject({ authorization: `Token token=${SECRETS.apiToken}`, from: 'oncall-bot@example.com', 'content-type': 'application/json' });
    const content = (note!.body as { note: { content: string } }).note.content;
    expect(content.split('\n')).toEqual([
      'kafka-responder: 2 findings on sandbox',
      '- [critical] Partition orders-0 has no leader: Leader -1; ISR [1] and broker 1 is down.',
      '  next: Bring broker 1 back',
      '- [warning] Partition orders-1 has no leader: Leader -1; ISR [1] and broker 1 is down.',
      '  next: Bring broker 1 back',
      'Thread: https://slack.com/archives/C0INCIDENT/p1700000100000100',
      'Diagnosed 2026-11-29T07:00:00.000Z in 1.2 s.',
    ]);
  });

  it('/kafka status shows what PagerDuty answered escaped: nothing from outside reaches Slack as markup', async () => {
    await listDelivery(db.store, { id: 'esc', target: 'PagerDuty note', what: 'note <!channel> & <https://evil.example|click>', state: 'failed', attempts: 1, error: 'PagerDuty answered 400: <@U0ADMIN>', at: new Date().toISOString(), channel: 'C0ESC' });
    const reply = await statusCommand.run({ args: [], userId: 'U0ALICE', channelId: 'C0ESC', correlationId: 'kr-esc' }, { config: h.config, queue: h.queue, store: db.store, log: h.log });
    const shown = JSON.stringify(reply.blocks);
    expect(shown).toContain('note &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;');
    expect(shown).toContain('PagerDuty answered 400: &lt;@U0ADMIN&gt;');
    expect(shown).not.toMatch(/<!channel>|<@U0ADMIN>/);
  });
});
