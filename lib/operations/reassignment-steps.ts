// The steps shared by the kinds that move replicas or leaders (reassign, elect,
// wait for the copy, verify, remove our throttles), over the Kafka protocol.
// Each step is idempotent: a worker that resumes a run repeats the step it was
// on, and repeating it changes nothing that the first attempt already did.

import type { KafkaAdmin } from '../kafka/admin.ts';
import { KafkaErrorCode } from '../kafka/errors.ts';
import { partitionLookup, tpKey, tpName } from '../kafka/partitions.ts';
import { formatBytes } from '../runtime/format.ts';
import { applyThrottles, describeLedger, removeThrottles, setThrottles, throttleLedgerFor } from './throttles.ts';
import type { Plan, PlanStep, TopicPartition } from './types.ts';
import type { PartitionAssignment } from './validate.ts';
import { fatal } from './failures.ts';
import { listOf } from './lists.ts';
import { WATCH_METADATA_MS, type StepContext, type StepHandlers, type StepOutcome } from './step-context.ts';

/** How long a leader may take to show up after an election before the step fails. */
export const VERIFY_LEADERS_TIMEOUT_MS = 60_000;
/** Partitions per AlterPartitionReassignments / ElectLeaders request. */
const PARTITIONS_PER_REQUEST = 1_000;
const key = (tp: TopicPartition) => tpKey(tp.topic, tp.partition);
const count = (n: number) => (n === 1 ? '1 partition' : `${n.toLocaleString('en-US')} partitions`);

function batches<T>(items: readonly T[], size = PARTITIONS_PER_REQUEST): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The target assignment of the plan's reassign step at `index`. */
export function reassignedBy(plan: Plan, index: number): PartitionAssignment[] {
  const step = plan.steps[index];
  if (step?.action !== 'reassign') throw fatal({ code: 'unexpected-error', message: `plan step ${index + 1} is not a reassignment` });
  return step.partitions;
}

/** Partitions of this set still being reassigned, as the controller lists them. */
export async function stillMoving(admin: KafkaAdmin, partitions: readonly TopicPartition[]) {
  const mine = new Set(partitions.map(key));
  const listed = await admin.listPartitionReassignments(partitions.length <= 5_000 ? [...partitions] : null);
  return listed.filter((r) => mine.has(key(r)));
}

async function reassign(step: Extract<PlanStep, { action: 'reassign' }>, ctx: StepContext): Promise<StepOutcome> {
  let throttleText = '';
  if (step.throttleBytesPerSec !== null) {
    // On a resume the partitions may already be moving (their replica lists then include the
    // new ones): the ledger written the first time is the truth, never recompute it.
    let ledger = await ctx.ledger.get();
    if (!ledger) {
      const lookup = partitionLookup(await ctx.snapshot());
      const wanted = throttleLedgerFor(step.partitions, (t, p) => lookup(t, p)?.replicas, step.throttleBytesPerSec);
      ledger = await applyThrottles(ctx.admin, wanted, (l) => ctx.ledger.put(l));
    } else {
      await setThrottles(ctx.admin, ledger);
    }
    throttleText = `; replication throttled: ${describeLedger(ledger)}`;
  }
  const failed: { name: string; error: string }[] = [];
  for (const batch of batches(step.partitions)) {
    const results = await ctx.admin.alterPartitionReassignments(batch.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })));
    for (const r of results) if (r.errorCode !== 0) failed.push({ name: tpName(r), error: `${tpName(r)}: ${r.error ?? `error ${r.errorCode}`}` });
  }
  if (failed.length) throw fatal({ code: 'reassignment-refused', partitions: listOf(failed.map((f) => f.name)), errors: failed.slice(0, 5).map((f) => f.error) });
  return { status: 'done', detail: `reassignment of ${count(step.partitions.length)} accepted by the controller${throttleText}` };
}

