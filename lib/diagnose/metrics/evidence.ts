// Metric evidence for findings: a pure step over the detectors' findings and
// the series read around the alert or the diagnosis. It never changes what a
// detector found (kind, severity, fingerprint); it adds the lines of evidence
// that explain it ("ISR shrinks on broker 2 began 03:12, 4 min before it left
// the cluster"), and picks the two or three series the graph should show.
import type { Evidence, Finding, FindingKind } from '../types.ts';
import { METRICS, type MetricId } from './catalog.ts';
import type { MetricSeries, MetricsReading } from './types.ts';

/** Metric lines a finding gains at most, so the detector's own evidence stays in view. */
const MAX_METRIC_LINES = 3;
/** Idle below this share of the time means the broker's threads are saturated. */
export const IDLE_SATURATED_PERCENT = 30;

const REPLICATION: ReadonlySet<FindingKind> = new Set([
  'under-replicated', 'under-min-isr', 'isr-single-replica', 'offline-partition', 'broker-unreachable', 'broker-crash-loop', 'unclean-shutdown-recovery',
]);
const LEADERSHIP: ReadonlySet<FindingKind> = new Set(['offline-partition', 'broker-unreachable', 'under-min-isr']);
const PRODUCE_FAILURES: ReadonlySet<FindingKind> = new Set(['under-min-isr', 'offline-partition', 'isr-single-replica']);
const SATURATION: ReadonlySet<FindingKind> = new Set(['under-replicated', 'consumer-lag', 'coordinator-loading', 'isr-single-replica']);
const DISK: ReadonlySet<FindingKind> = new Set(['disk-pressure', 'disk-trend-full']);

export interface EvidenceContext {
  /** When the alert fired (epoch ms), if this diagnosis answers one. */
  markAtMs?: number;
}

/** "03:12 UTC" for hour-long windows, "03:12:40 UTC" when points are under a minute apart. */
export function clock(ms: number, stepMs: number): string {
  const iso = new Date(ms).toISOString();
  return `${stepMs < 60_000 ? iso.slice(11, 19) : iso.slice(11, 16)} UTC`;
}

