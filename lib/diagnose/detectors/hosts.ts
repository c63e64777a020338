// Detectors over host probe reports (one per broker host). None of these can
// run on Amazon MSK; run.ts lists them as skipped there.

import type { ClusterSnapshot } from '../../kafka/types.ts';
import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/group-partition.ts';
import type { HostProbeOutcome, ProbeReport } from '../../hosts/types.ts';
import { stopTimeoutShortfall } from '../../hosts/shutdown-timing.ts';
import type { Evidence, Finding, Severity } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, makeFinding, plural } from '../finding.ts';

// Incident 2: a healthy compacted partition holds a handful of 100 MB segments
// (offsets.topic.segment.bytes); 50 segments or 1 GiB means compaction has not
// kept up and a coordinator load will take minutes. The incident had 2,000+.
export const OFFSETS_SEGMENTS_WARNING = 50;
export const OFFSETS_BYTES_WARNING = 1024 ** 3;
export const OFFSETS_SEGMENTS_ERROR = 500;
export const OFFSETS_BYTES_ERROR = 10 * 1024 ** 3;

/** Usage of disk, inodes, file descriptors, memory maps: warn at 85 %, critical at 95 %. */
export const PRESSURE_WARNING_PERCENT = 85;
export const PRESSURE_CRITICAL_PERCENT = 95;

/** systemd's default 90 s is shorter than a large broker's controlled shutdown (a kill -9 outage began so). */
export const MIN_STOP_TIMEOUT_SEC = 300;

/** systemd restarts of the unit before we call it a crash loop. */
export const CRASH_LOOP_RESTARTS = 3;

/** Exported for can-restart and the CLI: every host check, named as the report names skipped checks. */
export const HOST_CHECKS = [
  'unclean-shutdown-recovery',
  'corrupt-index',
  'index-append-fatal',
  'log-cleaner-stalled',
  'consumer-offsets-oversized',
  'unsupported-request-version',
  'missing-segments',
  'risky-log-dir',
  'disk-pressure',
  'inode-pressure',
  'fd-pressure',
  'mmap-pressure',
  'short-stop-timeout',
  'broker-crash-loop',
  'coordinator-loading (host log lines)',
] as const;

/** Clock slack between the process start time (1 s resolution) and its first log lines. */
const START_SLACK_MS = 2000;

/**
 * True when every line's log4j timestamp ("[2026-01-31 12:00:00,123]") is older
 * than the running process: the event belongs to an earlier run. Timestamps are
 * read as UTC (broker hosts normally log in UTC); a line without a timestamp
 * counts as current, so unknown stays alarming.
 */
export function allBeforeProcessStart(logLines: readonly string[], startedAt: string | null): boolean {
  const start = startedAt ? Date.parse(startedAt) : NaN;
  if (!Number.isFinite(start) || logLines.length === 0) return false;
  return logLines.every((line) => {
    const m = /^\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}),(\d{3})\]/.exec(line);
    if (!m) return false;
    const t = Date.parse(`${m[1]}T${m[2]}.${m[3]}Z`);
    return Number.isFinite(t) && t < start - START_SLACK_MS;
  });
}

function lines(label: string, values: readonly string[], brokerId: number): Evidence[] {
  return values.slice(0, MAX_EVIDENCE_SAMPLES).map((value) => ({ label, value, source: `broker:${brokerId}` }));
}

function pressureSeverity(percent: number): Severity | null {
  if (percent >= PRESSURE_CRITICAL_PERCENT) return 'critical';
  if (percent >= PRESSURE_WARNING_PERCENT) return 'warning';
  return null;
}

function pct(used: number, max: number): number {
  return max > 0 ? Math.round((used / max) * 1000) / 10 : 0;
}

/** What every host rule reads: one broker's probe report, and where its findings go. */
interface HostRuleContext {
  brokerId: number;
  r: ProbeReport;
  /** The host's name, or "broker N" when the probe could not tell. */
  host: string;
  b: number[];
  /** Fingerprint identity: this broker, then what the finding is about. */
  id: (...rest: string[]) => string[];
  /** When the running broker process started (null: not running): log lines before it are history. */
  runningSince: string | null;
  out: Finding[];
}

