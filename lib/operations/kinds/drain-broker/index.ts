// drain-broker: move every replica off a broker (before stopping it), balanced
// over the other live brokers, throttled. `partial` moves what can keep its
// replication factor elsewhere and leaves the rest, online but under-replicated.

import type { ClusterSnapshot, PartitionState } from '../../../kafka/types.ts';
import { reassignmentCompensation } from '../../compensation.ts';
import type { Notice } from '../../failures.ts';
import { trailingCluster, type OperationKind, type OperationIo } from '../../kind.ts';
import { assignmentOf, basePreconditions, byTp, finishPlan, formatRate, inProgress, invalidRequest, isLeaderless, liveIds, pickBroker, plural, reassignmentSteps, replicaLoad, throttleOf, type ReassignmentOptions } from '../../planners.ts';
import { listOf, namesText, type NameList } from '../../lists.ts';
import type { PlanOf, PlanResult, TopicPartition } from '../../types.ts';
import { DrainRequest } from './request.ts';
import type { PartitionAssignment } from '../../validate.ts';
import { throttleSetting } from '../../throttle-setting.ts';
import { registrationOf } from '../../../kafka/registered-brokers-view.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    'drain-broker': DrainParams;
  }
}


export interface DrainParams {
  broker: number;
  partial: boolean;
  throttleBytesPerSec: number;
}

/** Said only when the cluster can tell (KIP-1073): a fenced broker (registered, not heartbeating) or one not registered at all. */
function registrationField(s: ClusterSnapshot, broker: number): { registration?: 'fenced' | 'not-registered' } {
  const r = registrationOf(s, broker);
  return r === 'fenced' || r === 'not-registered' ? { registration: r } : {};
}

function preconditions(params: DrainParams, s: ClusterSnapshot): Record<string, unknown> {
  const affected: TopicPartition[] = [];
  for (const t of s.topics) for (const p of t.partitions) if (p.replicas.includes(params.broker)) affected.push({ topic: t.name, partition: p.partition });
  return { ...basePreconditions('drain-broker', s), broker: params.broker, partitions: assignmentOf(s, affected) };
}

