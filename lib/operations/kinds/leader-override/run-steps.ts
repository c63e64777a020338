// The leader override's own steps, after the election: confirming the
// partition takes acks=all writes again (verify-writable), committing idle
// groups at the new log end (commit-offsets), and checking the partition for
// hanging transactions (check-transactions), whose aborts the run's report proposes.
import type { PlanStep } from '../../types.ts';
import { WATCH_METADATA_MS, type StepContext, type StepHandlers, type StepOutcome } from '../../step-context.ts';
import { fatal } from '../../failures.ts';
import { tpName } from '../../../kafka/partitions.ts';
import { readTransactions, transactionVerdict } from '../../../kafka/transactions.ts';

declare module '../../types.ts' {
  interface PlanStepsByAction {
    'verify-writable': {
      /**
       * Leader override, right after the election: the partition takes an
       * acks=all write again, i.e. the chosen replica leads and the ISR holds
       * min.insync.replicas (what the leader checks before appending). Read
       * from Metadata, watched every 50 ms; nothing is written into the topic.
       */
      action: 'verify-writable';
      description: string;
      topic: string;
      partition: number;
      leader: number;
    };
    'commit-offsets': {
      /**
       * Leader override: groups whose committed offset lies beyond the new log
       * end are committed at the new end (read live, after the election), so
       * they do not reset per auto.offset.reset. Only groups without active
       * members; verified by reading the offsets back.
       */
      action: 'commit-offsets';
      description: string;
      topic: string;
      partition: number;
      groups: string[];
    };
    'check-transactions': {
      /**
       * Leader override, after the election: open transactions on the partition
       * read again (KIP-664); a hanging one is reported with the abort-transaction
       * plan to propose. Changes nothing.
       */
      action: 'check-transactions';
      description: string;
      topic: string;
      partition: number;
    };
  }
}

export type CheckTransactionsStep = Extract<PlanStep, { action: 'check-transactions' }>;

/** An abort-transaction request this check proposes (posted for two approvals by the run's report). */
export interface ProposedAbort {
  kind: 'abort-transaction';
  topic: string;
  partition: number;
  startOffset: number;
}

/** How long the check after an election waits for coordinators that cannot answer yet (the old leader may host them). */
export const CHECK_TRANSACTIONS_WAIT_MS = 5 * 60_000;

/**
 * After a leader override's election: reads the partition's open transactions
 * and their coordinators. Never fails the run (the election is done). While a
 * transaction's coordinator cannot be asked (its `__transaction_state`
 * partition leaderless, typically on the broker that was lost) it waits, up to
 * CHECK_TRANSACTIONS_WAIT_MS, so that the hanging verdict comes from the
 * coordinator's view and never from silence. Hanging ones come back in
 * `data.proposals` as abort-transaction requests: the run's report posts each
 * as a new plan for two approvals (lib/operations/follow-ups.ts).
 */
export async function checkTransactionsStep(step: CheckTransactionsStep, ctx: StepContext): Promise<StepOutcome> {
  const name = `${step.topic}-${step.partition}`;
  const view = await readTransactions(ctx.admin, { partitions: [{ topic: step.topic, partition: step.partition }], sampleWindowMs: 0 });
  if (view.status !== 'ok') return { status: 'done', detail: `transactions of ${name} could not be checked: ${view.reason}`, data: { proposals: [] } };
  const p = view.partitions.find((x) => x.topic === step.topic && x.partition === step.partition);
  const open = p?.openTransactions ?? [];
  if (open.length === 0) return { status: 'done', detail: `no open transaction on ${name}`, data: { proposals: [] } };
  const verdicts = open.map((t) => ({ t, v: transactionVerdict(t, view.maxTransactionTimeoutMs, view.at) }));
  const started = ctx.run.stepStartedAt || ctx.now();
  const unknown = verdicts.filter((x) => x.v.verdict === 'unknown');
  if (unknown.length > 0 && ctx.now() - started < CHECK_TRANSACTIONS_WAIT_MS) {
    const why = unknown[0]!.v.verdict === 'unknown' ? unknown[0]!.v.why : '';
    return { status: 'waiting', progress: `${name}: producer ${unknown[0]!.t.producerId} from offset ${unknown[0]!.t.firstOffset}: cannot tell yet (${why}); waiting for its coordinator` };
  }
  const proposals: ProposedAbort[] = [];
  const lines: string[] = [];
  for (const { t, v } of verdicts) {
    if (v.verdict === 'hanging') {
      proposals.push({ kind: 'abort-transaction', topic: step.topic, partition: step.partition, startOffset: t.firstOffset });
      lines.push(`HANGING: producer ${t.producerId} from offset ${t.firstOffset} (${v.why}); its abort is proposed for two approvals`);
    } else if (v.verdict === 'unknown') lines.push(`producer ${t.producerId} from offset ${t.firstOffset}: cannot tell yet (${v.why}); run /kafka transactions ${step.topic} once its coordinator answers`);
    else lines.push(`producer ${t.producerId} from offset ${t.firstOffset}: live (its coordinator will write the marker)`);
  }
  const lso = p?.samples.at(-1);
  return { status: 'done', detail: `${name}: LSO ${lso?.lastStableOffset ?? '?'}, high watermark ${lso?.highWatermark ?? '?'}; ${lines.join('; ')}`, data: { proposals } };
}

