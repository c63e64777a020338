// What the worker needs from the diagnosis, as an injected interface: tests
// pass a scripted one or the real one on the sandbox, the Lambda worker uses
// the default below.
import type { ClusterConfig } from '../config/schema.ts';
import type { DiagnosisReport, Finding } from './types.ts';
import type { Executor } from '../hosts/types.ts';
import { toConnectionConfig } from '../kafka/cluster-connection.ts';
import { hostTargets, type ExecutorFactory } from '../hosts/executors.ts';

export interface DiagnoseProgress {
  /** e.g. "brokers probed" */
  stage: string;
  done: number;
  total: number;
  /** The host that just answered, and the transport's id for it (SSM command id), for the logs. */
  brokerId?: number;
  commandId?: string | null;
}

export interface DiagnoseRequest {
  cluster: ClusterConfig;
  topic?: string;
  /** Restrict host probes to these brokers (alert routes naming a broker). */
  brokers?: number[];
  correlationId: string;
  onProgress?: (progress: DiagnoseProgress) => void;
  /** Give up (partial report) after this many milliseconds. */
  deadlineMs?: number;
}

export interface CanRestartRequest {
  cluster: ClusterConfig;
  brokerId: number;
  correlationId: string;
}

export interface CanRestartAssessment {
  brokerId: number;
  safe: boolean;
  /** One line, e.g. "No: 3 partitions would go offline". */
  verdict: string;
  reasons: string[];
  /** Partitions that would go offline or under min ISR, "topic-partition". */
  atRisk?: string[];
  findings?: Finding[];
}

export interface Diagnoser {
  diagnose(request: DiagnoseRequest): Promise<DiagnosisReport>;
  canRestart(request: CanRestartRequest): Promise<CanRestartAssessment>;
}

/**
 * Wraps an executor so each host runs as its own call and reports back as it
 * answers: the worker edits "4/6 brokers probed" from these callbacks. The
 * count is over the whole diagnosis (`total` hosts), however the probe runner
 * batches its calls. The correlation id goes into each run's comment (SSM's
 * Comment field), so a command in the SSM console leads back to the Slack request.
 */
export function tracingExecutor(
  inner: Executor,
  opts: { total: number; correlationId: string; onProgress?: (p: DiagnoseProgress) => void },
): Executor {
  let done = 0;
  opts.onProgress?.({ stage: 'brokers probed', done, total: opts.total });
  return {
    kind: inner.kind,
    async run(targets, script) {
      const comment = `${opts.correlationId} ${script.comment}`.slice(0, 100);
      return Promise.all(
        targets.map(async (t) => {
          const [result] = await inner.run([t], { ...script, comment });
          done++;
          opts.onProgress?.({ stage: 'brokers probed', done: Math.min(done, opts.total), total: opts.total, brokerId: t.brokerId, commandId: result?.commandId ?? null });
          if (!result) throw new Error(`executor returned no result for broker ${t.brokerId}`);
          return result;
        }),
      );
    },
  };
}

/**
 * The real diagnosis (lib/diagnose/run.ts, lib/diagnose/can-restart.ts),
 * loaded on first use so neither the Slack ack path nor the worker's cold
 * start pays for kafkajs until a job needs it.
 * `executorFor` is lib/hosts/executors.ts's executorFactory() in the composition root.
 */
export function createDefaultDiagnoser(executorFor: ExecutorFactory): Diagnoser {
  return {
    async diagnose(request) {
      const { runDiagnosis } = await import('./run.ts');
      const executor = await executorFor(request.cluster);
      const targets = hostTargets(request.cluster, request.brokers);
      const reporting = executor
        ? tracingExecutor(executor, { total: targets.length, correlationId: request.correlationId, ...(request.onProgress ? { onProgress: request.onProgress } : {}) })
        : null;
      return runDiagnosis({
        cluster: request.cluster.name,
        connection: toConnectionConfig(request.cluster),
        executor: reporting,
        hostTargets: targets,
        topic: request.topic ?? null,
        timeoutMs: Math.min(request.cluster.diagnosisTimeoutMs, request.deadlineMs ?? Infinity),
      });
    },
    async canRestart(request) {
      const [{ takeSnapshot }, { assessRestart }] = await Promise.all([import('../kafka/snapshot.ts'), import('./can-restart.ts')]);
      const snapshot = await takeSnapshot(toConnectionConfig(request.cluster), { topics: null, timeoutMs: request.cluster.diagnosisTimeoutMs });
      let probe = null;
      const executor = await executorFor(request.cluster);
      const target = hostTargets(request.cluster, [request.brokerId]);
      if (executor && target.length) {
        const { probeHosts } = await import('../hosts/probe-runner.ts');
        const [outcome] = await probeHosts(executor, target, { timeoutMs: 30_000 });
        if (outcome?.ok) probe = outcome.report;
      }
      const a = assessRestart(snapshot, request.brokerId, probe);
      const atRisk = [
        ...a.wouldGoOffline.map((p) => `${p.topic}-${p.partition} (offline)`),
        ...a.wouldFallBelowMinIsr.map((p) => `${p.topic}-${p.partition} (ISR ${p.isr} < min ${p.minIsr})`),
      ];
      return {
        brokerId: a.brokerId,
        safe: a.verdict === 'yes',
        verdict: a.verdict === 'yes' ? 'Yes, it can restart now.' : `No: ${a.reasons[0] ?? 'not safe'}`,
        // The first reason is already the verdict.
        reasons: [...(a.verdict === 'yes' ? a.reasons : a.reasons.slice(1)), ...a.notes],
        atRisk,
      };
    },
  };
}

