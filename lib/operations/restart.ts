// Broker restarts as an operation: one broker, or a rolling restart one broker
// at a time. The planner is pure (snapshot + per-broker facts gathered by the
// backend); the steps run in the operations runner like every other step, and
// the ones that wait (process exit, broker ready) park across invocations.
// Host control goes through RestartIo: the fixed service-control.sh script,
// the host probe, and can-restart (injected by the composition root).

import type { ClusterSnapshot } from '../kafka/types.ts';
import { CONSUMER_OFFSETS_TOPIC } from '../kafka/group-partition.ts';
import type { ProbeReport } from '../hosts/types.ts';
import { mayHaveRun, type ServiceCall, type ServiceRunResult, type ServiceStatus } from '../hosts/service-control.ts';
import { finishPlan, liveIds } from './planners.ts';
import type { BrokerHostPaths, PlanResult, PlanStep, RestartBrokerInfo, TopicPartition } from './types.ts';

/** can-restart's answer, as restarts use it (lib/diagnose/can-restart.ts). */
export interface RestartVerdict {
  verdict: 'yes' | 'no';
  reasons: string[];
  wouldGoOffline: TopicPartition[];
  recovering: boolean | null;
}
export type AssessRestart = (snapshot: ClusterSnapshot, brokerId: number, probe: ProbeReport | null) => RestartVerdict;

/** What restart steps reach on the hosts. */
export interface RestartIo {
  assess: AssessRestart;
  /** The broker's host probe; null when the host cannot be probed. */
  probe(brokerId: number): Promise<ProbeReport | null>;
  service(brokerId: number, call: ServiceCall): Promise<ServiceRunResult>;
  /** Parsed `status` of the broker's service. */
  status(brokerId: number, host: BrokerHostPaths): Promise<ServiceStatus>;
}

/** What the backend measured per broker before planning. */
export interface RestartFacts {
  brokerId: number;
  probe: ProbeReport | null;
  lastShutdownSeconds: number | null;
  systemdStopTimeoutSeconds: number | null;
  pid: number | null;
  host: BrokerHostPaths;
}

