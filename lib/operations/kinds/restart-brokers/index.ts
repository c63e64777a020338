// restart-brokers: one broker (`/kafka restart 2`) or a rolling restart
// (`/kafka rolling-restart [--brokers 1,2,3]`), graceful stops only; KRaft
// controllers too (named, or every node: controllers.ts). The
// planner and the host steps are in plan.ts (registered here); this module gathers the
// per-broker facts, and owns the compensation: a run never ends with a broker
// stopped by us unless a human chose "leave stopped" in the thread.

import { errorMessage } from '../../../runtime/errors.ts';
import type { Notice } from '../../failures.ts';
import { trailingCluster, type CompensationContext, type CompensationResult, type OperationKind } from '../../kind.ts';
import { namesText, type NameList } from '../../lists.ts';
import { plural } from '../../planners.ts';
import { planRestart, restartPreconditions, runRestartStep, type RestartIo, type RestartParams, type RestartStep } from './plan.ts';
import type { StepContext, StepHandlers } from '../../step-context.ts';
import { nodeName, restartTargets } from './controllers.ts';
import { controllerHeadline, controllerNoticeText, controllerRestartLine, controllerSuccess } from './render.ts';
import type { PlanOf, PlanResult, RestartBrokerInfo } from '../../types.ts';
import { RestartRequest } from './request.ts';
import { isHostPath } from '../../../hosts/host-paths.ts';

declare module '../../types.ts' {
  interface PlanParamsByKind {
    'restart-brokers': RestartParams;
  }
}

declare module '../../capabilities.ts' {
  interface Capabilities {
    /** Host control for broker restarts (the service script, the probe); null without host access. */
    restart(): Promise<RestartIo | null>;
  }
}

/** Every host step runs through runRestartStep with the run's host control. */
const hostStep = (step: RestartStep, ctx: StepContext) =>
  runRestartStep(step, {
    restart: ctx.capabilities?.restart ?? null,
    snapshot: ctx.snapshot,
    progress: ctx.run.progress?.data,
    stepStartedAt: ctx.run.stepStartedAt,
    resumedFrom: ctx.resumedFrom ?? null,
    now: ctx.now,
  });

const RESTART_STEPS: StepHandlers = {
  'restart-check': hostStep,
  'stop-broker': hostStep,
  'start-broker': hostStep,
  'wait-broker-ready': hostStep,
  'wait-controller-ready': hostStep,
};


type Plan = PlanOf<'restart-brokers'>;

/** The reason a "leave stopped" press records on the run's cancel: the compensation then does not start the broker. */
export { LEAVE_STOPPED_REASON } from '../../kind.ts';

