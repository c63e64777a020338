// Restarting KRaft controllers, as part of a restart plan (plan.ts): which
// nodes are controllers, their order, their steps, and the wait until one is
// back in the quorum. Pure but for the wait step, which reads the snapshot.
//
// The order is the one operators and Strimzi's roller use for KRaft (Kafka's
// own upgrade notes only say "one at a time"): controllers first, one at a
// time, observers (controllers not yet voters) and followers before the active
// controller, which goes last so the quorum elects a new leader once; each
// back in the quorum and caught up before the next stops; then the brokers.
// A controller is back when the leader's DescribeQuorum shows it fetching and
// caught up (lib/kafka/quorum-health.ts), read after the fetch window has
// passed since its start, so the old process's last fetch cannot count.
import type { ClusterSnapshot } from '../../../kafka/types.ts';
import { QUORUM_FETCH_RECENT_MS, controllerRoleOf, quorumHealth, replicaHealth } from '../../../kafka/quorum-health.ts';
import { fatal } from '../../failures.ts';
import type { Notice } from '../../failures.ts';
import type { AssessRestart, RestartFacts, RestartIo, RestartStepContext, RestartStepOutcome } from './host-io.ts';
import type { PlanStep, RestartBrokerInfo } from '../../types.ts';

export type ControllerRole = 'leader' | 'follower' | 'observer';

/** The controllers the snapshot's quorum names (voters, and observers that are no broker), with their role; empty without an answered quorum. */
export function quorumControllers(s: ClusterSnapshot): { id: number; role: ControllerRole }[] {
  const q = s.quorum;
  if (!q || q.status !== 'ok') return [];
  const brokers = s.brokers.map((b) => b.id);
  const observers = q.observers.filter((o) => controllerRoleOf(q, o.id, brokers) === 'observer').map((o) => ({ id: o.id, role: 'observer' as const }));
  const voters = q.voters.map((v) => ({ id: v.id, role: v.id === q.leaderId ? ('leader' as const) : ('follower' as const) }));
  return [...voters, ...observers].sort((a, b) => a.id - b.id);
}

/** The requested ids that are controllers here (not brokers): the rest are brokers, or unknown. */
export function splitControllers(s: ClusterSnapshot, ids: readonly number[]): { controllers: number[]; brokers: number[] } {
  const known = new Set(quorumControllers(s).map((c) => c.id));
  const live = new Set(s.brokers.map((b) => b.id));
  const controllers = ids.filter((id) => known.has(id) && !live.has(id));
  return { controllers, brokers: ids.filter((id) => !controllers.includes(id)) };
}

/** Observers first, then followers, by id; the active controller last. */
export function controllerOrder(s: ClusterSnapshot, ids: readonly number[]): number[] {
  const roles = new Map(quorumControllers(s).map((c) => [c.id, c.role]));
  const rank = (id: number) => ({ observer: 0, follower: 1, leader: 2 })[roles.get(id) ?? 'follower'];
  return [...ids].sort((a, b) => rank(a) - rank(b) || a - b);
}

/** Voters fewer than this cannot spare one: a rolling restart of every node leaves their controllers to a human. */
export const MIN_VOTERS_TO_ROLL = 3;

export interface ControllerPlanInput {
  ids: number[];
  facts: RestartFacts[];
  service: { unit: string; stopBoundSeconds: number; readyTimeoutSeconds: number };
  assess: AssessRestart;
}

export interface ControllerPlanPart {
  order: number[];
  steps: PlanStep[];
  infos: RestartBrokerInfo[];
  warnings: Notice[];
}