/**
 * Groups committed beyond the partition's new end would hit OFFSET_OUT_OF_RANGE
 * and reset per auto.offset.reset. Commit them at the new end (read live, after
 * the election) while they have no members, then read the offsets back.
 */
async function commitOffsets(step: Extract<PlanStep, { action: 'commit-offsets' }>, ctx: StepContext): Promise<StepOutcome> {
  const tp = { topic: step.topic, partition: step.partition };
  const [end] = await ctx.admin.listOffsets([tp], 'latest');
  if (!end || end.offset === null) throw fatal({ code: 'log-end-unreadable', partition: tpName(tp), errorCode: end?.errorCode ?? null });
  const newEnd = end.offset;
  const described = new Map((await ctx.admin.describeGroups(step.groups)).map((g) => [g.groupId, g]));
  const committed: string[] = [];
  const skipped: string[] = [];
  for (const groupId of step.groups) {
    const g = described.get(groupId);
    if (g && g.members > 0) {
      skipped.push(`${groupId} (${g.members === 1 ? '1 active member' : `${g.members} active members`}: it resets per auto.offset.reset)`);
      continue;
    }
    const [current] = await ctx.admin.fetchCommittedOffsets(groupId, [tp]);
    if (!current || current.offset <= newEnd) continue;
    const [result] = await ctx.admin.commitOffsets(groupId, [{ ...tp, offset: newEnd }]);
    if (!result || result.errorCode !== 0) {
      skipped.push(`${groupId} (commit refused: ${result?.error ?? result?.errorCode ?? 'no answer'})`);
      continue;
    }
    const [after] = await ctx.admin.fetchCommittedOffsets(groupId, [tp]);
    if (after?.offset !== newEnd) throw fatal({ code: 'commit-not-read-back', group: groupId, committed: newEnd, read: after?.offset ?? null });
    committed.push(`${groupId} ${current.offset} → ${newEnd}`);
  }
  const text = [
    committed.length ? `committed at the new end ${newEnd}: ${committed.join(', ')}` : `no group was beyond the new end ${newEnd}`,
    ...(skipped.length ? [`not committed: ${skipped.join(', ')}`] : []),
  ].join('; ');
  return { status: 'done', detail: text, data: { newEnd, committed: committed.length, skipped: skipped.length } };
}

/** How long the followers may take to rejoin the ISR before the run says the partition takes only acks=1 writes, and goes on. */
export const WRITABLE_WAIT_MS = 2 * 60_000;

/**
 * The outage ends when an acks=all producer is answered: the leader appends
 * only while the ISR holds min.insync.replicas. After an unclean election the
 * ISR is the new leader alone until the followers truncate and catch up.
 * Never fails the run (the election is done); says what it saw.
 */
async function verifyWritable(step: Extract<PlanStep, { action: 'verify-writable' }>, ctx: StepContext): Promise<StepOutcome> {
  const name = tpName(step);
  const snapshot = await ctx.snapshot();
  const topic = snapshot.topics.find((t) => t.name === step.topic);
  const p = topic?.partitions.find((x) => x.partition === step.partition);
  const minIsr = topic?.config?.minInsyncReplicas ?? null;
  const isr = p?.isr.join(',') || 'empty';
  const leads = p?.leader === step.leader && p.isr.includes(step.leader);
  if (leads && minIsr === null) return { status: 'done', detail: `broker ${step.leader} leads ${name}, ISR ${isr}; min.insync.replicas could not be read: acks=all writes not confirmed`, data: { writable: null } };
  if (leads && p.isr.length >= minIsr!) return { status: 'done', detail: `${name} takes acks=all writes: leader ${step.leader}, ISR ${isr} (min.insync.replicas ${minIsr})`, data: { writable: true }, phase: 'writable' };
  // Only a live broker can join the ISR: with fewer live replicas than min.insync.replicas no wait ends it.
  const live = new Set(snapshot.brokers.map((b) => b.id));
  const liveReplicas = p?.replicas.filter((r) => live.has(r)).length ?? 0;
  if (p && minIsr !== null && liveReplicas < minIsr) {
    return { status: 'done', detail: `${name} has ${liveReplicas} live replicas, fewer than min.insync.replicas ${minIsr}: acks=all writes are refused until a replica is added (raise-rf) or a broker is back; acks=1 writes are taken`, data: { writable: false } };
  }
  const waiting = `leader ${p ? (p.leader < 0 ? 'none' : p.leader) : '?'}, ISR ${isr} of min.insync.replicas ${minIsr ?? '?'}`;
  if (ctx.now() - ctx.run.stepStartedAt > WRITABLE_WAIT_MS) {
    return { status: 'done', detail: `${name} does not take acks=all writes yet (${waiting}): its followers have not caught up; acks=1 writes are taken`, data: { writable: false } };
  }
  return { status: 'waiting', progress: `waiting for ${name} to take acks=all writes: ${waiting}`, lookAgainMs: WATCH_METADATA_MS };
}

/** The leader override's own step actions, registered with the kind. */
export const LEADER_OVERRIDE_STEPS: StepHandlers = { 'verify-writable': verifyWritable, 'commit-offsets': commitOffsets, 'check-transactions': checkTransactionsStep };
