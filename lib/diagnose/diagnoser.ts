// What the worker needs from the diagnosis, as an injected interface: tests
// pass a scripted one or the real one on the sandbox, the Lambda worker uses
// the default below.
import type { ClusterConfig } from '../config/schema.ts';
import type { DiagnosisReport } from './types.ts';
import type { RestartAssessment } from './restart-assessment.ts';
import type { Executor } from '../hosts/types.ts';
import type { ExecutorFactory } from '../hosts/executors.ts';
import { targetForCluster } from './target.ts';
import type { LagHistoryStore } from './lag-history-store.ts';
import type { AlertMoment } from './metrics/index.ts';
import type { ClusterHistoryStore } from './cluster-history-store.ts';
import type { TopicCheck } from './topic-scope.ts';

export interface DiagnoseProgress {
  /** e.g. "hosts probed" (brokers' and, where the config names them, controllers' hosts) */
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
  /** Lag samples kept between runs (the bot's state store). */
  lagHistory?: LagHistoryStore;
  /** The alert this diagnosis answers: its firing time is marked on the graph, its metric charted first. */
  alert?: AlertMoment;
  /** What the last diagnosis saw (the bot's state store), for "changed in the last hour". */
  clusterHistory?: ClusterHistoryStore;
  /** The topic was already checked against the metadata (checkTopic): not asked again. */
  topicChecked?: boolean;
}

export interface TopicCheckRequest {
  cluster: ClusterConfig;
  topic: string;
  correlationId: string;
}

export interface CanRestartRequest {
  cluster: ClusterConfig;
  brokerId: number;
  correlationId: string;
}

export interface Diagnoser {
  diagnose(request: DiagnoseRequest): Promise<DiagnosisReport>;
  /**
   * Is the topic on the cluster, from its metadata alone (no probe, no snapshot)?
   * Asked before a topic's diagnosis starts anything; absent: the diagnosis checks for itself.
   */
  checkTopic?(request: TopicCheckRequest): Promise<TopicCheck>;
  /** The same answer as `kafka-responder can-restart` (lib/diagnose/run.ts checkRestart). */
  canRestart(request: CanRestartRequest): Promise<RestartAssessment>;
}

/**
 * Wraps an executor so each host runs as its own call and reports back as it
 * answers: the worker edits "4/6 hosts probed" from these callbacks (a
 * cluster's hosts are its brokers' and, where the config names them, its KRaft controllers'). The
 * count is over the whole diagnosis (`total` hosts), however the probe runner
 * batches its calls. The correlation id goes into each run's comment (SSM's
 * Comment field), so a command in the SSM console leads back to the Slack request.
 */
export function tracingExecutor(
  inner: Executor,
  opts: { total: number; correlationId: string; onProgress?: (p: DiagnoseProgress) => void },
): Executor {
  let done = 0;
  opts.onProgress?.({ stage: 'hosts probed', done, total: opts.total });
  return {
    kind: inner.kind,
    async run(targets, script) {
      const comment = `${opts.correlationId} ${script.comment}`.slice(0, 100);
      return Promise.all(
        targets.map(async (t) => {
          const [result] = await inner.run([t], { ...script, comment });
          done++;
          opts.onProgress?.({ stage: 'hosts probed', done: Math.min(done, opts.total), total: opts.total, brokerId: t.brokerId, commandId: result?.commandId ?? null });
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
      const { runDiagnosis, diagnosisInputFor } = await import('./run.ts');
      const target = await targetForCluster(request.cluster, executorFor, request.brokers);
      const reporting = target.executor
        ? tracingExecutor(target.executor, { total: target.hostTargets.length, correlationId: request.correlationId, ...(request.onProgress ? { onProgress: request.onProgress } : {}) })
        : null;
      const input = {
        ...diagnosisInputFor(target),
        executor: reporting,
        topic: request.topic ?? null,
        lagHistory: request.lagHistory ?? null,
        clusterHistory: request.clusterHistory ?? null,
        timeoutMs: Math.min(target.timeoutMs, request.deadlineMs ?? Infinity),
        ...(request.topicChecked ? { checkTopic: null } : {}),
      };
      if (!request.cluster.metrics) return runDiagnosis(input);
      // Metrics read alongside the cluster (lib/diagnose/metrics/diagnose.ts), as the CLI does.
      const { runDiagnosisWithMetrics } = await import('./metrics/diagnose.ts');
      return runDiagnosisWithMetrics(request.cluster, input, request.alert);
    },
    async checkTopic(request) {
      const [{ checkTopicInMetadata }, { toConnectionConfig }] = await Promise.all([import('./topic-check.ts'), import('../kafka/cluster-connection.ts')]);
      return checkTopicInMetadata(toConnectionConfig(request.cluster), request.topic, { timeoutMs: request.cluster.diagnosisTimeoutMs });
    },
    async canRestart(request) {
      const { checkRestart } = await import('./run.ts');
      const target = await targetForCluster(request.cluster, executorFor, [request.brokerId]);
      const traced = target.executor ? { ...target, executor: tracingExecutor(target.executor, { total: target.hostTargets.length, correlationId: request.correlationId }) } : target;
      return checkRestart(traced, request.brokerId);
    },
  };
}
