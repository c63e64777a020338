import { describe, expect, it } from 'vitest';
import { AUDIT_CHECKS, runAuditChecks, skippedAuditChecks, type AuditInput } from '../../lib/audit/preventive.ts';
import type { StorageSample } from '../../lib/diagnose/storage-samples.ts';
import { trendFindings } from '../../lib/diagnose/checks/storage-trend.ts';
import { FINDING_KINDS } from '../../lib/diagnose/checks/index.ts';
import { config, healthyTopic, okProbe, part, snapshot, topic } from '../diagnose/fixtures.ts';

const brokerDefaults = (over: Record<string, string> = {}) => ({
  'min.insync.replicas': '2',
  'unclean.leader.election.enable': 'false',
  'default.replication.factor': '3',
  'offsets.topic.replication.factor': '3',
  ...over,
});

function input(over: Partial<AuditInput> = {}): AuditInput {
  return {
    snapshot: snapshot([healthyTopic('clean', 3), healthyTopic('__consumer_offsets', 3)]),
    probes: [],
    hostAccess: true,
    brokerConfigs: new Map([1, 2, 3].map((id) => [id, brokerDefaults()])),
    storageHistory: null,
    nowMs: Date.parse('2026-11-30T00:00:00Z'),
    ...over,
  };
}
const kinds = (i: AuditInput) => runAuditChecks(i).map((f) => f.kind).sort();