async function plan(io: Parameters<OperationKind<'restart-brokers'>['plan']>[0], request: Record<string, unknown>): Promise<PlanResult> {
  const r = RestartRequest.parse(request);
  const cluster = io.cluster;
  if (!cluster || cluster.hosts.executor === 'none') return { ok: false, refusal: { code: 'restart-no-host-access', cluster: cluster?.name ?? null } };
  const hosts = (await io.restart?.()) ?? null;
  if (!hosts) return { ok: false, refusal: { code: 'restarts-unavailable' } };
  const { systemdSeconds } = await import('../../../hosts/service-control.ts');
  const snapshot = await io.snapshot(null);
  const live = snapshot.brokers.map((b) => b.id);
  // KRaft controllers named, or (nothing named) every controller the bot reaches: restarted first (controllers.ts).
  const targets = restartTargets(snapshot, r.brokers, (id) => hosts.hasHost?.(id) ?? true);
  if (targets.refusal) return { ok: false, refusal: targets.refusal };
  const brokers = targets.brokers;
  const service = cluster.hosts.service;
  const facts = await Promise.all(
    [...targets.controllers, ...brokers.filter((b) => live.includes(b))]
      .map(async (brokerId) => {
        const probe = await hosts.probe(brokerId).catch(() => null);
        // A dir the service script would refuse is dropped here, at planning, not met at the stop.
        const logsDir = probe?.process.logsDir ?? null;
        const host = { unit: service.unit, logsDir: logsDir !== null && isHostPath(logsDir) ? logsDir : null, logDirs: (probe?.logDirs ?? []).filter((d) => d.exists && isHostPath(d.path)).map((d) => d.path) };
        const status = await hosts.status(brokerId, host).catch(() => null);
        const timeout = systemdSeconds(status?.timeoutStopRaw ?? probe?.systemd?.timeoutStopRaw ?? null) ?? probe?.systemd?.timeoutStopSec ?? null;
        return { brokerId, probe, host, pid: status?.pid ?? probe?.process.pid ?? null, lastShutdownSeconds: probe?.lastShutdownSeconds ?? null, systemdStopTimeoutSeconds: timeout === Infinity ? -1 : timeout };
      }),
  );
  const controllers = targets.controllers.length ? { ids: targets.controllers, facts: facts.filter((f) => targets.controllers.includes(f.brokerId)) } : undefined;
  const planned = planRestart(snapshot, { brokers, rolling: r.rolling, service, facts, assess: hosts.assess, activeControllerId: null, ...(controllers ? { controllers } : {}) });
  // Controllers a restart of every node leaves out are said on the plan.
  return planned.ok && targets.warnings.length ? { ok: true, plan: { ...planned.plan, warnings: [...targets.warnings, ...planned.plan.warnings] } } : planned;
}

/**
 * The broker the run was working on when it ended, if the run may have
 * stopped it: started again (which also removes the drop-in that disabled the
 * stop timeout and SIGKILL), unless its old process is still stopping (then
 * the sweep tries again each minute) or a human chose to leave it stopped.
 */
async function compensate(ctx: CompensationContext): Promise<CompensationResult> {
  const step = ctx.plan.steps[ctx.run.cursor];
  if (ctx.status === 'SUCCEEDED' || !step || ctx.done.brokerSettled) return { notices: [], complete: true, done: {} };
  if (step.action !== 'stop-broker' && step.action !== 'start-broker' && step.action !== 'wait-broker-ready' && step.action !== 'wait-controller-ready') return { notices: [], complete: true, done: {} };
  const broker = step.broker;
  // A controller's notices name it as one.
  const node = (ctx.plan.params as RestartParams).controllers?.includes(broker) ? { node: 'controller' as const } : {};
  const restart = ctx.capabilities.restart ?? null;
  if (!restart) return { notices: [{ code: 'broker-not-restarted', broker, ...node, detail: 'no host access in this worker' }], complete: false, done: {} };
  const host = step.host;
  try {
    const status = await restart.status(broker, host);
    const stoppingPid = step.action === 'stop-broker' ? (ctx.run.progress?.data?.pid as number | null | undefined) : undefined;
    if (status.pid !== null && stoppingPid !== undefined && stoppingPid !== null && status.pid === stoppingPid) {
      return { notices: [{ code: 'broker-still-stopping', broker, ...node, pid: status.pid }], complete: false, done: {} };
    }
    if (ctx.leaveStopped) {
      // Left stopped as a human chose, but never with our drop-in (no stop timeout, no SIGKILL) in place.
      const released = await restart.service(broker, { action: 'release', unit: host.unit, logsDir: host.logsDir, logDirs: host.logDirs });
      if (!released.ok || !/^released=1$/m.test(released.stdout)) return { notices: [{ code: 'drop-in-not-removed', broker, ...node, detail: released.detail || 'still stopping' }], complete: false, done: {} };
      // Chosen while it was being started again: it runs, and the thread must not say otherwise.
      return { notices: [{ code: status.pid === null ? 'broker-left-stopped' : 'broker-running', broker, ...node }], complete: true, done: { brokerSettled: true } };
    }
    // Start is idempotent: a running broker stays as it is, and the drop-in is removed either way.
    const started = await restart.service(broker, { action: 'start', unit: host.unit, logsDir: host.logsDir, logDirs: host.logDirs });
    if (!started.ok) return { notices: [{ code: 'broker-not-restarted', broker, ...node, detail: started.detail }], complete: false, done: {} };
    return { notices: [{ code: status.pid === null ? 'broker-started' : 'broker-running', broker, ...node }], complete: true, done: { brokerSettled: true } };
  } catch (err) {
    return { notices: [{ code: 'broker-not-restarted', broker, ...node, detail: errorMessage(err) }], complete: false, done: {} };
  }
}

