// A diagnosis with the cluster's metrics read alongside it: the worker's
// diagnoser (lib/diagnose/diagnoser.ts) and the CLI's `diagnose` both come
// here when the cluster's config names a metrics source, so both read, cite
// and chart the same. Prometheus is read at once; CloudWatch (keyed by broker)
// once the snapshot names the brokers. A source that fails only adds a
// skipped check (withMetrics).
import type { ClusterConfig } from '../../config/schema.ts';
import { runDiagnosis, type RunDiagnosisInput, type SnapshotFn } from '../run.ts';
import type { DiagnosisReport } from '../types.ts';
import { metricsSourceFor, metricsWindow, readMetrics, withMetrics, type AlertMoment } from './index.ts';

export async function runDiagnosisWithMetrics(cluster: ClusterConfig, input: RunDiagnosisInput, alert?: AlertMoment): Promise<DiagnosisReport> {
  const source = await metricsSourceFor(cluster);
  if (!source) return runDiagnosis(input);
  let brokersKnown: (ids: number[]) => void = () => {};
  const brokers = new Promise<number[]>((resolve) => (brokersKnown = resolve));
  const reading = readMetrics(source, metricsWindow(cluster, Date.now(), alert), brokers);
  const take: SnapshotFn = input.takeSnapshot ?? (async (connection, opts) => (await import('../../kafka/snapshot.ts')).takeSnapshot(connection, opts));
  const takeSnapshot: SnapshotFn = async (connection, opts) => {
    try {
      const snapshot = await take(connection, opts);
      brokersKnown(snapshot.brokers.map((b) => b.id));
      return snapshot;
    } finally {
      brokersKnown([]);
    }
  };
  const report = await runDiagnosis({ ...input, takeSnapshot });
  return withMetrics(report, await reading, alert);
}
