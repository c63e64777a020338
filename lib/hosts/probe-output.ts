// Turns the probe's stdout (flat records, see probe.sh; assembled into one
// document by probe-records.ts) into a ProbeReport: the document is validated
// here with zod. The shell script only pre-selects log lines; what each line
// means is decided here with the per-version patterns of log-patterns.ts.

import { classifyLogLine, isClusterMetadataLine, type ClassifiedLine } from './log-patterns.ts';
import { lastShutdownSeconds } from './shutdown-timing.ts';
import type {
  ConsumerOffsetsPartitionReport,
  LogDirReport,
  LogLoadingReport,
  LogSignals,
  ProbeReport,
  SystemdReport,
} from './types.ts';
import { AssembleError, assembleDocument } from './probe-records.ts';
import { rawProbeSchema, type RawProbeOutput } from './probe-schema.ts';
import { ResponderError } from '../runtime/errors.ts';

/** SSM's StandardOutputContent holds at most this many characters. */
export const PROBE_OUTPUT_LIMIT = 24_000;

export type ProbeOutputProblem = 'empty' | 'truncated' | 'not-records' | 'schema';

export class ProbeOutputError extends ResponderError {
  readonly failure = 'fatal';
  readonly problem: ProbeOutputProblem;
  constructor(problem: ProbeOutputProblem, message: string) {
    super(message);
    this.name = 'ProbeOutputError';
    this.problem = problem;
  }
}


/** A log line as the probe prints it: grep's line number, then ':' (match) or '-' (the line after one). */
interface NumberedLine {
  n: number;
  isContext: boolean;
  text: string;
}

function parseNumbered(raw: string): NumberedLine | null {
  const m = /^(\d+)([:-])([\s\S]*)$/.exec(raw);
  if (!m) return null;
  return { n: Number(m[1]), isContext: m[2] === '-', text: m[3] ?? '' };
}

interface Classified extends NumberedLine {
  c: ClassifiedLine | null;
}

function classifyAll(raw: string[]): Classified[] {
  const out: Classified[] = [];
  for (const r of raw) {
    const l = parseNumbered(r);
    if (l) out.push({ ...l, c: l.isContext ? null : classifyLogLine(l.text) });
  }
  return out;
}

/** Newest `cap` entries, oldest first. */
function newest<T>(items: T[], cap: number): T[] {
  return items.length > cap ? items.slice(items.length - cap) : items;
}

const SIGNAL_CAP = 20;

/**
 * Parses the probe's stdout. Throws ProbeOutputError (never anything else) when
 * the output is empty, not the probe's records (or cut before the first), or
 * not the probe's shape.
 */
export function parseProbeOutput(stdout: string, opts: { truncated?: boolean } = {}): ProbeReport {
  let doc: unknown;
  try {
    doc = assembleDocument(stdout, opts);
  } catch (err) {
    if (!(err instanceof AssembleError)) throw new ProbeOutputError('not-records', `probe output could not be read: ${String(err)}`);
    const cut = err.problem === 'not-records' && (opts.truncated || stdout.length >= PROBE_OUTPUT_LIMIT);
    throw new ProbeOutputError(err.problem === 'empty' ? 'empty' : cut ? 'truncated' : 'not-records', err.message);
  }
  return reportFromDocument(doc);
}

/** A probe document (assembled from records) checked against the schema, as a report. */
export function reportFromDocument(doc: unknown): ProbeReport {
  const parsed = rawProbeSchema.safeParse(doc);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'unknown';
    throw new ProbeOutputError('schema', `probe output does not have the expected shape at ${where}`);
  }
  return toReport(parsed.data);
}

const EXEC_MAIN_CODES: Record<string, string> = {
  '0': 'none',
  '1': 'exited',
  '2': 'killed',
  '3': 'dumped',
  '4': 'trapped',
  '5': 'stopped',
  '6': 'continued',
};

const TIMESPAN_UNITS: Record<string, number> = {
  us: 1e-6, usec: 1e-6, ms: 1e-3, msec: 1e-3,
  s: 1, sec: 1, second: 1, seconds: 1,
  m: 60, min: 60, minute: 60, minutes: 60,
  h: 3600, hr: 3600, hour: 3600, hours: 3600,
  d: 86400, day: 86400, days: 86400,
  w: 604800, week: 604800, weeks: 604800,
};

/** systemd's timespan text ("1min 30s", "90s", "500ms") in seconds; null for "infinity" or unreadable text. */
export function parseSystemdTimespan(raw: string | null | undefined): number | null {
  if (raw == null) return null;
  const s = raw.trim();
  if (s === '' || s === 'infinity') return null;
  if (/^\d+$/.test(s)) return Number(s); // plain number = seconds
  let total = 0;
  let matched = '';
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const unit = TIMESPAN_UNITS[m[2] ?? ''];
    if (unit === undefined) return null;
    total += Number(m[1]) * unit;
    matched += m[0];
  }
  if (matched.replace(/\s/g, '') !== s.replace(/\s/g, '')) return null;
  return Math.round(total * 1000) / 1000;
}