type RestartNotice =
  | { code: 'restart-one-broker' }
  | { code: 'restart-broker-not-live'; brokers: number[]; live: number[]; fenced?: number[] }
  | { code: 'restart-would-go-offline'; brokers: { broker: number; partitions: NameList }[] }
  | { code: 'restart-recovering'; brokers: number[] }
  | { code: 'restart-no-host-access'; cluster: string | null }
  | { code: 'restarts-unavailable' | 'no-host-access' }
  | { code: 'stop-bound-not-longer'; broker: number; node?: 'controller'; bound: number; timeout: number }
  | { code: 'shutdown-near-bound'; broker: number; node?: 'controller'; seconds: number; bound: number }
  | { code: 'cannot-restart-now'; broker: number; node?: 'controller'; reason: string | null }
  | { code: 'restart-unsafe'; broker: number; node?: 'controller'; reasons: string[] }
  | { code: 'stop-not-confirmed'; broker: number; node?: 'controller'; detail: string }
  | { code: 'no-clean-shutdown-marker'; broker: number; node?: 'controller'; seconds: number; dirs: string[] }
  | { code: 'stop-overran'; broker: number; node?: 'controller'; seconds: number; bound: number; pid: number }
  | { code: 'start-failed'; broker: number; node?: 'controller'; detail: string }
  | { code: 'broker-not-back'; broker: number; node?: 'controller'; seconds: number; state: string }
  | { code: 'broker-left-stopped' | 'broker-started' | 'broker-running'; broker: number; node?: 'controller' }
  | { code: 'broker-still-stopping'; broker: number; node?: 'controller'; pid: number }
  | { code: 'broker-not-restarted' | 'drop-in-not-removed'; broker: number; node?: 'controller'; detail: string };

/** "broker 2", or "controller 101" for a controller's notice. */
const who = (d: { broker: number; node?: 'controller' }) => nodeName({ broker: d.broker, ...(d.node ? { role: d.node } : {}) });

