// An approved leader override on the real sandbox, through signed Slack
// requests, with PagerDuty's Events API stood in for by a local HTTP server:
// one Change Event when the second approval starts the run and one for its
// outcome, in the Events API v2 shape; with that server down the run ends as
// it would have, the cluster fixed, its deliveries failing on their own time.
// Kafka's own CLI is the oracle for the leader.
import { execFileSync } from 'node:child_process';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../sandbox/cluster.ts';
import { binDir, bootstrapServers, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { deliveryId, outboxRecord } from '../../lib/pagerduty/deliveries.ts';
import { DynamoStateStore, STATE_TABLE_KEYS } from '../../lib/state/dynamo-state-store.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { closedPort } from '../helpers/net.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { actionEvent, blockActionsPayload, slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { PagerDutyStandIn, expectChangeEventShape } from './stand-in.ts';

const settings = sandboxSettings();
const up = hasSandbox();
const REQUESTER = 'U0REQ';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const CHANNEL = 'C0OPS';
const ROUTING_KEY = 'R0UTINGKEY0123456789abcdef012345';
/** Longer than any run of this override on the sandbox (1–11 s seen): a run that waited on a retry would show it. */
const FIRST_RETRY_MS = 30_000;

describe.skipIf(!up)('PagerDuty Change Events for an approved leader override on the sandbox', () => {
  let stub: SlackStub;
  let pd: PagerDutyStandIn;
  let dynamo: LocalDynamo;
  let sandbox: Sandbox;
  let seq = 0;
  let tables = 0;
  let upElapsedMs = 0;

  beforeAll(async () => {
    stub = await new SlackStub().start();
    pd = await new PagerDutyStandIn().start();
    dynamo = await startLocalDynamo();
    sandbox = new Sandbox(settings, () => {});
  }, 120_000);

  afterAll(async () => {
    await pd?.stop();
    await stub?.stop();
    await dynamo?.close();
  });

  /** The bot as the sandbox defaults make it, with PagerDuty's change events sent to `eventsApiUrl`. */
  async function bot(eventsApiUrl: string): Promise<{ h: Harness; approvals: ApprovalService<Plan>; state: DynamoStateStore }> {
    const { config: base } = sandboxConfig({ ...process.env, KR_SLACK_USERS: `${REQUESTER},${ALICE},${BOB}`, KR_APPROVERS: `${ALICE},${BOB}`, KR_INCIDENT_CHANNEL: 'C0INCIDENT' });
    const config = parseConfig({ ...base, pagerduty: { changeEvents: { source: 'kafka-responder-sandbox' }, eventsApiUrl, delivery: { firstRetryMs: FIRST_RETRY_MS, maxAttempts: 2, timeoutMs: 2000 } } });
    const n = ++tables;
    const store = new ApprovalStore(dynamo.client, { tableName: `approvals-pd-${n}` });
    await store.ensureTable();
    await dynamo.client.send(new CreateTableCommand({ TableName: `state-pd-${n}`, BillingMode: 'PAY_PER_REQUEST', ...STATE_TABLE_KEYS }));
    const state = new DynamoStateStore(dynamo.client, `state-pd-${n}`);
    const approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(config) });
    const h = buildHarness({ stub, store: state, config, approvals, operations: createDefaultOperations(executorFactory()), features: { pagerdutySecret: async () => ROUTING_KEY } });
    return { h, approvals, state };
  }

  /** isr-one-leader-lost, then `/kafka elect-leader orders 0 3` approved by two people; waits for every job. */
  async function approvedOverride(h: Harness, approvals: ApprovalService<Plan>) {
    await runScenario(sandbox, 'isr-one-leader-lost');
    stub.reset();
    const slash = await h.handler(slashEvent({ text: 'elect-leader orders 0 3', user: REQUESTER, channel: CHANNEL, responseUrl: stub.responseUrl(`s${++seq}`) }));
    expect(slash.statusCode).toBe(200);
    await h.queue.idle();
    const plan = stub.topLevel(CHANNEL).at(-1)!;
    const id = JSON.stringify(plan.blocks).match(/"action_id":"ops:approve","value":"([^"]+)"/)?.[1];
    expect(id, plan.text).toBeDefined();
    const click = async (user: string, m: StubMessage) => {
      const payload = blockActionsPayload({ actionId: 'ops:approve', value: id!, user, message: m, responseUrl: stub.responseUrl(`c${++seq}`), actionTs: `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}` });
      expect((await h.handler(actionEvent(payload))).statusCode).toBe(200);
    };
    await click(ALICE, plan);
    await h.queue.idle();
    await click(BOB, plan);
    await h.queue.idle();
    const done = (await approvals.get(id!))!;
    expect(done.status).toBe('SUCCEEDED');
    const described = execFileSync(`${binDir(settings)}/kafka-topics.sh`, ['--bootstrap-server', bootstrapServers(settings), '--describe', '--topic', 'orders'], { encoding: 'utf8', timeout: 120_000 });
    expect(described).toMatch(/Partition: 0\s+Leader: 3\s/);
    return { id: id!, elapsedMs: done.outcome!.at - done.run!.startedAt, endedAt: done.outcome!.at };
  }

  it('one Change Event for the approval and one for the outcome, in the Events API v2 shape', async () => {
    pd.received.length = 0;
    const { h, approvals } = await bot(pd.url);
    const { id, elapsedMs } = await approvedOverride(h, approvals);
    upElapsedMs = elapsedMs;
    expect(pd.received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v2/change/enqueue', 'POST /v2/change/enqueue']);
    const [approval, outcome] = pd.changeEvents();
    for (const e of [approval!, outcome!]) {
      expectChangeEventShape(e, ROUTING_KEY, 'kafka-responder-sandbox');
    }
    expect(approval!.payload.custom_details).toMatchObject({ event: 'approved', request_id: id, kind: 'leader-override', cluster: 'sandbox', approved_by: [ALICE, BOB] });
    expect(outcome!.payload.summary).toMatch(/^Finished: make broker 3 lead orders-0 on sandbox/);
    expect(outcome!.payload.custom_details).toMatchObject({ event: 'outcome', outcome: 'finished', status: 'SUCCEEDED', request_id: id });
  }, 600_000);

  it('with the Events API down the run is not slowed: it ends before a delivery is retried, and the deliveries fail on their own', async () => {
    const { h, approvals, state } = await bot(`http://127.0.0.1:${await closedPort()}`);
    const { id, elapsedMs, endedAt } = await approvedOverride(h, approvals);
    const approval = (await outboxRecord(state, deliveryId(`change:${id}:approved`)))!;
    expect(approval).toMatchObject({ state: 'failed', attempts: 2 });
    // The approval's event failed at the start of the run; its one retry came due only after the run had ended.
    expect(Date.parse(approval.doneAt!)).toBeGreaterThan(endedAt);
    // Real Kafka varies from run to run: the bound is the delivered run's time plus less than one retry interval.
    expect(elapsedMs).toBeLessThan(upElapsedMs + FIRST_RETRY_MS);
    console.log(`[pagerduty sandbox] second approval → run finished: ${upElapsedMs} ms with PagerDuty up, ${elapsedMs} ms with it down`);
  }, 600_000);
});
