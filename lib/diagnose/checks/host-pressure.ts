// Shared by the per-host pressure checks (disk-pressure.ts, inode-pressure.ts,
// fd-pressure.ts, mmap-pressure.ts): how full a log dir or a process limit is,
// and the finding each raises. Helpers only: no check lives here.

import type { ProbeReport } from '../../hosts/types.ts';
import type { Finding, Severity } from '../types.ts';
import { renderFinding, type Detected, type FindingProse } from './check.ts';
import type { HostReport } from './host-report.ts';

/** Usage of disk, inodes, file descriptors, memory maps: warn at 85 %, critical at 95 %. */
export const PRESSURE_WARNING_PERCENT = 85;

export const PRESSURE_CRITICAL_PERCENT = 95;

function pressureSeverity(percent: number): Severity | null {
  if (percent >= PRESSURE_CRITICAL_PERCENT) return 'critical';
  if (percent >= PRESSURE_WARNING_PERCENT) return 'warning';
  return null;
}

function pct(used: number, max: number): number {
  return max > 0 ? Math.round((used / max) * 1000) / 10 : 0;
}

export type LogDir = ProbeReport['logDirs'][number];

/** What the storage renderer words: the broker, the worst log dir's use, what ran short (disk space or inodes). */
interface StorageFacts {
  kind: 'disk-pressure' | 'inode-pressure';
  brokerId: number;
  worst: number;
  what: string;
}

function renderStorage({ kind, brokerId, worst, what }: StorageFacts): FindingProse {
  return {
    title: `Broker ${brokerId}: log dir ${what} ${worst}% used`,
    summary: `A full log dir takes the dir (and its partitions) offline on the broker. ${kind === 'inode-pressure' ? 'Tiny segment.bytes exhausts inodes long before space.' : ''}`.trim(),
    nextActions: ['Reduce retention or move partitions to other brokers/dirs; add capacity.', 'Do not delete segment files by hand.'],
  };
}

/** Disk space or inodes of the log dirs. */
export const storagePressure =
  (kind: 'disk-pressure' | 'inode-pressure', getPercent: (d: LogDir) => number | null, what: string) =>
  ({ brokerId, report, brokers, id }: HostReport): Finding[] => {
    const hits = report.logDirs
      .map((d) => ({ d, percent: getPercent(d) }))
      .filter((x): x is { d: LogDir; percent: number } => x.percent !== null && pressureSeverity(x.percent) !== null);
    if (hits.length === 0) return [];
    const worst = Math.max(...hits.map((h) => h.percent));
    const evidence = hits.map((h) => ({ label: `${what} used`, value: `${h.d.path}: ${h.percent}%${kind === 'disk-pressure' && h.d.diskAvailableBytes !== null ? `, ${h.d.diskAvailableBytes} bytes free` : ''}`, source: `broker:${brokerId}` }));
    const found: Detected<StorageFacts> = { finding: { kind, severity: pressureSeverity(worst)!, brokers, evidence, identity: id() }, facts: { kind, brokerId, worst, what } };
    return [renderFinding(found, renderStorage)];
  };

/** What the limit renderer words: the broker, what is near its limit, how close, and the limit's name. */
interface LimitFacts {
  brokerId: number;
  what: string;
  percent: number;
  limitName: string;
}

function renderLimit({ brokerId, what, percent, limitName }: LimitFacts): FindingProse {
  return {
    title: `Broker ${brokerId}: ${what} at ${percent}% of ${limitName}`,
    summary: `Every segment costs file descriptors and index memory maps; reaching ${limitName} makes the broker fail to open segments and exit.`,
    nextActions: [`Raise ${limitName} for the broker (LimitNOFILE / sysctl), then restart it with can-restart.`, 'Check segment counts: tiny segment.bytes multiplies files.'],
  };
}

/** File descriptors or memory maps against their limit. */
export const limitPressure =
  (kind: 'fd-pressure' | 'mmap-pressure', usage: (l: ProbeReport['limits']) => [used: number | null, max: number | null], what: string, limitName: string) =>
  ({ brokerId, report, brokers, id }: HostReport): Finding[] => {
    const [used, max] = usage(report.limits);
    if (used === null || max === null || max <= 0) return [];
    const percent = pct(used, max);
    const sev = pressureSeverity(percent);
    if (!sev) return [];
    const found: Detected<LimitFacts> = {
      finding: { kind, severity: sev, brokers, evidence: [{ label: what, value: `${used} of ${max}`, source: `broker:${brokerId}` }], identity: id() },
      facts: { brokerId, what, percent, limitName },
    };
    return [renderFinding(found, renderLimit)];
  };
