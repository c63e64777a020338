// The diagnosis as the CLI and the Slack worker run it: snapshot and host
// probes concurrently, then the pure detectors. Every dependency with I/O is
// injected (snapshot taker, executor, probe runner) so callers and tests
// choose the transport.

import type { ClusterSnapshot } from '../kafka/types.ts';
import type { ConnectionConfig } from '../kafka/connection.ts';
import type { Executor, HostProbeOutcome, HostTarget } from '../hosts/types.ts';
import type { DiagnosisReport } from './types.ts';
import { detect } from './detect.ts';
import { assessRestart, type RestartAssessment } from './can-restart.ts';
import type { ClusterTarget } from './target.ts';
import { HOST_CHECKS } from './detectors/hosts.ts';
import { errorMessage } from '../runtime/errors.ts';

export type SnapshotFn = (connection: ConnectionConfig, opts: { topics: string[] | null; timeoutMs: number }) => Promise<ClusterSnapshot>;
export type ProbeHostsFn = (executor: Executor, targets: HostTarget[], opts: { timeoutMs: number }) => Promise<HostProbeOutcome[]>;

export interface RunDiagnosisInput {
  /** Name shown in the report (config cluster name, or the bootstrap list). */
  cluster?: string;
  connection: ConnectionConfig;
  /** No executor = no host access (Amazon MSK): host checks are listed as skipped. */
  executor?: Executor | null;
  hostTargets?: HostTarget[];
  topic?: string | null;
  /** Budget for the whole diagnosis; snapshot and probes run within it concurrently. */
  timeoutMs: number;
  /** Injected I/O; defaults are the real kafkajs snapshot and lib/hosts probe runner. */
  takeSnapshot?: SnapshotFn;
  probeHosts?: ProbeHostsFn;
  now?: () => number;
}

export interface DiagnosisInputs {
  snapshot: ClusterSnapshot;
  probes: HostProbeOutcome[];
  skippedChecks: string[];
}

const HOST_CHECK_LIST = HOST_CHECKS.join(', ');
/** Enough to explain a partial snapshot without flooding a Slack message. */
const MAX_REPORTED_ERRORS = 20;

export class UnknownTopicError extends Error {
  override name = 'UnknownTopicError';
}

async function defaultSnapshot(connection: ConnectionConfig, opts: { topics: string[] | null; timeoutMs: number }): Promise<ClusterSnapshot> {
  const { takeSnapshot } = await import('../kafka/snapshot.ts');
  return takeSnapshot(connection, opts);
}

async function defaultProbeHosts(executor: Executor, targets: HostTarget[], opts: { timeoutMs: number }): Promise<HostProbeOutcome[]> {
  const { probeHosts } = await import('../hosts/probe-runner.ts');
  return probeHosts(executor, targets, opts);
}

/** The probe runner must never take the diagnosis down: a throw becomes a failed outcome per host. */
async function safeProbe(probe: ProbeHostsFn, executor: Executor, targets: HostTarget[], timeoutMs: number): Promise<HostProbeOutcome[]> {
  try {
    return await probe(executor, targets, { timeoutMs });
  } catch (err) {
    const message = `host probe failed: ${errorMessage(err)}`;
    return targets.map((t) => ({ brokerId: t.brokerId, ok: false as const, reason: 'failed' as const, message, execution: null }));
  }
}