/** A fatal offset-index append stops the whole broker. */
function indexAppendFatal({ brokerId, r, host, b, id, runningSince, out }: HostRuleContext): void {
  if (r.logs.indexAppendFatal.length > 0) {
    const earlier = allBeforeProcessStart(r.logs.indexAppendFatal, runningSince);
    out.push(
      makeFinding({
        kind: 'index-append-fatal',
        // Logged before the running process started: the broker got past it since.
        severity: earlier ? 'warning' : 'critical',
        title: `Broker ${brokerId} hit a fatal offset-index append during log recovery${earlier ? ' (in an earlier run)' : ''}`,
        summary:
          `On ${host}, rebuilding an offset index failed with "Attempt to append an offset ... no larger than the last offset appended". ` +
          'This exception stops the whole broker, so one bad segment takes every partition on it down.' +
          (earlier ? ` The broker has been running since ${runningSince}; check that the segment was dealt with, not just skipped.` : ''),
        brokers: b,
        evidence: lines('server.log', r.logs.indexAppendFatal, brokerId),
        identity: id(),
        nextActions: [
          'Identify the segment named in the error; inspect it with kafka-dump-log.sh --files <segment>.log.',
          'If other replicas are in sync, move the damaged partition directory aside (do not delete it) and let the broker re-fetch from the leader.',
          'Never delete the log of the last in-sync replica.',
        ],
      }),
    );
  }
}

/** Log recovery after a crash or kill -9, finished or still running. */
function uncleanShutdownRecovery({ brokerId, r, host, b, id, out }: HostRuleContext): void {
  if (r.recoveryInProgress || r.logs.uncleanShutdownRecovery.length > 0) {
    out.push(
      makeFinding({
        kind: 'unclean-shutdown-recovery',
        // Once recovery has completed the broker serves normally: what is left is the
        // question why it stopped uncleanly (short-stop-timeout has its own finding).
        severity: r.recoveryInProgress ? 'error' : 'info',
        title: r.recoveryInProgress
          ? `Broker ${brokerId} is still recovering logs after an unclean shutdown`
          : `Broker ${brokerId} last started after an unclean shutdown`,
        summary:
          `${host} found no .kafka_cleanshutdown marker and ran log recovery` +
          (r.recoveryInProgress ? ', which is still running: its partitions are not served until it completes. Do not restart it again now.' : '. The previous stop was a crash or kill -9 (often a stop timeout shorter than the controlled shutdown).'),
        brokers: b,
        evidence: [
          ...(r.recoveryInProgress ? [{ label: 'log recovery', value: 'in progress on the running broker process', source: `broker:${brokerId}` }] : []),
          ...lines('server.log', r.logs.uncleanShutdownRecovery, brokerId),
          ...lines('recovery progress', r.logs.recoveryProgress.slice(-3), brokerId),
        ],
        identity: id(),
        nextActions: r.recoveryInProgress
          ? ['Wait for "Loaded N logs" / recovery completion in server.log; watch remainingSegmentsToRecover.', 'Do not restart or kill the broker during recovery.']
          : ['Check the stop timeout (short-stop-timeout) and how the broker was last stopped.'],
      }),
    );
  }
}

/** Index files rebuilt at start. */
function corruptIndex({ brokerId, r, host, b, id, runningSince, out }: HostRuleContext): void {
  if (r.logs.corruptIndex.length > 0) {
    const earlier = allBeforeProcessStart(r.logs.corruptIndex, runningSince);
    // Rebuilt and the broker is serving (or it was an earlier run): history, not a current
    // risk. While the broker is down or still recovering, the rebuild may yet fail.
    const serving = r.process.running && !r.recoveryInProgress;
    out.push(
      makeFinding({
        kind: 'corrupt-index',
        severity: earlier || serving ? 'info' : 'warning',
        title: `Broker ${brokerId} found ${plural(r.logs.corruptIndex.length, 'corrupt index file')}${earlier ? ' (in an earlier run)' : ''}`,
        summary: `${host} logged corrupted index files and rebuilt them. Usually a consequence of an unclean shutdown; rebuilding is slow on big segments and, on old brokers, can end in a fatal append.`,
        brokers: b,
        evidence: lines('server.log', r.logs.corruptIndex, brokerId),
        identity: id(),
        nextActions: ['Confirm the broker finished starting; look for index-append errors.', 'Find why it stopped uncleanly.'],
      }),
    );
  }
}

