// Per-host checks over the host's state (log dirs, disk, limits, systemd),
// and the one cross-host check: oversized __consumer_offsets replicas.

import { CONSUMER_OFFSETS_TOPIC } from '../../kafka/group-partition.ts';
import type { ProbeReport } from '../../hosts/types.ts';
import { stopTimeoutShortfall } from '../../hosts/shutdown-timing.ts';
import type { Check, CheckInput } from './check.ts';
import type { Evidence, Finding, Severity } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES, makeFinding, plural } from '../finding.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'missing-segments': true;
    'risky-log-dir': true;
    'disk-pressure': true;
    'inode-pressure': true;
    'fd-pressure': true;
    'mmap-pressure': true;
    'short-stop-timeout': true;
    'broker-crash-loop': true;
    'consumer-offsets-oversized': true;
  }
}

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

function pressureSeverity(percent: number): Severity | null {
  if (percent >= PRESSURE_CRITICAL_PERCENT) return 'critical';
  if (percent >= PRESSURE_WARNING_PERCENT) return 'warning';
  return null;
}

function pct(used: number, max: number): number {
  return max > 0 ? Math.round((used / max) * 1000) / 10 : 0;
}

type LogDir = ProbeReport['logDirs'][number];

/** Disk space or inodes of the log dirs. */
const storagePressure =
  (kind: 'disk-pressure' | 'inode-pressure', getPercent: (d: LogDir) => number | null, what: string) =>
  ({ brokerId, report, brokers, id }: HostReport): Finding[] => {
    const hits = report.logDirs
      .map((d) => ({ d, percent: getPercent(d) }))
      .filter((x): x is { d: LogDir; percent: number } => x.percent !== null && pressureSeverity(x.percent) !== null);
    if (hits.length === 0) return [];
    const worst = Math.max(...hits.map((h) => h.percent));
    return [
      makeFinding({
        kind,
        severity: pressureSeverity(worst)!,
        title: `Broker ${brokerId}: log dir ${what} ${worst}% used`,
        summary: `A full log dir takes the dir (and its partitions) offline on the broker. ${kind === 'inode-pressure' ? 'Tiny segment.bytes exhausts inodes long before space.' : ''}`.trim(),
        brokers,
        evidence: hits.map((h) => ({ label: `${what} used`, value: `${h.d.path}: ${h.percent}%${kind === 'disk-pressure' && h.d.diskAvailableBytes !== null ? `, ${h.d.diskAvailableBytes} bytes free` : ''}`, source: `broker:${brokerId}` })),
        identity: id(),
        nextActions: ['Reduce retention or move partitions to other brokers/dirs; add capacity.', 'Do not delete segment files by hand.'],
      }),
    ];
  };

/** File descriptors or memory maps against their limit. */
const limitPressure =
  (kind: 'fd-pressure' | 'mmap-pressure', usage: (l: ProbeReport['limits']) => [used: number | null, max: number | null], what: string, limitName: string) =>
  ({ brokerId, report, brokers, id }: HostReport): Finding[] => {
    const [used, max] = usage(report.limits);
    if (used === null || max === null || max <= 0) return [];
    const percent = pct(used, max);
    const sev = pressureSeverity(percent);
    if (!sev) return [];
    return [
      makeFinding({
        kind,
        severity: sev,
        title: `Broker ${brokerId}: ${what} at ${percent}% of ${limitName}`,
        summary: `Every segment costs file descriptors and index memory maps; reaching ${limitName} makes the broker fail to open segments and exit.`,
        brokers,
        evidence: [{ label: what, value: `${used} of ${max}`, source: `broker:${brokerId}` }],
        identity: id(),
        nextActions: [`Raise ${limitName} for the broker (LimitNOFILE / sysctl), then restart it with can-restart.`, 'Check segment counts: tiny segment.bytes multiplies files.'],
      }),
    ];
  };