/** The cleaner's failures (each with the exception line after it) and the partitions it marked uncleanable. */
function cleanerFindings(sources: readonly Classified[][]): { cleanerFailures: Classified[]; uncleanable: string[] } {
  const cleanerFailures: Classified[] = [];
  const uncleanable: string[] = [];
  for (const source of sources) {
    for (let i = 0; i < source.length; i++) {
      const l = source[i]!;
      if (l.c?.kind === 'cleaner-uncleanable') uncleanable.push(l.text);
      else if (l.c?.kind === 'cleaner-thread-died' || l.c?.kind === 'cleaner-io-failure') {
        cleanerFailures.push(l);
        // The exception that ended the thread is on the next line: the probe
        // keeps a line after a match only when it is the very next one.
        const next = source[i + 1];
        if (next?.isContext) cleanerFailures.push(next);
      }
    }
  }
  return { cleanerFailures, uncleanable };
}

/** What the log lines say: the signals, the latest log loading, whether recovery is still running. */
function readLogs(raw: RawProbeOutput): { signals: LogSignals; logLoading: LogLoadingReport; recoveryInProgress: boolean; latestStartLine: number | null } {
  const server = {
    lifecycle: classifyAll(raw.logs.lifecycle),
    unclean: classifyAll(raw.logs.unclean),
    recovery: classifyAll(raw.logs.recovery),
    loadProgress: classifyAll(raw.logs.loadProgress),
    corruptIndex: classifyAll(raw.logs.corruptIndex),
    indexAppend: classifyAll(raw.logs.indexAppend),
    cleaner: classifyAll(raw.logs.cleaner),
    unsupported: classifyAll(raw.logs.unsupported),
    offsetsLoadErrors: classifyAll(raw.logs.offsetsLoadErrors),
  };
  const cleanerLog = classifyAll(raw.logs.cleanerLog);

  // The latest broker start = the latest "Loading logs" line; everything about
  // recovery is judged from there on (line numbers share one stream).
  const starts = server.lifecycle.filter((l) => l.c?.kind === 'logs-loading-started');
  const latestStart = starts.at(-1) ?? null;
  const since = latestStart?.n ?? 0;
  const after = (l: Classified) => l.n >= since;
  const finish = server.lifecycle.filter((l) => l.c?.kind === 'logs-loading-finished' && l.n > since).at(-1) ?? null;
  const progress = server.loadProgress.filter((l) => l.c?.kind === 'log-load-progress' && after(l)).at(-1) ?? null;

  const logLoading: LogLoadingReport = {
    startLine: latestStart?.text ?? null,
    finishLine: finish?.text ?? null,
    lastProgressLine: progress?.text ?? null,
    logsLoaded: progress?.c?.groups.k !== undefined ? Number(progress.c.groups.k) : null,
    logsTotal: progress?.c?.groups.total !== undefined ? Number(progress.c.groups.total) : null,
  };
  const recoveryInProgress = raw.process.running && latestStart !== null && finish === null;

  const texts = (ls: Classified[]) => ls.map((l) => l.text);
  const ofKind = (ls: Classified[], ...kinds: string[]) => ls.filter((l) => l.c !== null && kinds.includes(l.c.kind));

  // Unclean shutdown: LogManager's per-dir line (2.6+); before 2.6 there is
  // none, and segment recovery itself is the evidence (it only runs when the
  // marker was missing). __cluster_metadata is recovered on every start.
  const segmentRecovery = ofKind(server.recovery, 'segment-recovery', 'recovery-truncation').filter(
    (l) => after(l) && !isClusterMetadataLine(l.text),
  );
  const uncleanDirs = ofKind(server.unclean, 'logdir-unclean').filter(after);
  const uncleanShutdownRecovery = uncleanDirs.length > 0 ? texts(uncleanDirs) : texts(segmentRecovery.slice(0, 5));

  const recoveryLines = [
    ...(latestStart ? [latestStart] : []),
    ...uncleanDirs,
    ...segmentRecovery,
    ...(progress ? [progress] : []),
    ...(finish ? [finish] : []),
  ].sort((a, b) => a.n - b.n);

  const { cleanerFailures, uncleanable } = cleanerFindings([server.cleaner, cleanerLog]);

  const signals: LogSignals = {
    uncleanShutdownRecovery: newest(uncleanShutdownRecovery, SIGNAL_CAP),
    recoveryProgress: newest(texts(recoveryLines), SIGNAL_CAP),
    corruptIndex: newest(texts(ofKind(server.corruptIndex, 'corrupt-index', 'missing-index')), SIGNAL_CAP),
    indexAppendFatal: newest(texts(ofKind(server.indexAppend, 'index-append-fatal')), SIGNAL_CAP),
    logCleanerFailure: newest(texts(cleanerFailures), SIGNAL_CAP),
    uncleanablePartitions: newest(uncleanable, SIGNAL_CAP),
    unsupportedRequestVersion: newest(texts(ofKind(server.unsupported, 'unsupported-request-version')), SIGNAL_CAP),
    consumerOffsetsLoadErrors: newest(texts(ofKind(server.offsetsLoadErrors, 'offsets-load-failed')), SIGNAL_CAP),
    segmentsMissing: newest(texts(ofKind(server.recovery, 'segments-missing')), SIGNAL_CAP),
  };

  return { signals, logLoading, recoveryInProgress, latestStartLine: latestStart?.n ?? null };
}