/** A dead log cleaner: compacted topics (and __consumer_offsets) grow without bound. */
function logCleanerStalled({ brokerId, r, host, b, id, out }: HostRuleContext): void {
  if (r.logs.logCleanerFailure.length > 0 || r.logs.uncleanablePartitions.length > 0) {
    const all = [...r.logs.logCleanerFailure, ...r.logs.uncleanablePartitions];
    const touchesOffsets = all.some((l) => l.includes(CONSUMER_OFFSETS_TOPIC));
    out.push(
      makeFinding({
        kind: 'log-cleaner-stalled',
        severity: touchesOffsets ? 'error' : 'warning',
        title: `Log cleaner on broker ${brokerId} failed` + (touchesOffsets ? ` (including ${CONSUMER_OFFSETS_TOPIC})` : ''),
        summary:
          `${host}'s log cleaner died or marked partitions uncleanable: compacted topics stop being compacted and grow without bound.` +
          (touchesOffsets ? ' For __consumer_offsets this is how coordinator loads that take hours start.' : ''),
        brokers: b,
        evidence: lines('log-cleaner.log', all, brokerId),
        identity: id(),
        nextActions: ['Read the first error in log-cleaner.log; fix its cause (disk, corrupt segment).', 'A broker restart restarts the cleaner thread; plan it with can-restart.'],
      }),
    );
  }
}

/** Requests the broker cannot parse. */
function unsupportedRequestVersion({ brokerId, r, host, b, id, out }: HostRuleContext): void {
  if (r.logs.unsupportedRequestVersion.length > 0) {
    out.push(
      makeFinding({
        kind: 'unsupported-request-version',
        severity: 'error',
        title: `Broker ${brokerId} rejects requests with unsupported API versions`,
        summary: `${host} received requests it could not parse. On some versions the network layer then drops every request read in the same batch, so failures look intermittent.`,
        brokers: b,
        evidence: lines('server.log', r.logs.unsupportedRequestVersion, brokerId),
        identity: id(),
        nextActions: ['Find the client (connection id / address in the line) and pin or upgrade its library.', 'Do not ignore a flapping write-failure alert.'],
      }),
    );
  }
}

/** Segment files removed under a running broker. */
function missingSegments({ brokerId, r, host, b, id, out }: HostRuleContext): void {
  const missing = r.logDirs.filter((d) => d.partitionDirsWithoutSegmentsCount > 0 || !d.exists);
  const missingLines = r.logs.segmentsMissing ?? [];
  if (missing.length > 0 || missingLines.length > 0) {
    const total = missing.reduce((n, d) => n + d.partitionDirsWithoutSegmentsCount, 0);
    out.push(
      makeFinding({
        kind: 'missing-segments',
        severity: 'error',
        title:
          total > 0 || missing.length > 0
            ? `Broker ${brokerId}: ${plural(total, 'partition directory', 'partition directories')} without segments` + (missing.some((d) => !d.exists) ? ' / log dir missing' : '')
            : `Broker ${brokerId}: segment files were deleted under the running broker`,
        summary: `On ${host}, partition directories hold no .log segment (or a log dir is gone). Kafka always keeps an active segment, so something removed files under a running broker.`,
        brokers: b,
        evidence: missing.flatMap((d): Evidence[] => [
          { label: 'log dir', value: `${d.path}${d.exists ? '' : ' (missing)'}: ${d.partitionDirsWithoutSegmentsCount} of ${d.partitionDirCount} partition dirs empty`, source: `broker:${brokerId}` },
          ...d.partitionDirsWithoutSegments.slice(0, MAX_EVIDENCE_SAMPLES).map((p) => ({ label: 'empty partition dir', value: p, source: `broker:${brokerId}` })),
        ]).concat(lines('server.log', missingLines, brokerId)),
        identity: id(),
        nextActions: ['Find what deletes files there (cleanup cron, tmp cleaner, rotation) and stop it.', 'Let the broker re-replicate affected partitions from in-sync replicas.'],
      }),
    );
  }
}