function noticeText(n: Notice): string | undefined {
  const d = n as RestartNotice;
  switch (d.code) {
    case 'restart-one-broker':
      return 'restart takes exactly one broker; use rolling-restart for several';
    case 'restart-broker-not-live': {
      const fenced = d.fenced ?? [];
      const down = d.brokers.filter((b) => !fenced.includes(b));
      const parts = [
        ...(fenced.length ? [`broker ${fenced.join(', ')} ${fenced.length === 1 ? 'is' : 'are'} registered but fenced: not heartbeating to the controller (stopped, crashed, or cut off from the controllers), so there is no running broker to restart`] : []),
        ...(down.length ? [`broker ${down.join(', ')} is not a live broker of this cluster`] : []),
      ];
      return `${parts.join('; ')} (live: ${d.live.join(', ') || 'none'}); a broker that is down is started by hand, not restarted`;
    }
    case 'restart-would-go-offline':
      return (
        `Refused: restarting would take partitions offline. ${d.brokers.map((b) => `broker ${b.broker}: ${plural(b.partitions.total, 'partition')} would go offline (${namesText(b.partitions)})`).join('; ')}. ` +
        "Their only in-sync replica is on that broker. Fix first: drain the broker (`/kafka drain <broker>`) so its replicas move elsewhere, or raise the topics' replication factor (`/kafka raise-rf <topic> 3`), then plan the restart again."
      );
    case 'restart-recovering':
      return `Refused: broker ${d.brokers.join(', ')} is still recovering logs (or loading __consumer_offsets); restarting now starts recovery over. Wait until it finishes.`;
    case 'restart-no-host-access':
      return `${d.cluster ?? 'this cluster'} has no host access (hosts.executor "none", e.g. Amazon MSK): restart its brokers with the provider's own reboot (MSK: RebootBroker, one broker at a time).`;
    case 'restarts-unavailable':
      return 'broker restarts are not available in this worker';
    case 'no-host-access':
      return 'this cluster has no host access configured (hosts.executor), so its brokers cannot be restarted from here';
    case 'stop-bound-not-longer':
      return `${who(d)}: the stop bound (${d.bound} s) is not longer than systemd's TimeoutStopSec (${d.timeout} s); the restart still disables systemd's SIGKILL for its own stop`;
    case 'shutdown-near-bound':
      return `${who(d)}: its last controlled shutdown took ${d.seconds} s, close to the ${d.bound} s bound`;
    case 'cannot-restart-now':
      return `${who(d)}: can-restart says no now${d.reason ? ` (${d.reason})` : ''}; the run pauses at its check until that clears and an approver resumes`;
    case 'restart-unsafe':
      return `${who(d)} cannot be restarted safely now: ${d.reasons.join(' ')}`;
    case 'stop-not-confirmed':
      return `the stop of ${who(d)} was not confirmed (${d.detail}): asked again`;
    case 'no-clean-shutdown-marker':
      return `${who(d)} exited after ${d.seconds} s but left no clean-shutdown marker in ${d.dirs.join(', ')}: it will recover those logs on start. Resume starts it anyway; Cancel starts it and ends the run; "Leave stopped" leaves it for a human`;
    case 'stop-overran':
      return `${who(d)} is still stopping after ${d.seconds} s (bound ${d.bound} s; pid ${d.pid}). Nothing was killed. Resume waits another ${d.bound} s; Cancel starts it once it has exited; "Leave stopped" leaves it for a human`;
    case 'start-failed':
      return `could not start ${who(d)}'s service: ${d.detail}`;
    case 'broker-not-back':
      return `${who(d)} is not back after ${d.seconds} s: ${d.state}. No further broker is touched`;
    case 'broker-left-stopped':
      return `${who(d)} left stopped, as chosen in the thread (systemd's stop timeout restored)`;
    case 'drop-in-not-removed':
      return `${who(d)} is left stopped as chosen, but the drop-in that disabled systemd's stop timeout and SIGKILL is still in place (${d.detail}); retried each minute`;
    case 'broker-started':
      return `${who(d)} started again (and systemd's stop timeout restored)`;
    case 'broker-running':
      return `${who(d)} is running (systemd's stop timeout restored)`;
    case 'broker-still-stopping':
      return `${who(d)} is still stopping (pid ${d.pid}): it is started once its process has exited (checked every minute)`;
    case 'broker-not-restarted':
      return `${who(d)} may be stopped and could not be started yet (${d.detail}): retried every minute`;
    default:
      return controllerNoticeText(n);
  }
}

function restartLine(b: RestartBrokerInfo, i: number): string {
  if (b.role === 'controller') return controllerRestartLine(b, i);
  const timeout = (t: number | null) => (t === null ? 'unknown' : t < 0 ? 'infinity' : `${t} s`);
  const offsets = b.offsetsPartitionsLed.length
    ? `leads __consumer_offsets ${namesText(b.offsetsPartitionsLed.map(String), 12)}`
    : 'leads no __consumer_offsets partition';
  const verdict = b.verdict === 'yes' ? 'can-restart: yes' : `can-restart: no (${b.reasons[0] ?? ''})`;
  const last = b.lastShutdownSeconds === null ? 'not in the log' : `${b.lastShutdownSeconds.toFixed(1)} s`;
  return `${i + 1}. broker ${b.brokerId}: ${verdict} · last controlled shutdown ${last} · systemd stop timeout ${timeout(b.systemdStopTimeoutSeconds)} · ${plural(b.leaders, 'leader')}, ${offsets}`;
}

