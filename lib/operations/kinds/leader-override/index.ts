// leader-override: put a chosen replica in charge of a leaderless partition,
// saying honestly what that loses before anyone approves. The planner and the
// loss arithmetic are in ./plan.ts, the measurements in
// ./gather.ts; this module is the kind: its schema, command,
// fingerprint (which binds each replica's measured end), compensation and prose.

import { reassignmentCompensation } from '../../compensation.ts';
import type { Notice } from '../../failures.ts';
import { trailingCluster, type OperationIo, type OperationKind } from '../../kind.ts';
import { boundSizes, leaderOverridePreconditions, planLeaderOverride, type LeaderOverrideNotice, type LeaderOverrideParams } from './plan.ts';
import { gatherLeaderOverrideInputs, replicaSizes } from './gather.ts';
import type { ReplicaHost } from './replica-data.ts';
import { LEADER_OVERRIDE_STEPS } from './run-steps.ts';
import type { Executor } from '../../../hosts/types.ts';
import type { LeaderOverrideInputs } from './plan.ts';
import { ELR_ROLE_TEXT, elrStateText, returnElectionText } from './elr.ts';
import { brokerList, candidateLossText, consumerGroupLines, lossHeadline } from './loss-text.ts';
import { tpName } from '../../../kafka/partitions.ts';
import { formatBytes, formatCount } from '../../../runtime/format.ts';
import type { LeaderCandidate, PlanOf, PlanResult } from '../../types.ts';
import { LeaderOverrideRequest } from './request.ts';
import { liveIds, plural } from '../../planners.ts';
import type { ClusterSnapshot } from '../../../kafka/types.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    'leader-override': LeaderOverrideParams;
  }
}

declare module '../../capabilities.ts' {
  interface Capabilities {
    /** Where replicas can be measured on their hosts (kafka-dump-log.sh); null without host access or a Kafka bin dir. */
    replicaHosts(replicas: number[]): Promise<{ executor: Executor; replicas: ReplicaHost[] } | null>;
  }
}


type Plan = PlanOf<'leader-override'>;

/** A broker that stops answering during the re-check must not hold the election back long: a size unread is bound as null. */
const RECHECK_LOG_DIRS_MS = 5_000;

/** The replicas and live brokers the plan was made against, from its stored preconditions (absent when they were summarized). */
function plannedReplicas(pre: Record<string, unknown>): { replicas: number[]; live: Set<number> } | null {
  const { replicas, liveBrokers } = pre;
  const ids = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'number');
  return ids(replicas) && ids(liveBrokers) ? { replicas: replicas as number[], live: new Set(liveBrokers as number[]) } : null;
}

function replicasIn(s: ClusterSnapshot, tp: { topic: string; partition: number }): { replicas: number[]; live: Set<number> } | null {
  const part = s.topics.find((t) => t.name === tp.topic)?.partitions.find((p) => p.partition === tp.partition);
  return part ? { replicas: part.replicas, live: new Set(liveIds(s)) } : null;
}

/** Replica data and committed offsets for one partition, through the admin (and the hosts, where there is access). */
async function gather(io: OperationIo, topic: string, partition: number, replicas: number[]): Promise<LeaderOverrideInputs> {
  const admin = await io.openAdmin();
  try {
    const hosts = (await io.replicaHosts?.(replicas)) ?? null;
    return await gatherLeaderOverrideInputs({ admin, ...(hosts ? { hosts } : {}) }, topic, partition, replicas);
  } finally {
    await admin.close().catch(() => undefined);
  }
}