function minutesBetween(a: number, b: number): string {
  const s = Math.round(Math.abs(b - a) / 1000);
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

function fmtValue(v: number, unit: MetricSeries['unit']): string {
  if (unit === 'percent') return `${v < 10 ? v.toFixed(1) : Math.round(v)}%`;
  if (unit === 'per-second') return `${v < 10 ? v.toFixed(2) : Math.round(v)}/s`;
  if (unit === 'bytes') {
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let x = v;
    let i = 0;
    while (x >= 1024 && i < units.length - 1) {
      x /= 1024;
      i++;
    }
    return `${x < 10 ? x.toFixed(1) : Math.round(x)} ${units[i]}`;
  }
  return String(Math.round(v * 100) / 100);
}

const who = (s: MetricSeries) => (s.broker !== null ? `broker ${s.broker}` : (s.label ?? 'the cluster'));

function seriesOf(reading: MetricsReading, metric: MetricId): MetricSeries[] {
  return reading.series.filter((s) => s.metric === metric && s.points.length > 0);
}

/** The first moment the value went above `above` after having been at or below it; `atStart` when it already was above. */
export function onset(points: readonly [number, number][], above = 0): { at: number; atStart: boolean } | null {
  let wasBelow = false;
  for (const [t, v] of points) {
    if (v > above) {
      if (wasBelow) return { at: t, atStart: false };
      return { at: t, atStart: true };
    }
    wasBelow = true;
  }
  return null;
}

/**
 * When a broker stopped reporting: Prometheus' `up` turning 0 and staying so,
 * else its series ending well before the window does (CloudWatch, or no `up`).
 */
export function stoppedReportingAt(reading: MetricsReading, broker: number): number | null {
  const up = reading.series.find((s) => s.metric === 'scrapeUp' && s.broker === broker && s.points.length > 0);
  if (up) {
    const last = up.points[up.points.length - 1]!;
    if (last[1] !== 0) return null;
    let i = up.points.length - 1;
    while (i > 0 && up.points[i - 1]![1] === 0) i--;
    // The last good scrape is the moment it left; a series that was down all window started so.
    return i > 0 ? up.points[i - 1]![0] : up.points[0]![0];
  }
  const own = reading.series.filter((s) => s.broker === broker && s.metric !== 'scrapeUp' && s.points.length > 0);
  if (own.length === 0) return null;
  const last = Math.max(...own.map((s) => s.points[s.points.length - 1]![0]));
  return last < reading.window.toMs - 3 * reading.window.stepMs ? last : null;
}

function peak(points: readonly [number, number][]): [number, number] {
  return points.reduce((best, p) => (p[1] > best[1] ? p : best), points[0]!);
}

function lowest(points: readonly [number, number][]): [number, number] {
  return points.reduce((best, p) => (p[1] < best[1] ? p : best), points[0]!);
}

function replicationLines(f: Finding, reading: MetricsReading): string[] {
  const step = reading.window.stepMs;
  const lines: string[] = [];
  const rises = seriesOf(reading, 'underReplicated')
    .map((s) => ({ s, on: onset(s.points) }))
    .filter((x): x is { s: MetricSeries; on: { at: number; atStart: boolean } } => x.on !== null)
    .sort((a, b) => a.on.at - b.on.at);
  const first = rises[0];
  if (first) {
    const [, top] = peak(first.s.points);
    const others = rises.slice(1).filter((r) => !r.on.atStart).map((r) => r.s.broker ?? r.s.label ?? '?');
    lines.push(
      first.on.atStart
        ? `UnderReplicatedPartitions on ${who(first.s)} was already ${fmtValue(first.s.points[0]![1], 'count')} at ${clock(first.on.at, step)} (start of the window), up to ${fmtValue(top, 'count')}`
        : `UnderReplicatedPartitions on ${who(first.s)} rose from 0 to ${fmtValue(top, 'count')} at ${clock(first.on.at, step)}${others.length ? ` (then on broker ${others.join(', ')})` : ''}`,
    );
  }
  const shrinks = seriesOf(reading, 'isrShrinks')
    .map((s) => ({ s, on: onset(s.points) }))
    .filter((x): x is { s: MetricSeries; on: { at: number; atStart: boolean } } => x.on !== null)
    .sort((a, b) => a.on.at - b.on.at);
  const leftBrokers = f.affected.brokers.map((b) => ({ b, at: stoppedReportingAt(reading, b) })).filter((x): x is { b: number; at: number } => x.at !== null);
  for (const left of leftBrokers) {
    const own = shrinks.find((x) => x.s.broker === left.b && x.on.at <= left.at);
    if (own) lines.push(`ISR shrinks on broker ${left.b} began ${clock(own.on.at, step)}, ${minutesBetween(own.on.at, left.at)} before it left the cluster (its metrics stop at ${clock(left.at, step)})`);
    else lines.push(`broker ${left.b}'s metrics stop at ${clock(left.at, step)}: it left the cluster then`);
  }
  const others = shrinks.filter((x) => !leftBrokers.some((l) => l.b === x.s.broker));
  if (others.length) {
    const firstOther = others[0]!;
    const before = leftBrokers[0];
    const relation = before ? `, ${minutesBetween(firstOther.on.at, before.at)} ${firstOther.on.at <= before.at ? 'before' : 'after'} broker ${before.b} left` : '';
    lines.push(`ISR shrinks on ${others.map((x) => who(x.s)).join(', ')} began ${clock(firstOther.on.at, step)}${relation}`);
  }
  return lines;
}

function leadershipLines(reading: MetricsReading): string[] {
  const step = reading.window.stepMs;
  const lines: string[] = [];
  for (const s of seriesOf(reading, 'offlinePartitions')) {
    const on = onset(s.points);
    if (on) lines.push(`OfflinePartitionsCount ${on.atStart ? 'already' : 'rose to'} ${fmtValue(peak(s.points)[1], 'count')} ${on.atStart ? 'at the start of the window' : `at ${clock(on.at, step)}`} (${who(s)})`);
  }
  for (const s of seriesOf(reading, 'uncleanElections')) {
    const on = onset(s.points);
    if (on) lines.push(`unclean leader elections on ${who(s)} at ${clock(on.at, step)}: acknowledged messages may be lost`);
  }
  // Summed over every node at each instant: anything but 1 is no controller, or two.
  const controller = seriesOf(reading, 'activeController');
  if (controller.length) {
    const byTime = new Map<number, number>();
    for (const s of controller) for (const [t, v] of s.points) byTime.set(t, (byTime.get(t) ?? 0) + v);
    const bad = [...byTime].filter(([, v]) => v !== 1).sort((a, b) => a[0] - b[0]);
    // Only when the controller is among the scraped nodes (a KRaft controller may not be): some instant then sums to 1 or more.
    if (bad.length && Math.max(...byTime.values()) >= 1) lines.push(`ActiveControllerCount summed over the cluster was ${bad[0]![1]} at ${clock(bad[0]![0], step)}${bad.length > 1 ? ` (${bad.length} points in the window)` : ''}`);
  }
  return lines;
}

function failureLines(reading: MetricsReading): string[] {
  const step = reading.window.stepMs;
  const lines: string[] = [];
  for (const metric of ['failedProduce', 'failedFetch'] as const) {
    const failing = seriesOf(reading, metric).map((s) => ({ s, on: onset(s.points) })).filter((x) => x.on !== null);
    if (failing.length === 0) continue;
    const worst = failing.map((x) => ({ ...x, top: peak(x.s.points) })).sort((a, b) => b.top[1] - a.top[1])[0]!;
    lines.push(`${metric === 'failedProduce' ? 'failed produce' : 'failed fetch'} requests up to ${fmtValue(worst.top[1], 'per-second')} on ${who(worst.s)} (from ${clock(worst.on!.at, step)})`);
  }
  return lines;
}

function saturationLines(f: Finding, reading: MetricsReading): string[] {
  const step = reading.window.stepMs;
  const lines: string[] = [];
  const concerned = (s: MetricSeries) => f.affected.brokers.length === 0 || SATURATION.has(f.kind) || (s.broker !== null && f.affected.brokers.includes(s.broker));
  for (const [metric, what] of [['requestHandlerIdle', 'request handler idle'], ['networkProcessorIdle', 'network processor idle']] as const) {
    const low = seriesOf(reading, metric)
      .filter(concerned)
      .map((s) => ({ s, low: lowest(s.points) }))
      .filter((x) => x.low[1] < IDLE_SATURATED_PERCENT)
      .sort((a, b) => a.low[1] - b.low[1]);
    if (low[0]) lines.push(`${what} ${fmtValue(low[0].low[1], 'percent')} on ${who(low[0].s)} (lowest, at ${clock(low[0].low[0], step)})`);
  }
  return lines;
}

function diskLines(f: Finding, reading: MetricsReading): string[] {
  const lines: string[] = [];
  for (const s of seriesOf(reading, 'diskUsed')) {
    if (f.affected.brokers.length && s.broker !== null && !f.affected.brokers.includes(s.broker)) continue;
    const first = s.points[0]![1];
    const last = s.points[s.points.length - 1]![1];
    if (last > first) lines.push(`${s.unit === 'percent' ? 'data disk use' : 'log size'} on ${who(s)} grew from ${fmtValue(first, s.unit)} to ${fmtValue(last, s.unit)} in ${minutesBetween(s.points[0]![0], s.points[s.points.length - 1]![0])}`);
  }
  return lines.slice(0, 2);
}

/** The metric lines that explain one finding, most telling first. */
export function metricLinesFor(f: Finding, reading: MetricsReading): string[] {
  const lines: string[] = [];
  if (REPLICATION.has(f.kind)) lines.push(...replicationLines(f, reading));
  if (LEADERSHIP.has(f.kind)) lines.push(...leadershipLines(reading));
  if (PRODUCE_FAILURES.has(f.kind)) lines.push(...failureLines(reading));
  if (REPLICATION.has(f.kind) || SATURATION.has(f.kind)) lines.push(...saturationLines(f, reading));
  if (DISK.has(f.kind)) lines.push(...diskLines(f, reading));
  return lines.slice(0, MAX_METRIC_LINES);
}

/**
 * The findings with their metric evidence: new objects, the input left as it
 * is. The lines go in after the detector's first piece of evidence, so the
 * thread shows the detector's lead and the metrics together.
 */
export function withMetricEvidence(findings: readonly Finding[], reading: MetricsReading): Finding[] {
  // Lines depend on the kind and the affected brokers only: findings alike share one computation.
  const memo = new Map<string, string[]>();
  return findings.map((f) => {
    const key = `${f.kind}|${f.affected.brokers.join(',')}`;
    const lines = memo.get(key) ?? metricLinesFor(f, reading);
    memo.set(key, lines);
    if (lines.length === 0) return f;
    const added: Evidence[] = lines.map((value) => ({ label: 'metrics', value, source: reading.source }));
    const at = Math.min(1, f.evidence.length);
    return { ...f, evidence: [...f.evidence.slice(0, at), ...added, ...f.evidence.slice(at)] };
  });
}

/** The series the graph shows: the alert's own metric first, then what the findings are about; two or three, with data. */
export function chartMetrics(findings: readonly Finding[], reading: MetricsReading, alertMetric: MetricId | null, max = 3): MetricId[] {
  const wanted: MetricId[] = [];
  if (alertMetric) wanted.push(alertMetric);
  const kinds = new Set(findings.map((f) => f.kind));
  const any = (set: ReadonlySet<FindingKind>) => [...kinds].some((k) => set.has(k));
  if (kinds.has('offline-partition')) wanted.push('offlinePartitions');
  if (any(REPLICATION)) wanted.push('underReplicated', 'isrShrinks');
  if (any(PRODUCE_FAILURES)) wanted.push('failedProduce');
  if (any(SATURATION)) wanted.push('requestHandlerIdle');
  if (any(DISK)) wanted.push('diskUsed');
  wanted.push('underReplicated', 'isrShrinks', 'requestHandlerIdle');
  const withData = new Set(reading.series.filter((s) => s.points.length > 0).map((s) => s.metric));
  return [...new Set(wanted)].filter((m) => withData.has(m) && METRICS[m]).slice(0, max);
}
