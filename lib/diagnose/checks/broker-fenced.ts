// broker-fenced: a broker the controller still has registered but fenced
// (KIP-1073: DescribeCluster v2 lists it, Metadata does not). It is not
// heartbeating: stopped, crashed, cut off from the controllers, or still
// starting. Told apart from broker-unreachable (a live, unfenced broker that
// does not answer us: the network or the broker's request handling) and, with
// host access, by whether its process runs. A fenced broker whose process is
// gone may have been decommissioned without being unregistered: the finding
// names `kafka-cluster.sh unregister` then, but only for a broker that holds
// no replica (one that does must have them moved first).
// Clusters whose line cannot list fenced brokers (before 4.0, ZooKeeper mode)
// get no finding here; the diagnosis says so among its skipped checks.

import type { ClusterSnapshot } from '../../kafka/types.ts';
import { fencedBrokers, type RegisteredBroker } from '../../kafka/registered-brokers-view.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import type { Evidence, Finding } from '../types.ts';
import { plural } from '../finding.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    /** Registered but fenced (KIP-1073, Kafka 4.0 KRaft): not heartbeating, told apart from a live broker we cannot reach. */
    'broker-fenced': true;
  }
}

/** What the host probe says of the broker's process: gone, running (maybe recovering its logs), or not known (no host access, probe failed). */
export type FencedProcess =
  | { state: 'not-running' }
  | { state: 'running'; pid: number | null; startedAt: string | null; recovering: boolean }
  | { state: 'unknown'; cause: 'no-host-access' | 'no-host-target' | 'probe-failed'; message: string | null };

export function processOf(id: number, probes: readonly HostProbeOutcome[], hostAccess: boolean): FencedProcess {
  const o = probes.find((p) => p.brokerId === id);
  if (!o) return { state: 'unknown', cause: hostAccess ? 'no-host-target' : 'no-host-access', message: null };
  if (!o.ok) return { state: 'unknown', cause: 'probe-failed', message: o.message };
  const p = o.report.process;
  return p.running ? { state: 'running', pid: p.pid, startedAt: p.startedAt, recovering: o.report.recoveryInProgress } : { state: 'not-running' };
}

/** Why whether its process runs is not known, as the evidence and the summary say it. */
function unknownWhy(id: number, proc: Extract<FencedProcess, { state: 'unknown' }>): string {
  return proc.cause === 'probe-failed' ? `host probe failed: ${proc.message ?? ''}` : proc.cause === 'no-host-target' ? `no host target for broker ${id}` : 'no host access';
}

/**
 * What to say of a broker the controller still counts as live and unfenced that
 * does not answer us while its host says its process is gone: it died within
 * the broker session timeout (killed, crashed) and will be fenced once that passes.
 */
export const GONE_BUT_NOT_FENCED =
  'Its process is not running on its host: it stopped or crashed moments ago, and the controller still counts it as registered and unfenced until its broker session times out (broker.session.timeout.ms, 9 s by default); after that it is reported as fenced.';

/**
 * A live, unfenced broker that does not answer us, its process not known to be
 * gone: the path to it or its request handling; a stopped process only if it
 * stopped within the broker session timeout (not yet fenced), unless its host says it runs.
 */
export function unfencedSilentNote(running: boolean): string {
  const text = 'The controller counts it as registered and unfenced (it heartbeats), so the trouble is on the path between us and it (network, listener, TLS/SASL) or in its request handling';
  return running
    ? `${text}, not a stopped process.`
    : `${text}, unless it stopped less than a broker session timeout ago (broker.session.timeout.ms, 9 s by default): the controller fences a broker only then, and the next diagnosis would show it fenced.`;
}

function replicasOn(snapshot: ClusterSnapshot, id: number): { replicas: number; offline: number } {
  let replicas = 0;
  let offline = 0;
  for (const t of snapshot.topics) {
    for (const p of t.partitions) {
      if (!p.replicas.includes(id)) continue;
      replicas++;
      if (p.leader < 0) offline++;
    }
  }
  return { replicas, offline };
}

/** The command's --bootstrap-server: a few live brokers as Metadata advertises them. */
export function bootstrapOf(snapshot: ClusterSnapshot): string {
  const live = snapshot.brokers.slice(0, 3).map((b) => `${b.host.includes(':') ? `[${b.host}]` : b.host}:${b.port}`);
  return live.length > 0 ? live.join(',') : '<broker:port>';
}

export function unregisterCommand(snapshot: ClusterSnapshot, id: number): string {
  return unregisterText(bootstrapOf(snapshot), id);
}

const unregisterText = (bootstrap: string, id: number) => `kafka-cluster.sh unregister --bootstrap-server ${bootstrap} --id ${id}`;

/**
 * What the renderer words: the broker, the replicas it holds and how many of
 * its partitions have no leader, the topics a topic-limited diagnosis read
 * (null: all), what its host says of its process, and the --bootstrap-server
 * of the unregister command.
 */
interface Facts {
  id: number;
  replicas: number;
  offline: number;
  only: string[] | null;
  proc: FencedProcess;
  bootstrap: string;
}

function processEvidence(id: number, proc: FencedProcess): Evidence {
  if (proc.state === 'running') return { label: 'process', value: `running (pid ${proc.pid ?? '?'}${proc.startedAt ? `, started ${proc.startedAt}` : ''})${proc.recovering ? '; log recovery in progress' : ''}`, source: `broker:${id}` };
  if (proc.state === 'not-running') return { label: 'process', value: 'not running', source: `broker:${id}` };
  return { label: 'process', value: `not checked (${unknownWhy(id, proc)})`, source: `broker:${id}` };
}