async function electLeaders(step: Extract<PlanStep, { action: 'elect-leaders' }>, ctx: StepContext): Promise<StepOutcome> {
  let elected = 0;
  let already = 0;
  const failed: { name: string; error: string }[] = [];
  for (const batch of batches(step.partitions)) {
    for (const r of await ctx.admin.electLeaders(step.electionType, batch)) {
      if (r.errorCode === 0) elected++;
      else if (r.errorCode === KafkaErrorCode.ELECTION_NOT_NEEDED) already++;
      else failed.push({ name: tpName(r), error: `${tpName(r)}: ${r.error ?? `error ${r.errorCode}`}` });
    }
  }
  if (failed.length) throw fatal({ code: 'election-failed', electionType: step.electionType, partitions: listOf(failed.map((f) => f.name)), errors: failed.slice(0, 5).map((f) => f.error) });
  return {
    status: 'done',
    detail: `${step.electionType} election: ${elected} elected, ${already} already had the leader the election would give`,
    data: { elected, alreadyElected: already },
  };
}

/**
 * Copy progress kept across polls (and invocations). Totals are fixed at the
 * first poll, so "done" only grows as partitions finish; the rate is the
 * average since the first poll: Kafka's throttle moves data in bursts, a
 * rate between two polls a few seconds apart is mostly 0 or a spike.
 */
interface CopyProgress {
  at: number;
  partitionsTotal: number;
  partitionsLeft: number;
  totalBytes: number;
  doneBytes: number;
  firstAt: number;
  firstDoneBytes: number;
  /** Bytes per second since the first poll, once there is a second one. */
  rate: number | null;
}

async function measureCopy(admin: KafkaAdmin, moving: Awaited<ReturnType<typeof stillMoving>>, lookup: ReturnType<typeof partitionLookup>) {
  const adding = new Set<number>();
  const sources = new Set<number>();
  for (const m of moving) {
    for (const r of m.addingReplicas) adding.add(r);
    const leader = lookup(m.topic, m.partition)?.leader;
    if (leader !== undefined && leader >= 0) sources.add(leader);
  }
  const brokers = [...new Set([...adding, ...sources])];
  const sizes = await admin.describeLogDirs(brokers, moving.map((m) => ({ topic: m.topic, partition: m.partition })));
  const sizeOn = (broker: number, tp: TopicPartition): number | null => {
    const b = sizes.get(broker);
    if (!b || b.error) return null;
    let best: number | null = null;
    for (const d of b.logDirs) for (const p of d.partitions) if (p.topic === tp.topic && p.partition === tp.partition) best = Math.max(best ?? 0, p.sizeBytes);
    return best;
  };
  let copied = 0;
  let target = 0;
  const silent: number[] = [];
  for (const m of moving) {
    const leader = lookup(m.topic, m.partition)?.leader ?? -1;
    const source = leader >= 0 ? sizeOn(leader, m) : null;
    for (const r of m.addingReplicas) {
      const have = sizeOn(r, m);
      if (have === null && !silent.includes(r)) silent.push(r);
      copied += Math.min(have ?? 0, source ?? have ?? 0);
      target += source ?? have ?? 0;
    }
  }
  return { copied, target, silent };
}

function formatDuration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

