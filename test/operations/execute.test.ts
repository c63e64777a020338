// executePlan's control flow with a scripted host: what runs, in which order,
// and what never runs (stale plans, dry runs, a failed audit write).
import { describe, expect, it } from 'vitest';
import type { StepReport } from '../../lib/approvals/types.ts';
import type { ExecutionResult, Executor, HostTarget, ScriptRun } from '../../lib/hosts/types.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { executePlan, planDrain, planLeaderOverride, type Plan, type PlanResult } from '../../lib/operations/index.ts';

function snapshot(brokers: number[], parts: [number, number[], number[]][], topic = 'orders'): ClusterSnapshot {
  return {
    takenAt: '2026-01-01T00:00:00.000Z',
    clusterId: 'c',
    controllerId: 100,
    brokers: brokers.map((id) => ({ id, host: 'h', port: id })),
    topics: [{ name: topic, internal: false, config: null, partitions: parts.map(([leader, replicas, isr], partition) => ({ partition, leader, replicas, isr, offlineReplicas: [] })) }],
    groups: [],
    offsetsTopicPartitions: 50,
    unreachableBrokers: [],
    errors: [],
    partial: false,
  };
}

/** Answers each script action with scripted output; records every call. */
class ScriptedExecutor implements Executor {
  readonly kind = 'local' as const;
  calls: string[][] = [];
  constructor(
    private readonly answers: Record<string, (args: string[]) => string | string[]>,
    private readonly truncated: (action: string, n: number) => boolean = () => false,
  ) {}
  private served = new Map<string, number>();
  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    this.calls.push(run.args);
    const action = run.args[2]!;
    const answer = this.answers[action]?.(run.args) ?? '';
    const n = this.served.get(action) ?? 0;
    this.served.set(action, n + 1);
    const stdout = Array.isArray(answer) ? (answer[Math.min(n, answer.length - 1)] ?? '') : answer;
    return [{ target: targets[0]!, status: 'Success', exitCode: 0, stdout, stderr: '', truncated: this.truncated(action, n), commandId: null, durationMs: 1 }];
  }
  actions() {
    return this.calls.map((c) => c[2]);
  }
}

function plan(r: PlanResult): Plan {
  if (!r.ok) throw new Error(r.reason);
  return r.plan;
}

const before = snapshot([2, 3], [[-1, [1, 2, 3], [1]]]);
const override = plan(
  planLeaderOverride(before, { topic: 'orders', partition: 0 }, [
    { brokerId: 2, logEndOffset: 1000, source: 'test' },
    { brokerId: 3, logEndOffset: 2000, source: 'test' },
  ]),
);

/** readSnapshot answers the given snapshots in turn, repeating the last. */
function deps(executor: Executor, snaps: ClusterSnapshot | ClusterSnapshot[], reports: StepReport[], onStep?: (s: StepReport) => Promise<void>) {
  const list = Array.isArray(snaps) ? snaps : [snaps];
  let reads = 0;
  return {
    readSnapshot: async () => list[Math.min(reads++, list.length - 1)]!,
    host: { executor, target: { brokerId: 2, address: '/x' }, kafkaBin: '/opt/kafka/bin', bootstrap: 'b:9092' },
    onStep: onStep ?? (async (s: StepReport) => void reports.push(s)),
    sleep: async () => undefined,
  };
}

const overrideAnswers = {
  'reassign-list': () => ['No partition reassignments found.', 'No partition reassignments found.'],
  'reassign-execute': () => 'Successfully started partition reassignment for orders-0',
  elect: () => 'Successfully completed leader election (UNCLEAN) for partitions orders-0',
};
const afterOverride = snapshot([2, 3], [[3, [3, 2], [3, 2]]]);

