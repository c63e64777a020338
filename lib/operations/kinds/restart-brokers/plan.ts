// Broker restarts as an operation: one broker, or a rolling restart one broker
// at a time (KRaft controllers first, one at a time: controllers.ts).
// The planner is pure (snapshot + per-broker facts gathered by the
// backend); the steps run in the operations runner like every other step, and
// the ones that wait (process exit, broker ready) park across invocations.
// Host control goes through RestartIo: the fixed service-control.sh script,
// the host probe, and can-restart (injected by the composition root).

import type { ClusterSnapshot } from '../../../kafka/types.ts';
import { CONSUMER_OFFSETS_TOPIC } from '../../../kafka/group-partition.ts';
import { mayHaveRun } from '../../../hosts/service-control.ts';
import { fatal, needsHuman, transient, type Notice } from '../../failures.ts';
import { listOf } from '../../lists.ts';
import { basePreconditions, finishPlan, liveIds, plural } from '../../planners.ts';
import type { PlanResult, PlanStep, RestartBrokerInfo, TopicPartition } from '../../types.ts';
import { andMore } from '../../../runtime/format.ts';
import { tpName } from '../../../kafka/partitions.ts';
import { registrationOf } from '../../../kafka/registered-brokers-view.ts';
import { nodeField, nodeName, planControllerRestarts, restartTitle, waitControllerReady } from './controllers.ts';

export type { AssessRestart, RestartFacts, RestartIo, RestartStepContext, RestartStepOutcome, RestartVerdict } from './host-io.ts';
import type { AssessRestart, RestartFacts, RestartIo, RestartStepContext, RestartStepOutcome } from './host-io.ts';

/** One node (`rolling: false`) or several, one at a time: `controllers` first (KRaft), then `brokers`, each in its order. */
export interface RestartParams {
  brokers: number[];
  /** KRaft controllers, restarted before the brokers (absent: none; controllers.ts). */
  controllers?: number[];
  rolling: boolean;
  unit: string;
  stopBoundSeconds: number;
  readyTimeoutSeconds: number;
}

export interface RestartPlanInput {
  brokers: number[];
  rolling: boolean;
  service: { unit: string; stopBoundSeconds: number; readyTimeoutSeconds: number };
  facts: RestartFacts[];
  assess: AssessRestart;
  /** KRaft controllers to restart first (their ids, as the quorum names them, and what was measured on their hosts). */
  controllers?: { ids: number[]; facts: RestartFacts[] };
  /** ZooKeeper mode's active controller (restarted last); null on KRaft, where controllers are separate. */
  activeControllerId: number | null;
}

const tpNames = (tps: readonly TopicPartition[]) => tps.map(tpName);

function leadersOf(s: ClusterSnapshot): Map<number, number> {
  const n = new Map<number, number>();
  for (const t of s.topics) for (const p of t.partitions) if (p.leader >= 0) n.set(p.leader, (n.get(p.leader) ?? 0) + 1);
  return n;
}

function offsetsLedBy(s: ClusterSnapshot, broker: number): number[] {
  const t = s.topics.find((x) => x.name === CONSUMER_OFFSETS_TOPIC);
  return (t?.partitions ?? []).filter((p) => p.leader === broker).map((p) => p.partition).sort((a, b) => a - b);
}

