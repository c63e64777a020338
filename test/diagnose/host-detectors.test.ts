import { describe, expect, it } from 'vitest';
import { detect } from '../../lib/diagnose/detect.ts';
import type { Finding } from '../../lib/diagnose/types.ts';
import type { HostProbeOutcome } from '../../lib/hosts/types.ts';
import { config, execution, group, healthyCluster, healthyTopic, okProbe, probeReport, snapshot } from './fixtures.ts';

const kinds = (fs: Finding[]) => fs.map((f) => `${f.kind}:${f.severity}`).sort();
const logDir = probeReport().logDirs[0]!;
const logs = probeReport().logs;

describe('host detectors', () => {
  it('healthy probes on a healthy cluster add nothing', () => {
    expect(detect(healthyCluster(), [okProbe(1), okProbe(2), okProbe(3)])).toEqual([]);
  });

  it.each([
    ['index-append-fatal', 'critical', { logs: { ...logs, indexAppendFatal: ['ERROR ... Attempt to append an offset 12 to position 40 no larger than the last offset appended (15) to /d/A-34/00.index'] } }],
    ['unclean-shutdown-recovery', 'info', { logs: { ...logs, uncleanShutdownRecovery: ['Recovering 120 logs from /data/kafka-logs since no clean shutdown file was found'] } }],
    ['unclean-shutdown-recovery', 'error', { recoveryInProgress: true }],
    ['corrupt-index', 'warning', { process: { running: false, pid: null, startedAt: null, configPath: null, logsDir: null }, logs: { ...logs, corruptIndex: ['Found a corrupted index file corresponding to log file /d/00.log'] } }],
    ['corrupt-index', 'info', { logs: { ...logs, corruptIndex: ['Found a corrupted index file corresponding to log file /d/00.log'] } }],
    ['log-cleaner-stalled', 'warning', { logs: { ...logs, uncleanablePartitions: ['Marking its partition (orders-1) as uncleanable'] } }],
    ['log-cleaner-stalled', 'error', { logs: { ...logs, logCleanerFailure: ['Unexpected exception thrown when cleaning log Log(dir=/d/__consumer_offsets-12)'] } }],
    ['unsupported-request-version', 'error', { logs: { ...logs, unsupportedRequestVersion: ['Received request api key 3 with version 13 which is not enabled'] } }],
    ['missing-segments', 'error', { logDirs: [{ ...logDir, partitionDirsWithoutSegments: ['orders-3'], partitionDirsWithoutSegmentsCount: 1 }] }],
    ['risky-log-dir', 'warning', { logDirs: [{ ...logDir, path: '/var/log/kafka-data', underVarLog: true }] }],
    ['disk-pressure', 'warning', { logDirs: [{ ...logDir, diskUsedPercent: 85 }] }],
    ['disk-pressure', 'critical', { logDirs: [{ ...logDir, diskUsedPercent: 97 }] }],
    ['inode-pressure', 'critical', { logDirs: [{ ...logDir, inodeUsedPercent: 99 }] }],
    ['fd-pressure', 'warning', { limits: { openFds: 900, maxFds: 1024, mapCount: 10, maxMapCount: 65530 } }],
    ['mmap-pressure', 'critical', { limits: { openFds: 10, maxFds: 1024, mapCount: 65000, maxMapCount: 65530 } }],
    ['short-stop-timeout', 'warning', { systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 90, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited' } }],
    ['short-stop-timeout', 'warning', { systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 600, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited' }, lastShutdownSeconds: 450 }],
    ['short-stop-timeout', 'critical', { systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 600, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited' }, lastShutdownSeconds: 640 }],
    ['broker-crash-loop', 'critical', { systemd: { unit: 'kafka.service', activeState: 'activating', timeoutStopSec: 600, restarts: 7, lastExitStatus: 1, lastExitCode: 'exited' } }],
  ] as const)('%s (%s)', (kind, severity, over) => {
    const findings = detect(healthyCluster(), [okProbe(2, over as never)]);
    expect(kinds(findings)).toEqual([`${kind}:${severity}`]);
    expect(findings[0]!.affected.brokers).toEqual([2]);
    expect(findings[0]!.evidence.length).toBeGreaterThan(0);
  });

  it('84 % disk is below the threshold', () => {
    expect(detect(healthyCluster(), [okProbe(1, { logDirs: [{ ...logDir, diskUsedPercent: 84 }] })])).toEqual([]);
  });

  it('flags oversized __consumer_offsets partitions by segments or bytes', () => {
    const cp = (partition: number, segments: number, bytes: number) => ({ partition, logDir: '/d', segments, bytes, lastLoadStart: null, lastLoadFinish: null, loading: false });
    const f = detect(healthyCluster(), [okProbe(1, { consumerOffsets: [cp(0, 3, 1e6), cp(7, 60, 5e8), cp(12, 2100, 2.1e11)] })]);
    expect(kinds(f)).toEqual(['consumer-offsets-oversized:error']);
    expect(f[0]!.affected.partitions.map((p) => p.partition)).toEqual([7, 12]);
  });

  it('a host that does not answer becomes host-unreachable; the rest of the report stays', () => {
    const down: HostProbeOutcome = {
      brokerId: 3,
      ok: false,
      reason: 'unreachable',
      message: 'SSM: Undeliverable',
      execution: execution(3, { status: 'Undeliverable', exitCode: null, stdout: '', detail: 'instance not connected' }),
    };
    const s = snapshot([healthyTopic('t', 3)], { brokers: [1, 2].map((id) => ({ id, host: 'h', port: id, rack: null })) });
    const f = detect(s, [okProbe(1, { systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 90, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited' } }), down]);
    expect(kinds(f)).toEqual(['broker-unreachable:error', 'host-unreachable:error', 'offline-partition:critical', 'short-stop-timeout:warning'].sort());
    expect(f.find((x) => x.kind === 'host-unreachable')!.title).toContain('/sandbox/broker-3');
  });

  it('malformed probe output is an error finding naming the host, never a throw', () => {
    const bad: HostProbeOutcome = { brokerId: 2, ok: false, reason: 'malformed', message: 'probe output is not JSON', execution: execution(2, { stdout: 'garbage {', truncated: true }) };
    const f = detect(healthyCluster(), [bad]);
    expect(kinds(f)).toEqual(['probe-error:error']);
    expect(f[0]!.title).toContain('/sandbox/broker-2');
    expect(f[0]!.summary).toContain('truncated');
  });
});

describe('coordinator-loading', () => {
  const loadingCluster = () => {
    const s = healthyCluster();
    const offsets = s.topics.find((t) => t.name === '__consumer_offsets')!;
    const g = group('my-consumer-group', { state: 'Unknown', error: { code: 14, type: 'COORDINATOR_LOAD_IN_PROGRESS', message: 'loading' } });
    const leader = offsets.partitions[g.offsetsPartition]!.leader;
    return { s: { ...s, groups: [...s.groups, g] }, g, leader };
  };

  it('ties a group answering 14 to its offsets partition (Java hash) and that partition leader', () => {
    const { s, g, leader } = loadingCluster();
    expect(g.offsetsPartition).toBe(13);
    const f = detect(s).filter((x) => x.kind === 'coordinator-loading');
    expect(f).toHaveLength(1);
    expect(f[0]!.affected.groups).toEqual(['my-consumer-group']);
    expect(f[0]!.affected.partitions).toEqual([{ topic: '__consumer_offsets', partition: 13 }]);
    expect(f[0]!.affected.brokers).toEqual([leader]);
  });

  it('adds the leader host\'s unfinished load line as evidence and ignores a follower\'s', () => {
    const { s, leader } = loadingCluster();
    const line = '[GroupCoordinator id=2] Scheduling loading of metadata from __consumer_offsets-13 with epoch 4';
    const cp = { partition: 13, logDir: '/d', segments: 4, bytes: 1e6, lastLoadStart: line, lastLoadFinish: null, loading: true };
    const follower = leader === 1 ? 2 : 1;
    const f = detect(s, [okProbe(leader, { consumerOffsets: [cp] }), okProbe(follower, { consumerOffsets: [cp] })]).filter((x) => x.kind === 'coordinator-loading');
    expect(f).toHaveLength(1);
    expect(f[0]!.evidence.map((e) => e.value)).toContain(line);
  });

  it('a broker answering ListGroups with COORDINATOR_LOAD_IN_PROGRESS is reported even when no group is listed', () => {
    const s = { ...healthyCluster(), coordinatorErrors: [{ brokerId: 2, code: 14, type: 'COORDINATOR_LOAD_IN_PROGRESS' }] };
    const f = detect(s).filter((x) => x.kind === 'coordinator-loading');
    expect(f.map((x) => x.affected.brokers)).toEqual([[2]]);
  });

  it('groups without coordinator errors are not findings', () => {
    const s = healthyCluster();
    s.groups.push(group('other', { error: { code: -1, type: 'REQUEST_FAILED', message: 'timeout' } }));
    expect(detect(s).filter((x) => x.kind === 'coordinator-loading')).toEqual([]);
    expect(config().minInsyncReplicas).toBe(2);
  });
});

describe('history versus the running process', () => {
  const startedAt = '2026-11-29T07:54:27Z';
  const before = '[2026-11-29 07:48:05,440] WARN [LogLoader partition=clicks-0, dir=/d] Found a corrupted index file corresponding to log file /d/clicks-0/00000000000000002500.log due to ...';
  const after = '[2026-11-29 07:54:34,100] WARN [LogLoader partition=clicks-0, dir=/d] Found a corrupted index file corresponding to log file /d/clicks-0/00000000000000002500.log due to ...';
  const running = { running: true, pid: 9, startedAt, configPath: null, logsDir: null };

  it('a corrupt index rebuilt before the running process started is info, not a warning', () => {
    const f = detect(healthyCluster(), [okProbe(3, { process: running, logs: { ...logs, corruptIndex: [before] } })]);
    expect(kinds(f)).toEqual(['corrupt-index:info']);
    expect(f[0]!.title).toMatch(/earlier run/);
  });

  it('while the broker is still recovering, a current line keeps it a warning; so does a line without a timestamp', () => {
    const recovering = { process: running, recoveryInProgress: true };
    const ci = (corruptIndex: string[]) => kinds(detect(healthyCluster(), [okProbe(3, { ...recovering, logs: { ...logs, corruptIndex } })])).filter((k) => k.startsWith('corrupt'));
    expect(ci([before, after])).toEqual(['corrupt-index:warning']);
    expect(ci(['Found a corrupted index file'])).toEqual(['corrupt-index:warning']);
    expect(ci([before])).toEqual(['corrupt-index:info']);
  });

  it('a fatal index append from an earlier run is a warning; a current one is critical', () => {
    const fatal = (ts: string) => `[${ts}] ERROR Attempt to append an offset 12 to position 40 no larger than the last offset appended (15) to /d/A-34/00.index`;
    expect(kinds(detect(healthyCluster(), [okProbe(1, { process: running, logs: { ...logs, indexAppendFatal: [fatal('2026-11-29 07:00:00,000')] } })]))).toEqual(['index-append-fatal:warning']);
    expect(kinds(detect(healthyCluster(), [okProbe(1, { process: { ...running, running: false, startedAt: null }, logs: { ...logs, indexAppendFatal: [fatal('2026-11-29 07:00:00,000')] } })]))).toEqual(['index-append-fatal:critical']);
  });

  it('oversized __consumer_offsets replicas on several brokers are one finding', () => {
    const cp = { partition: 39, logDir: '/d', segments: 98, bytes: 101317254, lastLoadStart: null, lastLoadFinish: null, loading: false };
    const f = detect(healthyCluster(), [okProbe(1, { consumerOffsets: [cp] }), okProbe(2, { consumerOffsets: [cp] }), okProbe(3, { consumerOffsets: [cp] })]);
    expect(kinds(f)).toEqual(['consumer-offsets-oversized:warning']);
    expect(f[0]!.affected.brokers).toEqual([1, 2, 3]);
    expect(f[0]!.affected.partitions).toEqual([{ topic: '__consumer_offsets', partition: 39 }]);
  });

  it('segments deleted under a running broker are missing-segments even when Kafka recreated the dir content', () => {
    const line = '[2026-11-29 08:00:00,000] WARN logEndOffset 0 is smaller than logStartOffset 500 for audit-0';
    const f = detect(healthyCluster(), [okProbe(2, { logs: { ...logs, segmentsMissing: [line] } })]);
    expect(kinds(f)).toEqual(['missing-segments:error']);
    expect(f[0]!.evidence.map((e) => e.value)).toContain(line);
  });

  it('a current "Failed to load metadata" line is coordinator-loading evidence on that broker', () => {
    const line = '[2026-11-29 08:00:00,000] ERROR [GroupCoordinator id=2] Failed to load metadata from __consumer_offsets-39 with epoch 5 due to ...';
    const f = detect(healthyCluster(), [okProbe(2, { process: running, logs: { ...logs, consumerOffsetsLoadErrors: [line] } })]);
    expect(kinds(f)).toEqual(['coordinator-loading:error']);
    expect(f[0]!.affected.partitions).toEqual([{ topic: '__consumer_offsets', partition: 39 }]);
  });
});
