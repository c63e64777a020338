// Prose for the KRaft controllers' part of a restart plan (controllers.ts):
// its own notice codes, its lines in the restart order, the plan's opening lines.
import type { Notice } from '../../failures.ts';
import type { RestartParams } from './plan.ts';
import type { RestartBrokerInfo } from '../../types.ts';

type ControllerNotice =
  | { code: 'restart-controller-no-host'; controllers: number[] }
  | { code: 'controllers-not-restarted'; controllers: number[]; why: 'no-host' }
  | { code: 'controllers-not-restarted'; controllers: number[]; why: 'too-few-voters'; voters: number }
  | { code: 'controllers-not-restarted'; controllers: number[]; why: 'quorum-unread'; detail: string | null }
  | { code: 'controller-not-back'; broker: number; seconds: number; state: string };

const named = (ids: readonly number[]) => `controller${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`;

/** The words for the controllers' own notice codes; undefined for any other. */
export function controllerNoticeText(n: Notice): string | undefined {
  const d = n as ControllerNotice;
  switch (d.code) {
    case 'restart-controller-no-host':
      return `${named(d.controllers)} ${d.controllers.length === 1 ? 'has' : 'have'} no host in this cluster's config (hosts.instances / hosts.hostDirs, keyed by node id): add ${d.controllers.length === 1 ? 'it' : 'them'} there to restart ${d.controllers.length === 1 ? 'it' : 'them'} from here`;
    case 'controllers-not-restarted':
      if (d.why === 'no-host') return `${named(d.controllers)} ${d.controllers.length === 1 ? 'is' : 'are'} not restarted: the bot reaches no host for ${d.controllers.length === 1 ? 'it' : 'them'} (add ${d.controllers.length === 1 ? 'it' : 'them'} to hosts.instances / hosts.hostDirs by node id)`;
      if (d.why === 'too-few-voters')
        return `${named(d.controllers)} ${d.controllers.length === 1 ? 'is' : 'are'} not restarted: a quorum of ${d.voters} voter${d.voters === 1 ? '' : 's'} cannot spare one without losing its majority (restart ${d.controllers.length === 1 ? 'it' : 'them'} by hand in a maintenance window)`;
      return `the controller quorum could not be read${d.detail ? ` (${d.detail})` : ''}, so no controller is restarted: brokers only`;
    case 'controller-not-back':
      return `controller ${d.broker} is not back in the quorum after ${d.seconds} s: ${d.state}. No further node is touched`;
    default:
      return undefined;
  }
}

/** One controller's line in the restart order. */
export function controllerRestartLine(b: RestartBrokerInfo, i: number): string {
  const timeout = (t: number | null) => (t === null ? 'unknown' : t < 0 ? 'infinity' : `${t} s`);
  const verdict = b.verdict === 'yes' ? 'can-restart: yes' : `can-restart: no (${b.reasons[0] ?? ''})`;
  const role = b.quorumRole === 'leader' ? 'the active controller (quorum leader): last of the controllers, its restart elects a new leader' : b.quorumRole === 'observer' ? 'observer (not a voter)' : 'voter';
  return `${i + 1}. controller ${b.brokerId}: ${verdict} · ${role} · systemd stop timeout ${timeout(b.systemdStopTimeoutSeconds)}`;
}

/** The plan's opening lines when it restarts controllers. */
export function controllerHeadline(p: RestartParams): string[] {
  const controllers = p.controllers ?? [];
  const brokers = p.brokers;
  const what = brokers.length
    ? `Stops and starts controllers ${controllers.join(' → ')}, then brokers ${brokers.join(' → ')}, one node at a time in this order, through the ${p.unit} service.`
    : `Stops and starts controller${controllers.length === 1 ? '' : 's'} ${controllers.join(' → ')}${controllers.length > 1 ? ', one at a time in this order,' : ''} through the ${p.unit} service.`;
  return [
    what,
    'Each stop is graceful and waited for; nothing is ever SIGKILLed. Brokers keep serving while a controller is down; the active controller goes last, so the quorum elects a new leader once.',
    `The next node stops only when the previous one is back: a controller fetching from the quorum's leader and caught up${brokers.length ? ', a broker registered, its logs loaded and back in every ISR' : ''}. A run that ends early starts the node it stopped.`,
  ];
}

/** The run's success line when it restarted controllers. */
export function controllerSuccess(p: RestartParams): string {
  const controllers = p.controllers ?? [];
  const back = `controller${controllers.length === 1 ? '' : 's'} ${controllers.join(', ')} ${controllers.length === 1 ? 'is' : 'each'} back in the quorum, caught up`;
  return p.brokers.length ? `restarted ${back}; then brokers ${p.brokers.join(', ')}, each back in every ISR` : `restarted: ${back}`;
}
