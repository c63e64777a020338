// Runs an approved plan. Order of business: re-read the live cluster and
// recompute the fingerprint (changed → STALE, nothing runs); refuse if another
// reassignment is running; then each step, reported through `onStep` and
// awaited (the caller audits it) before the next one starts. Dry run unless
// `live: true`. Never retries a step on its own: a half-done operation is
// reported as it is, for a human to look at.

import type { StepReport } from '../approvals/types.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import { digestOf } from './fingerprint.ts';
import {
  type OperationHost,
  type KafkaCliAction,
  cliArgs,
  parseElection,
  parseReassignmentList,
  parseReassignmentVerify,
  runKafkaCli,
} from './kafka-cli.ts';
import { preconditionsFor } from './planners.ts';
import type { Plan, PlanStep } from './types.ts';

export interface ExecuteDeps {
  /** A fresh snapshot of the live cluster (lib/kafka takeSnapshot, restricted to the plan's topics is fine). */
  readSnapshot(): Promise<ClusterSnapshot>;
  host: OperationHost;
  /** Called after every step; awaited before the next. Throw to stop (e.g. the audit write or the lease failed). */
  onStep(report: StepReport): Promise<void>;
  /** Progress while waiting (reassignment percentages); not audited. Also a good place for a lease heartbeat. */
  onProgress?(text: string): Promise<void> | void;
  sleep?(ms: number): Promise<void>;
  now?(): number;
}

export interface ExecuteOptions {
  /** false (default): check preconditions and report what would run, change nothing. */
  live?: boolean;
  pollIntervalMs?: number;
  /** How long to wait for a reassignment before reporting it still running. */
  reassignmentTimeoutMs?: number;
  /** How long to wait for a new leader to show in metadata. */
  verifyTimeoutMs?: number;
}

export type ExecutionStatus = 'SUCCEEDED' | 'FAILED' | 'STALE' | 'DRY_RUN';

export interface ExecutionOutcome {
  status: ExecutionStatus;
  summary: string;
  steps: StepReport[];
  /** Leader override: the partition's state after the run, as the tools describe it. */
  finalState?: unknown;
}

class StepFailed extends Error {}

export async function executePlan(plan: Plan, deps: ExecuteDeps, options: ExecuteOptions = {}): Promise<ExecutionOutcome> {
  const live = options.live === true;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = deps.now ?? Date.now;
  const pollMs = options.pollIntervalMs ?? 2_000;
  const steps: StepReport[] = [];
  const report = async (step: StepReport) => {
    steps.push(step);
    await deps.onStep(step);
  };

  // 0. Preconditions: the cluster must still be in the state the plan was made from.
  const snapshot = await deps.readSnapshot();
  const current = preconditionsFor(plan.kind, plan.params, snapshot);
  const fingerprint = digestOf(current);
  if (fingerprint !== plan.fingerprint) {
    const detail = describeChange(plan.preconditions, current);
    await report({ index: 0, name: 'check preconditions', status: 'failed', detail: `cluster changed since the plan was made: ${detail}` });
    return { status: 'STALE', summary: `not run: the cluster changed since the plan was made (${detail})`, steps };
  }
  await report({ index: 0, name: 'check preconditions', status: 'ok', detail: `fingerprint ${fingerprint.slice(0, 12)} unchanged` });

  const reassigns = plan.steps.some((s) => s.action === 'reassign');
  if (!live) {
    for (const [i, step] of plan.steps.entries()) {
      await report({ index: i + 1, name: step.action, status: 'dry-run', detail: `would ${step.description}: ${commandLine(deps.host, step)}` });
    }
    return { status: 'DRY_RUN', summary: `dry run: ${plan.steps.length} step(s) would run; nothing changed`, steps };
  }

  try {
    if (reassigns) {
      // Cruise Control's rule: never start a reassignment while another one runs.
      const { partitions: running } = await runningReassignments(deps.host);
      if (running.length > 0) {
        const names = running.slice(0, 5).map((r) => `${r.topic}-${r.partition}`).join(', ');
        await report({ index: 0, name: 'check no reassignment running', status: 'failed', detail: `another reassignment is running: ${names}` });
        return { status: 'FAILED', summary: `not run: another reassignment is running (${names}${running.length > 5 ? '…' : ''})`, steps };
      }
    }

    let finalState: unknown;
    for (const [i, step] of plan.steps.entries()) {
      const index = i + 1;
      const result = await runStep(plan, step, deps, { pollMs, sleep, now, options });
      if (step.action === 'verify-leaders') finalState = result.data;
      await report({ index, name: step.action, status: 'ok', detail: result.detail, ...(result.data ? { data: result.data } : {}) });
    }
    return { status: 'SUCCEEDED', summary: successSummary(plan), steps, ...(finalState ? { finalState } : {}) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof StepFailed) {
      const index = steps.length > 0 ? (steps.at(-1)!.index ?? 0) + 1 : 1;
      const step = plan.steps[index - 1];
      await deps.onStep({ index, name: step?.action ?? 'step', status: 'failed', detail: message }).catch(() => undefined);
      steps.push({ index, name: step?.action ?? 'step', status: 'failed', detail: message });
      return { status: 'FAILED', summary: `failed at step ${index} (${step?.description ?? 'unknown'}): ${message}`, steps };
    }
    // onStep threw (audit/lease) or an unexpected error: stop without running anything more.
    return { status: 'FAILED', summary: `stopped: ${message}`, steps };
  }
}