/** Move every replica off a broker, balanced over the other live brokers. */
export function planDrain(snapshot: ClusterSnapshot, request: unknown, options: ReassignmentOptions = {}): PlanResult {
  const parsed = DrainRequest.safeParse(request);
  if (!parsed.success) return { ok: false, refusal: invalidRequest(parsed.error) };
  const { broker, partial } = parsed.data;
  const throttle = throttleOf(options);
  if (typeof throttle !== 'number') return { ok: false, refusal: throttle };
  const live = liveIds(snapshot);
  const liveSet = new Set(live);
  const others = live.filter((b) => b !== broker);
  if (others.length === 0) return { ok: false, refusal: { code: 'no-other-live-broker', broker } };

  const affected: { topic: string; p: PartitionState }[] = [];
  for (const t of snapshot.topics) for (const p of t.partitions) if (p.replicas.includes(broker)) affected.push({ topic: t.name, p });
  affected.sort((a, b) => byTp({ topic: a.topic, partition: a.p.partition }, { topic: b.topic, partition: b.p.partition }));
  if (affected.length === 0) return { ok: false, refusal: { code: 'nothing-to-drain', broker, ...registrationField(snapshot, broker) } };

  // A partition keeps its replication factor only if some live broker outside its replica list is free.
  const noRoom = affected.filter((a) => !others.some((b) => !a.p.replicas.includes(b)));
  if (noRoom.length > 0 && !partial) {
    const ex = noRoom[0]!;
    return {
      ok: false,
      refusal: { code: 'drain-needs-brokers', broker, stuck: noRoom.length, movable: affected.length - noRoom.length, example: { topic: ex.topic, partition: ex.p.partition, replicas: ex.p.replicas }, others },
    };
  }
  const stuck = new Set(noRoom);
  const movable = affected.filter((a) => !stuck.has(a));
  if (movable.length === 0) return { ok: false, refusal: { code: 'nothing-can-move', broker, partitions: affected.length } };
  const busy = inProgress(snapshot, movable.map((a) => ({ topic: a.topic, partition: a.p.partition })));
  if (busy.length) return { ok: false, refusal: { code: 'reassignment-running', partitions: listOf(busy) } };

  const load = replicaLoad(snapshot);
  load.delete(broker);
  const moves: PartitionAssignment[] = [];
  const cannotCopy: string[] = [];
  for (const { topic, p } of movable) {
    const kept = p.replicas.filter((r) => r !== broker);
    const target = pickBroker(load, others, kept)!;
    // The new replica goes last: it must copy the data before it can lead, so the next replica in line becomes preferred.
    moves.push({ topic, partition: p.partition, replicas: [...kept, target] });
    if (isLeaderless(p, liveSet)) cannotCopy.push(`${topic}-${p.partition}`);
  }

  const warnings: Notice[] = [];
  // Fenced (registered, not heartbeating) or not registered at all: the text tells them apart.
  if (!liveSet.has(broker)) warnings.push({ code: 'drained-broker-down', broker, ...registrationField(snapshot, broker) });
  if (cannotCopy.length) warnings.push({ code: 'leaderless-cannot-copy', partitions: listOf(cannotCopy) });
  if (noRoom.length) {
    const offline = noRoom.filter((a) => a.p.isr.filter((r) => r !== broker).length === 0).map((a) => `${a.topic}-${a.p.partition}`);
    warnings.push({ code: 'replicas-stay', broker, partitions: listOf(noRoom.map((a) => `${a.topic}-${a.p.partition}`)), offlineIfStopped: listOf(offline) });
  }
  const params: DrainParams = { broker, partial, throttleBytesPerSec: throttle };
  return {
    ok: true,
    plan: finishPlan(snapshot, 'drain-broker', params, preconditions(params, snapshot), {
      title: `drain broker ${broker}: move ${plural(moves.length, 'replica')} to ${others.length === 1 ? 'broker' : 'brokers'} ${others.join(', ')}` + (noRoom.length ? ` (${noRoom.length} stay: no free broker)` : ''),
      steps: reassignmentSteps(moves, throttle, `off broker ${broker}`),
      impact: {
        risk: 'medium',
        partitionsAffected: moves.length,
        replicasToCopy: moves.length,
        leadersMoved: movable.filter((a) => a.p.leader === broker).length,
      },
      warnings,
    }),
  };
}

type DrainNotice =
  | { code: 'no-other-live-broker'; broker: number }
  | { code: 'nothing-to-drain'; broker: number; registration?: 'fenced' | 'not-registered' }
  | { code: 'drain-needs-brokers'; broker: number; stuck: number; movable: number; example: { topic: string; partition: number; replicas: number[] }; others: number[] }
  | { code: 'nothing-can-move'; broker: number; partitions: number }
  | { code: 'drained-broker-down'; broker: number; registration?: 'fenced' | 'not-registered' }
  | { code: 'leaderless-cannot-copy'; partitions: NameList }
  | { code: 'replicas-stay'; broker: number; partitions: NameList; offlineIfStopped: NameList };

