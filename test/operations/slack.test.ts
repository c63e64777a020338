// Two-person-approved operations through the real Slack handler and worker
// (signed requests, Slack stub, approvals and state on dynalite), with a
// scripted operations backend: input validation, the two-person rule as the
// buttons see it, exactly-once execution, STALE, expiry, reject/cancel, and
// the "Plan …" buttons on findings. The same flow on the real sandbox is
// test/operations/slack-e2e.int.test.ts.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { OPS_JOB_KINDS } from '../../lib/operations/requests.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { ScriptedOperations } from './scripted-operations.ts';
import { renderCanRestart, renderDiagnosis } from '../../lib/diagnose/render-slack.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { BASE_CONFIG, buildHarness, finding, report, type Harness } from '../slack/helpers/harness.ts';
import { actionEvent, slashEvent, blockActionsPayload } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { restartAssessment } from '../diagnose/fixtures.ts';

const REQUESTER = 'U0REQ';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const CAROL = 'U0CAROL';
const OUTSIDER = 'U0DAVE';

/** How many times the request was claimed or taken over: exactly-once means one claim. */
async function claims(id: string): Promise<number> {
  return (await approvals.get(id))!.events.filter((e) => e.type === 'claimed').length;
}

let db: DynaliteHandle;
let dynamo: LocalDynamo;
let stub: SlackStub;
let h: Harness;
let ops: ScriptedOperations;
let approvals: ApprovalService<Plan>;
let seq = 0;
let table = 0;

const CONFIG = {
  ...BASE_CONFIG,
  slack: { ...BASE_CONFIG.slack, allowedUsers: [REQUESTER, ALICE, BOB, CAROL, OUTSIDER] },
  approvals: { approvers: [ALICE, BOB, CAROL] },
  operations: { pollSeconds: 1 },
};

async function build(config: unknown = CONFIG) {
  const parsed = parseConfig(config);
  const store = new ApprovalStore(dynamo.client, { tableName: `approvals-${++table}` });
  await store.ensureTable({ pollMs: 5 });
  approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(parsed) });
  ops = new ScriptedOperations();
  h = buildHarness({ stub, store: db.store, config, approvals, operations: ops });
}

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
  await build();
});

/**
 * Time passing for the bot, without a real wait: leases, approval windows and
 * expiries read Date.now (as in the fault suite's World); timers keep real time.
 * Installed before anything is built, so a service that keeps Date.now as its
 * clock keeps this one.
 */
const realNow = Date.now.bind(Date);
let skew = 0;
Date.now = () => realNow() + skew;
function pass(ms: number): void {
  skew += ms;
}
afterEach(() => {
  skew = 0;
});
afterAll(() => {
  Date.now = realNow;
});

async function slash(text: string, user = REQUESTER) {
  const res = await h.handler(slashEvent({ text, user, channel: 'C0OPS', responseUrl: stub.responseUrl(`s${++seq}`) }));
  expect(res.statusCode).toBe(200);
  return JSON.parse(res.body) as { response_type: string; text: string };
}

async function click(actionId: string, value: string, user: string, message: StubMessage, actionTs?: string): Promise<string | undefined> {
  const id = `c${++seq}`;
  const payload = blockActionsPayload({
    actionId, value, user, message, responseUrl: stub.responseUrl(id),
    actionTs: actionTs ?? `1700000100.${String(seq).padStart(6, '0')}`,
  });
  const res = await h.handler(actionEvent(payload, { timestamp: Math.floor(Date.now() / 1000) - (seq % 50) }));
  expect(res.statusCode).toBe(200);
  return stub.responses.find((r) => r.path === `/response/${id}`)?.body.text as string | undefined;
}

type Elements = { type: string; elements?: { action_id: string; value: string }[]; accessory?: { action_id: string; value: string } }[];
const buttons = (m: StubMessage) =>
  (m.blocks as Elements).flatMap((b) => [...(b.elements ?? []), ...(b.accessory ? [b.accessory] : [])]).filter((e) => typeof e.action_id === 'string');

async function requestPlan(text = 'elect-leader orders 0 3'): Promise<{ plan: StubMessage; id: string }> {
  const ack = await slash(text);
  expect(ack.response_type).toBe('ephemeral');
  await h.queue.idle();
  const plan = stub.topLevel('C0OPS').at(-1)!;
  const approve = buttons(plan).find((b) => b.action_id === 'ops:approve');
  expect(approve, plan.text).toBeDefined();
  return { plan, id: approve!.value };
}