interface RunContext {
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  options: ExecuteOptions;
}

/** The target assignment of the plan's reassign step at `index`. */
function reassignedBy(plan: Plan, index: number) {
  const step = plan.steps[index];
  if (step?.action !== 'reassign') throw new StepFailed(`plan step ${index + 1} is not a reassignment`);
  return step.input.partitions;
}

async function runStep(plan: Plan, step: PlanStep, deps: ExecuteDeps, ctx: RunContext): Promise<{ detail: string; data?: Record<string, unknown> }> {
  switch (step.action) {
    case 'reassign': {
      const all = batches(step.input.partitions);
      for (const [i, batch] of all.entries()) {
        // Batches after the first join the running reassignment (--additional).
        const run = await cli(deps.host, { action: 'reassign-execute', throttleBytesPerSec: step.throttleBytesPerSec, additional: i > 0, partitions: batch });
        if (!run.ok || !/Successfully started partition reassignment/.test(run.output)) {
          throw new StepFailed(`kafka-reassign-partitions.sh --execute${i > 0 ? ` (batch ${i + 1} of ${all.length}; earlier batches are running)` : ''}: ${lastLines(run.output)}`);
        }
      }
      return { detail: `reassignment started for ${step.input.partitions.length} partition(s)${all.length > 1 ? ` in ${all.length} batches` : ''}` };
    }
    case 'elect-leaders': {
      const run = await cli(deps.host, { action: 'elect', electionType: step.electionType, partitions: step.partitions });
      const parsed = parseElection(run.output);
      const wanted = step.partitions.map((p) => `${p.topic}-${p.partition}`);
      const done = new Set([...parsed.elected, ...parsed.alreadyElected]);
      const missing = wanted.filter((w) => !done.has(w));
      if (missing.length > 0) {
        throw new StepFailed(`kafka-leader-election.sh (${step.electionType}) did not elect ${missing.slice(0, 5).join(', ')}: ${lastLines(run.output)}`);
      }
      return {
        detail: `${step.electionType} election: ${parsed.elected.length} elected, ${parsed.alreadyElected.length} already had a valid leader`,
        data: { elected: parsed.elected.length, alreadyElected: parsed.alreadyElected.length },
      };
    }
    case 'verify-leaders': {
      // Read through the Admin API snapshot: tool output through SSM is capped at 24,000 characters.
      const deadline = ctx.now() + (ctx.options.verifyTimeoutMs ?? 30_000);
      for (;;) {
        const lookup = snapshotLookup(await deps.readSnapshot());
        const wrong: string[] = [];
        const states: Record<string, unknown>[] = [];
        for (const e of step.expected) {
          const p = lookup(e.topic, e.partition);
          if (step.expected.length <= 20 && p) states.push({ topic: e.topic, partition: e.partition, leader: p.leader, replicas: p.replicas, isr: p.isr });
          if (!p || p.leader !== e.leader || !p.isr.includes(e.leader)) {
            wrong.push(`${e.topic}-${e.partition}: leader ${p ? (p.leader < 0 ? 'none' : p.leader) : '?'} isr ${p ? p.isr.join(',') || 'empty' : '?'} (want ${e.leader})`);
          }
        }
        if (wrong.length === 0) {
          return {
            detail: step.expected.length === 1 ? `leader ${step.expected[0]!.leader}, isr ${states[0] ? (states[0].isr as number[]).join(',') : '?'}` : `${step.expected.length} partition(s) have the expected leader`,
            data: { partitions: states },
          };
        }
        if (ctx.now() >= deadline) throw new StepFailed(`not as expected: ${wrong.slice(0, 5).join('; ')}`);
        await ctx.sleep(ctx.pollMs);
      }
    }
    case 'wait-reassignment': {
      const deadline = ctx.now() + (ctx.options.reassignmentTimeoutMs ?? 6 * 3_600_000);
      const partitions = reassignedBy(plan, step.reassignStep);
      const mine = new Set(partitions.map((p) => `${p.topic}-${p.partition}`));
      for (;;) {
        const listed = await runningReassignments(deps.host);
        const left = listed.partitions.filter((r) => mine.has(`${r.topic}-${r.partition}`)).length;
        // A cut listing (SSM keeps 24,000 characters) cannot prove that anything finished.
        if (left === 0 && !listed.truncated) break;
        await deps.onProgress?.(
          listed.truncated
            ? `reassignment: ${listed.partitions.length}+ partition(s) still moving`
            : `reassignment: ${mine.size - left} of ${mine.size} partition(s) done`,
        );
        if (ctx.now() >= deadline) {
          throw new StepFailed(`partitions still moving after the time limit; the reassignment keeps running (throttle still set)`);
        }
        await ctx.sleep(ctx.pollMs);
      }
      if (!step.removesThrottle) return { detail: `all ${mine.size} partition(s) finished` };
      // --verify on the finished assignment removes the replication throttles it set.
      const lookup = snapshotLookup(await deps.readSnapshot());
      const assignment = partitions.map((tp) => ({ topic: tp.topic, partition: tp.partition, replicas: lookup(tp.topic, tp.partition)?.replicas ?? tp.replicas }));
      for (const batch of batches(assignment)) {
        const verify = await cli(deps.host, { action: 'reassign-verify', partitions: batch });
        const parsed = parseReassignmentVerify(verify.output);
        if (!verify.ok || !parsed.throttlesCleared) {
          throw new StepFailed(`reassignment finished but removing the throttles failed: ${lastLines(verify.output)}`);
        }
      }
      return { detail: `all ${mine.size} partition(s) finished; replication throttles removed` };
    }
    case 'verify-assignment': {
      const planned = reassignedBy(plan, step.reassignStep);
      const lookup = snapshotLookup(await deps.readSnapshot());
      const wrong = planned.filter((want) => lookup(want.topic, want.partition)?.replicas.join(',') !== want.replicas.join(','));
      if (wrong.length) throw new StepFailed(`${wrong.length} partition(s) do not have the planned replicas, e.g. ${wrong[0]!.topic}-${wrong[0]!.partition}`);
      return { detail: `${planned.length} partition(s) have the planned replicas` };
    }
  }
}