function noticeText(n: Notice): string | undefined {
  const d = n as LeaderOverrideNotice;
  switch (d.code) {
    case 'open-transactions-on-replica':
      return (
        `Transactions: broker ${d.broker}'s copy of ${d.partition} holds ${d.transactions.length === 1 ? 'a transaction' : `${d.transactions.length} transactions`} with no COMMIT or ABORT marker ` +
        `(${d.transactions.map((t) => `producer ${t.producerId} from offset ${t.firstOffset}`).join(', ')}). If the marker was only on the lost leader, the truncation drops it: ` +
        `once broker ${d.broker} leads, read_committed consumers (Kafka Streams exactly-once, many Java consumers) stop at that offset, with no error, until the transaction is aborted. ` +
        'The run checks right after the election and proposes the abort for two approvals.'
      );
    case 'transactional-producers':
      return `Transactions: transactional producers write to ${d.partition}${d.brokers.length ? ` (seen on ${brokerList(d.brokers)})` : ''}. The truncation to broker ${d.broker}'s log can drop COMMIT/ABORT markers; the run checks for hanging transactions right after the election.`;
    case 'markers-on-lost-tail':
      return `Transactions: broker ${d.broker}'s log holds ${plural(d.markers, 'COMMIT/ABORT marker')} from offset ${d.firstOffset} on (producer${d.producers.length === 1 ? '' : 's'} ${d.producers.join(', ')}), past broker ${d.from}'s end: the election drops ${d.markers === 1 ? 'it' : 'them'}, so the transaction${d.markers === 1 ? '' : 's'} ${d.markers === 1 ? 'it' : 'they'} closed stay${d.markers === 1 ? 's' : ''} open on broker ${d.from} and read_committed consumers stop there until it is aborted. The run checks right after the election and proposes the abort.`;
    case 'transactions-unknown':
      return `Transactions: could not read the producers in broker ${d.broker}'s copy of ${d.partition} (${d.error}); whether the truncation drops a transaction marker is unknown.`;
    case 'partition-has-leader':
      return `${d.partition} has a leader (broker ${d.leader}); a leader override is only for a partition without one`;
    case 'replica-not-assigned':
      return `broker ${d.broker} holds no replica of ${d.partition} (replicas: ${d.replicas.join(', ')})`;
    case 'replica-not-live':
      return `broker ${d.broker} is not live; only a live replica can lead`;
    case 'no-measured-replica':
      return `no live replica of ${d.partition} could be measured (neither its log end on the host nor its size through DescribeLogDirs); name the replica to put in charge`;
    case 'no-live-replica':
      return `no replica of ${d.partition} is on a live broker`;
    case 'replicas-dropped':
      return `${brokerList(d.brokers)} ${d.brokers.length === 1 ? 'leaves' : 'leave'} the replica list (a reassignment accepts only live brokers): replication factor drops from ${d.from} to ${d.to}; re-add with a reassignment once back`;
    case 'do-not-start': {
      const why = d.isrKnown
        ? `${d.brokers.length === 1 ? 'it is' : 'they are'} the last in-sync replica`
        : d.elrRole
          ? ELR_ROLE_TEXT[d.elrRole]
          : 'it may be the last in-sync replica (the ISR is empty and its eligible leader replicas could not be read)';
      return `Do not start ${brokerList(d.brokers)} before this runs: ${why}, and ${returnElectionText(!d.isrKnown)}; if its disk was lost, every other replica then truncates to its empty log.`;
    }
    case 'loss-in-bytes':
      return 'no log end offset could be read (no host access): losses are estimated from DescribeLogDirs replica sizes in bytes (which retention and compaction also change); which consumer groups are beyond the new end is only known after the election';
    default:
      return undefined;
  }
}

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '?' : formatCount(n));

function replicaLine(plan: Plan, r: LeaderCandidate): string {
  const marks = [r.brokerId === plan.params.replica ? 'chosen' : '', r.defaultChoice ? 'default unclean choice' : '', r.inIsr ? 'in ISR' : 'out of ISR', r.live ? 'live' : 'down'].filter(Boolean).join(', ');
  const size = r.sizeBytes !== null ? `, ${formatBytes(r.sizeBytes)}` : '';
  const unmeasured = r.unmeasured ? ` (not measured: ${r.unmeasured})` : '';
  return `broker ${r.brokerId} (${marks}): log end ${fmt(r.logEndOffset)}, checkpointed HW ${fmt(r.checkpointedHighWatermark)}${size}${unmeasured} — lost if it leads: ${candidateLossText(r)}`;
}

/** What the plain unclean election (no reorder) would pick instead, in one clause. */
function defaultComparison(plan: Plan): string | null {
  const c = plan.impact.candidates ?? [];
  const chosen = c.find((x) => x.brokerId === plan.params.replica);
  const d = c.find((x) => x.defaultChoice);
  if (!chosen || !d || d.brokerId === chosen.brokerId) return null;
  const base = `Kafka's own unclean election (without the reorder) would pick broker ${d.brokerId}`;
  const [a, b] = [chosen.loss?.end ?? null, d.loss?.end ?? null];
  if (a === null || b === null) return `${base} (its loss: ${candidateLossText(d)}).`;
  const diff = a - b;
  const amount = chosen.loss!.unit === 'bytes' ? `${formatBytes(Math.abs(diff))} ${diff > 0 ? 'less' : 'more'}` : `${formatCount(Math.abs(diff))} ${diff > 0 ? 'fewer' : 'more'} messages`;
  return `${base}, which holds ${diff === 0 ? `as much as broker ${chosen.brokerId}` : `${amount} than broker ${chosen.brokerId}`} (its loss: ${candidateLossText(d)}).`;
}

