// The diagnosis as the CLI and the Slack worker run it: snapshot and host
// probes concurrently, then the pure checks. Every dependency with I/O is
// injected (snapshot taker, executor, probe runner) so callers and tests
// choose the transport.

import type { ClusterSnapshot, TransactionsView } from '../kafka/types.ts';
import type { SharedConnections, SnapshotOptions } from '../kafka/snapshot.ts';
import type { ConnectionConfig } from '../kafka/connection.ts';
import { COORDINATOR_VIEW_NOT_AVAILABLE_REASON } from '../kafka/transactions.ts';
import { registeredBrokersSkippedCheck } from '../kafka/registered-brokers-view.ts';
import { tpKey } from '../kafka/partitions.ts';
import type { Executor, HostProbeOutcome, HostTarget } from '../hosts/types.ts';
import { diagnosisInputFor, startHostProbes, type ProbeHostsFn } from './host-probes.ts';
import type { DiagnosisReport } from './types.ts';
import { detect } from './detect.ts';
import { assessRestart, type RestartAssessment } from './can-restart.ts';
import { restartNoun } from './restart-assessment.ts';
import type { ClusterTarget } from './target.ts';
import { HOST_CHECKS } from './checks/index.ts';
import { quorumSkippedCheck } from './checks/controller-quorum.ts';
import { errorMessage } from '../runtime/errors.ts';
import { aggregateSample, historyGivesWindow, membersOf, recentHistory, type LagHistorySample } from './lag-verdict.ts';
import { shareGroupsNotJudged } from './group-text.ts';
import type { LagHistoryStore } from './lag-history-store.ts';
import type { ClusterHistoryStore } from './cluster-history-store.ts';
import { whatChanged, type ClusterChange } from './what-changed.ts';
import type { ConfigView, ReadConfigsFn } from './config-view.ts';
import { UnknownTopicError, type CheckTopicFn } from './topic-scope.ts';

export type SnapshotFn = (connection: ConnectionConfig, opts: Pick<SnapshotOptions, 'timeoutMs' | 'consumerSampleWindowMs' | 'transactions'> & { topics: string[] | null }) => Promise<ClusterSnapshot>;

/** Without kept history, lag is judged over two samples this far apart (only when some group lags in the first). */
export const DEFAULT_LAG_WINDOW_MS = 3000;
export type { ProbeHostsFn } from './host-probes.ts';
export { diagnosisInputFor } from './host-probes.ts';

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
  /** Probes the caller already started (startHostProbes): the CLI starts them before it loads the diagnosis. */
  probing?: Promise<HostProbeOutcome[]> | null;
  /** Open transactions and LSOs, read with the snapshot over its connections (default true); false skips them (a restart check needs none). */
  transactions?: boolean;
  now?: () => number;
  /** Window between the two consumer samples when there is no history (0: one sample, no lag verdict). */
  lagWindowMs?: number;
  /** Lag samples kept between runs (the bot's state store); none in the one-shot CLI. */
  lagHistory?: LagHistoryStore | null;
  /** What the last diagnosis saw, for "changed in the last hour" (the bot's state store); none in the one-shot CLI. */
  clusterHistory?: ClusterHistoryStore | null;
  /** The configs set at runtime, compared with the last kept ones; read only with a cluster history (default: DescribeConfigs). */
  readConfigs?: ReadConfigsFn | null;
  /**
   * Asked before anything else when `topic` is set (default: one Metadata request; none with an
   * injected snapshot): a topic that is not there costs no probe and no snapshot. null: already checked.
   */
  checkTopic?: CheckTopicFn | null;
}

export interface DiagnosisInputs {
  snapshot: ClusterSnapshot;
  probes: HostProbeOutcome[];
  skippedChecks: string[];
  /** Earlier runs' lag samples (before this run's). */
  lagHistory?: LagHistorySample[];
  /** What changed in the cluster in the last hour (lib/diagnose/what-changed.ts). */
  changes?: ClusterChange[];
}

const HOST_CHECK_LIST = HOST_CHECKS.join(', ');
/** Enough to explain a partial snapshot without flooding a Slack message. */
const MAX_REPORTED_ERRORS = 20;

export { UnknownTopicError } from './topic-scope.ts';

let transactionModules: Promise<[typeof import('../kafka/admin.ts'), typeof import('../kafka/transactions.ts')]> | undefined;
/** Loaded once; started with the snapshot, so the read beside it does not wait for them. */
const loadTransactionModules = () => (transactionModules ??= Promise.all([import('../kafka/admin.ts'), import('../kafka/transactions.ts')]));

async function defaultSnapshot(connection: ConnectionConfig, opts: Parameters<SnapshotFn>[1]): Promise<ClusterSnapshot> {
  const { takeSnapshot } = await import('../kafka/snapshot.ts');
  if (opts.transactions) void loadTransactionModules().catch(() => {}); // a failure surfaces where they are used
  return takeSnapshot(connection, opts);
}