export const restartBrokers: OperationKind<'restart-brokers'> = {
  kind: 'restart-brokers',
  needs: ['restart'],
  steps: RESTART_STEPS,
  summary: 'plan a safe restart of one broker (graceful stop, never kill -9)',
  request: RestartRequest,
  commands: [
    {
      name: 'restart',
      usage: 'restart <broker> [cluster]',
      parse(args, isCluster) {
        const { rest, cluster } = trailingCluster(args, isCluster);
        if (rest.length !== 1) return { error: 'name exactly one broker id' };
        return { fields: { brokers: [rest[0]], rolling: false }, ...(cluster ? { cluster } : {}) };
      },
    },
    {
      name: 'rolling-restart',
      usage: 'rolling-restart [cluster] [--brokers 1,2,3]',
      summary: 'plan a rolling restart, one node at a time (KRaft controllers first, then brokers; --brokers names nodes)',
      parse(args) {
        const flag = args.findIndex((a) => a === '--brokers' || a.startsWith('--brokers='));
        let brokers: string[] = [];
        let rest = args;
        if (flag >= 0) {
          const inline = args[flag]!.startsWith('--brokers=') ? args[flag]!.slice('--brokers='.length) : args[flag + 1];
          if (!inline) return { error: '--brokers needs a list like 1,2,3' };
          brokers = inline.split(',').filter(Boolean);
          rest = args.filter((_, i) => i !== flag && (args[flag]!.includes('=') || i !== flag + 1));
        }
        // The only word left, if any, is the cluster.
        if (rest.length > 1) return { error: `unexpected ${rest.map((a) => `\`${a}\``).join(' ')}` };
        return { fields: { brokers, rolling: true }, ...(rest[0] !== undefined ? { cluster: rest[0] } : {}) };
      },
    },
  ],
  describeRequest: (r) => {
    const brokers = (r.brokers as number[]) ?? [];
    return r.rolling ? `rolling restart of ${brokers.length ? `brokers ${brokers.join(', ')}` : 'every broker'}` : `restart broker ${brokers[0]}`;
  },
  // A broker down for its restart must not meet another restart's stop or a reassignment.
  exclusive: true,
  topics: () => null,
  plan,
  preconditions: (params, s) => restartPreconditions(params, s),
  // Paused at a can-restart check, the run has no broker down: who is live and where replicas are must be as planned.
  recheckOnResume: (p, cursor) => p.steps[cursor]?.action === 'restart-check',
  compensate,
  pauseChoices: ['leave-stopped'],
  render: {
    headline: (p: Plan) =>
      p.params.controllers?.length
        ? controllerHeadline(p.params)
        : [
            p.params.brokers.length === 1
              ? `Stops and starts broker ${p.params.brokers[0]} through the ${p.params.unit} service on its host.`
              : `Stops and starts brokers ${p.params.brokers.join(' → ')}, one at a time in this order, through the ${p.params.unit} service.`,
            'Each stop is graceful (controlled shutdown moves leadership away) and waited for; nothing is ever SIGKILLed.',
            'The next broker stops only when the previous one is registered, has loaded its logs and is back in every ISR. A run that ends early starts the broker it stopped.',
          ],
    sections: (p) => (p.impact.restarts?.length ? [{ title: 'Restart order', lines: p.impact.restarts.map(restartLine) }] : []),
    success: (p) =>
      p.params.controllers?.length
        ? controllerSuccess(p.params)
        : p.params.brokers.length === 1
          ? `restarted broker ${p.params.brokers[0]}; it is back in every ISR`
          : `restarted brokers ${p.params.brokers.join(', ')} one at a time; each is back in every ISR`,
    notice: noticeText,
  },
};
