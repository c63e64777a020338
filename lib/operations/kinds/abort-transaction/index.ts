// abort-transaction: end a hanging transaction (one its coordinator no
// longer has ongoing on this partition, typically after a leader override
// truncated its COMMIT marker away) with the ABORT marker
// `kafka-transactions.sh abort --start-offset` writes. Two approvals; before
// running, the live state is read again (measure → fingerprint): the same
// producer must still hold a hanging transaction at that offset. A live
// transaction (lso-stalled) is refused: its producer or coordinator ends it.
// `/kafka abort-transaction <topic> <partition> <start-offset> [cluster]`.
import * as z from 'zod';
import type { KafkaAdmin } from '../../../kafka/admin.ts';
import { PartitionId, TopicName, fromText } from '../../../kafka/names.ts';
import { groupsAtLso, readTransactions, transactionVerdict } from '../../../kafka/transactions.ts';
import type { ClusterSnapshot, OpenTransaction, TransactionsView } from '../../../kafka/types.ts';
import { nothingOwed } from '../../compensation.ts';
import { ABORT_TRANSACTION_STEPS } from './steps.ts';
import { trailingCluster, type OperationIo, type OperationKind } from '../../kind.ts';
import { basePreconditions, findPartition, finishPlan, invalidRequest } from '../../planners.ts';
import type { PlanOf, PlanResult } from '../../types.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    'abort-transaction': AbortTransactionParams;
  }
}

export const AbortTransactionRequest = z.object({
  topic: TopicName,
  partition: fromText(PartitionId),
  startOffset: fromText(z.number({ error: 'start offset must be an integer' }).int('start offset must be an integer').min(0, 'start offset must be ≥ 0')),
});

export interface AbortTransactionParams {
  topic: string;
  partition: number;
  startOffset: number;
  producerId: number;
  producerEpoch: number;
  transactionalId: string | null;
  /** Why it hangs (transactionVerdict's code). */
  why: string;
  /** read_committed groups stopped at the LSO when planned (verified after the abort). */
  groups: string[];
  lso: number | null;
  highWatermark: number | null;
}

/** What the fingerprint binds: the transaction still open at that offset, by the same producer, still hanging. */
interface Measured {
  open: { producerId: number; producerEpoch: number; verdict: string } | null;
}

function openAt(view: TransactionsView, topic: string, partition: number, startOffset: number): OpenTransaction | null {
  const p = view.partitions.find((x) => x.topic === topic && x.partition === partition);
  return p?.openTransactions.find((t) => t.firstOffset === startOffset) ?? null;
}

async function readLive(admin: KafkaAdmin, s: ClusterSnapshot, topic: string, partition: number): Promise<TransactionsView> {
  const configBroker = s.brokers.find((b) => !s.unreachableBrokers.includes(b.id))?.id ?? null;
  return readTransactions(admin, { partitions: [{ topic, partition }], configBroker, sampleWindowMs: 0 });
}

function measuredOf(view: TransactionsView, params: { topic: string; partition: number; startOffset: number }): Measured {
  const t = openAt(view, params.topic, params.partition, params.startOffset);
  return { open: t ? { producerId: t.producerId, producerEpoch: t.producerEpoch, verdict: transactionVerdict(t, view.maxTransactionTimeoutMs, view.at).verdict } : null };
}

function preconditions(params: AbortTransactionParams, s: ClusterSnapshot, measured: unknown): Record<string, unknown> {
  return { ...basePreconditions('abort-transaction', s), topic: params.topic, partition: params.partition, startOffset: params.startOffset, measured: (measured as Measured | undefined) ?? null };
}