/** Kafka 2.8: open transactions were read, their coordinators could not be asked. */
function coordinatorViewUnavailable(view: TransactionsView): boolean {
  return view.partitions.some((p) => p.openTransactions.some((t) => t.coordinatorView.reason === COORDINATOR_VIEW_NOT_AVAILABLE_REASON));
}

/** Open transactions and LSOs of every led partition, over the snapshot's connections (its leaders route the first round); never throws. */
function transactionsOver(connection: ConnectionConfig) {
  return async (shared: SharedConnections): Promise<TransactionsView> => {
    const [{ adminOver }, { readTransactions }] = await loadTransactionModules();
    const knownLeaders = new Map(shared.topics.flatMap((t) => t.partitions.map((p) => [tpKey(t.name, p.partition), p.leader] as const)));
    const admin = adminOver(connection, shared.open, { timeoutMs: shared.timeoutMs, knownLeaders });
    try {
      const partitions = shared.topics.flatMap((t) => t.partitions.filter((p) => p.leader >= 0).map((p) => ({ topic: t.name, partition: p.partition })));
      return await readTransactions(admin, { partitions, configBroker: shared.reachable[0] ?? null });
    } finally {
      await admin.close();
    }
  };
}

const defaultCheckTopic: CheckTopicFn = async (connection, topic, opts) => (await import('./topic-check.ts')).checkTopicInMetadata(connection, topic, opts);
const defaultReadConfigs: ReadConfigsFn = async (connection, snapshot, opts) => (await import('./config-view.ts')).readConfigView(connection, snapshot, opts);

/**
 * The named topic, checked against the cluster's metadata before any probe or
 * consumer sample: a topic that is not there throws UnknownTopicError here.
 * A check that cannot reach the cluster lets the diagnosis go on (its probes
 * are what tells a dead cluster's story).
 */
async function checkTopicFirst(input: RunDiagnosisInput): Promise<void> {
  const check = input.checkTopic === undefined ? (input.takeSnapshot ? null : defaultCheckTopic) : input.checkTopic;
  if (!input.topic || !check) return;
  const answer = await check(input.connection, input.topic, { timeoutMs: input.timeoutMs });
  if (answer.status === 'missing') throw new UnknownTopicError(input.topic, input.cluster ?? input.connection.bootstrap.join(','), answer.nearMisses, answer.reason);
}

/** Snapshot + probes, concurrently. Throws only when the cluster cannot be reached at all. */
export async function collectDiagnosisInputs(input: RunDiagnosisInput): Promise<DiagnosisInputs> {
  const snapshotFn = input.takeSnapshot ?? defaultSnapshot;
  const targets = input.hostTargets ?? [];
  const skippedChecks: string[] = [];
  const now = input.now ?? Date.now;
  const startedAt = now();
  let history: LagHistorySample[] = [];
  if (input.lagHistory) {
    try {
      history = recentHistory(await input.lagHistory.load(), now());
    } catch (err) {
      skippedChecks.push(`Lag history could not be read (${errorMessage(err)}): lag judged over this run's samples only.`);
    }
  }
  const lagWindowMs = historyGivesWindow(history, now()) ? 0 : (input.lagWindowMs ?? DEFAULT_LAG_WINDOW_MS);
  await checkTopicFirst(input);

  // Probes first, and a turn of the event loop for them to get going: the
  // snapshot's first step loads kafkajs, which holds the thread for a while.
  const started = input.probing !== undefined ? input.probing : startHostProbes(input);
  if (started && input.probing === undefined) await new Promise((resolve) => setImmediate(resolve));
  const probing = started ?? Promise.resolve([]);
  // Configs only when there is a last view to compare them with (the bot), once the snapshot is in.
  const readConfigs = input.readConfigs === undefined ? (input.takeSnapshot ? null : defaultReadConfigs) : input.readConfigs;
  const transactions = input.transactions === false ? {} : { transactions: transactionsOver(input.connection) };
  // What needs the snapshot (the brokers) follows it at once, while the probes still run.
  const reading = snapshotFn(input.connection, { topics: input.topic ? [input.topic] : null, timeoutMs: input.timeoutMs, consumerSampleWindowMs: lagWindowMs, ...transactions }).then(async (snapshot) => {
    const left = () => Math.max(1000, input.timeoutMs - (now() - startedAt));
    const configsRead = input.clusterHistory && readConfigs ? readConfigs(input.connection, snapshot, { timeoutMs: left() }) : null;
    return { snapshot, configsRead };
  });
  const [{ snapshot, configsRead }, probes] = await Promise.all([reading, probing]);
  const txns = snapshot.transactions;
  if (txns?.status === 'unavailable') skippedChecks.push(`Transaction checks (hanging-transaction, lso-stalled): ${txns.reason}.`);
  else if (txns?.status === 'failed') skippedChecks.push(`Transaction checks (hanging-transaction, lso-stalled) could not run: ${txns.reason}`);
  else if (txns && coordinatorViewUnavailable(txns)) skippedChecks.push(`Transaction check (hanging-transaction, from the coordinator's view): ${COORDINATOR_VIEW_NOT_AVAILABLE_REASON}.`);
  const fenced = registeredBrokersSkippedCheck(snapshot);
  if (fenced) skippedChecks.push(fenced);
  const quorum = quorumSkippedCheck(snapshot);
  if (quorum) skippedChecks.push(quorum);
  const shareGroups = shareGroupsNotJudged(snapshot.groups);
  if (shareGroups) skippedChecks.push(shareGroups);

  if (input.topic && !snapshot.topics.some((t) => t.name === input.topic)) {
    const why = snapshot.errors.find((e) => e.scope === `topic:${input.topic}`)?.message;
    throw new UnknownTopicError(input.topic, input.cluster ?? input.connection.bootstrap.join(','), [], why);
  }
  if (!input.executor) {
    skippedChecks.push(`No host access for this cluster (e.g. Amazon MSK): these host checks did not run: ${HOST_CHECK_LIST}.`);
  } else {
    const targeted = new Set(targets.map((t) => t.brokerId));
    const untargeted = snapshot.brokers.map((b) => b.id).filter((id) => !targeted.has(id));
    if (untargeted.length > 0) skippedChecks.push(`No host target configured for broker${untargeted.length > 1 ? 's' : ''} ${untargeted.join(', ')}: host checks skipped there.`);
  }
  if (input.lagHistory && snapshot.consumerSamples && !input.topic) {
    // A topic-limited run sees only part of each group: it would spoil the aggregates.
    const added = snapshot.consumerSamples.map((s) => aggregateSample(s, membersOf(snapshot)));
    await input.lagHistory.append(added, now()).catch((err: unknown) => skippedChecks.push(`Lag history could not be saved: ${errorMessage(err)}`));
  }
  let configs: ConfigView | null = null;
  if (configsRead) {
    const read = await configsRead;
    if ('error' in read) skippedChecks.push(`Configs could not be read (${read.error}): config changes are not compared this run.`);
    else configs = read;
  }
  const changes = await changesOf(input.clusterHistory ?? null, snapshot, probes, now(), skippedChecks, configs);
  return { snapshot, probes, skippedChecks, lagHistory: history, changes };
}

