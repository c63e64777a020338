import { describe, expect, it } from 'vitest';
import { parseProbeOutput, parseSystemdTimespan, ProbeOutputError } from '../../lib/hosts/probe-output.ts';
import type { RawProbeOutput } from '../../lib/hosts/probe-schema.ts';
import { recordsOf } from './records-of.ts';

const D = '/var/lib/kafka/data';
const TS = '[2026-11-29 07:00:00,123]';

function raw(over: Partial<RawProbeOutput> = {}, logs: Partial<RawProbeOutput['logs']> = {}): RawProbeOutput {
  return {
    probeVersion: 2,
    hostname: 'kafka-1.internal',
    brokerId: 1,
    collectedAt: '2026-11-29T07:00:05Z',
    probeDurationMs: 812,
    kafkaVersion: '3.9.0',
    process: { running: true, pid: 4242, startedAt: '2026-11-29T06:59:00Z', configPath: '/opt/kafka/config/server.properties', logsDir: '/opt/kafka/logs' },
    logDirs: [
      {
        path: D,
        exists: true,
        realPath: D,
        cleanShutdownMarker: false,
        fsType: 'xfs',
        mountPoint: '/var/lib/kafka',
        diskUsedPercent: 71,
        diskAvailableBytes: 1_000_000,
        inodeUsedPercent: 3,
        partitionDirCount: 10,
        partitionDirsWithoutSegments: [],
        partitionDirsWithoutSegmentsCount: 0,
      },
    ],
    consumerOffsets: [],
    logs: {
      files: ['/opt/kafka/logs/server.log'],
      bytesRead: 1000,
      lifecycle: [],
      unclean: [],
      recovery: [],
      loadProgress: [],
      corruptIndex: [],
      indexAppend: [],
      cleaner: [],
      unsupported: [],
      offsetsLoadErrors: [],
      shutdown: [],
      cleanerLog: [],
      ...logs,
    },
    limits: { openFds: 1200, maxFds: 100_000, mapCount: 3000, maxMapCount: 65530 },
    systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopUSec: '1min 30s', nRestarts: 4, execMainStatus: 0, execMainCode: '0' },
    warnings: [],
    ...over,
  };
}
const text = (r: RawProbeOutput) => recordsOf(r);

describe('parseProbeOutput: valid output', () => {
  it('maps the raw document onto ProbeReport', () => {
    const r = parseProbeOutput(text(raw()) + '\n');
    expect(r.hostname).toBe('kafka-1.internal');
    expect(r.process.pid).toBe(4242);
    expect(r.logDirs[0]).toMatchObject({ path: D, underVarLog: false, onTmpfs: false, fsType: 'xfs', diskUsedPercent: 71 });
    expect(r.systemd).toEqual({
      unit: 'kafka.service',
      activeState: 'active',
      timeoutStopSec: 90,
      timeoutStopRaw: '1min 30s',
      restarts: 4,
      lastExitStatus: 0,
      lastExitCode: 'none',
      journalTail: [],
    });
    expect(r.recoveryInProgress).toBe(false);
    expect(r.logs.uncleanShutdownRecovery).toEqual([]);
  });

  it('judges /var/log on the resolved path and tmpfs on the filesystem type', () => {
    const r = parseProbeOutput(
      text(
        raw({
          logDirs: [
            { path: '/data/kafka', exists: true, realPath: '/var/log/kafka-data', fsType: 'ext4' },
            { path: '/run/kafka', exists: true, realPath: '/run/kafka', fsType: 'tmpfs' },
            { path: '/gone', exists: false },
          ],
        }),
      ),
    );
    expect(r.logDirs.map((d) => [d.underVarLog, d.onTmpfs])).toEqual([
      [true, false],
      [false, true],
      [false, false],
    ]);
    expect(r.logDirs[2]).toMatchObject({ exists: false, realPath: null, partitionDirCount: 0, diskUsedPercent: null });
  });

  it('times the newest complete controlled shutdown from its numbered log lines; none when the probe printed none', () => {
    const shutdown = [
      '100:[2026-11-29 06:50:00,000] INFO [KafkaServer id=1] shutting down (kafka.server.KafkaServer)',
      '180:[2026-11-29 06:51:12,500] INFO [KafkaServer id=1] shut down completed (kafka.server.KafkaServer)',
    ];
    expect(parseProbeOutput(text(raw({}, { shutdown }))).lastShutdownSeconds).toBe(72.5);
    const older = raw();
    delete (older.logs as Partial<RawProbeOutput['logs']>).shutdown;
    expect(parseProbeOutput(text(older)).lastShutdownSeconds).toBeNull();
  });

  it('maps a killed main process', () => {
    const r = parseProbeOutput(text(raw({ systemd: { unit: 'kafka.service', activeState: 'activating', timeoutStopUSec: 'infinity', nRestarts: 37, execMainStatus: 9, execMainCode: '2' } })));
    expect(r.systemd).toMatchObject({ timeoutStopSec: null, timeoutStopRaw: 'infinity', restarts: 37, lastExitStatus: 9, lastExitCode: 'killed' });
  });
});

