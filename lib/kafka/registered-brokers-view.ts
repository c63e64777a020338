// Registered brokers, fenced ones included (KIP-1073, Kafka 4.0): the pure
// side, shared by the detectors, can-restart and the planners (no I/O here:
// registered-brokers-read.ts reads them with the snapshot).
//
// In KRaft a broker stays registered with the controller until someone
// unregisters it (`kafka-cluster.sh unregister`). While it heartbeats it is
// unfenced and Metadata lists it; once it stops heartbeating (stopped,
// crashed, cut off from the controllers, or still starting) the controller
// fences it and Metadata drops it, although it is still registered.
// Metadata alone cannot tell that apart from a broker the cluster never had;
// DescribeCluster v2 with IncludeFencedBrokers can.

import type { ClusterSnapshot, RegisteredBroker, RegisteredBrokersView } from './types.ts';

// The registration types are the snapshot's (types.ts), named here where their readers look for them.
export type { RegisteredBroker, RegisteredBrokersView };

/**
 * Where a broker stands: live (Metadata lists it), fenced (registered, not
 * heartbeating), not-registered (neither), unknown (the line cannot say, or
 * the two reads disagree: it was unfenced between them).
 */
export type BrokerRegistration = 'live' | 'fenced' | 'not-registered' | 'unknown';

export function registrationOf(snapshot: ClusterSnapshot, id: number): BrokerRegistration {
  if (snapshot.brokers.some((b) => b.id === id)) return 'live';
  const view = snapshot.registeredBrokers;
  if (view?.status !== 'read') return 'unknown';
  const r = view.brokers.find((b) => b.id === id);
  if (!r) return 'not-registered';
  return r.fenced ? 'fenced' : 'unknown';
}

/** Brokers registered and fenced that Metadata does not list; [] when the line cannot say. */
export function fencedBrokers(snapshot: ClusterSnapshot): RegisteredBroker[] {
  const view = snapshot.registeredBrokers;
  if (view?.status !== 'read') return [];
  const live = new Set(snapshot.brokers.map((b) => b.id));
  return view.brokers.filter((b) => b.fenced && !live.has(b.id)).sort((a, b) => a.id - b.id);
}

export const FENCED_CHECK = 'broker-fenced';
const SKIPPED_PREFIX = `Fenced brokers (${FENCED_CHECK})`;

/** Is this skipped-check line ours (a report about transactions alone leaves it out)? */
export const isRegisteredBrokersSkippedCheck = (line: string) => line.startsWith(SKIPPED_PREFIX);

/**
 * What the diagnosis says among its skipped checks when the registrations
 * could not be read: once, and never as an error. null when they were read,
 * or when the snapshot predates the read.
 */
export function registeredBrokersSkippedCheck(snapshot: ClusterSnapshot): string | null {
  const view = snapshot.registeredBrokers;
  if (!view || view.status === 'read') return null;
  if (view.status === 'unsupported') {
    return `${SKIPPED_PREFIX}: not available on this Kafka line (${view.reason}); listing fenced brokers needs DescribeCluster v2 (KIP-1073, KRaft on Kafka 4.0 or later), so a broker missing from the metadata is reported as down without telling fenced from gone.`;
  }
  return `${SKIPPED_PREFIX} could not be read (${view.reason}): a broker missing from the metadata is reported as down without telling fenced from gone.`;
}