async function waitReassignment(step: Extract<PlanStep, { action: 'wait-reassignment' }>, ctx: StepContext): Promise<StepOutcome> {
  const partitions = reassignedBy(ctx.plan, step.reassignStep);
  const moving = await stillMoving(ctx.admin, partitions);
  if (moving.length === 0) return { status: 'done', detail: partitions.length === 1 ? 'the partition finished copying' : `all ${count(partitions.length)} finished copying` };

  const snapshot = await ctx.snapshot();
  const lookup = partitionLookup(snapshot);
  const live = new Set(snapshot.brokers.map((b) => b.id));
  const { copied, target, silent } = await measureCopy(ctx.admin, moving, lookup);
  const previous = ctx.run.progress?.data as Partial<CopyProgress> | undefined;
  const now = ctx.now();
  const totalBytes = Math.max(previous?.totalBytes ?? 0, target);
  const doneBytes = Math.max(previous?.doneBytes ?? 0, totalBytes - Math.max(0, target - copied));
  const firstAt = previous?.firstAt ?? now;
  const firstDoneBytes = previous?.firstDoneBytes ?? doneBytes;
  const rate = now - firstAt >= 1_000 ? ((doneBytes - firstDoneBytes) / (now - firstAt)) * 1000 : null;
  const progress: CopyProgress = { at: now, partitionsTotal: partitions.length, partitionsLeft: moving.length, totalBytes, doneBytes, firstAt, firstDoneBytes, rate };
  const done = partitions.length - moving.length;
  const parts = [`${done} of ${count(partitions.length)} done`, `${formatBytes(doneBytes)} of ${formatBytes(totalBytes)} copied`];
  if (rate !== null && rate > 0) parts.push(`${formatBytes(rate)}/s`, `ETA ${formatDuration(Math.max(0, totalBytes - doneBytes) / rate)}`);
  else if (rate !== null) parts.push(`no bytes copied for ${formatDuration((now - firstAt) / 1000)}`);
  const down = [...new Set(moving.flatMap((m) => [...m.replicas, ...m.addingReplicas]))].filter((b) => !live.has(b)).sort((a, b) => a - b);
  if (down.length) parts.push(`broker ${down.join(', ')} is down: its partitions cannot finish until it is back (or cancel)`);
  else if (silent.length) parts.push(`broker ${silent.join(', ')} did not report sizes`);
  return { status: 'waiting', progress: parts.join(' · '), data: progress as unknown as Record<string, unknown> };
}

async function removeOurThrottles(ctx: StepContext): Promise<StepOutcome> {
  const ledger = await ctx.ledger.get();
  if (!ledger) return { status: 'done', detail: 'this operation set no throttles' };
  const removal = await removeThrottles(ctx.admin, ledger);
  if (!removal.complete) {
    // Not a failure of the operation: the data moved. The terminal cleanup and the sweep retry it.
    return { status: 'done', detail: `throttles removed except: ${removal.problems.slice(0, 3).join('; ')} (retried until gone)`, data: { throttlesLeft: true } };
  }
  return { status: 'done', detail: `replication throttles removed (${describeLedger(ledger)})` };
}

async function verifyLeaders(step: Extract<PlanStep, { action: 'verify-leaders' }>, ctx: StepContext): Promise<StepOutcome> {
  const lookup = partitionLookup(await ctx.snapshot());
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
    const first = states[0] as { isr?: number[] } | undefined;
    return {
      status: 'done',
      detail: step.expected.length === 1 ? `leader ${step.expected[0]!.leader}, isr ${first?.isr?.join(',') ?? '?'}` : `${count(step.expected.length)} have the expected leader`,
      data: { partitions: states },
      phase: 'elected',
    };
  }
  if (ctx.now() - ctx.run.stepStartedAt > VERIFY_LEADERS_TIMEOUT_MS) throw fatal({ code: 'leaders-not-as-expected', wrong: wrong.slice(0, 5) });
  return { status: 'waiting', progress: `waiting for the new leader: ${wrong.slice(0, 3).join('; ')}`, lookAgainMs: WATCH_METADATA_MS };
}

async function verifyAssignment(step: Extract<PlanStep, { action: 'verify-assignment' }>, ctx: StepContext): Promise<StepOutcome> {
  const planned = reassignedBy(ctx.plan, step.reassignStep);
  const lookup = partitionLookup(await ctx.snapshot());
  const wrong = planned.filter((want) => lookup(want.topic, want.partition)?.replicas.join(',') !== want.replicas.join(','));
  if (wrong.length) {
    const ex = wrong[0]!;
    throw fatal({ code: 'assignment-not-as-planned', partitions: wrong.length, example: tpName(ex), actual: lookup(ex.topic, ex.partition)?.replicas.join(',') ?? 'missing', planned: ex.replicas.join(',') });
  }
  return { status: 'done', detail: `${count(planned.length)} ${planned.length === 1 ? 'has' : 'have'} the planned replicas` };
}

/** The shared steps, by action: the registry adds each kind's own. */
export const REASSIGNMENT_STEPS: StepHandlers = {
  reassign,
  'elect-leaders': electLeaders,
  'wait-reassignment': waitReassignment,
  'remove-throttles': (_step, ctx) => removeOurThrottles(ctx),
  'verify-leaders': verifyLeaders,
  'verify-assignment': verifyAssignment,
};