/** Tool calls carry at most this many partitions: arguments travel in the SSM command (size-limited). */
export const PARTITIONS_PER_CALL = 1_000;

function batches<T>(items: T[], size = PARTITIONS_PER_CALL): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function snapshotLookup(s: ClusterSnapshot) {
  const topics = new Map(s.topics.map((t) => [t.name, t]));
  return (topic: string, partition: number) => {
    const t = topics.get(topic);
    const direct = t?.partitions[partition];
    return direct?.partition === partition ? direct : t?.partitions.find((p) => p.partition === partition);
  };
}

/** Running reassignments; `truncated` when the transport cut the listing (there are many). */
async function runningReassignments(host: OperationHost) {
  const listed = await cli(host, { action: 'reassign-list' });
  const partitions = parseReassignmentList(listed.output);
  if (!listed.ok || partitions === null) throw new StepFailed(`could not list reassignments: ${lastLines(listed.output)}`);
  return { partitions, truncated: listed.execution.truncated };
}

async function cli(host: OperationHost, action: KafkaCliAction) {
  try {
    return await runKafkaCli(host, action);
  } catch (err) {
    throw new StepFailed(err instanceof Error ? err.message : String(err));
  }
}

/** The exact command a step runs, for dry runs and the thread. */
export function commandLine(host: Pick<OperationHost, 'kafkaBin' | 'bootstrap'>, step: PlanStep): string {
  switch (step.action) {
    case 'reassign':
    case 'wait-reassignment':
    case 'elect-leaders': {
      const args = step.args.map((a) => (a === '<bootstrap>' ? host.bootstrap : a));
      const extra = step.action === 'reassign' ? ` with ${JSON.stringify(step.input).slice(0, 300)}` : '';
      return `${host.kafkaBin}/${step.tool} ${args.join(' ')}${extra}`;
    }
    case 'verify-leaders':
    case 'verify-assignment':
      return `${host.kafkaBin}/kafka-topics.sh --bootstrap-server ${host.bootstrap} --describe`;
  }
}