/** Snapshot + probes, concurrently. Throws only when the cluster cannot be reached at all. */
export async function collectDiagnosisInputs(input: RunDiagnosisInput): Promise<DiagnosisInputs> {
  const snapshotFn = input.takeSnapshot ?? defaultSnapshot;
  const probeFn = input.probeHosts ?? defaultProbeHosts;
  const targets = input.hostTargets ?? [];
  const skippedChecks: string[] = [];

  // Leave the probes a little less time than the snapshot so both finish inside the budget.
  const probeTimeout = Math.max(1000, Math.floor(input.timeoutMs * 0.9));
  // Probes first, and a turn of the event loop for them to get going: the
  // snapshot's first step loads kafkajs, which holds the thread for a while.
  const started = input.executor && targets.length > 0 ? safeProbe(probeFn, input.executor, targets, probeTimeout) : null;
  if (started) await new Promise((resolve) => setImmediate(resolve));
  const probing = started ?? Promise.resolve([]);
  const [snapshot, probes] = await Promise.all([
    snapshotFn(input.connection, { topics: input.topic ? [input.topic] : null, timeoutMs: input.timeoutMs }),
    probing,
  ]);

  if (input.topic && !snapshot.topics.some((t) => t.name === input.topic)) {
    const why = snapshot.errors.find((e) => e.scope === `topic:${input.topic}`)?.message ?? 'not in the metadata';
    throw new UnknownTopicError(`topic "${input.topic}" cannot be diagnosed: ${why}`);
  }
  if (!input.executor) {
    skippedChecks.push(`No host access for this cluster (e.g. Amazon MSK): these host checks did not run: ${HOST_CHECK_LIST}.`);
  } else {
    const targeted = new Set(targets.map((t) => t.brokerId));
    const untargeted = snapshot.brokers.map((b) => b.id).filter((id) => !targeted.has(id));
    if (untargeted.length > 0) skippedChecks.push(`No host target configured for broker${untargeted.length > 1 ? 's' : ''} ${untargeted.join(', ')}: host checks skipped there.`);
  }
  return { snapshot, probes, skippedChecks };
}

export function buildReport(cluster: string, startedAtMs: number, durationMs: number, inputs: DiagnosisInputs): DiagnosisReport {
  return {
    cluster,
    startedAt: new Date(startedAtMs).toISOString(),
    durationMs,
    findings: detect(inputs.snapshot, inputs.probes),
    skippedChecks: inputs.skippedChecks,
    partial: inputs.snapshot.partial,
    snapshotErrors: inputs.snapshot.errors.slice(0, MAX_REPORTED_ERRORS),
  };
}

export async function runDiagnosis(input: RunDiagnosisInput): Promise<DiagnosisReport> {
  const now = input.now ?? Date.now;
  const started = now();
  const inputs = await collectDiagnosisInputs(input);
  const report = buildReport(input.cluster ?? input.connection.bootstrap.join(','), started, 0, inputs);
  report.durationMs = now() - started;
  return report;
}

/** A diagnosis of the whole target (add `topic`, a shorter `timeoutMs` or test I/O). */
export function diagnosisInputFor(target: ClusterTarget): RunDiagnosisInput {
  return { cluster: target.name, connection: target.connection, executor: target.executor, hostTargets: target.hostTargets, timeoutMs: target.timeoutMs };
}

/** I/O a pass can be given instead of the real kafkajs snapshot and probe runner (tests). */
export interface PassIo {
  takeSnapshot?: SnapshotFn;
  probeHosts?: ProbeHostsFn;
}

/**
 * Can broker N restart right now, read live: the one answer `/kafka can-restart`
 * and `kafka-responder can-restart` both give. The snapshot covers every topic;
 * only that broker's host is probed (is it still recovering logs?). A probe
 * that fails is said in the notes, never dropped.
 */
export async function checkRestart(target: ClusterTarget, brokerId: number, io: PassIo = {}): Promise<RestartAssessment> {
  const inputs = await collectDiagnosisInputs({
    ...diagnosisInputFor(target),
    hostTargets: target.hostTargets.filter((t) => t.brokerId === brokerId),
    ...io,
  });
  const probe = inputs.probes.find((p) => p.brokerId === brokerId);
  const assessment = assessRestart(inputs.snapshot, brokerId, probe?.ok ? probe.report : null);
  if (probe && !probe.ok) assessment.notes.push(`Host probe of broker ${brokerId} failed (${probe.reason}): ${probe.message}`);
  return assessment;
}
