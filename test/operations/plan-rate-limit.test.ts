// Plan requests are limited per user and per cluster, across instances: the
// count lives in the approvals table (dynalite, conditional writes), so two
// Slack handlers built on the same table share it. A user who floods gets the
// limit message with a wait, and nothing past the limit is planned or stored.
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { BASE_CONFIG, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';
import { ScriptedOperations } from './scripted-operations.ts';

const USERS = ['U0REQ', 'U0REQ2', 'U0REQ3', 'U0ALICE', 'U0BOB'];
const config = (planRequests: unknown) => ({
  ...BASE_CONFIG,
  slack: { ...BASE_CONFIG.slack, allowedUsers: USERS },
  approvals: { approvers: ['U0ALICE', 'U0BOB'] },
  operations: { pollSeconds: 1, planRequests },
});

let db: DynaliteHandle;
let dynamo: LocalDynamo;
let stub: SlackStub;
let tableName: string;
let tables = 0;
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
beforeEach(() => {
  stub.reset();
  tableName = `approvals-rate-${++tables}`;
});

/** One Slack instance (handler + in-process worker) on the shared approvals table. */
async function instance(cfg: unknown): Promise<{ h: Harness; ops: ScriptedOperations }> {
  const store = new ApprovalStore(dynamo.client, { tableName });
  await store.ensureTable();
  const approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(parseConfig(cfg)) });
  const ops = new ScriptedOperations();
  return { h: buildHarness({ stub, store: db.store, config: cfg, approvals, operations: ops }), ops };
}

async function requestPlan(h: Harness, user: string, partition: number): Promise<string> {
  const res = await h.handler(slashEvent({ text: `elect-leader orders ${partition} 3`, user, channel: 'C0OPS', responseUrl: stub.responseUrl(`p${++seq}`) }));
  expect(res.statusCode).toBe(200);
  return (JSON.parse(res.body) as { text: string }).text;
}

async function storedRequests(): Promise<number> {
  const out = await dynamo.client.send(new ScanCommand({ TableName: tableName }));
  return (out.Items ?? []).filter((i) => i.sk?.S === 'STATE' && i.pk?.S?.startsWith('REQ#')).length;
}

describe('plan requests: a limit per user and per cluster', () => {
  it('50 requests in a minute from one user, spread over two instances: the configured 5 are planned, the rest told when to try again', async () => {
    const cfg = config({ perUser: { requests: 5, windowSeconds: 60 }, perCluster: { requests: 100, windowSeconds: 60 } });
    const a = await instance(cfg);
    const b = await instance(cfg);
    const replies: string[] = [];
    for (let i = 0; i < 50; i++) replies.push(await requestPlan(i % 2 ? b.h : a.h, 'U0REQ', i));
    await Promise.all([a.h.queue.idle(), b.h.queue.idle()]);
    expect(replies.slice(0, 5).every((r) => r.startsWith(':clipboard: Planning'))).toBe(true);
    const limited = replies.slice(5);
    expect(limited.every((r) => /^:hourglass_flowing_sand: Too many plan requests from one person: at most 5 every 60 s\. Nothing was planned; try again in \d+ s\.$/.test(r))).toBe(true);
    const waits = limited.map((r) => Number(/try again in (\d+) s/.exec(r)![1]));
    expect(Math.max(...waits)).toBeLessThanOrEqual(60);
    expect(Math.min(...waits)).toBeGreaterThan(0);
    expect(a.ops.planned.length + b.ops.planned.length).toBe(5);
    expect(await storedRequests()).toBe(5);
    // Another person is not held back by the flood.
    expect(await requestPlan(a.h, 'U0REQ2', 99)).toMatch(/^:clipboard: Planning/);
  });

  it('concurrent requests cannot overshoot the limit (conditional writes on one window)', async () => {
    const { h, ops } = await instance(config({ perUser: { requests: 3, windowSeconds: 60 } }));
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => requestPlan(h, 'U0REQ', i)));
    await h.queue.idle();
    expect(replies.filter((r) => r.startsWith(':clipboard: Planning'))).toHaveLength(3);
    expect(ops.planned).toHaveLength(3);
    expect(await storedRequests()).toBe(3);
  });

  it('the cluster limit counts everyone, and a request it refuses does not use up the user’s own allowance', async () => {
    const { h } = await instance(config({ perUser: { requests: 2, windowSeconds: 60 }, perCluster: { requests: 3, windowSeconds: 60 } }));
    expect(await requestPlan(h, 'U0REQ', 0)).toMatch(/^:clipboard:/);
    expect(await requestPlan(h, 'U0REQ2', 1)).toMatch(/^:clipboard:/);
    expect(await requestPlan(h, 'U0REQ2', 2)).toMatch(/^:clipboard:/);
    expect(await requestPlan(h, 'U0REQ3', 3)).toMatch(/^:hourglass_flowing_sand: Too many plan requests for cluster \*sandbox\*: at most 3 every 60 s\./);
    await h.queue.idle();
    expect(await storedRequests()).toBe(3);
    // The refused request's slot in U0REQ3's own window was given back.
    const out = await dynamo.client.send(new ScanCommand({ TableName: tableName }));
    const window = (out.Items ?? []).find((i) => i.pk?.S === 'RATE#user#U0REQ3');
    expect(window?.stamps?.L ?? []).toHaveLength(0);
  });

  it('defaults: 5 per user and 20 per cluster a minute', () => {
    const parsed = parseConfig(config(undefined));
    expect(parsed.operations.planRequests).toEqual({ perUser: { requests: 5, windowSeconds: 60 }, perCluster: { requests: 20, windowSeconds: 60 } });
  });
});