function logDirReport(d: RawProbeOutput['logDirs'][number]): LogDirReport {
  const real = d.realPath ?? (d.exists ? d.path : null);
  const judged = real ?? d.path;
  const fsType = d.fsType ?? null;
  return {
    path: d.path,
    realPath: real,
    exists: d.exists,
    cleanShutdownMarker: d.cleanShutdownMarker ?? false,
    fsType,
    mountPoint: d.mountPoint ?? null,
    underVarLog: judged === '/var/log' || judged.startsWith('/var/log/'),
    onTmpfs: fsType === 'tmpfs' || fsType === 'ramfs',
    diskUsedPercent: d.diskUsedPercent ?? null,
    diskAvailableBytes: d.diskAvailableBytes ?? null,
    inodeUsedPercent: d.inodeUsedPercent ?? null,
    partitionDirCount: d.partitionDirCount ?? 0,
    partitionDirsWithoutSegments: d.partitionDirsWithoutSegments ?? [],
    partitionDirsWithoutSegmentsCount: d.partitionDirsWithoutSegmentsCount ?? 0,
  };
}

function systemdReport(s: NonNullable<RawProbeOutput['systemd']>): SystemdReport {
  return {
    unit: s.unit,
    activeState: s.activeState,
    timeoutStopSec: parseSystemdTimespan(s.timeoutStopUSec),
    timeoutStopRaw: s.timeoutStopUSec,
    restarts: s.nRestarts,
    lastExitStatus: s.execMainStatus,
    lastExitCode: s.execMainCode === null ? null : (EXEC_MAIN_CODES[s.execMainCode] ?? s.execMainCode),
    journalTail: s.journalTail ?? [],
  };
}

function toReport(raw: RawProbeOutput): ProbeReport {
  const { signals, logLoading, recoveryInProgress, latestStartLine } = readLogs(raw);
  const logDirs = raw.logDirs.map(logDirReport);
  const consumerOffsets: ConsumerOffsetsPartitionReport[] = raw.consumerOffsets
    .map((p) => offsetsPartition(p, raw.process.running, latestStartLine))
    .sort((a, b) => a.partition - b.partition || a.logDir.localeCompare(b.logDir));

  const systemd = raw.systemd ? systemdReport(raw.systemd) : null;

  return {
    hostname: raw.hostname,
    brokerId: raw.brokerId,
    collectedAt: raw.collectedAt,
    probeDurationMs: raw.probeDurationMs,
    kafkaVersion: raw.kafkaVersion,
    process: { ...raw.process },
    logDirs,
    recoveryInProgress,
    logs: signals,
    consumerOffsets,
    limits: { ...raw.limits },
    systemd,
    lastShutdownSeconds: lastShutdownSeconds(raw.logs.shutdown.flatMap((r) => parseNumbered(r)?.text ?? [])),
    warnings: [...raw.warnings],
    logLoading,
    logFiles: [...raw.logs.files],
  };
}

function offsetsPartition(
  p: RawProbeOutput['consumerOffsets'][number],
  running: boolean,
  latestStartLine: number | null,
): ConsumerOffsetsPartitionReport {
  const start = p.lastLoadStart ? parseNumbered(p.lastLoadStart) : null;
  const finish = p.lastLoadFinish ? parseNumbered(p.lastLoadFinish) : null;
  const startC = start ? classifyLogLine(start.text) : null;
  const finishC = finish ? classifyLogLine(finish.text) : null;
  const validStart = startC?.kind === 'offsets-load-started' ? start : null;
  const validFinish = finishC?.kind === 'offsets-load-finished' ? finish : null;
  let loading = false;
  // A start from before the broker's latest restart belongs to a process that is gone.
  if (running && validStart && (latestStartLine === null || validStart.n > latestStartLine)) {
    const startEpoch = startC?.groups.epoch;
    const finishEpoch = finishC?.groups.epoch;
    const finishedThisLoad =
      validFinish !== null &&
      validFinish.n > validStart.n &&
      (startEpoch === undefined || finishEpoch === undefined || startEpoch === finishEpoch);
    loading = !finishedThisLoad;
  }
  return {
    partition: p.partition,
    logDir: p.logDir,
    segments: p.segments,
    bytes: p.bytes ?? 0,
    lastLoadStart: validStart?.text ?? null,
    lastLoadFinish: validFinish?.text ?? null,
    loading,
  };
}