/** The controllers' part of a restart plan: per controller a live check, a graceful stop, a start, and a wait until it is back in the quorum. */
export function planControllerRestarts(s: ClusterSnapshot, input: ControllerPlanInput): ControllerPlanPart {
  const order = controllerOrder(s, input.ids);
  const roles = new Map(quorumControllers(s).map((c) => [c.id, c.role]));
  const { unit, stopBoundSeconds, readyTimeoutSeconds } = input.service;
  const steps: PlanStep[] = [];
  const infos: RestartBrokerInfo[] = [];
  const warnings: Notice[] = [];
  for (const c of order) {
    const facts = input.facts.find((f) => f.brokerId === c);
    // A controller keeps no clean-shutdown marker (it has no partition logs): none is looked for.
    const host = { unit: facts?.host.unit ?? unit, logsDir: facts?.host.logsDir ?? null, logDirs: [] };
    const v = input.assess(s, c, facts?.probe ?? null);
    const node = 'controller' as const;
    steps.push(
      { action: 'restart-check', description: `controller ${c}: can-restart, live: the quorum keeps its majority and every other voter is caught up (if "no": pause and say why; Resume or Cancel)`, broker: c, role: node },
      { action: 'stop-broker', description: `controller ${c}: graceful stop of ${host.unit}, wait up to ${stopBoundSeconds} s for the process to exit (never SIGKILL)`, broker: c, boundSeconds: stopBoundSeconds, host, role: node },
      { action: 'start-broker', description: `controller ${c}: start ${host.unit}`, broker: c, host, role: node },
      { action: 'wait-controller-ready', description: `controller ${c}: wait until it fetches from the quorum's leader again and is caught up (DescribeQuorum; up to ${readyTimeoutSeconds} s)`, broker: c, timeoutSeconds: readyTimeoutSeconds, host },
    );
    const timeout = facts?.systemdStopTimeoutSeconds ?? null;
    if (timeout !== null && timeout >= 0 && timeout >= stopBoundSeconds) warnings.push({ code: 'stop-bound-not-longer', broker: c, node, bound: stopBoundSeconds, timeout });
    if (v.verdict === 'no') warnings.push({ code: 'cannot-restart-now', broker: c, node, reason: v.reasons[0] ?? null });
    infos.push({
      brokerId: c,
      role: node,
      quorumRole: roles.get(c) ?? 'follower',
      verdict: v.verdict,
      reasons: v.reasons,
      lastShutdownSeconds: facts?.lastShutdownSeconds ?? null,
      systemdStopTimeoutSeconds: timeout,
      offsetsPartitionsLed: [],
      leaders: 0,
      pid: facts?.pid ?? null,
    });
  }
  return { order, steps, infos, warnings };
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * Back in the quorum: the leader's DescribeQuorum shows the controller as a
 * voter (or observer) that fetches and is caught up, or as the leader. Judged
 * only once the fetch window has passed since the step began, so that what
 * counts is a fetch of the new process, never of the one that stopped.
 */
export async function waitControllerReady(step: Extract<PlanStep, { action: 'wait-controller-ready' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const elapsed = ctx.now() - ctx.stepStartedAt;
  const [snapshot, probe] = await Promise.all([ctx.snapshot(), io.probe(step.broker)]);
  const q = snapshot.quorum;
  const health = quorumHealth(q);
  const replica = q?.voters.find((v) => v.id === step.broker) ?? q?.observers.find((o) => o.id === step.broker);
  const state = q && replica ? replicaHealth(q, replica) : null;
  const running = probe ? probe.process.running : null;
  let waiting: string;
  if (!q || q.status !== 'ok' || !health) waiting = q?.status === 'no-leader' ? 'the quorum has no leader yet (an election may be running)' : `the quorum could not be read (${q?.reason ?? 'no answer'})`;
  else if (running === false) waiting = 'its process is not running';
  else if (!replica || !state) waiting = 'the quorum does not list it yet';
  else if (state.state === 'not-fetching') waiting = 'not fetching from the leader yet';
  else if (state.state === 'lagging') waiting = `catching up (${state.lag ?? '?'} records behind)`;
  else if (elapsed < QUORUM_FETCH_RECENT_MS) waiting = 'fetching; confirming it is the new process';
  else {
    const role = state.state === 'leader' ? 'the quorum leader' : `${replica.role === 'observer' ? 'an observer' : 'a voter'}, caught up`;
    return {
      status: 'done',
      detail: `controller ${step.broker} is back: ${role} (leader ${q.leaderId} in epoch ${q.leaderEpoch ?? '?'}; ${health.inSync.length} of ${health.voters.length} voters caught up)${probe?.process.pid ? ` (pid ${probe.process.pid})` : ''}`,
      data: { readySeconds: Math.round(elapsed / 1000), pid: probe?.process.pid ?? null },
    };
  }
  if (elapsed > step.timeoutSeconds * 1000) throw fatal({ code: 'controller-not-back', broker: step.broker, seconds: Math.round(elapsed / 1000), state: waiting });
  return { status: 'waiting', progress: `controller ${step.broker}: ${waiting} (${secs(elapsed)})` };
}

/** "broker 2" or "controller 101", for the texts of the steps a broker and a controller share. */
export const nodeName = (step: { broker: number; role?: 'controller' }) => `${step.role ?? 'broker'} ${step.broker}`;
/** A controller's notices say so (the renderers name the node); a broker's stay as they were. */
export const nodeField = (step: { role?: 'controller' }): { node?: 'controller' } => (step.role ? { node: step.role } : {});

/** The plan's title: what restarts, in order. */
export function restartTitle(brokers: readonly number[], controllers: readonly number[], rolling: boolean): string {
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (!rolling && brokers.length + controllers.length === 1) return controllers.length ? `restart controller ${controllers[0]}` : `restart broker ${brokers[0]}`;
  if (!controllers.length) return `rolling restart of ${plural(brokers.length, 'broker')} (${brokers.join(' → ')})`;
  if (!brokers.length) return `rolling restart of ${plural(controllers.length, 'controller')} (${controllers.join(' → ')})`;
  return `rolling restart of ${plural(controllers.length, 'controller')} then ${plural(brokers.length, 'broker')} (${controllers.join(' → ')}, then ${brokers.join(' → ')})`;
}

export interface RestartTargets {
  controllers: number[];
  /** Brokers named, or every live broker when nothing was named. */
  brokers: number[];
  /** Controllers a restart of every node leaves out, and why. */
  warnings: Notice[];
  refusal?: Notice;
}

/**
 * What a restart request restarts. Named ids: the controllers among them (as
 * the quorum names them) and the rest as brokers; a named controller needs a
 * host the bot reaches. Nothing named: every node, controllers included when
 * the bot reaches their hosts and the quorum has voters to spare.
 */
export function restartTargets(s: ClusterSnapshot, named: readonly number[], hasHost: (id: number) => boolean): RestartTargets {
  if (named.length) {
    const { controllers, brokers } = splitControllers(s, named);
    const unreachable = controllers.filter((c) => !hasHost(c));
    if (unreachable.length) return { controllers, brokers, warnings: [], refusal: { code: 'restart-controller-no-host', controllers: unreachable } };
    return { controllers, brokers, warnings: [] };
  }
  const brokers = s.brokers.map((b) => b.id).sort((a, b) => a - b);
  const warnings: Notice[] = [];
  if (s.quorum?.status === 'failed') warnings.push({ code: 'controllers-not-restarted', controllers: [], why: 'quorum-unread', detail: s.quorum.reason });
  const all = quorumControllers(s);
  const voters = all.filter((c) => c.role !== 'observer').length;
  const candidates = all.map((c) => c.id).filter((id) => !brokers.includes(id));
  if (candidates.length && voters < MIN_VOTERS_TO_ROLL) {
    warnings.push({ code: 'controllers-not-restarted', controllers: candidates, why: 'too-few-voters', voters });
    return { controllers: [], brokers, warnings };
  }
  const noHost = candidates.filter((c) => !hasHost(c));
  if (noHost.length) warnings.push({ code: 'controllers-not-restarted', controllers: noHost, why: 'no-host' });
  return { controllers: candidates.filter((c) => hasHost(c)), brokers, warnings };
}
