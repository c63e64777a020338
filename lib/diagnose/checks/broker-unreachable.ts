// broker-unreachable: a broker that holds replicas yet is not in the live broker
// list, or is listed live but does not answer us. Registered-but-fenced brokers
// are broker-fenced's (broker-fenced.ts); a live broker whose host says its process is
// gone died within the broker session timeout and is not fenced yet.
import type { ClusterSnapshot } from '../../kafka/types.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import type { Evidence } from '../types.ts';
import { plural } from '../finding.ts';
import { fencedBrokers, registrationOf } from '../../kafka/registered-brokers-view.ts';
import { GONE_BUT_NOT_FENCED, processOf, unfencedSilentNote, type FencedProcess } from './broker-fenced.ts';
import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { fromView } from './metadata-view.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'broker-unreachable': true;
  }
}

/** What the metadata view classified: the live brokers and the replicas held by brokers not live. */
export interface BrokersView {
  snapshot: ClusterSnapshot;
  probes: readonly HostProbeOutcome[];
  live: ReadonlySet<number>;
  replicasOnDeadBrokers: ReadonlyMap<number, number>;
}

const sortedIds = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);

/**
 * What the renderer words: the broker, the replicas it holds, whether it is
 * live (registered but silent) or not registered at all, whether the
 * controller's registrations were read, and what its host says of its process
 * (null when it is not live).
 */
interface Facts {
  id: number;
  replicas: number;
  isLive: boolean;
  notRegistered: boolean;
  registrationsRead: boolean;
  process: FencedProcess['state'] | null;
}

/** Brokers down, or registered but not answering. Registered-but-fenced brokers are broker-fenced's (checks/broker-fenced.ts). */
function detect({ snapshot, probes, live, replicasOnDeadBrokers }: BrokersView): Detected<Facts>[] {
  const unreachable = new Set(snapshot.unreachableBrokers);
  const fenced = new Set(fencedBrokers(snapshot).map((b) => b.id));
  const registrationsRead = snapshot.registeredBrokers?.status === 'read';
  return sortedIds(new Set([...unreachable, ...replicasOnDeadBrokers.keys()])).flatMap((id): Detected<Facts>[] => {
    const isLive = live.has(id);
    if (!isLive && fenced.has(id)) return [];
    const replicas = replicasOnDeadBrokers.get(id) ?? 0;
    const notRegistered = !isLive && registrationOf(snapshot, id) === 'not-registered';
    // Live, yet its host says the process is gone: it died within the broker session timeout, not yet fenced.
    const process = isLive ? processOf(id, probes, probes.length > 0).state : null;
    const gone = process === 'not-running';
    const evidence: Evidence[] = [
      { label: 'live brokers', value: sortedIds(live).join(',') || 'none', source: 'metadata' },
      ...(isLive ? [{ label: 'request', value: errorsFor(snapshot, id) || 'no answer within the timeout', source: `broker:${id}` }] : []),
      ...(replicas ? [{ label: 'replicas assigned', value: String(replicas), source: 'metadata' }] : []),
      ...(registrationsRead ? [{ label: 'registration', value: isLive ? 'registered, unfenced' : notRegistered ? 'not registered' : 'registered, unfenced since the metadata was read', source: 'DescribeCluster' }] : []),
      ...(gone ? [{ label: 'process', value: 'not running', source: `broker:${id}` }] : []),
    ];
    return [{ finding: { kind: 'broker-unreachable', severity: 'error', brokers: [id], evidence, identity: [`broker:${id}`] }, facts: { id, replicas, isLive, notRegistered, registrationsRead, process } }];
  });
}

function render({ id, replicas, isLive, notRegistered, registrationsRead, process }: Facts): FindingProse {
  const gone = process === 'not-running';
  const summary = isLive
    ? `Broker ${id} is in the cluster's live broker list but did not answer our requests in time.` +
      (gone
        ? ` ${GONE_BUT_NOT_FENCED}`
        : ' A broker that is registered but not serving (hung, GC, disk stall) is how a hung leader with an ISR of one becomes a leaderless partition.' +
          (registrationsRead ? ` ${unfencedSilentNote(process === 'running')}` : ''))
    : notRegistered
      ? `Broker ${id} holds ${plural(replicas, 'replica')} but is not registered with the controller at all (unregistered, or never started with this id): nothing serves those replicas until a broker with id ${id} registers, or they are reassigned.`
      : `Broker ${id} holds ${plural(replicas, 'replica')} but is not in the live broker list: it is stopped, crashed, fenced or cut off.`;
  return {
    title: gone ? `Broker ${id}'s process is not running; the controller has not fenced it yet` : isLive ? `Broker ${id} is registered but not answering` : notRegistered ? `Broker ${id} is not registered (${plural(replicas, 'replica')} assigned to it)` : `Broker ${id} is down (${plural(replicas, 'replica')} assigned to it)`,
    summary,
    nextActions: [
      gone
        ? `Find out why broker ${id} stopped (systemd journal, server.log) and start it if it is meant to serve.`
        : isLive && registrationsRead
          ? `Check the path to broker ${id} (its advertised listener, DNS, firewall, TLS/SASL) and its request handling (server.log, thread dumps): it heartbeats to the controller but does not answer us.`
          : `Check broker ${id}'s process and host (host probe, systemd journal, server.log).`,
      'Do not restart other brokers while this one is down.',
    ],
  };
}

function errorsFor(snapshot: ClusterSnapshot, brokerId: number): string {
  return snapshot.errors
    .filter((e) => e.scope === `broker:${brokerId}`)
    .map((e) => e.message)
    .slice(0, 3)
    .join(' | ');
}

export const brokerUnreachableCheck: Check = { kinds: ['broker-unreachable'], needs: ['metadata'], detect: fromView((view) => detect(view).map((d) => renderFinding(d, render))) };
