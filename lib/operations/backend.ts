// The worker's access to Kafka for operations: snapshots, the protocol admin
// (reassignments, elections, throttles, offsets), and host measurements where
// the cluster has host access. Everything an operation changes goes through
// the Kafka protocol, so operations work on Amazon MSK too; host tools only
// add measurements (a leaderless replica's log end offset). Loaded on first
// use (dynamic imports): the Slack ack path never pays for kafkajs.
import type { ClusterConfig } from '../config/schema.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { OperationIo } from './kind.ts';
import { assertCapabilities } from './capabilities.ts';
import type { PlanResult } from './types.ts';
import { hostTargets, type ExecutorFactory } from '../hosts/executors.ts';
import { toConnectionConfig } from '../kafka/cluster-connection.ts';
import type { OpsRequest } from './requests.ts';
import type { AssessRestart, RestartIo } from './kinds/restart-brokers/plan.ts';
import { DEFAULT_THROTTLE_BYTES_PER_SEC } from './validate.ts';

export interface OperationsBackend {
  /** The request's kind gathers what it needs (snapshot, measurements), then plans (pure). Changes nothing. */
  plan(cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult>;
  /** The cluster as an approved run reaches it. */
  io(cluster: ClusterConfig): OperationIo;
}

export class OperationsUnavailableError extends Error {
  override name = 'OperationsUnavailableError';
}

export { DEFAULT_THROTTLE_BYTES_PER_SEC };

/** Only the providers' presence is checked: they are never called with it. */
const PLACEHOLDER_CLUSTER = {} as ClusterConfig;

export function createDefaultOperations(executorFor: ExecutorFactory, opts: { assessRestart?: AssessRestart } = {}): OperationsBackend {
  const timeoutOf = (cluster: ClusterConfig) => Math.max(20_000, cluster.diagnosisTimeoutMs);
  /** Host control for restarts: the fixed service script and the probe, where the cluster has host access. */
  const restartIo = async (cluster: ClusterConfig): Promise<RestartIo | null> => {
    const executor = await executorFor(cluster);
    if (!executor || cluster.hosts.executor === 'none' || !opts.assessRestart) return null;
    const targetOf = (brokerId: number) => {
      const t = hostTargets(cluster, [brokerId])[0];
      if (!t) throw new Error(`broker ${brokerId} has no host in the cluster config`);
      return t;
    };
    const { probeHosts } = await import('../hosts/probe-runner.ts');
    const service = await import('../hosts/service-control.ts');
    return {
      assess: opts.assessRestart,
      hasHost: (nodeId) => hostTargets(cluster, [nodeId]).length > 0,
      async probe(brokerId) {
        const [outcome] = await probeHosts(executor, [targetOf(brokerId)], { timeoutMs: 30_000 });
        return outcome?.ok ? outcome.report : null;
      },
      service: (brokerId, call) => service.runServiceControl(executor, targetOf(brokerId), call),
      async status(brokerId, host) {
        const r = await service.runServiceControl(executor, targetOf(brokerId), { action: 'status', unit: host.unit, logsDir: host.logsDir, logDirs: host.logDirs });
        if (!r.ok) throw new Error(r.detail);
        return service.parseServiceStatus(r.stdout);
      },
    };
  };

  /** The capabilities the kinds ask for (capabilities.ts), for one cluster. */
  const capabilities = (cluster: ClusterConfig) => ({
    restart: () => restartIo(cluster),
    replicaHosts: (replicas: number[]) => replicaHosts(cluster, replicas),
  });
  /** Once per backend, on first use (the registry loads lazily): every kind's needs are provided, else a clear error. */
  let checked: Promise<void> | null = null;
  const checkNeeds = () => (checked ??= import('./registry.ts').then(({ ALL_KINDS }) => assertCapabilities(capabilities(PLACEHOLDER_CLUSTER), ALL_KINDS)));

  const io = (cluster: ClusterConfig): OperationIo => ({
    cluster,
    ...capabilities(cluster),
    async snapshot(topics: string[] | null): Promise<ClusterSnapshot> {
      await checkNeeds();
      const { takeSnapshot } = await import('../kafka/snapshot.ts');
      return takeSnapshot(toConnectionConfig(cluster), { topics, timeoutMs: timeoutOf(cluster) });
    },
    async openAdmin() {
      await checkNeeds();
      const { openAdmin } = await import('../kafka/admin.ts');
      return openAdmin(toConnectionConfig(cluster), { timeoutMs: timeoutOf(cluster) });
    },
  });

  /**
   * Where a replica's log end offset can be read on its host (kafka-dump-log.sh):
   * clusters with host access and a Kafka bin dir. Log dirs as each host's own
   * server.properties says (the host probe reads them, broker process up or down).
   */
  const replicaHosts = async (cluster: ClusterConfig, replicas: number[]) => {
    const executor = await executorFor(cluster);
    const kafkaBin = cluster.operations?.kafkaBin;
    if (!executor || !kafkaBin) return null;
    const targets = hostTargets(cluster, replicas);
    const { probeHosts } = await import('../hosts/probe-runner.ts');
    const probes = await probeHosts(executor, targets, { timeoutMs: 30_000 });
    const logDirsOf = new Map(probes.map((p) => [p.brokerId, p.ok ? p.report.logDirs.filter((d) => d.exists).map((d) => d.path) : []]));
    return { executor, replicas: targets.map((target) => ({ target, logDirs: logDirsOf.get(target.brokerId) ?? [], kafkaBin })) };
  };

  return {
    io,
    async plan(cluster, request) {
      const [{ kindOf }, { planUnlessQuorumLost }] = await Promise.all([import('./registry.ts'), import('./quorum-gate.ts')]);
      const { kind, ...fields } = request;
      // Every kind alike: no plan while the KRaft quorum has no leader.
      return planUnlessQuorumLost((gated) => kindOf(kind).plan(gated, fields), io(cluster));
    },
  };
}
