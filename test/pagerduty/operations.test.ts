// An approved leader override, end to end (signed Slack requests, the real
// handler, worker and runner, approvals and state on dynalite, a scripted
// cluster), with PagerDuty's Events API stood in for by a local HTTP server:
// one Change Event for the approval and one for the outcome; and with that
// server down the run ends no later, its deliveries retried on their own and
// listed by /kafka status.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { deliveryId, outboxRecord } from '../../lib/pagerduty/deliveries.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { closedPort } from '../helpers/net.ts';
import { BASE_CONFIG, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { actionEvent, blockActionsPayload, slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { ScriptedOperations } from '../operations/scripted-operations.ts';
import { PagerDutyStandIn, expectChangeEventShape } from './stand-in.ts';

const REQUESTER = 'U0REQ';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const ROUTING_KEY = 'R0UTINGKEY0123456789abcdef012345';
/** Retries far apart next to a run of a scripted cluster: a run that waited on them would show it. */
const FIRST_RETRY_MS = 1500;

let db: DynaliteHandle;
let dynamo: LocalDynamo;
let stub: SlackStub;
let pd: PagerDutyStandIn;
let h: Harness;
let approvals: ApprovalService<Plan>;
let seq = 0;
let table = 0;

async function build(eventsApiUrl: string) {
  const config = {
    ...BASE_CONFIG,
    slack: { ...BASE_CONFIG.slack, allowedUsers: [REQUESTER, ALICE, BOB] },
    approvals: { approvers: [ALICE, BOB] },
    operations: { pollSeconds: 1 },
    pagerduty: { changeEvents: { source: 'kafka-responder-test' }, eventsApiUrl, delivery: { firstRetryMs: FIRST_RETRY_MS, maxAttempts: 3, timeoutMs: 2000 } },
  };
  const store = new ApprovalStore(dynamo.client, { tableName: `pd-approvals-${++table}` });
  await store.ensureTable();
  approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(parseConfig(config)) });
  h = buildHarness({ stub, store: db.store, config, approvals, operations: new ScriptedOperations(), features: { pagerdutySecret: async () => ROUTING_KEY } });
}

beforeAll(async () => {
  db = await startDynalite();
  dynamo = await startLocalDynamo();
  stub = await new SlackStub().start();
  pd = await new PagerDutyStandIn().start();
});
afterAll(async () => {
  await pd.stop();
  await stub.stop();
  await db.close();
  await dynamo.close();
});
beforeEach(() => {
  stub.reset();
  pd.received.length = 0;
});

async function slash(text: string, user = REQUESTER) {
  const res = await h.handler(slashEvent({ text, user, channel: 'C0OPS', responseUrl: stub.responseUrl(`s${++seq}`) }));
  expect(res.statusCode).toBe(200);
  return JSON.parse(res.body) as { text: string; blocks?: unknown[] };
}

async function click(actionId: string, value: string, user: string, message: StubMessage) {
  const payload = blockActionsPayload({ actionId, value, user, message, responseUrl: stub.responseUrl(`c${++seq}`), actionTs: `1700000100.${String(seq).padStart(6, '0')}` });
  expect((await h.handler(actionEvent(payload))).statusCode).toBe(200);
}

/** Plans a leader override, approves it twice, and waits for every job (the deliveries' retries too). */
async function approvedLeaderOverride(): Promise<{ id: string; elapsedMs: number; endedAt: number }> {
  await slash('elect-leader orders 0 3');
  await h.queue.idle();
  const plan = stub.topLevel('C0OPS').at(-1)!;
  const id = JSON.stringify(plan.blocks).match(/"action_id":"ops:approve","value":"([^"]+)"/)![1]!;
  await click('ops:approve', id, ALICE, plan);
  await click('ops:approve', id, BOB, plan);
  await h.queue.idle();
  const done = (await approvals.get(id))!;
  expect(done.status).toBe('SUCCEEDED');
  return { id, elapsedMs: done.outcome!.at - done.run!.startedAt, endedAt: done.outcome!.at };
}

describe('approved operations as PagerDuty Change Events', () => {
  let upElapsedMs = 0;

  it('one Change Event for the approval and one for the outcome, in the Events API v2 shape', async () => {
    await build(pd.url);
    const { id, elapsedMs } = await approvedLeaderOverride();
    upElapsedMs = elapsedMs;
    expect(pd.received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v2/change/enqueue', 'POST /v2/change/enqueue']);
    const [approval, outcome] = pd.changeEvents();
    for (const e of [approval!, outcome!]) {
      expectChangeEventShape(e, ROUTING_KEY, 'kafka-responder-test');
      expect(e.links).toEqual([{ href: expect.stringMatching(/^https:\/\/slack\.com\/archives\/C0OPS\/p\d+$/), text: expect.any(String) }]);
    }
    expect(approval!.payload.summary).toBe('Approved: make broker 3 lead orders-0 on sandbox (approved by U0ALICE, U0BOB)');
    expect(approval!.payload.custom_details).toMatchObject({ event: 'approved', request_id: id, kind: 'leader-override', cluster: 'sandbox', requested_by: REQUESTER, approved_by: [ALICE, BOB] });
    expect(outcome!.payload.summary).toMatch(/^Finished: make broker 3 lead orders-0 on sandbox/);
    expect(outcome!.payload.custom_details).toMatchObject({ event: 'outcome', outcome: 'finished', status: 'SUCCEEDED', request_id: id, steps_run: '1 of 1', cleanup_pending: false });
    // Both delivered: nothing left for /kafka status.
    expect(JSON.stringify((await slash('status')).blocks)).not.toMatch(/Not delivered/);
  });

  it('with the Events API down the run ends as soon, its deliveries fail on their own, and /kafka status lists them', async () => {
    await build(`http://127.0.0.1:${await closedPort()}`);
    const { id, elapsedMs, endedAt } = await approvedLeaderOverride();
    // The run did not wait on PagerDuty: it ended before the first retry of its approval event was even due…
    const approval = (await outboxRecord(db.store, deliveryId(`change:${id}:approved`)))!;
    expect(approval).toMatchObject({ state: 'failed', attempts: 3 });
    expect(Date.parse(approval.doneAt!)).toBeGreaterThan(endedAt + FIRST_RETRY_MS);
    // …and took about as long as the run whose events were delivered (a scripted cluster: tens of ms).
    expect(elapsedMs).toBeLessThan(Math.max(2 * upElapsedMs, upElapsedMs + 1000));
    const status = await slash('status');
    expect(status.text).toMatch(/2 deliveries to other tools not done/);
    const shown = JSON.stringify(status.blocks);
    expect(shown).toMatch(/Not delivered to other tools \(2\)/);
    expect(shown).toMatch(/PagerDuty change event failed after 3 attempts: “Approved: make broker 3 lead orders-0 on sandbox/);
    expect(shown).toMatch(/PagerDuty change event failed after 3 attempts: “Finished: make broker 3 lead orders-0 on sandbox.*PagerDuty unreachable/);
  });
});
