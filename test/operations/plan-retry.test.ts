// A plan job retried after its worker died (SQS redelivers it): every message
// it posts is there once. The plan message stays one approvable message, and
// whatever the dead attempt had not posted yet (the digest line, the full
// lists the plan message points to) is posted by the retry, once. Real worker,
// Slack stub (which answers conversations.history/replies with metadata, as the
// retry looks up what it may already have posted), approvals and state on dynalite.
import { beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import type { ClusterConfig } from '../../lib/config/schema.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { planMessageRef } from '../../lib/operations/jobs.ts';
import { listOf } from '../../lib/operations/lists.ts';
import { OPS_JOB_KINDS, type OpsPlanJob, type OpsRequest } from '../../lib/operations/requests.ts';
import { parseOpsCommand } from '../../lib/operations/slack.ts';
import type { Plan, PlanResult } from '../../lib/operations/types.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import type { SlackPoster } from '../../lib/slack/web.ts';
import { runJob } from '../../lib/worker/worker.ts';
import { BASE_CONFIG, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import type { StubMessage } from '../slack/helpers/slack-stub.ts';
import { useOpsRetryWorld } from './retry-world.ts';
import { ScriptedOperations } from './scripted-operations.ts';

const REQUESTER = 'U0REQ';
const CONFIG = {
  ...BASE_CONFIG,
  slack: { ...BASE_CONFIG.slack, allowedUsers: [REQUESTER, 'U0ALICE', 'U0BOB'] },
  approvals: { approvers: ['U0ALICE', 'U0BOB'] },
  operations: { pollSeconds: 1 },
};

/** Plans like ScriptedOperations, with eleven warnings: the plan message shows eight and says where the rest are. */
class ManyWarnings extends ScriptedOperations {
  override async plan(cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult> {
    const planned = await super.plan(cluster, request);
    if (!planned.ok) return planned;
    const warnings = Array.from({ length: 11 }, (_, i) => ({ code: 'leaderless-cannot-copy', partitions: listOf([`t-${i}`]) }));
    return { ok: true, plan: { ...planned.plan, warnings } as Plan };
  }
}

const world = useOpsRetryWorld();
const { stub } = world;
let h: Harness;
let table = 0;

beforeEach(async () => {
  const store = await world.approvalStore(`plan-retry-${++table}`);
  const approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(parseConfig(CONFIG)) });
  h = buildHarness({ stub, store: world.db.store, config: CONFIG, approvals, operations: new ManyWarnings() });
});

function planJob(): Job {
  const parsed = parseOpsCommand('elect-leader', ['orders', '0', '3'], parseConfig(CONFIG));
  if ('error' in parsed) throw new Error(parsed.error);
  const payload: OpsPlanJob = { cluster: 'sandbox', request: parsed.request, origin: { channelId: 'C0OPS', userId: REQUESTER } };
  return newJob(OPS_JOB_KINDS.plan, payload, `kr-plan-retry-${table}`);
}

/**
 * The worker's Slack, except that the process dies right after Slack accepted
 * the first post `matching` (before the job could write down where it went):
 * the message is in the channel, the job is not finished.
 */
function dyingAfter(matching: (text: string) => boolean): SlackPoster {
  const slack = h.worker.slack;
  let died = false;
  return {
    ...slack,
    async post(m) {
      const posted = await slack.post(m);
      if (!died && matching(m.text)) {
        died = true;
        throw new Error('worker killed');
      }
      return posted;
    },
  };
}

const approvable = (m: StubMessage) => JSON.stringify(m.blocks).includes('"ops:approve');
const isPlan = (text: string) => /^REQUESTED: /.test(text);
const isDigest = (text: string) => /request `/.test(text);
const isFullList = (text: string) => /^All warnings/.test(text);

function posted(): { plans: StubMessage[]; thread: StubMessage[] } {
  const plans = stub.topLevel('C0OPS').filter(approvable);
  return { plans, thread: plans.length === 1 ? stub.thread(plans[0]!.ts) : [] };
}

describe('a plan job retried after its worker died', () => {
  it('killed right after posting the plan, before saving where: the retry finds that message; one approvable plan, its thread complete', async () => {
    const job = planJob();
    await expect(runJob(job, { ...h.worker, slack: dyingAfter(isPlan) }, h.jobs)).rejects.toThrow(/worker killed/);
    expect(stub.topLevel('C0OPS').filter(approvable)).toHaveLength(1);

    await runJob(job, h.worker, h.jobs);
    const { plans, thread } = posted();
    expect(plans.map((m) => m.text)).toHaveLength(1);
    // Everyone who edits the plan message later (approvals, the run) edits this one.
    expect((await planMessageRef(world.db.store, job.id))?.ts).toBe(plans[0]!.ts);
    expect(thread.filter((m) => isDigest(m.text))).toHaveLength(1);
    expect(thread.filter((m) => isFullList(m.text))).toHaveLength(1);
    expect(stub.callsTo('conversations.history').length).toBeGreaterThan(0);
  });

  it('the full list failed to post: the retry posts it, once, and nothing else again', async () => {
    const job = planJob();
    stub.failOnce.push({ method: 'chat.postMessage', error: 'invalid_blocks', match: (args) => isFullList(String(args.text)) });
    await expect(runJob(job, h.worker, h.jobs)).rejects.toThrow(/invalid_blocks/);
    expect(posted().thread.filter((m) => isFullList(m.text))).toHaveLength(0);

    await runJob(job, h.worker, h.jobs);
    const { plans, thread } = posted();
    expect(plans).toHaveLength(1);
    expect(JSON.stringify(plans[0]!.blocks)).toContain('…and 3 more (full list in the thread)');
    expect(thread.filter((m) => isDigest(m.text))).toHaveLength(1);
    const lists = thread.filter((m) => isFullList(m.text));
    expect(lists).toHaveLength(1);
    expect(JSON.stringify(lists[0]!.blocks)).toContain('t-10');
  });

  it('killed right after posting the full list in the thread: the retry finds it there and posts it no second time', async () => {
    const job = planJob();
    await expect(runJob(job, { ...h.worker, slack: dyingAfter(isFullList) }, h.jobs)).rejects.toThrow(/worker killed/);
    await runJob(job, h.worker, h.jobs);
    const { plans, thread } = posted();
    expect(plans).toHaveLength(1);
    expect(thread.filter((m) => isDigest(m.text))).toHaveLength(1);
    expect(thread.filter((m) => isFullList(m.text))).toHaveLength(1);
    expect(stub.callsTo('conversations.replies').length).toBeGreaterThan(0);
  });

  it('delivered again after it finished: nothing is posted, planned or looked up', async () => {
    const job = planJob();
    await runJob(job, h.worker, h.jobs);
    const calls = stub.calls.length;
    await runJob(job, h.worker, h.jobs);
    expect(stub.calls.slice(calls).map((c) => c.method)).toEqual([]);
    expect(posted().plans).toHaveLength(1);
  });

  it('Slack will not show the history (no channels:history scope): the retry posts again and says why in the log', async () => {
    const job = planJob();
    await expect(runJob(job, { ...h.worker, slack: dyingAfter(isPlan) }, h.jobs)).rejects.toThrow(/worker killed/);
    stub.failures.set('conversations.history', 'missing_scope');
    await runJob(job, h.worker, h.jobs);
    // A copy nobody edits is the lesser harm than approvers never seeing the plan.
    expect(stub.topLevel('C0OPS').filter(approvable)).toHaveLength(2);
    expect(JSON.stringify(h.log.records)).toMatch(/could not look for a message an earlier attempt may have posted.*missing_scope/);
  });
});

describe('an audit line retried after its worker died', () => {
  it('ops.refresh killed right after posting the line in the plan thread: the retry edits the plan and posts no second line', async () => {
    await runJob(planJob(), h.worker, h.jobs);
    const plan = posted().plans[0]!;
    const requestId = (plan.blocks as { elements?: { action_id?: string; value?: string }[] }[]).flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'ops:approve')!.value!;
    const job = newJob(OPS_JOB_KINDS.refresh, { requestId, line: 'approved by U0ALICE (1 of 2)' }, 'kr-refresh-killed');
    await expect(runJob(job, { ...h.worker, slack: dyingAfter((t) => t.startsWith('approved by')) }, h.jobs)).rejects.toThrow(/worker killed/);
    await runJob(job, h.worker, h.jobs);
    expect(stub.thread(plan.ts).filter((m) => m.text.startsWith('approved by'))).toHaveLength(1);
  });
});
