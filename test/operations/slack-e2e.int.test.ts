// Issue 5 end to end on the real sandbox (Kafka 4.1.1, KRaft), through real
// signed Slack requests: slash command → plan job (snapshot, replica data
// measured on the broker hosts, planner) → plan message with buttons at the
// Slack stub → clicks (refusals answered ephemerally) → two approvals →
// execute job (claim, fingerprint check, live steps audited in dynalite) →
// steps and summary in the thread. Checked afterwards with Kafka's own CLI.
//
// Run it on its own sandbox instance:
//   KR_SANDBOX_HOME=/tmp/kr-ops-e2e KR_SANDBOX_PORT_BASE=39390 npx vitest run test/operations/slack-e2e.int.test.ts
// Skipped when the run has no sandbox (KR_SKIP_SANDBOX=1).
import { execFileSync } from 'node:child_process';
import { hasSandbox } from '../sandbox/helpers.ts';
import { runTiming } from '../../lib/approvals/run-timing.ts';
import { phasesText } from '../../lib/operations/render-slack.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../sandbox/cluster.ts';
import { binDir, bootstrapServers, sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { produce } from '../../sandbox/client.ts';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { newJob } from '../../lib/queue/job.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { OPS_JOB_KINDS } from '../../lib/operations/requests.ts';
import { DynamoStateStore, STATE_TABLE_KEYS } from '../../lib/state/dynamo-state-store.ts';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { actionEvent, slashEvent, blockActionsPayload } from '../slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';


const settings = sandboxSettings();
// The run's global setup brought a sandbox up (a scenario restarts whatever an earlier file stopped):
// when it did, these tests run, and fail rather than skip if the cluster misbehaves.
const up = hasSandbox();

const REQUESTER = 'U0REQ';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';
const CHANNEL = 'C0OPS';
const bootstrap = bootstrapServers(settings);
const bin = binDir(settings);

function kafkaCli(tool: string, args: string[]): string {
  return execFileSync(`${bin}/${tool}`, ['--bootstrap-server', bootstrap, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** The plan message's request id: the Approve button's value (nothing else travels in buttons). */
function requestIdOf(m: StubMessage): string {
  const actions = (m.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).find((b) => b.type === 'actions');
  const approve = actions?.elements?.find((e) => e.action_id === 'ops:approve');
  if (!approve) throw new Error(`no Approve button on: ${m.text}`);
  return approve.value;
}

const blockText = (m: StubMessage) => JSON.stringify(m.blocks);

describe.skipIf(!up)('two-person-approved operations from Slack on the sandbox', () => {
  let stub: SlackStub;
  let h: Harness;
  let dynamo: LocalDynamo;
  let approvals: ApprovalService<Plan>;
  let sandbox: Sandbox;
  let seq = 0;

  beforeAll(async () => {
    stub = await new SlackStub().start();
    dynamo = await startLocalDynamo();
    sandbox = new Sandbox(settings, () => {});
    const { config } = sandboxConfig({ ...process.env, KR_SLACK_USERS: `${REQUESTER},${ALICE},${BOB}`, KR_APPROVERS: `${ALICE},${BOB}`, KR_INCIDENT_CHANNEL: 'C0INCIDENT' });
    const store = new ApprovalStore(dynamo.client, { tableName: 'approvals-ops-e2e' });
    await store.ensureTable();
    approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(config) });
    await dynamo.client.send(new CreateTableCommand({ TableName: 'state-ops-e2e', BillingMode: 'PAY_PER_REQUEST', ...STATE_TABLE_KEYS }));
    h = buildHarness({ stub, store: new DynamoStateStore(dynamo.client, 'state-ops-e2e'), config, approvals, operations: createDefaultOperations(executorFactory()) });
  }, 120_000);

  afterAll(async () => {
    await stub?.stop();
    await dynamo?.close();
  });

  async function slash(text: string, user: string) {
    const res = await h.handler(slashEvent({ text, user, channel: CHANNEL, responseUrl: stub.responseUrl(`s${++seq}`) }));
    expect(res.statusCode).toBe(200);
    return JSON.parse(res.body) as { response_type: string; text: string };
  }

  /** A real signed block_actions payload; returns what the bot answered the clicker (ephemeral), if anything. */
  async function click(actionId: string, value: string, user: string, message: StubMessage): Promise<string | undefined> {
    const id = `c${++seq}`;
    const actionTs = `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}`;
    const payload = blockActionsPayload({ actionId, value, user, message, responseUrl: stub.responseUrl(id), actionTs });
    const res = await h.handler(actionEvent(payload));
    expect(res.statusCode).toBe(200);
    const answer = stub.responses.find((r) => r.path === `/response/${id}`);
    return answer ? String(answer.body.text) : undefined;
  }

  it('isr-one-leader-lost: /kafka elect-leader orders 0 3 → two approvals → broker 3 leads, keeping its 700 messages', async () => {
    const sc = await runScenario(sandbox, 'isr-one-leader-lost');
    const perReplica = sc.expect.messagesPerReplica!;
    expect(sc.expect.defaultUncleanLeader).toBe(2);
    expect(sc.expect.bestReplica).toBe(3);
    stub.reset();

    const ack = await slash('elect-leader orders 0 3', REQUESTER);
    expect(ack.response_type).toBe('ephemeral');
    expect(ack.text).toMatch(/Planning: elect a leader for orders-0 \(replica 3\)/);
    await h.queue.idle();

    const plan = stub.topLevel(CHANNEL).at(-1)!;
    expect(plan.text, JSON.stringify(stub.messages.map((m) => m.text))).toMatch(/^REQUESTED: /);
    const id = requestIdOf(plan);
    // Per-replica data measured on the hosts, and what each choice would lose.
    const shown = blockText(plan);
    expect(shown).toMatch(new RegExp(`broker 3 \\([^)]*\\): log end ${perReplica['3']!.toLocaleString('en-US')}`));
    expect(shown).toMatch(new RegExp(`broker 2 \\([^)]*\\): log end ${perReplica['2']!.toLocaleString('en-US')}`));
    // Broker 1 (the last in-sync replica) was wiped: what it held is unseen, so the loss is "unknown", never 0.
    const shortfall = (perReplica['3']! - perReplica['2']!).toLocaleString('en-US');
    expect(shown).toMatch(new RegExp(`broker 2 \\(default unclean choice[^•]*lost if it leads: unknown, at least ${shortfall} messages`));
    expect(shown).toMatch(/broker 3 \(chosen[^•]*lost if it leads: unknown/);
    // The loss is said once, in the opening lines.
    expect(shown.match(/Loss: unknown/g)).toHaveLength(1);
    expect(shown).toMatch(/fingerprint `[0-9a-f]{16}`/);

    // The requester is not an approver: their click does not count.
    expect(await click('ops:approve', id, REQUESTER, plan)).toMatch(/Not counted: you cannot approve your own request/);
    expect(await click('ops:approve', id, ALICE, plan)).toBeUndefined();
    await h.queue.idle();
    expect(stub.thread(plan.ts).map((m) => m.text).join('\n')).toMatch(/<@U0ALICE> approved \(1 of 2\)/);
    expect(plan.text).toMatch(/^REQUESTED: .*\(1 of 2 approvals\)/);
    // Nobody counts twice.
    expect(await click('ops:approve', id, ALICE, plan)).toMatch(/Not counted twice: you already approved/);
    // An unauthorized user cannot reject.
    expect(await click('ops:reject', id, REQUESTER, plan)).toMatch(/use Cancel to withdraw/);

    const secondApproval = Date.now();
    expect(await click('ops:approve', id, BOB, plan)).toBeUndefined();
    await h.queue.idle();
    const ranAt = Date.now();

    // Kafka's own tools: broker 3 leads partition 0 and it holds the messages broker 3 had.
    const described = kafkaCli('kafka-topics.sh', ['--describe', '--topic', 'orders']);
    expect(described).toMatch(/Partition: 0\s+Leader: 3\s/);
    const endAfter = kafkaCli('kafka-get-offsets.sh', ['--topic', 'orders', '--partitions', '0']).trim();
    expect(endAfter).toBe(`orders:0:${perReplica['3']}`);
    await produce(bootstrap, 'orders', 0, 1, -1, 10_000_000);
    const writableAt = Date.now();
    expect(kafkaCli('kafka-get-offsets.sh', ['--topic', 'orders', '--partitions', '0']).trim()).toBe(`orders:0:${perReplica['3']! + 1}`);

    // The thread: approvals, each step, the summary with the audit trail; the plan message closed.
    const thread = stub.thread(plan.ts).map((m) => m.text);
    expect(thread.some((t) => /<@U0BOB> approved \(2 of 2\): ready to execute/.test(t))).toBe(true);
    expect(thread.filter((t) => /^step \d+ .*: ok$/.test(t)).length).toBeGreaterThanOrEqual(3);
    expect(thread.at(-1)).toMatch(/: SUCCEEDED$/);
    // The summary says where the seconds went, as the audit trail recorded them.
    const timing = runTiming((await approvals.get(id))!)!;
    expect(timing.phases.map((p) => p.phase)).toEqual(['re-checked', 'elected', 'writable', 'done']);
    expect(JSON.stringify(stub.thread(plan.ts).at(-1)!.blocks)).toContain(`*Timing* (from the last approval): ${phasesText(timing)}`);
    expect(plan.text).toMatch(/^SUCCEEDED: /);
    expect((plan.blocks as { type: string }[]).some((b) => b.type === 'actions')).toBe(false);
    const stored = await approvals.get(id);
    expect(stored?.status).toBe('SUCCEEDED');
    expect(stored!.events.map((e) => e.type)).toEqual(['requested', 'approved', 'approved', 'claimed', 'step', 'step', 'step', 'step', 'step', 'step', 'succeeded']);

    // Exactly once: the same execute job delivered again (retry / second worker) runs nothing and says nothing.
    const posts = stub.callsTo('chat.postMessage').length;
    await h.queue.enqueue(newJob(OPS_JOB_KINDS.execute, { requestId: id, cluster: 'sandbox' }, 'kr-retry'));
    await h.queue.idle();
    expect(stub.callsTo('chat.postMessage').length).toBe(posts);
    expect((await approvals.get(id))?.events.length).toBe(stored!.events.length);

    const approvedAt = stored!.events.filter((e) => e.type === 'approved').at(-1)!.at;
    const leaderStep = stored!.events.find((e) => e.type === 'step' && /verify/i.test(e.message));
    console.log(
      `[ops-e2e leader override] kept ${perReplica['3']} messages (broker 3) vs ${perReplica['2']} with the default choice (broker 2): ` +
        `${perReplica['3']! - perReplica['2']!} more kept, 0 lost of what broker 3 held.\n` +
        `  second approval → leader verified in metadata: ${leaderStep ? ((leaderStep.at - approvedAt) / 1000).toFixed(1) : '?'} s; ` +
        `second approval click → execution finished: ${((ranAt - secondApproval) / 1000).toFixed(1)} s; → first acked write: ${((writableAt - secondApproval) / 1000).toFixed(1)} s\n  ` +
        stored!.events.map((e) => `${new Date(e.at).toISOString().slice(11, 23)} ${e.type}: ${e.message}`).join('\n  '),
    );
  }, 600_000);

  it('rf1 with a planned stop: /kafka drain 3 → "Drain what can move" → two approvals → stop broker 3 → nothing offline', async () => {
    await runScenario(sandbox, 'rf1-broker-down');
    await sandbox.start(3);
    // Broker 3 is back and leads its replication-factor-1 partitions again.
    await waitFor(async () => !/Leader: none|Leader: -1/.test(kafkaCli('kafka-topics.sh', ['--describe', '--topic', 'logs-rf1'])), 120_000);
    // A replication factor 3 topic on all three brokers cannot leave broker 3 (a full drain is refused).
    kafkaCli('kafka-topics.sh', ['--create', '--if-not-exists', '--topic', 'ops-e2e-rf3', '--replica-assignment', '1:2:3']);
    stub.reset();

    const ack = await slash('drain 3', REQUESTER);
    expect(ack.text).toMatch(/Planning: drain broker 3/);
    await h.queue.idle();
    // RF 3 topics on a 3-broker cluster cannot leave broker 3: the full drain is refused, with the partial option.
    const refused = stub.topLevel(CHANNEL).at(-1)!;
    expect(refused.text).toMatch(/^No plan for drain broker 3/);
    const partialButton = (refused.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]).find((b) => b.type === 'actions')!.elements![0]!;
    expect(partialButton.action_id).toBe('ops:plan');
    expect(partialButton.value.length).toBeLessThan(2000);
    expect(await click('ops:plan', partialButton.value, REQUESTER, refused)).toMatch(/Planning: partially drain broker 3/);
    await h.queue.idle();

    const plan = stub.thread(refused.ts).find((m) => m.text.startsWith('REQUESTED: '));
    expect(plan, JSON.stringify(stub.messages.map((m) => m.text))).toBeDefined();
    const id = requestIdOf(plan!);
    expect(blockText(plan!)).toMatch(/reassign/i);
    expect(await click('ops:approve', id, ALICE, plan!)).toBeUndefined();
    const secondApproval = Date.now();
    expect(await click('ops:approve', id, BOB, plan!)).toBeUndefined();
    await h.queue.idle();
    const done = Date.now();

    const stored = (await approvals.get(id))!;
    expect(stored.status, stored.outcome?.summary).toBe('SUCCEEDED');
    const thread = stub.thread(refused.ts).map((m) => m.text);
    expect(thread.at(-1)).toMatch(/: SUCCEEDED$/);
    const claimed = stored.events.find((e) => e.type === 'claimed')!.at;
    // Step events are written when a step has finished: "reassign" = the move was submitted, "wait-reassignment" = all moved.
    const submitted = stored.events.find((e) => e.type === 'step' && /step \d+ reassign:/.test(e.message))?.at;
    const waited = stored.events.find((e) => e.type === 'step' && /wait-reassignment/.test(e.message))?.at;
    const verified = stored.events.find((e) => e.type === 'step' && /verify-assignment/.test(e.message))?.at;

    const stop = await sandbox.stop(3);
    expect(stop).not.toBe('not-running');
    try {
      await new Promise((r) => setTimeout(r, 3_000));
      const unavailable = kafkaCli('kafka-topics.sh', ['--describe', '--unavailable-partitions']);
      expect(unavailable).not.toMatch(/Topic: logs-rf1\s/);
      // The RF 3 topic that stayed on broker 3 is online too, from its other replicas.
      expect(unavailable).not.toMatch(/Topic: ops-e2e-rf3\s/);
      for (let p = 0; p < 6; p++) await produce(bootstrap, 'logs-rf1', p, 1);
      const leaders = kafkaCli('kafka-topics.sh', ['--describe', '--topic', 'logs-rf1']);
      expect(leaders).not.toMatch(/Leader: 3\s/);
      console.log(
        `[ops-e2e drain] partial drain of broker 3: second approval click → execution finished ${((done - secondApproval) / 1000).toFixed(1)} s; ` +
          `reassignment copying (submitted → all partitions finished) ${submitted && waited ? ((waited - submitted) / 1000).toFixed(1) : '?'} s, whole run (claim → assignment verified) ${verified ? ((verified - claimed) / 1000).toFixed(1) : '?'} s; ` +
          `broker 3 stopped: unavailable partitions of logs-rf1: none (listing: ${unavailable.trim() ? unavailable.trim().split('\n').length : 0} lines)\n  ` +
          stored.events.map((e) => `${new Date(e.at).toISOString().slice(11, 23)} ${e.type}: ${e.message}`).join('\n  '),
      );
    } finally {
      await sandbox.start(3);
      kafkaCli('kafka-topics.sh', ['--delete', '--if-exists', '--topic', 'ops-e2e-rf3']);
    }
  }, 900_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  throw new Error('timed out waiting');
}