export const leaderOverride: OperationKind<'leader-override'> = {
  kind: 'leader-override',
  needs: ['replicaHosts'],
  steps: LEADER_OVERRIDE_STEPS,
  summary: 'plan a leader override for a partition without a leader (two approvals needed to run it)',
  request: LeaderOverrideRequest,
  commands: [
    {
      name: 'elect-leader',
      usage: 'elect-leader <topic> <partition> [replica] [cluster]',
      parse(args, isCluster) {
        const { rest, cluster } = trailingCluster(args, isCluster);
        if (rest.length < 2 || rest.length > 3) return { error: 'give a topic, a partition and optionally the replica (broker id) that should lead' };
        const [topic, partition, replica] = rest;
        return { fields: { topic, partition, ...(replica !== undefined ? { replica } : {}) }, ...(cluster ? { cluster } : {}) };
      },
    },
  ],
  describeRequest: (r) => `elect a leader for ${r.topic}-${r.partition}${r.replica !== undefined ? ` (replica ${r.replica})` : ''}`,
  // Its reorder is a reassignment: it must not run beside another one.
  exclusive: true,
  topics: (params) => [params.topic],
  async plan(io, request): Promise<PlanResult> {
    const r = LeaderOverrideRequest.parse(request);
    const s = await io.snapshot([r.topic]);
    const part = s.topics.find((t) => t.name === r.topic)?.partitions.find((p) => p.partition === r.partition);
    if (!part) return planLeaderOverride(s, r, { replicaData: [], groups: [] });
    return planLeaderOverride(s, r, await gather(io, r.topic, r.partition, part.replicas));
  },
  async measure(_io, plan, live) {
    const tp = { topic: plan.params.topic, partition: plan.params.partition };
    const planned = plannedReplicas((plan.preconditions ?? {}) as Record<string, unknown>);
    const at = planned ?? replicasIn(await live.snapshot(), tp);
    if (!at) return null;
    // Only brokers live when planned are asked: a broker dead then was bound as unread, and one back since changes the fingerprint anyway.
    const sizes = await replicaSizes(live.admin, tp, at.replicas.filter((r) => at.live.has(r)), RECHECK_LOG_DIRS_MS);
    return boundSizes(at.replicas, sizes);
  },
  preconditions: (params, s, measured) => leaderOverridePreconditions(params, s, measured),
  recheckOnResume: () => false,
  compensate: reassignmentCompensation,
  render: {
    headline(plan) {
      const a = plan.impact.assignment;
      const name = tpName(plan.params);
      const chosen = plan.params.replica;
      const what = a
        ? `${name} has no leader (replicas ${a.before.join(',')}, ${elrStateText(a) ?? `ISR ${a.isr.join(',') || 'empty'}`}): broker ${chosen} becomes leader by an unclean election${a.reorder ? `, after its replicas are reordered to ${a.after.join(',')}` : ''}.`
        : `${name} has no leader: broker ${chosen} becomes leader by an unclean election.`;
      const loss = plan.impact.loss;
      return [what, ...(loss ? [`${lossHeadline(loss, chosen)}.`] : []), ...[defaultComparison(plan)].filter((x): x is string => x !== null)];
    },
    sections(plan) {
      const out = [];
      const c = plan.impact.candidates ?? [];
      if (c.length) out.push({ title: 'Replicas', lines: c.map((r) => replicaLine(plan, r)) });
      if (plan.impact.loss) out.push({ title: 'Consumer groups', lines: consumerGroupLines(plan.impact.groupsBeyondEnd ?? [], plan.params.replica, plan.impact.groupsUnread) });
      return out;
    },
    success: (plan) => `broker ${plan.params.replica} leads ${plan.params.topic}-${plan.params.partition}`,
    notice: noticeText,
  },
};