describe('operation commands: validation before anything', () => {
  it.each([
    ['elect-leader orders;rm 0', /topic names use only/],
    ['elect-leader .. 0', /cannot be "\." or "\.\."/],
    ['elect-leader orders -1', /partition/],
    ['elect-leader orders 0 3.5', /broker id/],
    ['elect-leader orders', /give a topic, a partition/],
    ['drain', /exactly one broker id/],
    ['drain three', /broker id/],
    ['drain 3 4', /exactly one broker id/],
    ['raise-rf orders 1', /replication factor must be ≥ 2/],
    ['raise-rf orders 99', /replicationFactor: .*(32|big)/],
    ['raise-rf orders', /a topic and the new replication factor/],
  ])('/kafka %s is refused with the reason, nothing enqueued', async (text, reason) => {
    const reply = await slash(text);
    expect(reply.text).toMatch(reason);
    expect(reply.text).toMatch(/Usage: `\/kafka /);
    expect(h.queue.enqueued).toHaveLength(0);
  });

  it('refuses operations when no approvers are configured', async () => {
    await build({ ...CONFIG, approvals: {} });
    const reply = await slash('drain 3');
    expect(reply.text).toMatch(/no approvers/);
    expect(h.queue.enqueued).toHaveLength(0);
  });

  it('accepts a trailing cluster name and the partial keyword', async () => {
    expect((await slash('drain 3 partial sandbox')).text).toMatch(/Planning: partially drain broker 3 on \*sandbox\*/);
    await h.queue.idle();
    expect(ops.planned).toEqual([{ kind: 'drain-broker', broker: 3, partial: true }]);
  });
});

describe('two-person rule through the buttons', () => {
  it('plan posted with per-replica data; requester, outsider and duplicate approvals refused; two approvers run it once', async () => {
    const { plan, id } = await requestPlan();
    expect(plan.text).toMatch(/^REQUESTED: make broker 3 lead orders-0 \(0 of 2 approvals\)/);
    const shown = JSON.stringify(plan.blocks);
    expect(shown).toMatch(/broker 2 \(default unclean choice, out of ISR, live\): log end 1,000.*lost if it leads: ≈1,000 messages/);
    expect(shown).toMatch(/fingerprint `[0-9a-f]{16}`/);
    for (const b of buttons(plan)) expect(b.value).toBe(id);

    // Asking is not approving: the requester (not an approver) cannot count at all.
    expect(await click('ops:approve', id, REQUESTER, plan)).toMatch(/you cannot approve your own request: you are not an authorized approver/);
    expect(await click('ops:approve', id, OUTSIDER, plan)).toMatch(/not an authorized approver/);
    expect(await click('ops:approve', id, ALICE, plan, '1700000200.000001')).toBeUndefined();
    // The same click delivered twice (double click, replay with the same action_ts) is recorded once.
    expect(await click('ops:approve', id, ALICE, plan, '1700000200.000001')).toBeUndefined();
    expect(await click('ops:approve', id, ALICE, plan)).toMatch(/Not counted twice/);
    await h.queue.idle();
    expect((await approvals.get(id))!.approvals.map((a) => a.user)).toEqual([ALICE]);
    expect(plan.text).toMatch(/\(1 of 2 approvals\)/);

    expect(await click('ops:approve', id, BOB, plan)).toBeUndefined();
    await h.queue.idle();
    expect(await claims(id)).toBe(1);
    const thread = stub.thread(plan.ts).map((m) => m.text);
    expect(thread).toEqual([
      expect.stringMatching(/^<@U0REQ> requested leader-override.*needs 2 approvals on the posted plan/),
      '<@U0ALICE> approved (1 of 2)',
      '<@U0BOB> approved (2 of 2): ready to execute',
      'before step 1 check preconditions: ok',
      'step 1 verify-leaders: ok',
      'make broker 3 lead orders-0: SUCCEEDED',
    ]);
    expect(plan.text).toMatch(/^SUCCEEDED/);
    expect(buttons(plan)).toEqual([]);
    // A late click on the closed request is refused, and a redelivered execute job runs nothing.
    expect(await click('ops:approve', id, CAROL, plan)).toMatch(/not open|closed|already/i);
    await h.queue.enqueue(newJob(OPS_JOB_KINDS.execute, { requestId: id, cluster: 'sandbox' }, 'kr-retry'));
    await h.queue.idle();
    expect(await claims(id)).toBe(1);
    expect(stub.thread(plan.ts)).toHaveLength(6);
  });

  it('the execute job runs on the cluster stored with the request, never the one its message names', async () => {
    const { plan, id } = await requestPlan();
    await click('ops:approve', id, ALICE, plan);
    await h.queue.idle();
    // The quorum completes without the button's own job; a job naming another configured cluster arrives instead.
    expect((await approvals.approve(id, BOB)).ok).toBe(true);
    await h.queue.enqueue(newJob(OPS_JOB_KINDS.execute, { requestId: id, cluster: 'other' }, 'kr-other'));
    await h.queue.idle();
    expect(ops.reached).toEqual(['sandbox']);
    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');
  });

  it('two approvers clicking at the same instant: one completes the quorum, one execution', async () => {
    const { plan, id } = await requestPlan();
    await click('ops:approve', id, ALICE, plan);
    const answers = await Promise.all([click('ops:approve', id, BOB, plan), click('ops:approve', id, CAROL, plan)]);
    await h.queue.idle();
    expect(answers.filter((a) => a === undefined)).toHaveLength(1);
    expect(answers.find((a) => a !== undefined)).toMatch(/already has the approvals it needs|already|running|ran/i);
    expect(h.queue.enqueued.filter((j) => j.kind === OPS_JOB_KINDS.execute)).toHaveLength(1);
    expect(await claims(id)).toBe(1);
  });

  it('a requester who is an approver approves on the posted plan like anyone else: one more approver is enough', async () => {
    const ack = await slash('raise-rf orders 3', ALICE);
    expect(ack.text).toMatch(/raise the replication factor of orders to 3/);
    await h.queue.idle();
    const plan = stub.topLevel('C0OPS').at(-1)!;
    const id = buttons(plan)[0]!.value;
    expect(plan.text).toMatch(/\(0 of 2 approvals\)/);
    expect(await click('ops:approve', id, ALICE, plan)).toBeUndefined();
    await h.queue.idle();
    expect(plan.text).toMatch(/\(1 of 2 approvals\)/);
    expect(await claims(id)).toBe(0);
    expect(await click('ops:approve', id, BOB, plan)).toBeUndefined();
    await h.queue.idle();
    expect(await claims(id)).toBe(1);
  });

  it('STALE: the cluster changed before running; the thread says so and nothing ran', async () => {
    const { plan, id } = await requestPlan();
    ops.cluster.partition('orders', 0).leader = 2;
    await click('ops:approve', id, ALICE, plan);
    await click('ops:approve', id, BOB, plan);
    await h.queue.idle();
    const thread = stub.thread(plan.ts).map((m) => m.text);
    expect(thread.some((t) => /\*STALE\*: the cluster changed since the plan was made.*Nothing ran/.test(t)), thread.join('\n')).toBe(true);
    expect(plan.text).toMatch(/^STALE/);
    expect((await approvals.get(id))!.status).toBe('STALE');
  });

  it('a cluster that stops answering mid-run: the run keeps its place, says it retries, and finishes once it answers', async () => {
    const { plan, id } = await requestPlan();
    ops.cluster.failNext = { method: 'openAdmin', times: 1 };
    // The retry is a delayed job (2 s here): its delay passes on the bot's clock, and it is delivered at once.
    const enqueue = h.queue.enqueue.bind(h.queue);
    h.queue.enqueue = async (job, options) => {
      if (options?.delayMs) pass(options.delayMs);
      return enqueue(job, { ...options, delayMs: 0 });
    };
    await click('ops:approve', id, ALICE, plan);
    await click('ops:approve', id, BOB, plan);
    // idle() waits for the retry like SQS would deliver it.
    await h.queue.idle();
    // Said in the run's progress message while it retried (its last word is the outcome).
    const said = stub.thread(plan.ts).flatMap((m) => m.history);
    expect(said.some((t) => /connection refused \(scripted\).*retrying \(1\/20\)/.test(t)), said.join('\n')).toBe(true);
    expect(plan.text).toMatch(/^SUCCEEDED/);
    expect(await claims(id)).toBe(1);
  });

  it('a run whose worker died and cannot be resumed is closed by a human with "Mark failed"; its cleanup stays owed', async () => {
    const { plan, id } = await requestPlan();
    await click('ops:approve', id, ALICE, plan);
    // Claimed by a worker that dies at once (the execute job is dropped here to keep it dead).
    const claimed = await approvals.acquireExecution(id, 'worker-dead', 1_500);
    expect(claimed.ok).toBe(false);
    await click('ops:approve', id, BOB, plan);
    await h.queue.idle();
    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');

    const second = await requestPlan('drain 2 partial');
    await click('ops:approve', second.id, ALICE, second.plan);
    await approvals.approve(second.id, BOB);
    expect((await approvals.acquireExecution(second.id, 'worker-dead', 1_500)).ok).toBe(true);
    const refresh = await approvals.get(second.id);
    expect(refresh!.status).toBe('EXECUTING');
    expect(await click('ops:abandon', second.id, ALICE, second.plan)).toMatch(/Still running, not marked failed/);
    pass(1_600);
    expect(await click('ops:abandon', second.id, ALICE, second.plan)).toBeUndefined();
    await h.queue.idle();
    expect(second.plan.text).toMatch(/^FAILED/);
    const closed = (await approvals.get(second.id))!;
    expect(closed.events.map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed', 'abandoned']);
    expect(closed.run?.cleanupPending).toBe(true);
  });

  it('a plan job delivered twice (SQS retries it) posts one approvable plan', async () => {
    const seen: Job[] = [];
    const enqueue = h.queue.enqueue.bind(h.queue);
    h.queue.enqueue = async (job, options) => {
      seen.push(job);
      return enqueue(job, options);
    };
    const { id } = await requestPlan();
    const planJob = seen.find((j) => j.kind === OPS_JOB_KINDS.plan)!;
    expect(id).toBe(planJob.id);
    const before = stub.topLevel('C0OPS').length;
    await enqueue(planJob);
    await h.queue.idle();
    expect(stub.topLevel('C0OPS')).toHaveLength(before);
    expect((await approvals.get(id))!.status).toBe('REQUESTED');
  });

  it('an approval that fails on our side (the table throttled) tells the approver it did not count', async () => {
    const { plan, id } = await requestPlan();
    const approve = approvals.approve.bind(approvals);
    approvals.approve = async () => {
      throw Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded'), { name: 'ProvisionedThroughputExceededException' });
    };
    try {
      expect(await click('ops:approve', id, ALICE, plan)).toMatch(/not recorded.*try again.*Correlation id/s);
    } finally {
      approvals.approve = approve;
    }
    expect((await approvals.get(id))!.approvals).toEqual([]);
    // Once the table answers again the same click counts.
    expect(await click('ops:approve', id, ALICE, plan)).toBeUndefined();
    expect((await approvals.get(id))!.approvals.map((a) => a.user)).toEqual([ALICE]);
  });

  it('an approver cancels a running operation from its plan message', async () => {
    ops.cluster.addTopic('slow', [[1], [2]]);
    ops.cluster.pollsToFinish = 1_000;
    const { plan, id } = await requestPlan('raise-rf slow 2');
    await click('ops:approve', id, ALICE, plan);
    await approvals.approve(id, BOB);
    // Start it by hand with a short budget so it parks while copying, as a long copy would.
    const { runTick } = await import('../../lib/operations/runner.ts');
    const parked = await runTick({ approvals, io: ops.cluster, requestId: id, workerId: 'w1', deadline: Date.now() + 5_050, pollMs: 10, scheduleNext: async () => {}, report: { step: async () => {}, progress: async () => {}, finished: async () => {} } });
    expect(parked.kind).toBe('parked');
    await h.queue.idle();
    const running = { ...plan, blocks: (await import('../../lib/operations/render-slack.ts')).renderPlanMessage((await approvals.get(id))!).blocks };
    expect(buttons(running).map((b) => b.action_id)).toEqual(['ops:stop', 'ops:abandon']);
    expect(await click('ops:stop', id, OUTSIDER, running)).toMatch(/not an authorized approver/);
    expect(await click('ops:stop', id, CAROL, running)).toBeUndefined();
    await h.queue.idle();
    const done = (await approvals.get(id))!;
    expect(done.status).toBe('CANCELLED');
    expect(done.outcome?.summary).toMatch(/cancelled by <@U0CAROL>.*partitions? still copying (was|were) stopped.*throttles removed/);
    expect(ops.cluster.moving.size).toBe(0);
    expect(plan.text).toMatch(/^CANCELLED/);
  });

  it('a reject by an approver ends the request; only the requester can cancel', async () => {
    const first = await requestPlan();
    expect(await click('ops:reject', first.id, REQUESTER, first.plan)).toMatch(/use Cancel/);
    expect(await click('ops:reject', first.id, BOB, first.plan)).toBeUndefined();
    await h.queue.idle();
    expect(first.plan.text).toMatch(/^REJECTED/);
    expect(buttons(first.plan)).toEqual([]);
    expect(await click('ops:approve', first.id, ALICE, first.plan)).toMatch(/not open|closed|rejected/i);

    const second = await requestPlan('drain 2 partial');
    expect(await click('ops:cancel', second.id, ALICE, second.plan)).toMatch(/Only the requester can cancel/);
    expect(await click('ops:cancel', second.id, REQUESTER, second.plan)).toBeUndefined();
    await h.queue.idle();
    expect(second.plan.text).toMatch(/^CANCELLED/);
    expect(await claims(first.id)).toBe(0);
  });

  it('an expired request refuses approvals and shows EXPIRED', async () => {
    await build({ ...CONFIG, approvals: { approvers: [ALICE, BOB], ttlSeconds: 1 } });
    const { plan, id } = await requestPlan();
    pass(1_100);
    expect(await click('ops:approve', id, ALICE, plan)).toMatch(/expired/);
    await h.queue.idle();
    expect(plan.text).toMatch(/^EXPIRED/);
    expect(await claims(id)).toBe(0);
  });

  it('a full drain that cannot keep replication factors offers "Drain what can move"', async () => {
    await slash('drain 3');
    await h.queue.idle();
    const refused = stub.topLevel('C0OPS').at(-1)!;
    expect(refused.text).toMatch(/^No plan for drain broker 3: the cluster lacks brokers: 1 partition \(e.g. orders-0, replicas 1,2,3\)/);
    const partial = buttons(refused)[0]!;
    expect(partial.action_id).toBe('ops:plan');
    expect(await click('ops:plan', partial.value, REQUESTER, refused)).toMatch(/Planning: partially drain broker 3/);
    await h.queue.idle();
    expect(ops.planned.at(-1)).toEqual({ kind: 'drain-broker', broker: 3, partial: true });
    // The plan joins the thread of the refusal.
    expect(stub.thread(refused.ts).some((m) => m.text.startsWith('REQUESTED: drain broker 3'))).toBe(true);
  });

  it('rejects a forged plan button value', async () => {
    const { plan } = await requestPlan();
    expect(await click('ops:plan', '{"cluster":"sandbox","request":{"kind":"drain-broker","broker":"3; rm -rf /"}}', REQUESTER, plan)).toMatch(/no valid request/);
    expect(await click('ops:approve', '../../etc', ALICE, plan)).toMatch(/no valid request id/);
  });
});

describe('the minute sweep: nothing approved is lost, nothing expired looks open', () => {
  const sweep = async (now?: number) => {
    const { sweepOperations } = await import('../../lib/operations/jobs.ts');
    const job = newJob(OPS_JOB_KINDS.sweep, {}, 'kr-sweep');
    return sweepOperations({ ...h.worker, queue: h.queue, job, log: h.log }, now);
  };

  it('an approved request whose execution was never enqueued is started by the sweep after 2 minutes, once', async () => {
    const { plan, id } = await requestPlan();
    await click('ops:approve', id, ALICE, plan);
    await h.queue.idle();
    // The second approval is recorded, but the execute job is lost (queue down).
    expect((await approvals.approve(id, BOB)).ok).toBe(true);
    expect(await sweep()).toMatchObject({ restarted: 0 });
    await h.queue.idle();
    expect((await approvals.get(id))!.status).toBe('APPROVED');
    expect(await sweep(Date.now() + 2 * 60_000 + 1_000)).toMatchObject({ restarted: 1 });
    await h.queue.idle();
    expect((await approvals.get(id))!.status).toBe('SUCCEEDED');
    expect(await claims(id)).toBe(1);
    expect(plan.text).toMatch(/^SUCCEEDED/);
    // Finished: it has left the sweep's index.
    expect(await approvals.listForSweep()).not.toContain(id);
  });

  it('a sweep running out of time hands the rest to a continuation, which resumes after the last request handled', async () => {
    const ids: string[] = [];
    for (const p of [0, 1, 2]) ids.push((await requestPlan(`elect-leader orders ${p} 3`)).id);
    const pending = await approvals.listForSweep();
    expect(pending).toEqual(expect.arrayContaining(ids));
    const { sweepOperations } = await import('../../lib/operations/jobs.ts');
    const continuations: Job[] = [];
    const queue = { enqueue: async (j: Job) => void continuations.push(j) };
    // Time for one request, then the invocation is nearly over.
    let checks = 0;
    const remainingMs = () => (checks++ < 1 ? 100_000 : 1_000);
    const first = await sweepOperations({ ...h.worker, queue, remainingMs, job: newJob(OPS_JOB_KINDS.sweep, {}, 'kr-sweep'), log: h.log });
    expect(first).toMatchObject({ looked: 1, continued: true });
    expect(continuations).toHaveLength(1);
    expect(continuations[0]!.kind).toBe(OPS_JOB_KINDS.sweep);
    const after = (continuations[0]!.payload as { after: string }).after;
    const rest = await sweepOperations({ ...h.worker, queue, job: continuations[0]!, log: h.log }, Date.now(), after);
    expect(rest).toMatchObject({ looked: pending.length - 1, continued: false });
  });

  it('an untouched plan past its expiry is edited to EXPIRED by the sweep', async () => {
    await build({ ...CONFIG, approvals: { approvers: [ALICE, BOB], ttlSeconds: 1 } });
    const { plan } = await requestPlan();
    expect(plan.text).toMatch(/^REQUESTED/);
    pass(1_100);
    expect(await sweep()).toMatchObject({ expired: 1 });
    await h.queue.idle();
    expect(plan.text).toMatch(/^EXPIRED/);
    expect(buttons(plan)).toEqual([]);
    expect(await sweep()).toMatchObject({ looked: 0 });
  });
});

describe('"Plan …" buttons on findings', () => {
  it('offline partition → leader override, RF 1 → raise to 3, can-restart no → drain; all within Slack limits', async () => {
    const rendered = renderDiagnosis(
      report([finding(4), finding(0, { kind: 'replication-factor-one', title: 'RF 1', affected: { partitions: [{ topic: 'logs-rf1', partition: 0 }], brokers: [], groups: [] } })]),
      { correlationId: 'kr-1' },
    );
    const accessories = (rendered.blocks as Elements).flatMap((b) => (b.accessory ? [b.accessory] : []));
    expect(accessories.map((a) => JSON.parse(a.value))).toEqual([
      { cluster: 'sandbox', request: { kind: 'leader-override', topic: 'orders', partition: 4 } },
      { cluster: 'sandbox', request: { kind: 'raise-replication-factor', topic: 'logs-rf1', replicationFactor: 3 } },
    ]);
    const restart = renderCanRestart('sandbox', restartAssessment({ brokerId: 2, verdict: 'no', reasons: ['not safe'] }), 'kr-2');
    const drain = (restart.blocks as Elements).flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'ops:plan')!;
    expect(JSON.parse(drain.value)).toEqual({ cluster: 'sandbox', request: { kind: 'drain-broker', broker: 2, partial: false } });

    // Clicking the finding's button plans in the finding's thread.
    const findingMessage: StubMessage = { channel: 'C0OPS', ts: '1700000000.000900', thread_ts: '1700000000.000800', text: 'findings', blocks: [], history: [] };
    expect(await click('ops:plan', accessories[0]!.value, ALICE, findingMessage)).toMatch(/Planning: elect a leader for orders-4/);
    await h.queue.idle();
    expect(ops.planned.at(-1)).toEqual({ kind: 'leader-override', topic: 'orders', partition: 4 });
    expect(stub.thread('1700000000.000800').some((m) => m.text.startsWith('REQUESTED: make broker 3 lead orders-4'))).toBe(true);
  });
});