/** Pure: the plan from the snapshot and the live transactions view of that partition. */
export function planAbortTransaction(s: ClusterSnapshot, view: TransactionsView, request: unknown): PlanResult<PlanOf<'abort-transaction'>> {
  const parsed = AbortTransactionRequest.safeParse(request);
  if (!parsed.success) return { ok: false, refusal: invalidRequest(parsed.error) };
  const { topic, partition, startOffset } = parsed.data;
  const found = findPartition(s, topic, partition);
  if ('refusal' in found) return { ok: false, refusal: found.refusal };
  const where = `${topic}-${partition}`;
  if (view.status !== 'ok') return { ok: false, refusal: { code: 'transactions-unavailable', reason: view.reason } };
  const t = openAt(view, topic, partition, startOffset);
  if (!t) return { ok: false, refusal: { code: 'no-open-transaction', partition: where, startOffset } };
  const v = transactionVerdict(t, view.maxTransactionTimeoutMs, view.at);
  if (v.verdict === 'live') return { ok: false, refusal: { code: 'transaction-live', partition: where, startOffset, transactionalId: t.coordinatorView.transactionalId, producerId: t.producerId } };
  if (v.verdict === 'unknown') return { ok: false, refusal: { code: 'transaction-unknown', partition: where, startOffset, reason: v.why } };
  const p = view.partitions.find((x) => x.topic === topic && x.partition === partition)!;
  const last = p.samples.at(-1);
  const groups = groupsAtLso(s, p);
  const params: AbortTransactionParams = {
    topic,
    partition,
    startOffset,
    producerId: t.producerId,
    producerEpoch: t.producerEpoch,
    transactionalId: t.coordinatorView.transactionalId,
    why: v.why,
    groups,
    lso: last?.lastStableOffset ?? null,
    highWatermark: last?.highWatermark ?? null,
  };
  return {
    ok: true,
    plan: finishPlan(s, 'abort-transaction', params, preconditions(params, s, measuredOf(view, params)), {
      title: `abort the hanging transaction of producer ${t.producerId} on ${where} from offset ${startOffset}`,
      steps: [
        { action: 'abort-transaction', description: `write the ABORT marker for producer ${t.producerId} on ${where} (as kafka-transactions.sh abort)`, topic, partition, startOffset, producerId: t.producerId },
        { action: 'verify-lso', description: `verify the last stable offset of ${where} moved past ${startOffset}`, topic, partition, startOffset, groups },
      ],
      impact: { risk: 'medium', partitionsAffected: 1 },
      warnings: [{ code: 'aborted-records-skipped', partition: where, startOffset, lso: params.lso, highWatermark: params.highWatermark }],
    }),
  };
}

/**
 * A coordinator that cannot be asked (its __transaction_state partition loading
 * or without a leader, as right after the election that made this transaction
 * hang) is a matter of seconds: the planner asks again for a while before it
 * answers "cannot tell", so the abort a run proposes is not lost to it.
 */
export async function planWhenCoordinatorsAnswer(
  read: () => Promise<TransactionsView>,
  plan: (view: TransactionsView) => PlanResult<PlanOf<'abort-transaction'>>,
  opts: { forMs?: number; everyMs?: number; wait?: (ms: number) => Promise<void> } = {},
): Promise<PlanResult<PlanOf<'abort-transaction'>>> {
  const until = Date.now() + (opts.forMs ?? 30_000);
  const wait = opts.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (;;) {
    const result = plan(await read());
    if (result.ok || result.refusal.code !== 'transaction-unknown' || Date.now() >= until) return result;
    await wait(opts.everyMs ?? 1_000);
  }
}

const WHY: Record<string, string> = {
  'coordinator-moved-on': 'its coordinator has finished it and no longer writes a marker here',
  'coordinator-not-found': 'no transaction coordinator knows its producer',
  'other-producer': 'its transactional id now belongs to another producer',
  'older-than-max-timeout': "it is older than the brokers' transaction.max.timeout.ms",
};

