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
import type { ExecutorFactory } from '../hosts/executors.ts';
import { toConnectionConfig } from '../kafka/cluster-connection.ts';
import type { OpsRequest } from './requests.ts';
import type { AssessRestart } from './kinds/restart-brokers/host-io.ts';
// The composition edge: the providers of the capabilities the kinds declare.
import { restartHostControl } from './kinds/restart-brokers/host-control.ts';
import { replicaHostsOf } from './kinds/leader-override/replica-hosts.ts';
import { DEFAULT_THROTTLE_BYTES_PER_SEC } from './validate.ts';
import { ResponderError } from '../runtime/errors.ts';

export interface OperationsBackend {
  /** The request's kind gathers what it needs (snapshot, measurements), then plans (pure). Changes nothing. */
  plan(cluster: ClusterConfig, request: OpsRequest): Promise<PlanResult>;
  /** The cluster as an approved run reaches it. */
  io(cluster: ClusterConfig): OperationIo;
}

export class OperationsUnavailableError extends ResponderError {
  readonly failure = 'fatal';
  override name = 'OperationsUnavailableError';
}

export { DEFAULT_THROTTLE_BYTES_PER_SEC };

/** Only the providers' presence is checked: they are never called with it. */
const PLACEHOLDER_CLUSTER = {} as ClusterConfig;

export function createDefaultOperations(executorFor: ExecutorFactory, opts: { assessRestart?: AssessRestart } = {}): OperationsBackend {
  const timeoutOf = (cluster: ClusterConfig) => Math.max(20_000, cluster.diagnosisTimeoutMs);
  /** The capabilities the kinds ask for (capabilities.ts), for one cluster. */
  const capabilities = (cluster: ClusterConfig) => ({
    restart: () => restartHostControl(executorFor, cluster, opts.assessRestart),
    replicaHosts: (replicas: number[]) => replicaHostsOf(executorFor, cluster, replicas),
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