describe('executePlan', () => {
  it('a stale fingerprint stops everything: STALE, no tool runs', async () => {
    const ex = new ScriptedExecutor(overrideAnswers);
    const reports: StepReport[] = [];
    const recovered = snapshot([2, 3], [[2, [1, 2, 3], [2]]]);
    const out = await executePlan(override, deps(ex, recovered, reports), { live: true });
    expect(out.status).toBe('STALE');
    expect(out.summary).toMatch(/leader -1 → 2/);
    expect(ex.calls).toEqual([]);
    expect(reports).toHaveLength(1);
  });

  it('dry run by default: reports every step with its command, runs nothing', async () => {
    const ex = new ScriptedExecutor(overrideAnswers);
    const reports: StepReport[] = [];
    const out = await executePlan(override, deps(ex, before, reports));
    expect(out.status).toBe('DRY_RUN');
    expect(ex.calls).toEqual([]);
    expect(reports.map((r) => r.status)).toEqual(['ok', 'dry-run', 'dry-run', 'dry-run', 'dry-run']);
    expect(reports[2]!.detail).toContain('/opt/kafka/bin/kafka-leader-election.sh --bootstrap-server b:9092 --election-type unclean --topic orders --partition 0');
  });

  it('live leader override: checks for running reassignments, reorders, elects, verifies, waits — each step reported in order', async () => {
    const ex = new ScriptedExecutor(overrideAnswers);
    const reports: StepReport[] = [];
    const out = await executePlan(override, deps(ex, [before, afterOverride], reports), { live: true });
    expect(out.status).toBe('SUCCEEDED');
    expect(ex.actions()).toEqual(['reassign-list', 'reassign-execute', 'elect', 'reassign-list']);
    expect(ex.calls[1]).toEqual(['/opt/kafka/bin', 'b:9092', 'reassign-execute', '0', 'new', 'orders:0:3,2']);
    expect(ex.calls[2]).toEqual(['/opt/kafka/bin', 'b:9092', 'elect', 'unclean', 'orders:0']);
    expect(reports.map((r) => [r.index, r.name, r.status])).toEqual([
      [0, 'check preconditions', 'ok'],
      [1, 'reassign', 'ok'],
      [2, 'elect-leaders', 'ok'],
      [3, 'verify-leaders', 'ok'],
      [4, 'wait-reassignment', 'ok'],
    ]);
    expect(reports[3]!.detail).toBe('leader 3, isr 3,2');
  });

  it('stops before the next step when the audit write (onStep) fails', async () => {
    const ex = new ScriptedExecutor(overrideAnswers);
    let n = 0;
    const out = await executePlan(
      override,
      deps(ex, before, [], async () => {
        if (++n === 2) throw new Error('lease lost');
      }),
      { live: true },
    );
    expect(out.status).toBe('FAILED');
    expect(out.summary).toMatch(/lease lost/);
    expect(ex.actions()).toEqual(['reassign-list', 'reassign-execute']);
  });

  it('refuses to start while another reassignment runs', async () => {
    const ex = new ScriptedExecutor({ ...overrideAnswers, 'reassign-list': () => 'Current partition reassignments:\nother-3: replicas: 1,2. adding: 2.' });
    const out = await executePlan(override, deps(ex, before, []), { live: true });
    expect(out.status).toBe('FAILED');
    expect(out.summary).toMatch(/another reassignment is running \(other-3\)/);
    expect(ex.actions()).toEqual(['reassign-list']);
  });

  it('a failed election fails the run and nothing after it runs', async () => {
    const ex = new ScriptedExecutor({ ...overrideAnswers, elect: () => 'Error completing leader election (UNCLEAN) for partition: orders-0: org.apache.kafka.common.errors.ElectionNotNeededException' });
    const reports: StepReport[] = [];
    const out = await executePlan(override, deps(ex, before, reports), { live: true });
    expect(out.status).toBe('FAILED');
    expect(out.summary).toMatch(/failed at step 2/);
    expect(ex.actions()).toEqual(['reassign-list', 'reassign-execute', 'elect']);
    expect(reports.at(-1)).toMatchObject({ index: 2, status: 'failed' });
  });

  it('verification that never sees the chosen leader fails after the timeout', async () => {
    const ex = new ScriptedExecutor(overrideAnswers);
    let clock = 0;
    const wrongLeader = snapshot([2, 3], [[2, [3, 2, 1], [2]]]);
    const d = { ...deps(ex, [before, wrongLeader], []), now: () => (clock += 10_000) };
    const out = await executePlan(override, d, { live: true, verifyTimeoutMs: 30_000 });
    expect(out.status).toBe('FAILED');
    expect(out.summary).toMatch(/leader 2 isr 2 \(want 3\)/);
  });

  it('drain: waits for the reassignment with progress, then removes the throttle with --verify', async () => {
    const s = snapshot([1, 2, 3], [[1, [1], [1]], [2, [2, 1], [2, 1]]], 'logs');
    const drain = plan(planDrain(s, { broker: 1 }));
    const progress: string[] = [];
    const ex = new ScriptedExecutor({
      'reassign-list': () => [
        'No partition reassignments found.',
        'Current partition reassignments:\nlogs-0: replicas: 2,1. adding: 2. removing: 1.\nlogs-1: replicas: 2,3,1. adding: 3. removing: 1.',
        'Current partition reassignments:\nlogs-0: replicas: 2,1. adding: 2. removing: 1.',
        'No partition reassignments found.',
      ],
      'reassign-execute': () => 'Successfully started partition reassignments for logs-0,logs-1',
      'reassign-verify': () => 'Status of partition reassignment:\nReassignment of partition logs-0 is completed.\nClearing broker-level throttles on brokers 1,2,3\nClearing topic-level throttles on topic logs',
    });
    const moved = snapshot([1, 2, 3], [[3, [3], [3]], [2, [2, 3], [2, 3]]], 'logs');
    const out = await executePlan(drain, { ...deps(ex, [s, moved], []), onProgress: (t: string) => void progress.push(t) }, { live: true });
    expect(out.summary).toBe('broker 1 holds no replicas any more');
    expect(out.status).toBe('SUCCEEDED');
    expect(progress).toEqual(['reassignment: 0 of 2 partition(s) done', 'reassignment: 1 of 2 partition(s) done']);
    expect(ex.actions()).toEqual(['reassign-list', 'reassign-execute', 'reassign-list', 'reassign-list', 'reassign-list', 'reassign-verify']);
    expect(ex.calls[1]).toEqual(['/opt/kafka/bin', 'b:9092', 'reassign-execute', String(50 * 1024 * 1024), 'new', 'logs:0:3', 'logs:1:2,3']);
    expect(ex.calls[5]).toEqual(['/opt/kafka/bin', 'b:9092', 'reassign-verify', 'logs:0:3', 'logs:1:2,3']);
  });

  it('big reassignments go in batches of 1,000 (later ones --additional), and a cut listing never counts as done', async () => {
    const parts: [number, number[], number[]][] = Array.from({ length: 2_500 }, () => [1, [1], [1]]);
    const s = snapshot([1, 2], parts, 'big');
    const drain = plan(planDrain(s, { broker: 1 }));
    const ex = new ScriptedExecutor(
      {
        'reassign-list': () => ['No partition reassignments found.', 'Current partition reassignments:\nbig-0: replicas: 2,1. adding: 2. removing: 1.', 'No partition reassignments found.'],
        'reassign-execute': () => 'Successfully started partition reassignments for ...',
        'reassign-verify': () => 'Clearing broker-level throttles on brokers 1,2',
      },
      // The second listing was cut by the transport: it shows one partition of many.
      (action, n) => action === 'reassign-list' && n === 1,
    );
    const moved = snapshot([1, 2], parts.map(() => [2, [2], [2]] as [number, number[], number[]]), 'big');
    const progress: string[] = [];
    const out = await executePlan(drain, { ...deps(ex, [s, moved], []), onProgress: (t: string) => void progress.push(t) }, { live: true });
    expect(out.status, out.summary).toBe('SUCCEEDED');
    const executes = ex.calls.filter((c) => c[2] === 'reassign-execute');
    expect(executes.map((c) => [c[4], c.length - 5])).toEqual([['new', 1000], ['additional', 1000], ['additional', 500]]);
    expect(progress).toEqual(['reassignment: 1+ partition(s) still moving']);
    expect(ex.calls.filter((c) => c[2] === 'reassign-verify')).toHaveLength(3);
  });
});