/** The brokers among `ids` the controller has registered but fenced; said only when there are some. */
function fencedField(s: ClusterSnapshot, ids: readonly number[]): { fenced?: number[] } {
  const fenced = ids.filter((b) => registrationOf(s, b) === 'fenced');
  return fenced.length > 0 ? { fenced } : {};
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

/** Leaders and ISRs move all the time; what the order was decided from is who is live and where replicas are. */
export function restartPreconditions(params: { brokers: number[]; controllers?: number[] }, s: ClusterSnapshot): Record<string, unknown> {
  const hosted = params.brokers.map((b) => {
    let replicas = 0;
    for (const t of s.topics) for (const p of t.partitions) if (p.replicas.includes(b)) replicas++;
    return { broker: b, replicas };
  });
  return { ...basePreconditions('restart-brokers', s), brokers: params.brokers, hosted, ...(params.controllers?.length ? { controllers: params.controllers } : {}) };
}

export function planRestart(snapshot: ClusterSnapshot, input: RestartPlanInput): PlanResult {
  const live = liveIds(snapshot);
  const controllerIds = input.controllers?.ids ?? [];
  // Named nodes only (controllers alone are no "every broker").
  const wanted = input.brokers.length || controllerIds.length ? input.brokers : live;
  if (!input.rolling && wanted.length + controllerIds.length !== 1) return { ok: false, refusal: { code: 'restart-one-broker' } };
  const unknown = wanted.filter((b) => !live.includes(b));
  // A registered but fenced broker is not heartbeating (stopped, crashed, cut off): it is started, not restarted.
  if (unknown.length) return { ok: false, refusal: { code: 'restart-broker-not-live', brokers: unknown, live, ...fencedField(snapshot, unknown) } };
  if (snapshot.partial) return { ok: false, refusal: { code: 'snapshot-partial' } };

  // Refusals that teach: partitions that would go offline, brokers still recovering logs.
  const offline: { broker: number; partitions: ReturnType<typeof listOf> }[] = [];
  const recovering: number[] = [];
  const infos = new Map<number, RestartBrokerInfo>();
  const leaders = leadersOf(snapshot);
  for (const b of wanted) {
    const facts = input.facts.find((f) => f.brokerId === b);
    const v = input.assess(snapshot, b, facts?.probe ?? null);
    if (v.wouldGoOffline.length) offline.push({ broker: b, partitions: listOf(tpNames(v.wouldGoOffline)) });
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
  if (offline.length) return { ok: false, refusal: { code: 'restart-would-go-offline', brokers: offline } };
  if (recovering.length) return { ok: false, refusal: { code: 'restart-recovering', brokers: recovering } };

  const order = input.rolling ? restartOrder(wanted, leaders, input.activeControllerId) : wanted;
  const { unit, stopBoundSeconds, readyTimeoutSeconds } = input.service;
  // KRaft controllers first, one at a time, the active one last (controllers.ts).
  const controllers = controllerIds.length ? planControllerRestarts(snapshot, { ids: controllerIds, facts: input.controllers!.facts, service: input.service, assess: input.assess }) : null;
  const steps: PlanStep[] = [...(controllers?.steps ?? [])];
  const warnings: Notice[] = [...(controllers?.warnings ?? [])];
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
    if (timeout !== null && timeout >= 0 && timeout >= stopBoundSeconds) warnings.push({ code: 'stop-bound-not-longer', broker: b, bound: stopBoundSeconds, timeout });
    if (info.lastShutdownSeconds !== null && info.lastShutdownSeconds * 1.5 > stopBoundSeconds) warnings.push({ code: 'shutdown-near-bound', broker: b, seconds: Math.round(info.lastShutdownSeconds), bound: stopBoundSeconds });
    if (info.verdict === 'no') warnings.push({ code: 'cannot-restart-now', broker: b, reason: info.reasons[0] ?? null });
  }
  const restarts = [...(controllers?.infos ?? []), ...order.map((b) => infos.get(b)!)];
  const what = restartTitle(order, controllers?.order ?? [], input.rolling);
  const params: RestartParams = { brokers: order, ...(controllers ? { controllers: controllers.order } : {}), rolling: input.rolling, unit, stopBoundSeconds, readyTimeoutSeconds };
  return {
    ok: true,
    plan: finishPlan(snapshot, 'restart-brokers', params, restartPreconditions(params, snapshot), {
      title: what,
      steps,
      impact: { risk: 'medium', partitionsAffected: order.reduce((n, b) => n + (infos.get(b)?.leaders ?? 0), 0), restarts },
      warnings,
    }),
  };
}

// ---------------------------------------------------------------- steps

export type RestartStep = Extract<PlanStep, { action: 'restart-check' | 'stop-broker' | 'start-broker' | 'wait-broker-ready' | 'wait-controller-ready' }>;

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

export async function runRestartStep(step: RestartStep, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const io = ctx.restart;
  if (!io) throw fatal({ code: 'no-host-access' });
  switch (step.action) {
    case 'restart-check':
      return restartCheck(step, io, ctx);
    case 'stop-broker':
      return stopBroker(step, io, ctx);
    case 'start-broker':
      return startBroker(step, io, ctx);
    case 'wait-broker-ready':
      return waitReady(step, io, ctx);
    case 'wait-controller-ready':
      return waitControllerReady(step, io, ctx);
  }
}

/** can-restart, live: on "no" the run pauses (nothing stops); Resume checks again. */
async function restartCheck(step: Extract<RestartStep, { action: 'restart-check' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const [snapshot, probe] = await Promise.all([ctx.snapshot(), io.probe(step.broker)]);
  const v = io.assess(snapshot, step.broker, probe);
  if (v.verdict === 'yes') return { status: 'done', detail: `${nodeName(step)}: can-restart says yes${probe || step.role ? '' : ' (no host probe: log recovery not checked)'}` };
  throw needsHuman({ code: 'restart-unsafe', broker: step.broker, ...nodeField(step), reasons: v.reasons });
}

async function stopBroker(step: Extract<RestartStep, { action: 'stop-broker' }>, io: RestartIo, ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const issuedAt = typeof ctx.progress?.issuedAt === 'number' ? ctx.progress.issuedAt : null;
  if (issuedAt === null) {
    const before = await io.status(step.broker, step.host);
    const stop = await io.service(step.broker, { action: 'stop', unit: step.host.unit, logsDir: step.host.logsDir, logDirs: step.host.logDirs });
    // A stop whose command may have run (timed out, cancelled mid-run) may be under way: record it as issued.
    if (!stop.ok && mayHaveRun(stop)) return { status: 'waiting', progress: `${nodeName(step)} may be stopping: the stop command's end is unknown (${stop.detail}); watching its process`, data: { issuedAt: ctx.now(), pid: before.pid } };
    // Asking again is safe (a stop of a stopping or stopped service changes nothing); the compensation starts it if the run ends.
    if (!stop.ok) throw transient({ code: 'stop-not-confirmed', broker: step.broker, ...nodeField(step), detail: stop.detail });
    return { status: 'waiting', progress: `${nodeName(step)}: graceful stop requested (pid ${before.pid ?? '?'})`, data: { issuedAt: ctx.now(), pid: before.pid } };
  }
  const status = await io.status(step.broker, step.host);
  // After a Resume of an overrun, the bound counts again from the Resume.
  const since = typeof ctx.progress?.boundFrom === 'number' ? ctx.progress.boundFrom : issuedAt;
  const elapsed = ctx.now() - issuedAt;
  if (status.pid === null) {
    const missing = status.markers.filter((m) => m.present === false).map((m) => m.dir);
    if (missing.length && ctx.resumedFrom !== 'no-clean-shutdown-marker') {
      throw needsHuman({ code: 'no-clean-shutdown-marker', broker: step.broker, ...nodeField(step), seconds: Math.round(elapsed / 1000), dirs: missing });
    }
    const seen = status.markers.filter((m) => m.present).length;
    return {
      status: 'done',
      detail: `${nodeName(step)} stopped in ${secs(elapsed)}${missing.length ? `; started without the clean-shutdown marker in ${missing.join(', ')} (an approver resumed)` : seen ? `; clean-shutdown marker in ${plural(seen, 'log dir')}` : step.role === 'controller' ? '; a controller keeps no clean-shutdown marker' : '; log dirs not visible, marker not checked'}`,
      data: { stopSeconds: Math.round(elapsed / 1000), pidBefore: ctx.progress?.pid ?? null },
    };
  }
  const keep = { issuedAt, pid: ctx.progress?.pid ?? null, ...(since !== issuedAt ? { boundFrom: since } : {}) };
  if (ctx.resumedFrom === 'stop-overran') {
    return { status: 'waiting', progress: `${nodeName(step)}: still stopping after ${secs(elapsed)}; waiting another ${step.boundSeconds} s (pid ${status.pid})`, data: { ...keep, boundFrom: ctx.now() } };
  }
  if (ctx.now() - since > step.boundSeconds * 1000) {
    throw needsHuman({ code: 'stop-overran', broker: step.broker, ...nodeField(step), seconds: Math.round(elapsed / 1000), bound: step.boundSeconds, pid: status.pid });
  }
  return { status: 'waiting', progress: `${nodeName(step)}: stopping for ${secs(elapsed)} of the ${step.boundSeconds} s bound (pid ${status.pid}, ${status.state})`, data: keep };
}

async function startBroker(step: Extract<RestartStep, { action: 'start-broker' }>, io: RestartIo, _ctx: RestartStepContext): Promise<RestartStepOutcome> {
  const status = await io.status(step.broker, step.host);
  if (status.pid !== null) return { status: 'done', detail: `${nodeName(step)} is running (pid ${status.pid})` };
  const started = await io.service(step.broker, { action: 'start', unit: step.host.unit, logsDir: step.host.logsDir, logDirs: step.host.logDirs });
  if (!started.ok) throw fatal({ code: 'start-failed', broker: step.broker, ...nodeField(step), detail: started.detail });
  return { status: 'done', detail: `${nodeName(step)}: ${step.host.unit} started` };
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
      detail: `broker ${step.broker} is back: registered, logs loaded, in the ISR of all ${plural(hosted, 'partition')} it hosts${probe?.process.pid ? ` (pid ${probe.process.pid})` : ''}${unclean ? `; its log shows ${plural(unclean, 'unclean-recovery line')}` : ''}`,
      data: { readySeconds: Math.round(elapsed / 1000), pid: probe?.process.pid ?? null },
    };
  }
  const names = tpNames(outOfIsr);
  const fencedNow = !registered && registrationOf(snapshot, step.broker) === 'fenced';
  const waiting = !registered ? (fencedNow ? 'registered but still fenced (loading its logs, catching up with the metadata log)' : 'not registered yet') : loading ? 'loading its logs' : `out of the ISR of ${plural(outOfIsr.length, 'partition')} (${andMore(names, 3)})`;
  if (elapsed > step.timeoutSeconds * 1000) throw fatal({ code: 'broker-not-back', broker: step.broker, seconds: Math.round(elapsed / 1000), state: waiting });
  return { status: 'waiting', progress: `broker ${step.broker}: ${waiting} (${secs(elapsed)})` };
}
