// The worker's access to Kafka for operations: snapshots, the protocol admin
// (reassignments, elections, throttles, offsets), and host measurements where
// the cluster has host access. Everything an operation changes goes through
// the Kafka protocol, so operations work on Amazon MSK too; host tools only
// add measurements (a leaderless replica's log end offset). Loaded on first
// use (dynamic imports): the Slack ack path never pays for kafkajs.
import type { ClusterConfig } from '../config/schema.ts';
import type { ClusterSnapshot } from '../kafka/types.ts';
import type { OperationIo } from './runner.ts';
import type { PlanResult } from './types.ts';
import { hostTargets, type ExecutorFactory } from '../hosts/executors.ts';
import { toConnectionConfig } from '../kafka/cluster-connection.ts';
import type { OpsRequest } from './requests.ts';
import type { AssessRestart, RestartIo } from './restart.ts';

export interface OperationsBackend {
  /** Snapshot → (leader override: replica data and consumer offsets) → planner. Changes nothing. */
  plan(cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult>;
  /** The cluster as an approved run reaches it. */
  io(cluster: ClusterConfig): OperationIo;
}

export class OperationsUnavailableError extends Error {
  override name = 'OperationsUnavailableError';
}

export const DEFAULT_THROTTLE_BYTES_PER_SEC = 50 * 1024 * 1024;

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

  const planRestartOn = async (cluster: ClusterConfig, request: Extract<OpsRequest, { kind: 'restart-brokers' }>): Promise<PlanResult> => {
    if (cluster.hosts.executor === 'none') {
      return { ok: false, reason: `${cluster.name} has no host access (hosts.executor "none", e.g. Amazon MSK): restart its brokers with the provider's own reboot (MSK: RebootBroker, one broker at a time).` };
    }
    const hosts = await restartIo(cluster);
    if (!hosts) return { ok: false, reason: 'broker restarts are not available in this worker' };
    const { planRestart } = await import('./restart.ts');
    const { systemdSeconds } = await import('../hosts/service-control.ts');
    const snapshot = await io(cluster).snapshot(null);
    const live = snapshot.brokers.map((b) => b.id);
    const brokers = request.brokers.length ? request.brokers : live;
    const service = cluster.hosts.service;
    const facts = await Promise.all(
      brokers.filter((b) => live.includes(b)).map(async (brokerId) => {
        const probe = await hosts.probe(brokerId).catch(() => null);
        const host = { unit: service.unit, logsDir: probe?.process.logsDir ?? null, logDirs: (probe?.logDirs ?? []).filter((d) => d.exists).map((d) => d.path) };
        const status = await hosts.status(brokerId, host).catch(() => null);
        const timeout = systemdSeconds(status?.timeoutStopRaw ?? probe?.systemd?.timeoutStopRaw ?? null) ?? probe?.systemd?.timeoutStopSec ?? null;
        return {
          brokerId,
          probe,
          host,
          pid: status?.pid ?? probe?.process.pid ?? null,
          lastShutdownSeconds: probe?.lastShutdownSeconds ?? null,
          systemdStopTimeoutSeconds: timeout === Infinity ? -1 : timeout,
        };
      }),
    );
    return planRestart(snapshot, { brokers, rolling: request.rolling, service, facts, assess: hosts.assess, activeControllerId: null });
  };

  const io = (cluster: ClusterConfig): OperationIo => ({
    restart: () => restartIo(cluster),
    async snapshot(topics: string[] | null): Promise<ClusterSnapshot> {
      const { takeSnapshot } = await import('../kafka/snapshot.ts');
      return takeSnapshot(toConnectionConfig(cluster), { topics, timeoutMs: timeoutOf(cluster) });
    },
    async openAdmin() {
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
      const ops = await import('./planners.ts');
      const throttle = { throttleBytesPerSec: cluster.operations?.throttleBytesPerSec ?? DEFAULT_THROTTLE_BYTES_PER_SEC };
      const kafka = io(cluster);
      switch (request.kind) {
        case 'restart-brokers':
          return planRestartOn(cluster, request);
        case 'drain-broker':
          return ops.planDrain(await kafka.snapshot(null), { broker: request.broker, partial: request.partial }, throttle);
        case 'raise-replication-factor':
          return ops.planRaiseReplicationFactor(await kafka.snapshot([request.topic]), { topic: request.topic, replicationFactor: request.replicationFactor }, throttle);
        case 'leader-override': {
          const s = await kafka.snapshot([request.topic]);
          const part = s.topics.find((t) => t.name === request.topic)?.partitions.find((p) => p.partition === request.partition);
          if (!part) return { ok: false, reason: `${request.topic}-${request.partition} does not exist on ${cluster.name}` };
          const { gatherLeaderOverrideInputs, planLeaderOverride } = await import('./leader-override.ts');
          const admin = await kafka.openAdmin();
          try {
            const hosts = await replicaHosts(cluster, part.replicas);
            const inputs = await gatherLeaderOverrideInputs(
              { admin, ...(hosts ? { hosts } : {}) },
              request.topic,
              request.partition,
              part.replicas,
            );
            return planLeaderOverride(s, { topic: request.topic, partition: request.partition, ...(request.replica !== undefined ? { replica: request.replica } : {}) }, inputs);
          } finally {
            await admin.close().catch(() => undefined);
          }
        }
      }
    },
  };
}