/** Log dirs where rotation, cleanup tools or a reboot delete data. */
function riskyLogDir({ brokerId, r, host, b, id, out }: HostRuleContext): void {
  const risky = r.logDirs.filter((d) => d.underVarLog || d.onTmpfs);
  if (risky.length > 0) {
    out.push(
      makeFinding({
        kind: 'risky-log-dir',
        severity: 'warning',
        title: `Broker ${brokerId} keeps Kafka data in a risky place`,
        summary: `log.dirs on ${host} are under /var/log or on tmpfs, where log rotation, cleanup tools or a reboot can delete segments.`,
        brokers: b,
        evidence: risky.map((d) => ({ label: 'log dir', value: `${d.path} (fs ${d.fsType ?? '?'}${d.underVarLog ? ', under /var/log' : ''}${d.onTmpfs ? ', tmpfs' : ''})`, source: `broker:${brokerId}` })),
        identity: id(...risky.map((d) => d.path)),
        nextActions: ['Move log.dirs to a dedicated persistent volume (one broker at a time, with can-restart).'],
      }),
    );
  }
}

/** Disk space and inodes of the log dirs. */
function storagePressure({ brokerId, r, b, id, out }: HostRuleContext): void {
  for (const [kind, getPercent, what] of [
    ['disk-pressure', (d: ProbeReport['logDirs'][number]) => d.diskUsedPercent, 'disk space'],
    ['inode-pressure', (d: ProbeReport['logDirs'][number]) => d.inodeUsedPercent, 'inodes'],
  ] as const) {
    const hits = r.logDirs
      .map((d) => ({ d, percent: getPercent(d) }))
      .filter((x): x is { d: (typeof r.logDirs)[number]; percent: number } => x.percent !== null && pressureSeverity(x.percent) !== null);
    if (hits.length === 0) continue;
    const worst = Math.max(...hits.map((h) => h.percent));
    out.push(
      makeFinding({
        kind,
        severity: pressureSeverity(worst)!,
        title: `Broker ${brokerId}: log dir ${what} ${worst}% used`,
        summary: `A full log dir takes the dir (and its partitions) offline on the broker. ${kind === 'inode-pressure' ? 'Tiny segment.bytes exhausts inodes long before space.' : ''}`.trim(),
        brokers: b,
        evidence: hits.map((h) => ({ label: `${what} used`, value: `${h.d.path}: ${h.percent}%${kind === 'disk-pressure' && h.d.diskAvailableBytes !== null ? `, ${h.d.diskAvailableBytes} bytes free` : ''}`, source: `broker:${brokerId}` })),
        identity: id(),
        nextActions: ['Reduce retention or move partitions to other brokers/dirs; add capacity.', 'Do not delete segment files by hand.'],
      }),
    );
  }
}

/** File descriptors and memory maps against their limits. */
function limitPressure({ brokerId, r, b, id, out }: HostRuleContext): void {
  for (const [kind, used, max, what, limitName] of [
    ['fd-pressure', r.limits.openFds, r.limits.maxFds, 'open file descriptors', 'ulimit -n'],
    ['mmap-pressure', r.limits.mapCount, r.limits.maxMapCount, 'memory maps', 'vm.max_map_count'],
  ] as const) {
    if (used === null || max === null || max <= 0) continue;
    const percent = pct(used, max);
    const sev = pressureSeverity(percent);
    if (!sev) continue;
    out.push(
      makeFinding({
        kind,
        severity: sev,
        title: `Broker ${brokerId}: ${what} at ${percent}% of ${limitName}`,
        summary: `Every segment costs file descriptors and index memory maps; reaching ${limitName} makes the broker fail to open segments and exit.`,
        brokers: b,
        evidence: [{ label: what, value: `${used} of ${max}`, source: `broker:${brokerId}` }],
        identity: id(),
        nextActions: [`Raise ${limitName} for the broker (LimitNOFILE / sysctl), then restart it with can-restart.`, 'Check segment counts: tiny segment.bytes multiplies files.'],
      }),
    );
  }
}