/** Segment files removed under a running broker. */
function missingSegments({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  const missing = report.logDirs.filter((d) => d.partitionDirsWithoutSegmentsCount > 0 || !d.exists);
  const missingLines = report.logs.segmentsMissing ?? [];
  if (missing.length > 0 || missingLines.length > 0) {
    const total = missing.reduce((n, d) => n + d.partitionDirsWithoutSegmentsCount, 0);
    return [
      makeFinding({
        kind: 'missing-segments',
        severity: 'error',
        title:
          total > 0 || missing.length > 0
            ? `Broker ${brokerId}: ${plural(total, 'partition directory', 'partition directories')} without segments` + (missing.some((d) => !d.exists) ? ' / log dir missing' : '')
            : `Broker ${brokerId}: segment files were deleted under the running broker`,
        summary: `On ${host}, partition directories hold no .log segment (or a log dir is gone). Kafka always keeps an active segment, so something removed files under a running broker.`,
        brokers,
        evidence: missing.flatMap((d): Evidence[] => [
          { label: 'log dir', value: `${d.path}${d.exists ? '' : ' (missing)'}: ${d.partitionDirsWithoutSegmentsCount} of ${d.partitionDirCount} partition dirs empty`, source: `broker:${brokerId}` },
          ...d.partitionDirsWithoutSegments.slice(0, MAX_EVIDENCE_SAMPLES).map((p) => ({ label: 'empty partition dir', value: p, source: `broker:${brokerId}` })),
        ]).concat(logLines('server.log', missingLines, brokerId)),
        identity: id(),
        nextActions: ['Find what deletes files there (cleanup cron, tmp cleaner, rotation) and stop it.', 'Let the broker re-replicate affected partitions from in-sync replicas.'],
      }),
    ];
  }
  return [];
}

/** Log dirs where rotation, cleanup tools or a reboot delete data. */
function riskyLogDir({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  const risky = report.logDirs.filter((d) => d.underVarLog || d.onTmpfs);
  if (risky.length > 0) {
    return [
      makeFinding({
        kind: 'risky-log-dir',
        severity: 'warning',
        title: `Broker ${brokerId} keeps Kafka data in a risky place`,
        summary: `log.dirs on ${host} are under /var/log or on tmpfs, where log rotation, cleanup tools or a reboot can delete segments.`,
        brokers,
        evidence: risky.map((d) => ({ label: 'log dir', value: `${d.path} (fs ${d.fsType ?? '?'}${d.underVarLog ? ', under /var/log' : ''}${d.onTmpfs ? ', tmpfs' : ''})`, source: `broker:${brokerId}` })),
        identity: id(...risky.map((d) => d.path)),
        nextActions: ['Move log.dirs to a dedicated persistent volume (one broker at a time, with can-restart).'],
      }),
    ];
  }
  return [];
}

/** A systemd stop timeout that can SIGKILL a controlled shutdown (or did: shorter than the last one measured). */
function shortStopTimeout({ brokerId, report, brokers, id }: HostReport): Finding[] {
  const sd = report.systemd;
  const short = sd && sd.timeoutStopSec !== null ? stopTimeoutShortfall(sd.timeoutStopSec, report.lastShutdownSeconds ?? null, MIN_STOP_TIMEOUT_SEC) : null;
  if (sd && short) {
    const took = short.measuredText;
    return [
      makeFinding({
        kind: 'short-stop-timeout',
        severity: short.belowMeasured ? 'critical' : 'warning',
        title: `Broker ${brokerId}: systemd stops it after ${sd.timeoutStopSec}s${took === null ? '' : `, its last controlled shutdown took ${took}`}`,
        summary: `${sd.unit} has TimeoutStopSec=${sd.timeoutStopSec}s. A large broker's controlled shutdown can take longer; systemd then sends SIGKILL and the next start runs a long log recovery (systemd's default is 90 s).`,
        brokers,
        evidence: [
          { label: 'TimeoutStopSec', value: String(sd.timeoutStopSec), source: `broker:${brokerId}` },
          ...(took === null ? [] : [{ label: 'last controlled shutdown', value: `${took} (server.log)`, source: `broker:${brokerId}` }]),
        ],
        identity: id(),
        nextActions: [`Set TimeoutStopSec=${Math.max(600, short.neededSec)} in a drop-in for ${sd.unit} and run systemctl daemon-reload.`],
      }),
    ];
  }
  return [];
}

/** Systemd restarting the broker over and over. */
function brokerCrashLoop({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  const sd = report.systemd;
  if (sd && ((sd.restarts ?? 0) >= CRASH_LOOP_RESTARTS || sd.activeState === 'failed' || (sd.activeState === 'activating' && (sd.restarts ?? 0) > 0))) {
    return [
      makeFinding({
        kind: 'broker-crash-loop',
        severity: 'critical',
        title: `Broker ${brokerId} is crash-looping (${plural(sd.restarts ?? 0, 'restart')}, ${sd.activeState ?? 'unknown'})`,
        summary: `systemd keeps restarting ${sd.unit} on ${host}; the reason is usually in the systemd journal, not server.log.`,
        brokers,
        evidence: [
          { label: 'ActiveState', value: sd.activeState ?? 'unknown', source: `broker:${brokerId}` },
          { label: 'NRestarts', value: String(sd.restarts ?? 'unknown'), source: `broker:${brokerId}` },
          { label: 'last exit', value: `${sd.lastExitCode ?? '?'} status=${sd.lastExitStatus ?? '?'}`, source: `broker:${brokerId}` },
        ],
        identity: id(),
        nextActions: [`journalctl -u ${sd.unit} -n 200 on the host; look for missing segments, fatal index errors, fd/mmap limits.`, 'Stop the restart loop (systemctl stop) while investigating, so each start does not re-run recovery.'],
      }),
    ];
  }
  return [];
}

function oversizedOffsets({ probes }: CheckInput): Finding[] {
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

export const missingSegmentsCheck: Check = perHost(['missing-segments'], missingSegments);
export const riskyLogDirCheck: Check = {
  ...perHost(['risky-log-dir'], riskyLogDir),
  preventive: { prevents: 'segments deleted under a broker by cleanup tools, log rotation or a reboot' },
};
export const diskPressureCheck: Check = perHost(['disk-pressure'], storagePressure('disk-pressure', (d) => d.diskUsedPercent, 'disk space'));
export const inodePressureCheck: Check = perHost(['inode-pressure'], storagePressure('inode-pressure', (d) => d.inodeUsedPercent, 'inodes'));
export const fdPressureCheck: Check = perHost(['fd-pressure'], limitPressure('fd-pressure', (l) => [l.openFds, l.maxFds], 'open file descriptors', 'ulimit -n'));
export const mmapPressureCheck: Check = perHost(['mmap-pressure'], limitPressure('mmap-pressure', (l) => [l.mapCount, l.maxMapCount], 'memory maps', 'vm.max_map_count'));
export const shortStopTimeoutCheck: Check = perHost(['short-stop-timeout'], shortStopTimeout);
export const brokerCrashLoopCheck: Check = perHost(['broker-crash-loop'], brokerCrashLoop);
/** One finding for all oversized replicas across brokers: it is one problem (compaction behind) wherever they live. */
export const consumerOffsetsOversizedCheck: Check = {
  kinds: ['consumer-offsets-oversized'],
  needs: ['hosts'],
  preventive: { prevents: 'groups unable to consume while an oversized offsets partition loads' },
  detect: oversizedOffsets,
};