describe('audit checks', () => {
  it('every check is a stable finding kind and says the failure it prevents (never an incident number)', () => {
    for (const c of AUDIT_CHECKS) {
      expect(FINDING_KINDS).toContain(c.kind);
      expect(c.prevents.length).toBeGreaterThan(20);
      expect(c.prevents).not.toMatch(/incident/i);
    }
  });

  it('finds nothing on a clean cluster', () => {
    expect(runAuditChecks(input())).toEqual([]);
  });

  it('reports each risky topic once, by topic, with what it prevents', () => {
    const s = snapshot([
      healthyTopic('clean', 3),
      healthyTopic('__consumer_offsets', 3),
      topic('rf1', [part(0, 1, [1]), part(1, 2, [2])]),
      healthyTopic('strict', 3, config({ minInsyncReplicas: 3 })),
      healthyTopic('loose', 3, config({ minInsyncReplicas: 1 })),
      healthyTopic('unclean', 3, config({ uncleanLeaderElectionEnable: true, overrides: ['unclean.leader.election.enable'] })),
    ]);
    const found = runAuditChecks(input({ snapshot: s }));
    const byKind = (k: string) => found.filter((f) => f.kind === k).map((f) => f.affected.partitions[0]?.topic);
    expect(byKind('replication-factor-one')).toEqual(['rf1']);
    expect(byKind('min-isr-not-below-rf')).toEqual(['strict']);
    expect(byKind('min-isr-one')).toEqual(['loose']);
    expect(byKind('unclean-election-enabled')).toEqual(['unclean']);
    expect(byKind('topic-override-weaker')).toEqual(['unclean']);
    expect(found.every((f) => f.prevents)).toBe(true);
    expect(found.some((f) => f.affected.partitions.some((p) => p.topic === 'clean'))).toBe(false);
  });

  it('flags internal topics and broker defaults that are unsafe, and drift across brokers', () => {
    const s = snapshot([topic('__consumer_offsets', [part(0, 1, [1])], config({ minInsyncReplicas: 1 }))]);
    const brokerConfigs = new Map([
      [1, brokerDefaults({ 'offsets.topic.replication.factor': '1' })],
      [2, brokerDefaults()],
      [3, brokerDefaults()],
    ]);
    const found = runAuditChecks(input({ snapshot: s, brokerConfigs }));
    expect(found.map((f) => f.kind).sort()).toEqual(['broker-config-drift', 'broker-replication-defaults', 'internal-topic-unsafe']);
    const drift = found.find((f) => f.kind === 'broker-config-drift')!;
    expect(drift.affected.brokers).toEqual([1]);
    expect(drift.title).toContain('offsets.topic.replication.factor');
  });

  it('flags a topic min ISR override below the broker default', () => {
    const s = snapshot([healthyTopic('weak', 3, config({ minInsyncReplicas: 1, overrides: ['min.insync.replicas'] }))]);
    expect(kinds(input({ snapshot: s }))).toEqual(['min-isr-one', 'topic-override-weaker']);
  });

  it('host checks: stop timeout under 120 s unmeasured, fd/mmap under 20% headroom; skipped without host access', () => {
    const probes = [
      okProbe(1, { systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 90, timeoutStopRaw: '1min 30s', restarts: 0, lastExitStatus: 0, lastExitCode: null, journalTail: [] } }),
      okProbe(2, { limits: { openFds: 850, maxFds: 1000, mapCount: 10, maxMapCount: 65530 } }),
      okProbe(3, { systemd: { unit: 'kafka.service', activeState: 'active', timeoutStopSec: 600, timeoutStopRaw: '10min', restarts: 0, lastExitStatus: 0, lastExitCode: null, journalTail: [] } }),
    ];
    const found = runAuditChecks(input({ probes }));
    expect(found.map((f) => [f.kind, f.affected.brokers]).sort()).toEqual([
      ['fd-mmap-headroom', [2]],
      ['stop-timeout-below-shutdown', [1]],
    ]);
    expect(runAuditChecks(input({ probes, hostAccess: false }))).toEqual([]);
    expect(skippedAuditChecks({ hostAccess: false, brokerConfigs: null, storageHistory: null }).join(' ')).toMatch(/No host access.*stop-timeout-below-shutdown.*DescribeConfigs/s);
    expect(skippedAuditChecks({ hostAccess: true, brokerConfigs: new Map(), storageHistory: null }).join(' ')).toContain('no trend yet');
  });

  it('stop timeout against the measured controlled shutdown: below it is critical, within 1.5× of it a warning, a quick one keeps the 120 s floor', () => {
    const unit = (timeoutStopSec: number) => ({ unit: 'kafka.service', activeState: 'active', timeoutStopSec, timeoutStopRaw: `${timeoutStopSec}s`, restarts: 0, lastExitStatus: 0, lastExitCode: null, journalTail: [] });
    const probes = [
      okProbe(1, { systemd: unit(180), lastShutdownSeconds: 240.4 }),
      okProbe(2, { systemd: unit(300), lastShutdownSeconds: 240 }),
      okProbe(3, { systemd: unit(400), lastShutdownSeconds: 240 }),
      okProbe(4, { systemd: unit(90), lastShutdownSeconds: 3.2 }),
      okProbe(5, { systemd: unit(150), lastShutdownSeconds: 3.2 }),
    ];
    const found = runAuditChecks(input({ probes })).filter((f) => f.kind === 'stop-timeout-below-shutdown');
    expect(found.map((f) => [f.affected.brokers[0], f.severity])).toEqual([
      [1, 'critical'],
      [2, 'warning'],
      [4, 'warning'],
    ]);
    expect(found[0]!.title).toBe('Broker 1: systemd kills it after 180s, its last controlled shutdown took 240.4s');
    expect(found[1]!.title).toContain('less than 1.5× its last controlled shutdown (240s)');
    expect(found[1]!.evidence[1]!.value).toContain('wanted at least 360s');
    expect(found[2]!.title).toContain('under 120s');
    expect(found[2]!.evidence[1]!.value).toContain('3.2s (the last one in server.log)');
  });

  it('disk trend: a steady climb that fills the dir within 7 days is reported, a flat one is not', () => {
    const day = 86_400_000;
    const now = 10 * day;
    const dir = (at: number, disk: number): StorageSample => ({ at, brokerId: 1, path: '/data/kafka', diskUsedPercent: disk, inodeUsedPercent: 10 });
    const history = [dir(now - 3 * day, 55), dir(now - 2 * day, 62), dir(now - day, 69)];
    const probes = [okProbe(1, { logDirs: [{ path: '/data/kafka', realPath: '/data/kafka', exists: true, cleanShutdownMarker: false, fsType: 'ext4', mountPoint: '/data', underVarLog: false, onTmpfs: false, diskUsedPercent: 76, diskAvailableBytes: 1, inodeUsedPercent: 10, partitionDirCount: 1, partitionDirsWithoutSegments: [], partitionDirsWithoutSegmentsCount: 0 }] })];
    const [f] = trendFindings('disk-trend-full', history, probes, now);
    expect(f!.title).toBe('Broker 1: /data/kafka runs out of disk space within 7 days');
    expect(f!.summary).toMatch(/About 3\.\d days left/);
    expect(trendFindings('inode-trend-full', history, probes, now)).toEqual([]);
    expect(trendFindings('disk-trend-full', history.slice(0, 1), probes, now)).toEqual([]);
  });
});
