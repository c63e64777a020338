// The restart's capability (capabilities.ts): host control through the
// cluster's executor (SSM or local), the fixed service script and the probe.
// Provided by the backend, the composition edge; null without host access.
import type { ClusterConfig } from '../../../config/schema.ts';
import { hostTargets, type ExecutorFactory } from '../../../hosts/executors.ts';
import type { AssessRestart, RestartIo } from './host-io.ts';

/** Host control for restarts: the fixed service script and the probe, where the cluster has host access. */
export async function restartHostControl(executorFor: ExecutorFactory, cluster: ClusterConfig, assessRestart: AssessRestart | undefined): Promise<RestartIo | null> {
  const executor = await executorFor(cluster);
  if (!executor || cluster.hosts.executor === 'none' || !assessRestart) return null;
  const targetOf = (brokerId: number) => {
    const t = hostTargets(cluster, [brokerId])[0];
    if (!t) throw new Error(`broker ${brokerId} has no host in the cluster config`);
    return t;
  };
  const { probeHosts } = await import('../../../hosts/probe-runner.ts');
  const service = await import('../../../hosts/service-control.ts');
  return {
    assess: assessRestart,
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
}