/**
 * What changed in the last hour: against the kept history when there is one,
 * else only what this snapshot and the probes tell alone (process starts,
 * reassignments in progress). A history that cannot be read or saved is said
 * in the skipped checks, never fails the diagnosis.
 */
async function changesOf(store: ClusterHistoryStore | null, snapshot: ClusterSnapshot, probes: HostProbeOutcome[], nowMs: number, skipped: string[], configs: ConfigView | null): Promise<ClusterChange[]> {
  let kept: Awaited<ReturnType<ClusterHistoryStore['load']>> = { facts: null, changes: [], operations: [] };
  if (store) {
    try {
      kept = await store.load();
    } catch (err) {
      skipped.push(`The last diagnosis's view of the cluster could not be read (${errorMessage(err)}): changes are those this run sees alone.`);
    }
  }
  const result = whatChanged(snapshot, probes, kept, kept.operations, nowMs, configs);
  if (store) await store.save(result.keep).catch((err: unknown) => skipped.push(`This diagnosis's view of the cluster could not be saved: ${errorMessage(err)}`));
  return result.changes;
}

export function buildReport(cluster: string, startedAtMs: number, durationMs: number, inputs: DiagnosisInputs): DiagnosisReport {
  return {
    cluster,
    startedAt: new Date(startedAtMs).toISOString(),
    durationMs,
    findings: detect(inputs.snapshot, inputs.probes, inputs.lagHistory ?? []),
    skippedChecks: inputs.skippedChecks,
    partial: inputs.snapshot.partial,
    snapshotErrors: inputs.snapshot.errors.slice(0, MAX_REPORTED_ERRORS),
    ...(inputs.changes?.length ? { changes: inputs.changes } : {}),
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

/** I/O a pass can be given instead of the real kafkajs snapshot and probe runner (tests). */
export interface PassIo {
  takeSnapshot?: SnapshotFn;
  probeHosts?: ProbeHostsFn;
}

/**
 * Can broker (or KRaft controller) N restart right now, read live: the one answer `/kafka can-restart`
 * and `kafka-responder can-restart` both give. The snapshot covers every topic;
 * only that broker's host is probed (is it still recovering logs?). A probe
 * that fails is said in the notes, never dropped.
 */
export async function checkRestart(target: ClusterTarget, brokerId: number, io: PassIo = {}): Promise<RestartAssessment> {
  const inputs = await collectDiagnosisInputs({
    ...diagnosisInputFor(target),
    hostTargets: target.hostTargets.filter((t) => t.brokerId === brokerId),
    // A restart check judges replicas, not consumer lag: no second consumer sample to wait for.
    lagWindowMs: 0,
    transactions: false,
    ...io,
  });
  const probe = inputs.probes.find((p) => p.brokerId === brokerId);
  const assessment = assessRestart(inputs.snapshot, brokerId, probe?.ok ? probe.report : null);
  if (probe && !probe.ok) assessment.notes.push(`Host probe of ${restartNoun(assessment)} ${brokerId} failed (${probe.reason}): ${probe.message}`);
  return assessment;
}