/** The argv the operation script gets for a step (exposed for tests and audit). */
export function stepArgs(host: Pick<OperationHost, 'kafkaBin' | 'bootstrap'>, step: PlanStep): string[] | null {
  switch (step.action) {
    case 'reassign':
      return cliArgs(host, { action: 'reassign-execute', throttleBytesPerSec: step.throttleBytesPerSec, additional: false, partitions: step.input.partitions });
    case 'elect-leaders':
      return cliArgs(host, { action: 'elect', electionType: step.electionType, partitions: step.partitions });
    default:
      return null;
  }
}

function successSummary(plan: Plan): string {
  switch (plan.kind) {
    case 'leader-override':
      return `broker ${String(plan.params.replica)} leads ${String(plan.params.topic)}-${String(plan.params.partition)}`;
    case 'drain-broker':
      return plan.params.partial
        ? `moved every replica of broker ${String(plan.params.broker)} that had somewhere to go`
        : `broker ${String(plan.params.broker)} holds no replicas any more`;
    default:
      return `${plan.title}: done`;
  }
}

function describeChange(before: unknown, after: unknown): string {
  if (typeof before !== 'object' || before === null || typeof after !== 'object' || after === null) return 'state differs';
  const changed: string[] = [];
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = JSON.stringify(a[key]);
    const y = JSON.stringify(b[key]);
    if (x !== y) changed.push(key === 'partitions' ? 'partition assignment' : `${key} ${short(x)} → ${short(y)}`);
  }
  return changed.join(', ') || 'state differs';
}

function short(s: string | undefined): string {
  if (s === undefined) return 'absent';
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

function lastLines(text: string, n = 3): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^\[?\d{4}-\d\d-\d\d.*\bWARN\b/.test(l) && !/^\s*at /.test(l));
  return lines.slice(-n).join(' | ').slice(0, 600) || '(no output)';
}