/** A systemd stop timeout that can SIGKILL a controlled shutdown (or did: shorter than the last one measured). */
function shortStopTimeout({ brokerId, r, b, id, out }: HostRuleContext): void {
  const sd = r.systemd;
  const short = sd && sd.timeoutStopSec !== null ? stopTimeoutShortfall(sd.timeoutStopSec, r.lastShutdownSeconds ?? null, MIN_STOP_TIMEOUT_SEC) : null;
  if (sd && short) {
    const took = short.measuredText;
    out.push(
      makeFinding({
        kind: 'short-stop-timeout',
        severity: short.belowMeasured ? 'critical' : 'warning',
        title: `Broker ${brokerId}: systemd stops it after ${sd.timeoutStopSec}s${took === null ? '' : `, its last controlled shutdown took ${took}`}`,
        summary: `${sd.unit} has TimeoutStopSec=${sd.timeoutStopSec}s. A large broker's controlled shutdown can take longer; systemd then sends SIGKILL and the next start runs a long log recovery (systemd's default is 90 s).`,
        brokers: b,
        evidence: [
          { label: 'TimeoutStopSec', value: String(sd.timeoutStopSec), source: `broker:${brokerId}` },
          ...(took === null ? [] : [{ label: 'last controlled shutdown', value: `${took} (server.log)`, source: `broker:${brokerId}` }]),
        ],
        identity: id(),
        nextActions: [`Set TimeoutStopSec=${Math.max(600, short.neededSec)} in a drop-in for ${sd.unit} and run systemctl daemon-reload.`],
      }),
    );
  }
}

/** Systemd restarting the broker over and over. */
function brokerCrashLoop({ brokerId, r, host, b, id, out }: HostRuleContext): void {
  const sd = r.systemd;
  if (sd && ((sd.restarts ?? 0) >= CRASH_LOOP_RESTARTS || sd.activeState === 'failed' || (sd.activeState === 'activating' && (sd.restarts ?? 0) > 0))) {
    out.push(
      makeFinding({
        kind: 'broker-crash-loop',
        severity: 'critical',
        title: `Broker ${brokerId} is crash-looping (${plural(sd.restarts ?? 0, 'restart')}, ${sd.activeState ?? 'unknown'})`,
        summary: `systemd keeps restarting ${sd.unit} on ${host}; the reason is usually in the systemd journal, not server.log.`,
        brokers: b,
        evidence: [
          { label: 'ActiveState', value: sd.activeState ?? 'unknown', source: `broker:${brokerId}` },
          { label: 'NRestarts', value: String(sd.restarts ?? 'unknown'), source: `broker:${brokerId}` },
          { label: 'last exit', value: `${sd.lastExitCode ?? '?'} status=${sd.lastExitStatus ?? '?'}`, source: `broker:${brokerId}` },
        ],
        identity: id(),
        nextActions: [`journalctl -u ${sd.unit} -n 200 on the host; look for missing segments, fatal index errors, fd/mmap limits.`, 'Stop the restart loop (systemctl stop) while investigating, so each start does not re-run recovery.'],
      }),
    );
  }
}

/** One rule per finding kind (or pair of kinds read the same way), in report order. */
const HOST_RULES: readonly ((ctx: HostRuleContext) => void)[] = [
  indexAppendFatal,
  uncleanShutdownRecovery,
  corruptIndex,
  logCleanerStalled,
  unsupportedRequestVersion,
  missingSegments,
  riskyLogDir,
  storagePressure,
  limitPressure,
  shortStopTimeout,
  brokerCrashLoop,
];

function reportFindings(brokerId: number, r: ProbeReport): Finding[] {
  const ctx: HostRuleContext = {
    brokerId,
    r,
    host: r.hostname || `broker ${brokerId}`,
    b: [brokerId],
    id: (...rest) => [`broker:${brokerId}`, ...rest],
    runningSince: r.process.running ? r.process.startedAt : null,
    out: [],
  };
  for (const rule of HOST_RULES) rule(ctx);
  return ctx.out;
}

/**
 * One finding for all oversized __consumer_offsets replicas, across brokers: it
 * is one problem (compaction behind) wherever the replicas live.
 */
