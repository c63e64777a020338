// A run that proposes a new plan, through the real Slack handler and worker
// (signed requests, Slack stub, approvals and state on dynalite) with a
// scripted cluster: a leader override whose check after the election finds a
// hanging transaction posts the abort plan into the same thread, asked by the
// override's requester, for two approvals; the same proposal delivered again
// plans nothing more. The same flow on the real sandbox is
// test/operations/transactions.int.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import type { ClusterConfig } from '../../lib/config/schema.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { OPS_JOB_KINDS, type OpsRequest } from '../../lib/operations/requests.ts';
import type { Plan, PlanResult } from '../../lib/operations/types.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { BASE_CONFIG, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { actionEvent, blockActionsPayload, slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { ScriptedOperations } from './scripted-operations.ts';

const REQUESTER = 'U0REQ';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const CONFIG = {
  ...BASE_CONFIG,
  slack: { ...BASE_CONFIG.slack, allowedUsers: [REQUESTER, ALICE, BOB] },
  approvals: { approvers: [ALICE, BOB] },
  operations: { pollSeconds: 1 },
};

/** The scripted backend, with the override's last step the post-election check, and the abort it proposes planned. */
class ProposingOperations extends ScriptedOperations {
  override async plan(cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult> {
    const planned = await super.plan(cluster, request);
    if (!planned.ok) return planned;
    if (request.kind === 'leader-override') {
      return { ok: true, plan: { ...planned.plan, steps: [...planned.plan.steps, { action: 'check-transactions', description: 'check orders-0 for hanging transactions', topic: 'orders', partition: 0 }] } };
    }
    if (request.kind === 'abort-transaction') {
      const params = { topic: 'orders', partition: 0, startOffset: Number(request.startOffset), producerId: 42, producerEpoch: 0, transactionalId: null, why: 'coordinator-not-found', groups: [], lso: 11, highWatermark: 21 };
      return { ok: true, plan: { ...planned.plan, kind: 'abort-transaction', params, title: `abort the transaction at offset ${params.startOffset} of orders-0` } as Plan };
    }
    return planned;
  }
}

let db: DynaliteHandle;
let dynamo: LocalDynamo;
let stub: SlackStub;
let h: Harness;
let ops: ProposingOperations;
let approvals: ApprovalService<Plan>;
let approvalStore: ApprovalStore;
let seq = 0;

beforeAll(async () => {
  db = await startDynalite();
  dynamo = await startLocalDynamo();
  stub = await new SlackStub().start();
});
afterAll(async () => {
  await stub.stop();
  await db.close();
  await dynamo.close();
});
beforeEach(async () => {
  stub.reset();
  approvalStore = new ApprovalStore(dynamo.client, { tableName: `approvals-fu-${++seq}` });
  await approvalStore.ensureTable();
  approvals = new ApprovalService<Plan>({ store: approvalStore, policy: approvalPolicy(parseConfig(CONFIG)) });
  ops = new ProposingOperations();
  h = buildHarness({ stub, store: db.store, config: CONFIG, approvals, operations: ops });
});

async function click(value: string, user: string, message: StubMessage): Promise<void> {
  const id = `c${++seq}`;
  const payload = blockActionsPayload({ actionId: 'ops:approve', value, user, message, responseUrl: stub.responseUrl(id), actionTs: `1700000100.${String(seq).padStart(6, '0')}` });
  expect((await h.handler(actionEvent(payload))).statusCode).toBe(200);
}

const approveValue = (m: StubMessage) =>
  (m.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'ops:approve')?.value;

describe('a run proposes the abort of the hanging transaction it found', () => {
  it('the check after the election posts the abort plan in the thread, for two approvals; delivered twice, planned once', async () => {
    // broker 3's copy holds producer 42's transaction from offset 11; no coordinator lists producer 42.
    ops.cluster.producers.set('orders\u00000', [{ producerId: 42, producerEpoch: 0, lastSequence: 9, lastTimestamp: Date.now() - 1_000, coordinatorEpoch: 0, currentTxnStartOffset: 11 }]);
    const res = await h.handler(slashEvent({ text: 'elect-leader orders 0 3', user: REQUESTER, channel: 'C0OPS', responseUrl: stub.responseUrl(`s${++seq}`) }));
    expect(res.statusCode).toBe(200);
    await h.queue.idle();
    const plan = stub.topLevel('C0OPS').at(-1)!;
    const id = approveValue(plan)!;
    await click(id, ALICE, plan);
    await click(id, BOB, plan);
    await h.queue.idle();

    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');
    const thread = () => stub.thread(plan.ts);
    const texts = thread().map((m) => m.text);
    expect(texts.join('\n')).toMatch(/check-transactions: ok/);
    expect(texts.some((t) => /proposes a new plan, each for two approvals: abort the transaction open at offset 11 of orders-0/.test(t))).toBe(true);
    expect(ops.planned.at(-1)).toEqual({ kind: 'abort-transaction', topic: 'orders', partition: 0, startOffset: 11 });
    const abort = thread().find((m) => /^REQUESTED: abort the transaction at offset 11 of orders-0 \(0 of 2 approvals\)/.test(m.text));
    expect(abort, texts.join('\n')).toBeDefined();
    const abortId = approveValue(abort!)!;
    const stored = (await approvals.get(abortId))!;
    expect(stored).toMatchObject({ status: 'REQUESTED', requester: REQUESTER, context: { cluster: 'sandbox', proposedBy: id } });

    // The same plan job again (a redelivery, or the step reported twice): nothing more is planned or posted.
    const planJob = h.queue.enqueued.find((j) => j.kind === OPS_JOB_KINDS.plan && (j.payload as { proposedBy?: string }).proposedBy === id)!;
    const posts = stub.callsTo('chat.postMessage').length;
    const planCount = ops.planned.length;
    await h.queue.enqueue(planJob);
    await h.queue.idle();
    expect(stub.callsTo('chat.postMessage').length).toBe(posts);
    expect(ops.planned.length).toBe(planCount);

  });

  it("the run's requester cannot approve the abort it proposes, even as an approver: two others must", async () => {
    // The requester is an approver here: the override itself may count their click, its follow-up may not.
    const config = { ...CONFIG, approvals: { approvers: [REQUESTER, ALICE, BOB] } };
    approvals = new ApprovalService<Plan>({ store: approvalStore, policy: approvalPolicy(parseConfig(config)) });
    h = buildHarness({ stub, store: db.store, config, approvals, operations: ops });
    ops.cluster.producers.set('orders\u00000', [{ producerId: 42, producerEpoch: 0, lastSequence: 9, lastTimestamp: Date.now() - 1_000, coordinatorEpoch: 0, currentTxnStartOffset: 11 }]);
    expect((await h.handler(slashEvent({ text: 'elect-leader orders 0 3', user: REQUESTER, channel: 'C0OPS', responseUrl: stub.responseUrl(`s${++seq}`) }))).statusCode).toBe(200);
    await h.queue.idle();
    const plan = stub.topLevel('C0OPS').at(-1)!;
    const id = approveValue(plan)!;
    await click(id, REQUESTER, plan);
    await click(id, ALICE, plan);
    await h.queue.idle();
    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');

    const abort = stub.thread(plan.ts).find((m) => /^REQUESTED: abort the transaction at offset 11 of orders-0/.test(m.text))!;
    const abortId = approveValue(abort)!;
    await click(abortId, REQUESTER, abort);
    await click(abortId, ALICE, abort);
    await h.queue.idle();
    const stored = (await approvals.get(abortId))!;
    expect(stored.approvals.map((a) => a.user)).toEqual([ALICE]);
    expect(stored.status).toBe('REQUESTED');
    expect(await approvals.approve(abortId, REQUESTER)).toMatchObject({ ok: false, code: 'self-approval' });
    await click(abortId, BOB, abort);
    await h.queue.idle();
    expect((await approvals.get(abortId))!.approvals.map((a) => a.user)).toEqual([ALICE, BOB]);
  });

  it('no open transaction after the election: nothing proposed', async () => {
    const res = await h.handler(slashEvent({ text: 'elect-leader orders 0 3', user: REQUESTER, channel: 'C0OPS', responseUrl: stub.responseUrl(`s${++seq}`) }));
    expect(res.statusCode).toBe(200);
    await h.queue.idle();
    const plan = stub.topLevel('C0OPS').at(-1)!;
    const id = approveValue(plan)!;
    await click(id, ALICE, plan);
    await click(id, BOB, plan);
    await h.queue.idle();
    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');
    expect(JSON.stringify(stub.thread(plan.ts).map((m) => m.blocks))).toMatch(/check-transactions\*: ok — no open transaction on orders-0/);
    expect(h.queue.enqueued.filter((j) => j.kind === OPS_JOB_KINDS.plan)).toHaveLength(1);
  });
});