describe('parseProbeOutput: log signals', () => {
  const start = `${TS} INFO Loading logs from log dirs ArrayBuffer(${D}) (kafka.log.LogManager)`;
  const unclean = `${TS} INFO Recovering 10 logs from ${D} since no clean shutdown file was found (kafka.log.LogManager)`;
  const meta = `${TS} INFO [LogLoader partition=__cluster_metadata-0, dir=${D}] Recovering unflushed segment 0. 0/1 recovered for __cluster_metadata-0. (kafka.log.LogLoader)`;
  const seg = `${TS} INFO [LogLoader partition=A-1, dir=${D}] Recovering unflushed segment 7. 1/1 recovered for A-1. (kafka.log.LogLoader)`;
  const loaded = `${TS} INFO Loaded 10 logs in 5000ms (unclean log dirs = ArrayBuffer(${D})) (kafka.log.LogManager)`;

  it('never counts __cluster_metadata recovery as an unclean shutdown', () => {
    // KRaft: every start recovers the metadata log; the data dir was clean.
    const r = parseProbeOutput(text(raw({}, { lifecycle: [`10:${start}`, `20:${loaded.replace(' (unclean log dirs = ArrayBuffer(' + D + '))', '')}`], recovery: [`5:${meta}`, `11:${meta}`] })));
    expect(r.logs.uncleanShutdownRecovery).toEqual([]);
    expect(r.logs.recoveryProgress.join('\n')).not.toContain('__cluster_metadata');
    expect(r.recoveryInProgress).toBe(false);
  });

  it('uses segment recovery as unclean-shutdown evidence when the version prints no per-dir line (before 2.6)', () => {
    const s011 = `${TS} INFO Recovering unflushed segment 1200 in log A-34. (kafka.log.Log)`;
    const r = parseProbeOutput(text(raw({}, { lifecycle: [`3:${TS} INFO Loading logs. (kafka.log.LogManager)`], recovery: [`1:${s011}`, `4:${s011}`] })));
    expect(r.logs.uncleanShutdownRecovery).toEqual([s011]);
    expect(r.recoveryInProgress).toBe(true);
  });

  it('only counts what happened since the latest start, and recovery ends with "Loaded N logs"', () => {
    const r = parseProbeOutput(
      text(raw({}, { lifecycle: [`1:${start}`, `9:${loaded}`, `30:${start}`], unclean: [`2:${unclean}`, `31:${unclean}`], recovery: [`3:${seg}`, `32:${seg}`] })),
    );
    expect(r.recoveryInProgress).toBe(true);
    expect(r.logs.uncleanShutdownRecovery).toEqual([unclean]);
    expect(r.logs.recoveryProgress).toEqual([start, unclean, seg]);
    const done = parseProbeOutput(text(raw({}, { lifecycle: [`30:${start}`, `40:${loaded}`], unclean: [`31:${unclean}`] })));
    expect(done.recoveryInProgress).toBe(false);
    expect(done.logs.recoveryProgress).toEqual([start, unclean, loaded]);
  });

  it('is not "recovering" when the broker process is not running', () => {
    const r = parseProbeOutput(text(raw({ process: { running: false, pid: null, startedAt: null, configPath: null, logsDir: null } }, { lifecycle: [`1:${start}`] })));
    expect(r.recoveryInProgress).toBe(false);
  });

  it('drops pre-selected lines that no pattern recognises', () => {
    const r = parseProbeOutput(text(raw({}, { unsupported: [`1:${TS} INFO Config change notification has unsupported version 3 (kafka.server.ZkConfigManager)`] })));
    expect(r.logs.unsupportedRequestVersion).toEqual([]);
  });

  it('decides loading per partition and epoch', () => {
    const s = (p: number, e: number) => `[GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-${p} with epoch ${e}`;
    const f = (p: number, e: number) => `[GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-${p} with epoch ${e} in 5ms where 0ms was spent in the scheduler. Loaded 1 records which total to 2 bytes.`;
    const part = (partition: number, lastLoadStart: string | null, lastLoadFinish: string | null) => ({ partition, logDir: D, segments: 1, bytes: 10, lastLoadStart, lastLoadFinish });
    const r = parseProbeOutput(
      text(
        raw({
          consumerOffsets: [
            part(0, `10:${s(0, 3)}`, `11:${f(0, 3)}`), // finished
            part(1, `10:${s(1, 3)}`, null), // started, no finish
            part(2, `12:${s(2, 4)}`, `11:${f(2, 3)}`), // a newer epoch started after the old finish
            part(3, `10:${s(3, 4)}`, `13:${f(3, 3)}`), // finish of another epoch does not end this load
            part(4, null, `13:${f(4, 3)}`), // only a finish (start line dropped to save space)
            part(5, null, null),
          ],
        }),
      ),
    );
    expect(r.consumerOffsets.map((p) => [p.partition, p.loading])).toEqual([
      [0, false],
      [1, true],
      [2, true],
      [3, true],
      [4, false],
      [5, false],
    ]);
    expect(r.consumerOffsets[0]).toMatchObject({ lastLoadStart: s(0, 3), lastLoadFinish: f(0, 3) });
  });
});