export interface RestartPlanInput {
  brokers: number[];
  rolling: boolean;
  service: { unit: string; stopBoundSeconds: number; readyTimeoutSeconds: number };
  facts: RestartFacts[];
  assess: AssessRestart;
  /** ZooKeeper mode's active controller (restarted last); null on KRaft, where controllers are separate. */
  activeControllerId: number | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const tpList = (tps: readonly TopicPartition[], max = 8) => tps.slice(0, max).map((t) => `${t.topic}-${t.partition}`).join(', ') + (tps.length > max ? ` … +${tps.length - max}` : '');

function leadersOf(s: ClusterSnapshot): Map<number, number> {
  const n = new Map<number, number>();
  for (const t of s.topics) for (const p of t.partitions) if (p.leader >= 0) n.set(p.leader, (n.get(p.leader) ?? 0) + 1);
  return n;
}

function offsetsLedBy(s: ClusterSnapshot, broker: number): number[] {
  const t = s.topics.find((x) => x.name === CONSUMER_OFFSETS_TOPIC);
  return (t?.partitions ?? []).filter((p) => p.leader === broker).map((p) => p.partition).sort((a, b) => a - b);
}

/**
 * Restart order: one broker at a time (each back in every ISR before the next
 * stops, so no partition, __consumer_offsets included, ever has two replicas
 * down); the active controller, else the broker leading the most partitions,
 * goes last; the rest by fewest leaders first.
 */
export function restartOrder(brokers: number[], leaders: ReadonlyMap<number, number>, activeControllerId: number | null): number[] {
  const load = (b: number) => leaders.get(b) ?? 0;
  const sorted = [...brokers].sort((a, b) => load(a) - load(b) || a - b);
  const last = activeControllerId !== null && sorted.includes(activeControllerId) ? activeControllerId : sorted[sorted.length - 1];
  return last === undefined ? sorted : [...sorted.filter((b) => b !== last), last];
}

export function planRestart(snapshot: ClusterSnapshot, input: RestartPlanInput): PlanResult {
  const live = liveIds(snapshot);
  const wanted = input.brokers.length ? input.brokers : live;
  if (!input.rolling && wanted.length !== 1) return { ok: false, reason: 'restart takes exactly one broker; use rolling-restart for several' };
  const unknown = wanted.filter((b) => !live.includes(b));
  if (unknown.length) return { ok: false, reason: `broker ${unknown.join(', ')} is not a live broker of this cluster (live: ${live.join(', ') || 'none'}); a broker that is down is started by hand, not restarted` };
  if (snapshot.partial) return { ok: false, reason: 'the cluster snapshot is incomplete, so a safe restart cannot be planned' };

  // Refusals that teach: partitions that would go offline, brokers still recovering logs.
  const offline: string[] = [];
  const recovering: number[] = [];
  const infos = new Map<number, RestartBrokerInfo>();
  const leaders = leadersOf(snapshot);
  for (const b of wanted) {
    const facts = input.facts.find((f) => f.brokerId === b);
    const v = input.assess(snapshot, b, facts?.probe ?? null);
    if (v.wouldGoOffline.length) offline.push(`broker ${b}: ${plural(v.wouldGoOffline.length, 'partition')} would go offline (${tpList(v.wouldGoOffline)})`);
    if (v.recovering) recovering.push(b);
    infos.set(b, {
      brokerId: b,
      verdict: v.verdict,
      reasons: v.reasons,
      lastShutdownSeconds: facts?.lastShutdownSeconds ?? null,
      systemdStopTimeoutSeconds: facts?.systemdStopTimeoutSeconds ?? null,
      offsetsPartitionsLed: offsetsLedBy(snapshot, b),
      leaders: leaders.get(b) ?? 0,
      pid: facts?.pid ?? null,
    });
  }
  if (offline.length) {
    return {
      ok: false,
      reason:
        `Refused: restarting would take partitions offline. ${offline.join('; ')}. Their only in-sync replica is on that broker. ` +
        'Fix first: drain the broker (`/kafka drain <broker>`) so its replicas move elsewhere, or raise the topics\' replication factor (`/kafka raise-rf <topic> 3`), then plan the restart again.',
    };
  }
  if (recovering.length) {
    return { ok: false, reason: `Refused: broker ${recovering.join(', ')} is still recovering logs (or loading __consumer_offsets); restarting now starts recovery over. Wait until it finishes.` };
  }

  const order = input.rolling ? restartOrder(wanted, leaders, input.activeControllerId) : wanted;
  const { unit, stopBoundSeconds, readyTimeoutSeconds } = input.service;
  const steps: PlanStep[] = [];
  const warnings: string[] = [];
  for (const b of order) {
    const host = input.facts.find((f) => f.brokerId === b)?.host ?? { unit, logsDir: null, logDirs: [] };
    const info = infos.get(b)!;
    steps.push(
      { action: 'restart-check', description: `broker ${b}: can-restart, live (if "no": pause and say why; Resume or Cancel)`, broker: b },
      { action: 'stop-broker', description: `broker ${b}: graceful stop of ${unit}, wait up to ${stopBoundSeconds} s for the process to exit (never SIGKILL); confirm the clean-shutdown marker`, broker: b, boundSeconds: stopBoundSeconds, host },
      { action: 'start-broker', description: `broker ${b}: start ${unit}`, broker: b, host },
      { action: 'wait-broker-ready', description: `broker ${b}: wait until registered, logs loaded, back in every ISR (up to ${readyTimeoutSeconds} s)`, broker: b, timeoutSeconds: readyTimeoutSeconds, host },
    );
    const timeout = info.systemdStopTimeoutSeconds;
    if (timeout !== null && timeout >= 0 && timeout >= stopBoundSeconds) {
      warnings.push(`broker ${b}: the stop bound (${stopBoundSeconds} s) is not longer than systemd's TimeoutStopSec (${timeout} s); the restart still disables systemd's SIGKILL for its own stop`);
    }
    if (info.lastShutdownSeconds !== null && info.lastShutdownSeconds * 1.5 > stopBoundSeconds) {
      warnings.push(`broker ${b}: its last controlled shutdown took ${Math.round(info.lastShutdownSeconds)} s, close to the ${stopBoundSeconds} s bound`);
    }
    if (info.verdict === 'no') warnings.push(`broker ${b}: can-restart says no now (${info.reasons[0] ?? 'see reasons'}); the run pauses at its check until that clears and an approver resumes`);
  }
  const restarts = order.map((b) => infos.get(b)!);
  const what = input.rolling ? `rolling restart of ${plural(order.length, 'broker')} (${order.join(' → ')})` : `restart broker ${order[0]}`;
  return {
    ok: true,
    plan: finishPlan(snapshot, 'restart-brokers', { brokers: order, rolling: input.rolling, unit, stopBoundSeconds, readyTimeoutSeconds }, {
      title: what,
      description:
        `Stops and starts ${order.length === 1 ? `broker ${order[0]}` : `brokers ${order.join(', ')}, one at a time in this order,`} through the ${unit} service on ${order.length === 1 ? 'its host' : 'their hosts'}. ` +
        'Each stop is graceful (controlled shutdown moves leadership away) and is waited for; nothing is ever SIGKILLed. ' +
        'The next broker stops only when the previous one is registered, has loaded its logs and is back in the ISR of every partition it hosts, so no partition ever has two replicas down.',
      steps,
      impact: {
        summary: `${plural(order.length, 'broker')} restarted one at a time; clients follow moved leaders after a metadata refresh; consumer groups whose coordinator moves pause briefly`,
        risk: 'medium',
        partitionsAffected: order.reduce((n, b) => n + (infos.get(b)?.leaders ?? 0), 0),
        restarts,
      },
      warnings,
    }),
  };
}

// ---------------------------------------------------------------- steps

export type RestartStep = Extract<PlanStep, { action: 'restart-check' | 'stop-broker' | 'start-broker' | 'wait-broker-ready' }>;

export type RestartStepOutcome =
  | { status: 'done'; detail: string; data?: Record<string, unknown> }
  | { status: 'waiting'; progress: string; data?: Record<string, unknown> }
  | { status: 'paused'; reason: string; data: Record<string, unknown>; quiet: boolean };

export interface RestartStepContext {
  restart: RestartIo | null;
  snapshot(): Promise<ClusterSnapshot>;
  /** This step's progress data from earlier polls. */
  progress: Record<string, unknown> | undefined;
  stepStartedAt: number;
  /** When an approver last pressed Resume; null if never. */
  resumeRequestedAt: number | null;
  now(): number;
  fail(message: string): never;
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

export async function runRestartStep(step: RestartStep, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const io = ctx.restart ?? ctx.fail('this cluster has no host access configured (hosts.executor), so its brokers cannot be restarted from here');
  switch (step.action) {
    case 'restart-check':
      return restartCheck(step, io, ctx);
    case 'stop-broker':
      return stopBroker(step, io, ctx);
    case 'start-broker':
      return startBroker(step, io, ctx);
    case 'wait-broker-ready':
      return waitReady(step, io, ctx);
  }
}

async function restartCheck(step: Extract<RestartStep, { action: 'restart-check' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const pausedAt = typeof ctx.progress?.pausedAt === 'number' ? ctx.progress.pausedAt : null;
  const reason = typeof ctx.progress?.reason === 'string' ? ctx.progress.reason : '';
  // Paused: only an approver's Resume checks again (a sweep's tick just parks it again).
  if (pausedAt !== null && !(ctx.resumeRequestedAt !== null && ctx.resumeRequestedAt > pausedAt)) {
    return { status: 'paused', reason, data: { pausedAt, reason }, quiet: true };
  }
  const [snapshot, probe] = await Promise.all([ctx.snapshot(), io.probe(step.broker)]);
  const v = io.assess(snapshot, step.broker, probe);
  if (v.verdict === 'yes') return { status: 'done', detail: `broker ${step.broker}: can-restart says yes${probe ? '' : ' (no host probe: log recovery not checked)'}` };
  const why = `broker ${step.broker} cannot be restarted safely now: ${v.reasons.join(' ')}`;
  return { status: 'paused', reason: why, data: { pausedAt: ctx.now(), reason: why }, quiet: false };
}

async function stopBroker(step: Extract<RestartStep, { action: 'stop-broker' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const issuedAt = typeof ctx.progress?.issuedAt === 'number' ? ctx.progress.issuedAt : null;
  if (issuedAt === null) {
    const before = await io.status(step.broker, step.host);
    const stop = await io.service(step.broker, { action: 'stop', unit: step.host.unit, logsDir: step.host.logsDir, logDirs: step.host.logDirs });
    // A stop whose command may have run (timed out, cancelled mid-run) may be under way: record it as issued.
    if (!stop.ok && mayHaveRun(stop)) return { status: 'waiting', progress: `broker ${step.broker} may be stopping: the stop command's end is unknown (${stop.detail}); watching its process`, data: { issuedAt: ctx.now(), pid: before.pid } };
    if (!stop.ok) ctx.fail(`could not ask broker ${step.broker}'s service to stop: ${stop.detail}`);
    return { status: 'waiting', progress: `broker ${step.broker}: graceful stop requested (pid ${before.pid ?? '?'})`, data: { issuedAt: ctx.now(), pid: before.pid } };
  }
  const status = await io.status(step.broker, step.host);
  const elapsed = ctx.now() - issuedAt;
  if (status.pid === null) {
    const missing = status.markers.filter((m) => m.present === false).map((m) => m.dir);
    if (missing.length) {
      ctx.fail(`broker ${step.broker} exited after ${secs(elapsed)} but left no clean-shutdown marker in ${missing.join(', ')}: it would recover those logs on start. Not started; a human decides.`);
    }
    const seen = status.markers.filter((m) => m.present).length;
    return {
      status: 'done',
      detail: `broker ${step.broker} stopped gracefully in ${secs(elapsed)}${seen ? `; clean-shutdown marker in ${plural(seen, 'log dir')}` : '; log dirs not visible, marker not checked'}`,
      data: { stopSeconds: Math.round(elapsed / 1000), pidBefore: ctx.progress?.pid ?? null },
    };
  }
  if (elapsed > step.boundSeconds * 1000) {
    ctx.fail(
      `broker ${step.broker} is still stopping after ${secs(elapsed)} (bound ${step.boundSeconds} s; pid ${status.pid}). The restart stops here and the broker is left stopping: ` +
        'no SIGKILL was sent (and systemd will not send one for this stop). A human decides: wait for the controlled shutdown to finish, then start it.',
    );
  }
  return { status: 'waiting', progress: `broker ${step.broker}: stopping for ${secs(elapsed)} of the ${step.boundSeconds} s bound (pid ${status.pid}, ${status.state})`, data: { issuedAt, pid: ctx.progress?.pid ?? null } };
}

async function startBroker(step: Extract<RestartStep, { action: 'start-broker' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const status = await io.status(step.broker, step.host);
  if (status.pid !== null) return { status: 'done', detail: `broker ${step.broker} is running (pid ${status.pid})` };
  const started = await io.service(step.broker, { action: 'start', unit: step.host.unit, logsDir: step.host.logsDir, logDirs: step.host.logDirs });
  if (!started.ok) ctx.fail(`could not start broker ${step.broker}'s service: ${started.detail}`);
  return { status: 'done', detail: `broker ${step.broker}: ${step.host.unit} started` };
}

async function waitReady(step: Extract<RestartStep, { action: 'wait-broker-ready' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const elapsed = ctx.now() - ctx.stepStartedAt;
  const [snapshot, probe] = await Promise.all([ctx.snapshot(), io.probe(step.broker)]);
  const registered = snapshot.brokers.some((b) => b.id === step.broker);
  const loading = probe ? probe.recoveryInProgress || !probe.process.running : false;
  const outOfIsr: TopicPartition[] = [];
  let hosted = 0;
  for (const t of snapshot.topics) {
    for (const p of t.partitions) {
      if (!p.replicas.includes(step.broker)) continue;
      hosted++;
      if (!p.isr.includes(step.broker)) outOfIsr.push({ topic: t.name, partition: p.partition });
    }
  }
  if (registered && !loading && outOfIsr.length === 0) {
    const unclean = probe?.logs.uncleanShutdownRecovery.length ?? 0;
    return {
      status: 'done',
      detail: `broker ${step.broker} is back: registered, logs loaded, in the ISR of all ${plural(hosted, 'partition')} it hosts${probe?.process.pid ? ` (pid ${probe.process.pid})` : ''}${unclean ? `; its log shows ${unclean} unclean-recovery line(s)` : ''}`,
      data: { readySeconds: Math.round(elapsed / 1000), pid: probe?.process.pid ?? null },
    };
  }
  const waiting = !registered ? 'not registered yet' : loading ? 'loading its logs' : `out of the ISR of ${plural(outOfIsr.length, 'partition')} (${tpList(outOfIsr, 3)})`;
  if (elapsed > step.timeoutSeconds * 1000) {
    ctx.fail(`broker ${step.broker} is not back after ${secs(elapsed)}: ${waiting}. The rolling restart stops here (no further broker is touched).`);
  }
  return { status: 'waiting', progress: `broker ${step.broker}: ${waiting} (${secs(elapsed)})` };
}

/**
 * What a restart that ends early (failed, cancelled) leaves behind, for its
 * summary: the broker it was working on may be stopping or stopped.
 */
export function restartLeftover(steps: readonly PlanStep[], cursor: number, progress: Record<string, unknown> | undefined): string | null {
  const step = steps[cursor];
  if (!step) return null;
  switch (step.action) {
    case 'stop-broker':
      return typeof progress?.issuedAt === 'number' ? `broker ${step.broker} was asked to stop and may still be stopping or stopped: start it once its process has exited` : null;
    case 'start-broker':
      return `broker ${step.broker} was stopped by this run and may not be running: start it`;
    case 'wait-broker-ready':
      return `broker ${step.broker} was started by this run and may not be back in every ISR yet: check it before touching another broker`;
    case 'restart-check':
      return null;
    default:
      return null;
  }
}