export const abortTransaction: OperationKind<'abort-transaction'> = {
  kind: 'abort-transaction',
  steps: ABORT_TRANSACTION_STEPS,
  summary: 'plan aborting a hanging transaction (one no coordinator will close) so read_committed consumers can pass it',
  request: AbortTransactionRequest,
  commands: [
    {
      name: 'abort-transaction',
      usage: 'abort-transaction <topic> <partition> <start-offset> [cluster]',
      parse(args, isCluster) {
        const { rest, cluster } = trailingCluster(args, isCluster);
        if (rest.length !== 3) return { error: 'name the topic, the partition and the transaction\'s start offset (from the hanging-transaction finding)' };
        const [topic, partition, startOffset] = rest as [string, string, string];
        return { fields: { topic, partition, startOffset }, ...(cluster ? { cluster } : {}) };
      },
    },
  ],
  describeRequest: (r) => `abort the transaction open at offset ${String(r.startOffset)} of ${String(r.topic)}-${String(r.partition)}`,
  exclusive: false,
  topics: (params) => [params.topic],
  async plan(io: OperationIo, request) {
    const r = AbortTransactionRequest.parse(request);
    const s = await io.snapshot([r.topic]);
    const admin = await io.openAdmin();
    try {
      return await planWhenCoordinatorsAnswer(() => readLive(admin, s, r.topic, r.partition), (view) => planAbortTransaction(s, view, r));
    } finally {
      await admin.close();
    }
  },
  async measure(_io, plan, live) {
    return measuredOf(await readLive(live.admin, await live.snapshot(), plan.params.topic, plan.params.partition), plan.params);
  },
  preconditions,
  recheckOnResume: () => true,
  compensate: nothingOwed,
  render: {
    headline: (plan) => {
      const p = plan.params;
      return [
        `Aborts the transaction of producer ${p.producerId}${p.transactionalId ? ` (transactional id ${p.transactionalId})` : ''} left open on ${p.topic}-${p.partition} from offset ${p.startOffset}: ${WHY[p.why] ?? p.why}.`,
        `Its records stay in the log but read_committed consumers skip them; they pass the last stable offset (${p.lso ?? 'unknown'}) up to the high watermark (${p.highWatermark ?? 'unknown'}).` +
          (p.groups.length ? ` Stopped there now: ${p.groups.join(', ')}.` : ''),
      ];
    },
    success: (plan) => `transaction aborted; ${plan.params.topic}-${plan.params.partition}'s last stable offset is past ${plan.params.startOffset}`,
    notice: (n) => {
      switch (n.code) {
        case 'aborted-records-skipped':
          return `the records of this transaction from offset ${String(n.startOffset)} on ${String(n.partition)} become aborted: read_committed consumers never see them (its COMMIT marker was lost; the producer believed them committed)`;
        case 'no-open-transaction':
          return `no transaction is open at offset ${String(n.startOffset)} of ${String(n.partition)} (it may have ended since the finding)`;
        case 'transaction-live':
          return `the transaction at offset ${String(n.startOffset)} of ${String(n.partition)} is live: coordinator${n.transactionalId ? ` of ${String(n.transactionalId)}` : ''} still has it ongoing there; its producer commits or aborts it, or the coordinator aborts it at its timeout. Not aborting a live transaction.`;
        case 'transaction-unknown':
          return `cannot tell whether the transaction at offset ${String(n.startOffset)} of ${String(n.partition)} hangs: ${String(n.reason)}. Try again once its coordinator answers.`;
        case 'transactions-unavailable':
          return `transactions cannot be read on this cluster: ${String(n.reason)}`;
        case 'abort-refused':
          return `the leader refused the ABORT marker for ${String(n.partition)}: ${String(n.error)}`;
        case 'describe-producers-failed':
          return `could not read the producers of ${String(n.partition)}: ${String(n.error)}`;
        case 'lso-unknown':
          return `could not read the last stable offset of ${String(n.partition)}: ${String(n.error)}`;
        case 'lso-not-moved':
          return `the last stable offset of ${String(n.partition)} stayed at ${String(n.lso)} after the abort (another open transaction may hold it: run /kafka transactions)`;
        default:
          return undefined;
      }
    },
  },
};