describe('parseProbeOutput: bad output is an error, never a crash', () => {
  const fails = (stdout: string, problem: string, opts?: { truncated?: boolean }) => {
    try {
      parseProbeOutput(stdout, opts);
    } catch (e) {
      expect(e).toBeInstanceOf(ProbeOutputError);
      expect((e as ProbeOutputError).problem).toBe(problem);
      return (e as Error).message;
    }
    throw new Error('expected parseProbeOutput to throw');
  };

  it('empty output', () => {
    expect(fails('  \n', 'empty')).toMatch(/printed nothing/);
  });
  it('not the probe\'s records', () => {
    expect(fails('bash: line 1: syntax error near unexpected token', 'not-records')).toMatch(/not the probe's records/);
    expect(fails('{"probeVersion":1}\n', 'not-records')).toMatch(/not the probe's records/);
  });
  it('records cut by the transport: before the first record an error, after it a report that says so', () => {
    expect(fails('probe\tver', 'truncated', { truncated: true })).toMatch(/cut/);
    expect(fails('x'.repeat(24_000), 'truncated')).toMatch(/cut at 24000 characters/);
    const full = text(raw({}, { lifecycle: [`10:${TS} INFO Loading logs.`] }));
    const cut = parseProbeOutput(full.slice(0, full.indexOf('\nlog\t') + 20), { truncated: true });
    expect(cut.hostname).toBe('kafka-1.internal');
    expect(cut.logs.recoveryProgress).toEqual([]);
    expect(cut.warnings.join()).toMatch(/cut at \d+ characters: the records after that are missing/);
  });
  it('records of the wrong shape', () => {
    expect(fails(text({ ...raw(), limits: { openFds: 'many' } } as unknown as RawProbeOutput), 'schema')).toMatch(/limits\.openFds/);
    expect(fails('probe\tversion\t2\nend\tleft-out\t0\n', 'schema')).toMatch(/expected shape/);
    expect(fails('probe\tversion\t1\nend\tleft-out\t0\n', 'schema')).toMatch(/probeVersion/);
  });
  it('unescapes values and says when the probe left records out to fit', () => {
    const r = parseProbeOutput(text(raw({ warnings: ['tab\there, new\nline, back\\slash, cr\r'] })).replace('end\tleft-out\t0', 'end\tleft-out\t7'));
    expect(r.warnings).toEqual(['tab\there, new\nline, back\\slash, cr\r', 'output shortened to fit 24,000 characters (7 least important records left out)']);
  });
});

describe('parseSystemdTimespan', () => {
  it.each([
    ['1min 30s', 90],
    ['90s', 90],
    ['10min', 600],
    ['1h 2min 3s', 3723],
    ['500ms', 0.5],
    ['2d', 172800],
    ['600', 600],
  ])('%s = %s s', (t, s) => expect(parseSystemdTimespan(t)).toBe(s));
  it.each(['infinity', '', 'soon', '5 parsecs'])('%s is null', (t) => expect(parseSystemdTimespan(t)).toBeNull());
});
