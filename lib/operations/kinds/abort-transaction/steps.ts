// The abort-transaction plan's steps (registered by ./index.ts):
//   abort-transaction: the ABORT marker `kafka-transactions.sh abort` writes
//     (WriteTxnMarkers at the partition's leader). Idempotent: it first asks the
//     leader (DescribeProducers) whether that transaction is still open at
//     that offset; once it is closed there is nothing to send.
//   verify-lso: the partition's last stable offset (ListOffsets READ_COMMITTED)
//     moved past the transaction's first offset, so read_committed consumers
//     stopped there can advance; waits across ticks up to a bound.
import type { PlanStep } from '../../types.ts';
import type { StepContext, StepHandlers, StepOutcome } from '../../step-context.ts';
import { fatal, transient } from '../../failures.ts';

declare module '../../types.ts' {
  interface PlanStepsByAction {
    'abort-transaction': {
      /** The ABORT marker of kafka-transactions.sh abort for the transaction open at startOffset. */
      action: 'abort-transaction';
      description: string;
      topic: string;
      partition: number;
      startOffset: number;
      producerId: number;
    };
    'verify-lso': {
      /** The last stable offset moved past startOffset; the groups stopped there are reported. */
      action: 'verify-lso';
      description: string;
      topic: string;
      partition: number;
      startOffset: number;
      groups: string[];
    };
  }
}

export type AbortStep = Extract<PlanStep, { action: 'abort-transaction' }>;
export type VerifyLsoStep = Extract<PlanStep, { action: 'verify-lso' }>;

export const VERIFY_LSO_TIMEOUT_MS = 60_000;

/** Errors where Java's abort finds the leader again and retries; anything else stops the run. */
const RETRIABLE = new Set([5, 6, 3, 8, 7, 13, 15, 14]);

export async function abortTransactionStep(step: AbortStep, ctx: StepContext): Promise<StepOutcome> {
  const tp = { topic: step.topic, partition: step.partition };
  const [now] = await ctx.admin.describeProducers([tp]);
  if (!now || now.errorCode !== 0) throw transient({ code: 'describe-producers-failed', partition: `${step.topic}-${step.partition}`, error: now?.error ?? 'no answer' });
  const open = now.producers.find((p) => p.producerId === step.producerId && p.currentTxnStartOffset === step.startOffset);
  if (!open) return { status: 'done', detail: `no transaction of producer ${step.producerId} is open at offset ${step.startOffset} of ${step.topic}-${step.partition} any more: nothing to abort` };
  const res = await ctx.admin.abortTransaction({ ...tp, producerId: open.producerId, producerEpoch: open.producerEpoch, coordinatorEpoch: open.coordinatorEpoch });
  if (res.errorCode === 0) return { status: 'done', detail: `ABORT marker written for producer ${open.producerId} epoch ${open.producerEpoch} on ${step.topic}-${step.partition} (leader ${res.leader})` };
  const notice = { code: 'abort-refused', partition: `${step.topic}-${step.partition}`, error: res.error ?? `error ${res.errorCode}` };
  throw RETRIABLE.has(res.errorCode) ? transient(notice) : fatal(notice);
}

export async function verifyLsoStep(step: VerifyLsoStep, ctx: StepContext): Promise<StepOutcome> {
  const tp = { topic: step.topic, partition: step.partition };
  const [lso] = await ctx.admin.listOffsets([tp], 'last-stable');
  if (!lso || lso.offset === null) throw transient({ code: 'lso-unknown', partition: `${step.topic}-${step.partition}`, error: lso?.error ?? 'no answer' });
  if (lso.offset > step.startOffset) {
    const groups: string[] = [];
    for (const [g, offset] of await groupsAtOldLso(step, ctx, lso.offset)) groups.push(`${g} at ${offset} can read up to ${lso.offset}`);
    return { status: 'done', detail: `last stable offset of ${step.topic}-${step.partition} is ${lso.offset}, past ${step.startOffset}${groups.length ? `; ${groups.join('; ')}` : ''}`, data: { lso: lso.offset } };
  }
  const started = ctx.run.stepStartedAt || ctx.now();
  if (ctx.now() - started > VERIFY_LSO_TIMEOUT_MS) throw fatal({ code: 'lso-not-moved', partition: `${step.topic}-${step.partition}`, lso: lso.offset, startOffset: step.startOffset });
  return { status: 'waiting', progress: `last stable offset still ${lso.offset}` };
}

/**
 * The groups stopped by the transaction, with their committed offset now: the
 * plan's (stopped when it was made) and any group of a fresh snapshot whose
 * offset on this partition sits between the transaction's start (one below:
 * kafkajs commits the COMMIT marker's offset) and the new LSO — a consumer that
 * joined after the plan was made stalls there too.
 */
async function groupsAtOldLso(step: VerifyLsoStep, ctx: StepContext, lso: number): Promise<Map<string, number>> {
  const tp = { topic: step.topic, partition: step.partition };
  const out = new Map<string, number>();
  for (const g of step.groups) {
    const [c] = await ctx.admin.fetchCommittedOffsets(g, [tp]).catch(() => []);
    if (c && c.offset >= 0) out.set(g, c.offset);
  }
  const sample = await ctx
    .snapshot()
    .then((s) => s.consumerSamples?.at(-1))
    .catch(() => undefined);
  for (const g of sample?.groups ?? []) {
    const o = g.offsets.find((x) => x.topic === step.topic && x.partition === step.partition);
    if (o && o.offset >= step.startOffset - 1 && o.offset <= lso && !out.has(g.groupId)) out.set(g.groupId, o.offset);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The abort's own step actions, registered with the kind. */
export const ABORT_TRANSACTION_STEPS: StepHandlers = { 'abort-transaction': abortTransactionStep, 'verify-lso': verifyLsoStep };
