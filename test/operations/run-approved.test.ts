// The worker glue on real conditional writes (dynalite) with a scripted host:
// only an approved request runs, once; its outcome lands in the approval; a
// run whose approval was taken away mid-way stops before its next step.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalPolicyConfigSchema, ApprovalService, ApprovalStore, resolvePolicy } from '../../lib/approvals/index.ts';
import type { ExecutionResult, Executor, HostTarget, ScriptRun } from '../../lib/hosts/types.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { planLeaderOverride, runApprovedPlan, type Plan } from '../../lib/operations/index.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';

function snapshot(leader: number, replicas: number[], isr: number[]): ClusterSnapshot {
  return {
    takenAt: '2026-01-01T00:00:00.000Z',
    clusterId: 'c',
    controllerId: 100,
    brokers: [2, 3].map((id) => ({ id, host: 'h', port: id })),
    topics: [{ name: 'orders', internal: false, config: null, partitions: [{ partition: 0, leader, replicas, isr, offlineReplicas: [] }] }],
    groups: [],
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
  };
}
const before = snapshot(-1, [1, 2, 3], [1]);
const after = snapshot(3, [3, 2], [3, 2]);
const planned = planLeaderOverride(before, { topic: 'orders', partition: 0 }, [
  { brokerId: 2, logEndOffset: 1000, source: 't' },
  { brokerId: 3, logEndOffset: 2000, source: 't' },
]);
if (!planned.ok) throw new Error(planned.reason);
const plan = planned.plan;

class HostStub implements Executor {
  readonly kind = 'local' as const;
  actions: string[] = [];
  constructor(private readonly onRun: (action: string) => Promise<void> = async () => undefined) {}
  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    const action = run.args[2]!;
    this.actions.push(action);
    await this.onRun(action);
    const stdout =
      action === 'reassign-list'
        ? 'No partition reassignments found.'
        : action === 'elect'
          ? 'Successfully completed leader election (UNCLEAN) for partitions orders-0'
          : 'Successfully started partition reassignment for orders-0';
    return [{ target: targets[0]!, status: 'Success', exitCode: 0, stdout, stderr: '', truncated: false, commandId: null, durationMs: 1 }];
  }
}

let dynamo: LocalDynamo;
let service: ApprovalService<Plan>;
let clock: number;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => dynamo?.close());
beforeEach(async () => {
  clock = Date.parse('2026-01-01T00:00:00Z');
  const store = new ApprovalStore(dynamo.client, { tableName: `run-${Math.random().toString(36).slice(2)}` });
  await store.ensureTable();
  service = new ApprovalService<Plan>({
    store,
    policy: resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: ['UAA', 'UBB', 'UCC'] })),
    now: () => clock,
    leaseMs: 60_000,
  });
});

async function approved(): Promise<string> {
  const r = await service.request(plan, 'UAA');
  if (!r.ok) throw new Error(r.message);
  await service.approve(r.request.id, 'UBB');
  return r.request.id;
}

function deps(host: Executor, snaps: ClusterSnapshot[]) {
  let reads = 0;
  return {
    readSnapshot: async () => snaps[Math.min(reads++, snaps.length - 1)]!,
    host: { executor: host, target: { brokerId: 2, address: '/x' }, kafkaBin: '/opt/kafka/bin', bootstrap: 'b:9092' },
    sleep: async () => undefined,
  };
}

describe('runApprovedPlan', () => {
  it('refuses a request that is not approved yet: nothing runs', async () => {
    const r = await service.request(plan, 'UAA');
    if (!r.ok) throw new Error(r.message);
    const host = new HostStub();
    const out = await runApprovedPlan({ approvals: service, requestId: r.request.id, workerId: 'w1', deps: deps(host, [before]) });
    expect(out).toMatchObject({ ran: false, refusal: { code: 'not-approved' } });
    expect(host.actions).toEqual([]);
  });

  it('runs an approved plan once, audits every step, records SUCCEEDED; two workers → one run', async () => {
    const id = await approved();
    const host = new HostStub();
    const [a, b] = await Promise.all([
      runApprovedPlan({ approvals: service, requestId: id, workerId: 'w1', deps: deps(host, [before, after]) }),
      runApprovedPlan({ approvals: service, requestId: id, workerId: 'w2', deps: deps(host, [before, after]) }),
    ]);
    expect([a.ran, b.ran].filter(Boolean)).toHaveLength(1);
    expect(host.actions.filter((x) => x === 'elect')).toHaveLength(1);
    const stored = await service.get(id);
    expect(stored?.status).toBe('SUCCEEDED');
    expect(stored?.events.map((e) => e.type)).toEqual(['requested', 'approved', 'claimed', 'step', 'step', 'step', 'step', 'step', 'succeeded']);
  });

  it('a changed cluster ends the request STALE without touching it', async () => {
    const id = await approved();
    const host = new HostStub();
    const out = await runApprovedPlan({ approvals: service, requestId: id, workerId: 'w1', deps: deps(host, [snapshot(2, [1, 2, 3], [2])]) });
    expect(out.ran && out.outcome.status).toBe('STALE');
    expect(host.actions).toEqual([]);
    expect((await service.get(id))?.status).toBe('STALE');
  });

  it('stops before the next step once its approval record no longer accepts steps (abandoned after a stall)', async () => {
    const id = await approved();
    const host = new HostStub(async (action) => {
      if (action === 'reassign-execute') {
        // The worker stalls past its lease; a human abandons the run meanwhile.
        clock += 10 * 60_000;
        expect((await service.abandon(id, 'UCC', 'worker looked dead')).ok).toBe(true);
      }
    });
    const out = await runApprovedPlan({ approvals: service, requestId: id, workerId: 'w1', deps: deps(host, [before, after]) });
    expect(out.ran && out.outcome.status).toBe('FAILED');
    expect(out.ran && out.outcome.summary).toMatch(/audit of step 1 failed/);
    expect(host.actions).toEqual(['reassign-list', 'reassign-execute']);
    expect((await service.get(id))?.status).toBe('FAILED');
  });
});
