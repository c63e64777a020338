// What every per-host check reads: one broker's probe report with the names
// its findings use, and the helper that runs a per-host rule over every host
// that answered.

import type { HostProbeOutcome, ProbeReport } from '../../hosts/types.ts';
import type { Check, CheckInput } from './check.ts';
import type { Evidence, Finding, FindingKind } from '../types.ts';
import { MAX_EVIDENCE_SAMPLES } from '../finding.ts';

export interface HostReport {
  brokerId: number;
  report: ProbeReport;
  /** The host's name, or "broker N" when the probe could not tell. */
  host: string;
  /** The finding's affected brokers: this one. */
  brokers: number[];
  /** Fingerprint identity: this broker, then what the finding is about. */
  id: (...rest: string[]) => string[];
  /** When the running broker process started (null: not running): log lines before it are history. */
  runningSince: string | null;
}

export function hostReport(brokerId: number, report: ProbeReport): HostReport {
  return {
    brokerId,
    report,
    host: report.hostname || `broker ${brokerId}`,
    brokers: [brokerId],
    id: (...rest) => [`broker:${brokerId}`, ...rest],
    runningSince: report.process.running ? report.process.startedAt : null,
  };
}

/** The hosts whose probe answered, in probe order. */
export function answeredHosts(probes: readonly HostProbeOutcome[]): HostReport[] {
  const out: HostReport[] = [];
  for (const o of probes) if (o.ok) out.push(hostReport(o.brokerId, o.report));
  return out;
}

/** A check that judges each host on its own report. */
export function perHost(kinds: readonly FindingKind[], rule: (h: HostReport) => Finding[]): Check {
  return { kinds, needs: ['hosts'], detect: ({ probes }: CheckInput) => answeredHosts(probes).flatMap(rule) };
}

export function logLines(label: string, values: readonly string[], brokerId: number): Evidence[] {
  return values.slice(0, MAX_EVIDENCE_SAMPLES).map((value) => ({ label, value, source: `broker:${brokerId}` }));
}

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

/** The probes that answered, with their broker id. */
export const okReports = (probes: readonly HostProbeOutcome[]) => probes.flatMap((o) => (o.ok ? [{ brokerId: o.brokerId, report: o.report }] : []));
