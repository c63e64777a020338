// What the worker needs from the diagnosis, as an injected interface: tests
// pass a scripted one or the real one on the sandbox, the Lambda worker uses
// the default below.
import type { ClusterConfig } from '../config/schema.ts';
import type { DiagnosisReport, Finding } from '../diagnose/types.ts';

export interface DiagnoseProgress {
  /** e.g. "brokers probed" */
  stage: string;
  done: number;
  total: number;
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

export class DiagnosisUnavailableError extends Error {
  override name = 'DiagnosisUnavailableError';
}

/**
 * ADAPTER — LEAD TO WIRE. The diagnosis modules (lib/diagnose/run.ts,
 * lib/diagnose/can-restart.ts) are being written in parallel and their exact
 * signatures are not known yet. They are loaded lazily (the worker's cold
 * start and the Slack ack path never pay for kafkajs) through a template
 * import that esbuild bundles and tsc does not resolve, so this file compiles
 * before they exist. Once they land, replace `loadModule` with literal
 * `import('../diagnose/run.ts')` calls and adjust the argument mapping below.
 */
async function loadModule(name: 'run' | 'can-restart'): Promise<Record<string, unknown>> {
  try {
    return (await import(`../diagnose/${name}.ts`)) as Record<string, unknown>;
  } catch (err) {
    throw new DiagnosisUnavailableError(`diagnosis module lib/diagnose/${name}.ts is not available: ${(err as Error).message}`);
  }
}

type AnyFn = (...args: unknown[]) => Promise<unknown>;

export const defaultDiagnoser: Diagnoser = {
  async diagnose(request) {
    const mod = await loadModule('run');
    const runDiagnosis = mod.runDiagnosis as AnyFn | undefined;
    if (typeof runDiagnosis !== 'function') throw new DiagnosisUnavailableError('lib/diagnose/run.ts does not export runDiagnosis');
    return (await runDiagnosis({
      cluster: request.cluster,
      topic: request.topic,
      brokers: request.brokers,
      correlationId: request.correlationId,
      onProgress: request.onProgress,
      deadlineMs: request.deadlineMs,
    })) as DiagnosisReport;
  },
  async canRestart(request) {
    const mod = await loadModule('can-restart');
    const fn = (mod.assessRestart ?? mod.canRestart) as AnyFn | undefined;
    if (typeof fn !== 'function') throw new DiagnosisUnavailableError('lib/diagnose/can-restart.ts exports neither assessRestart nor canRestart');
    return (await fn({ cluster: request.cluster, brokerId: request.brokerId, correlationId: request.correlationId })) as CanRestartAssessment;
  },
};