function detectFenced(snapshot: ClusterSnapshot, b: RegisteredBroker, proc: FencedProcess): Detected<Facts> {
  const id = b.id;
  const { replicas, offline } = replicasOn(snapshot, id);
  const evidence: Evidence[] = [
    { label: 'registration', value: `broker ${id} at ${b.host}:${b.port}${b.rack ? `, rack ${b.rack}` : ''}: registered, fenced`, source: `DescribeCluster${snapshot.registeredBrokers?.answeredBy != null ? ` (broker ${snapshot.registeredBrokers.answeredBy})` : ''}` },
    { label: 'live brokers', value: snapshot.brokers.map((x) => x.id).join(',') || 'none', source: 'metadata' },
    { label: 'replicas assigned', value: String(replicas), source: 'metadata' },
    processEvidence(id, proc),
  ];
  // A topic-limited diagnosis read some topics only: "no replica" is then no replica of those.
  const only = snapshot.topicFilter?.length ? snapshot.topicFilter : null;
  return {
    finding: { kind: 'broker-fenced', severity: replicas > 0 ? 'error' : 'warning', brokers: [id], evidence, identity: [`broker:${id}`] },
    facts: { id, replicas, offline, only, proc, bootstrap: bootstrapOf(snapshot) },
  };
}

/** The summary: the broker's state, what its being fenced does, and that it is not the network. */
function fencedSummary({ id, replicas, offline, only, proc }: Facts): string {
  const topics = only?.join(', ');
  const notNetwork = 'This is not a network problem between us and a live broker: the controller itself has taken it out of service, and no partition can elect it until it heartbeats again.';
  const state =
    proc.state === 'running'
      ? proc.recovering
        ? `Broker ${id}'s process runs and is still recovering its logs: a starting broker stays fenced until it has loaded them and caught up with the metadata log.`
        : `Broker ${id}'s process runs, yet the controller keeps it fenced: it is not heartbeating successfully (still catching up with the metadata log, or cut off from the controllers).`
      : proc.state === 'not-running'
        ? `Broker ${id} is still registered with the controller but fenced: its process is not running on its host (stopped or crashed), so it does not heartbeat.`
        : `Broker ${id} is still registered with the controller but fenced: it does not heartbeat (stopped, crashed, or cut off from the controllers; ${unknownWhy(id, proc)}, so whether its process runs is not known).`;
  const impact =
    replicas > 0
      ? ` Its ${plural(replicas, 'replica')} ${replicas === 1 ? 'is' : 'are'} out of every ISR while it is fenced${offline > 0 ? `; ${plural(offline, 'partition')} it holds ${offline === 1 ? 'has' : 'have'} no leader` : ''}.`
      : `${topics ? ` It holds no replica of ${topics} (other topics were not read).` : ' It holds no replica.'} If it has been decommissioned, it only stays registered, and a registered broker (fenced or not) must still support every feature level the cluster is upgraded to.`;
  return `${state}${impact} ${notNetwork}`;
}

function render(facts: Facts): FindingProse {
  const { id, replicas, only, proc, bootstrap } = facts;
  const topics = only?.join(', ');
  const holds = replicas > 0 ? `${plural(replicas, 'replica')} assigned to it` : topics ? `no replica of ${topics} assigned to it` : 'no replica assigned to it';
  const title =
    proc.state === 'running'
      ? `Broker ${id}'s process runs but the controller keeps it fenced (${holds})`
      : proc.state === 'not-running'
        ? `Broker ${id} is registered but fenced: its process is not running (${holds})`
        : `Broker ${id} is registered but fenced and not heartbeating (${holds})`;
  const nextActions =
    proc.state === 'running'
      ? [
          proc.recovering
            ? `Let broker ${id} finish recovering its logs; it is unfenced once it has caught up. Do not restart it now: recovery would start over.`
            : `Read broker ${id}'s server.log for heartbeat or controller connection errors (controller.quorum.bootstrap.servers / controller.quorum.voters, the controller listener, TLS/SASL) and check the network path to the controllers.`,
          'Re-run diagnose: a broker that stays fenced keeps its replicas out of every ISR.',
        ]
      : [
          `If broker ${id} is meant to serve: find out why it stopped (systemd journal, server.log) and start it; it is unfenced once it heartbeats and has caught up.`,
          replicas > 0
            ? `If broker ${id} has been decommissioned for good: its ${plural(replicas, 'replica')} must be moved to other brokers first (/kafka drain ${id}); unregister it only once it holds none.`
            : `If broker ${id} has been decommissioned${topics ? ` and holds no replica of any topic (this diagnosis read ${topics} only: diagnose every topic to be sure)` : ''}, unregister it: ${unregisterText(bootstrap, id)} (add --command-config for a secured listener).`,
        ];
  return { title, summary: fencedSummary(facts), nextActions };
}

export function detectFencedBrokers({ snapshot, probes }: CheckInput): Finding[] {
  const hostAccess = probes.length > 0;
  return fencedBrokers(snapshot).map((b) => renderFinding(detectFenced(snapshot, b, processOf(b.id, probes, hostAccess)), render));
}

export const brokerFencedCheck: Check = { kinds: ['broker-fenced'], needs: ['metadata'], uses: { hosts: "whether a fenced broker's process runs" }, detect: detectFencedBrokers };