function oversizedOffsets(probes: readonly HostProbeOutcome[]): Finding[] {
  const hits: { brokerId: number; p: ProbeReport['consumerOffsets'][number] }[] = [];
  for (const o of probes) {
    if (!o.ok) continue;
    for (const p of o.report.consumerOffsets) {
      if (p.segments > OFFSETS_SEGMENTS_WARNING || p.bytes > OFFSETS_BYTES_WARNING) hits.push({ brokerId: o.brokerId, p });
    }
  }
  if (hits.length === 0) return [];
  const partitions = [...new Set(hits.map((h) => h.p.partition))].sort((a, b) => a - b);
  const severe = hits.some((h) => h.p.segments > OFFSETS_SEGMENTS_ERROR || h.p.bytes > OFFSETS_BYTES_ERROR);
  hits.sort((a, b) => b.p.segments - a.p.segments || a.brokerId - b.brokerId);
  return [
    makeFinding({
      kind: 'consumer-offsets-oversized',
      severity: severe ? 'error' : 'warning',
      title: `${plural(partitions.length, `${CONSUMER_OFFSETS_TOPIC} partition`)} oversized (${partitions.map((p) => `${CONSUMER_OFFSETS_TOPIC}-${p}`).slice(0, 5).join(', ')}${partitions.length > 5 ? ', …' : ''})`,
      summary:
        `Compaction of ${CONSUMER_OFFSETS_TOPIC} is behind: these partitions hold more than ${OFFSETS_SEGMENTS_WARNING} segments or ${OFFSETS_BYTES_WARNING / 1024 ** 3} GiB. ` +
        'Loading one after a leader change takes long, and every group on it cannot consume meanwhile.',
      partitions: partitions.map((p) => ({ topic: CONSUMER_OFFSETS_TOPIC, partition: p })),
      brokers: hits.map((h) => h.brokerId),
      evidence: hits.slice(0, MAX_EVIDENCE_SAMPLES).map((h) => ({
        label: `${CONSUMER_OFFSETS_TOPIC}-${h.p.partition}`,
        value: `${h.p.segments} segments, ${h.p.bytes} bytes in ${h.p.logDir}`,
        source: `broker:${h.brokerId}`,
      })),
      identity: partitions.map((p) => `offsets:${p}`),
      nextActions: [
        'Check log-cleaner health on the brokers holding these partitions (log-cleaner.log; cleanup.policy and min.compaction.lag.ms of __consumer_offsets).',
        'Never restart all replica holders of these partitions at once; restart one, wait for its loads to finish.',
      ],
    }),
  ];
}

export function detectHostFindings(_snapshot: ClusterSnapshot, probes: readonly HostProbeOutcome[]): Finding[] {
  const findings: Finding[] = oversizedOffsets(probes);
  for (const o of probes) {
    if (o.ok) {
      findings.push(...reportFindings(o.brokerId, o.report));
      continue;
    }
    const exec = o.execution;
    const evidence: Evidence[] = [{ label: 'reason', value: o.message, source: `broker:${o.brokerId}` }];
    if (exec) {
      evidence.push({ label: 'status', value: `${exec.status}${exec.exitCode !== null ? ` exit=${exec.exitCode}` : ''}${exec.detail ? `: ${exec.detail}` : ''}`, source: exec.target.address });
      if (exec.stderr) evidence.push({ label: 'stderr', value: exec.stderr.slice(0, 500), source: exec.target.address });
      if (o.reason === 'malformed' && exec.stdout) evidence.push({ label: 'stdout (start)', value: exec.stdout.slice(0, 300), source: exec.target.address });
    }
    const where = exec?.target.address ?? `broker ${o.brokerId}`;
    if (o.reason === 'malformed') {
      findings.push(
        makeFinding({
          kind: 'probe-error',
          severity: 'error',
          title: `Host probe of broker ${o.brokerId} (${where}) returned unreadable output`,
          summary: `The probe ran on ${where} but its output could not be parsed${exec?.truncated ? ' (the transport truncated it)' : ''}: host checks for broker ${o.brokerId} are missing from this report.`,
          brokers: [o.brokerId],
          evidence,
          identity: [`broker:${o.brokerId}`],
          nextActions: ['Run the probe by hand on the host and check its output; report a bug with it.'],
        }),
      );
    } else {
      findings.push(
        makeFinding({
          kind: 'host-unreachable',
          severity: 'error',
          title: `Host of broker ${o.brokerId} (${where}) did not answer the probe`,
          summary: `The host probe for broker ${o.brokerId} ${o.reason === 'unreachable' ? 'could not reach the host' : 'failed'}: its host checks are missing from this report. If the broker is also down, the host itself may be gone.`,
          brokers: [o.brokerId],
          evidence,
          identity: [`broker:${o.brokerId}`],
          nextActions: ['Check the instance (EC2 status checks, SSM agent) or the sandbox host directory.'],
        }),
      );
    }
  }
  return findings;
}