function noticeText(n: Notice): string | undefined {
  const d = n as DrainNotice;
  switch (d.code) {
    case 'no-other-live-broker':
      return `the cluster lacks brokers: no live broker other than ${d.broker}`;
    case 'nothing-to-drain':
      return d.registration === 'fenced'
        ? `broker ${d.broker} holds no replicas: nothing to drain. It is registered but fenced (not heartbeating); if it has been decommissioned, unregister it: kafka-cluster.sh unregister --bootstrap-server <broker:port> --id ${d.broker}`
        : `broker ${d.broker} holds no replicas: nothing to drain`;
    case 'drain-needs-brokers':
      return (
        `the cluster lacks brokers: ${plural(d.stuck, 'partition')} (e.g. ${d.example.topic}-${d.example.partition}, replicas ${d.example.replicas.join(',')}) ` +
        `already ${d.stuck === 1 ? 'has' : 'have'} a replica on every other live broker (${d.others.join(', ')}), so broker ${d.broker} cannot be emptied without lowering ` +
        `their replication factor. A partial drain moves the ${d.movable} that can move and leaves these online but under-replicated while broker ${d.broker} is down.`
      );
    case 'nothing-can-move':
      return `none of broker ${d.broker}'s ${plural(d.partitions, 'partition')} can move: every one already has a replica on every other live broker`;
    case 'drained-broker-down':
      return d.registration === 'fenced'
        ? `broker ${d.broker} is registered but fenced (not heartbeating: stopped, crashed, or cut off from the controllers): partitions whose only in-sync copy was there cannot finish moving. Once it holds no replicas, a decommissioned broker ${d.broker} is unregistered with kafka-cluster.sh unregister --bootstrap-server <broker:port> --id ${d.broker}`
        : d.registration === 'not-registered'
          ? `broker ${d.broker} is not registered with the controller: partitions whose only in-sync copy was there cannot finish moving`
          : `broker ${d.broker} is not live: partitions whose only in-sync copy was there cannot finish moving`;
    case 'leaderless-cannot-copy':
      return `${plural(d.partitions.total, 'partition')} ${d.partitions.total === 1 ? 'has' : 'have'} no leader, so nothing can copy ${d.partitions.total === 1 ? 'it' : 'them'} until ${d.partitions.total === 1 ? 'it does' : 'they do'}: ${namesText(d.partitions)}`;
    case 'replicas-stay':
      return (
        `${plural(d.partitions.total, 'partition')} ${d.partitions.total === 1 ? 'stays' : 'stay'} on broker ${d.broker} (no free broker): under-replicated but online while it is down` +
        (d.offlineIfStopped.total ? `, except ${namesText(d.offlineIfStopped)}: broker ${d.broker} is their only in-sync replica, they go OFFLINE if it stops` : '')
      );
    default:
      return undefined;
  }
}

export const drainBroker: OperationKind<'drain-broker'> = {
  kind: 'drain-broker',
  summary: 'plan moving every replica off a broker before a planned stop',
  request: DrainRequest,
  commands: [
    {
      name: 'drain',
      usage: 'drain <broker> [partial] [cluster]',
      parse(args, isCluster) {
        const { rest: words, cluster } = trailingCluster(args, isCluster, ['partial']);
        const partial = words.includes('partial');
        const rest = words.filter((a) => a !== 'partial');
        if (rest.length !== 1) return { error: 'name exactly one broker id (and optionally `partial`)' };
        return { fields: { broker: rest[0], partial }, ...(cluster ? { cluster } : {}) };
      },
    },
  ],
  describeRequest: (r) => `${r.partial ? 'partially drain' : 'drain'} broker ${r.broker}`,
  exclusive: true,
  topics: () => null,
  async plan(io: OperationIo, request) {
    const r = DrainRequest.parse(request);
    return planDrain(await io.snapshot(null), r, throttleSetting(io));
  },
  preconditions: (params, s) => preconditions(params, s),
  recheckOnResume: () => false,
  compensate: reassignmentCompensation,
  refusalOffer: (request, refusal) => (refusal.code === 'drain-needs-brokers' && !request.partial ? { label: 'Drain what can move', request: { ...request, partial: true } } : null),
  render: {
    headline: (plan: PlanOf<'drain-broker'>) => {
      const { broker } = plan.params;
      const moves = plan.impact.replicasToCopy ?? 0;
      const stays = plan.warnings.find((w) => w.code === 'replicas-stay') as Extract<DrainNotice, { code: 'replicas-stay' }> | undefined;
      return [
        `Moves ${plural(moves, 'replica')} off broker ${broker} (${plural(plan.impact.leadersMoved ?? 0, 'leader')} among them), each to the least-loaded live broker without a copy; replication factors stay.`,
        `Producers and consumers keep working; leaders move when each copy is in sync. Copying is throttled to ${formatRate(plan.params.throttleBytesPerSec)}.`,
        stays ? `${plural(stays.partitions.total, 'partition')} cannot move and ${stays.partitions.total === 1 ? 'stays' : 'stay'} on broker ${broker}.` : `Broker ${broker} ends with no replicas and can be stopped.`,
      ];
    },
    success: (plan) => (plan.params.partial ? `moved every replica of broker ${plan.params.broker} that had somewhere to go` : `broker ${plan.params.broker} holds no replicas any more`),
    notice: noticeText,
  },
};
