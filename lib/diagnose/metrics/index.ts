// Metrics around a diagnosis, end to end: the cluster's source (Prometheus or
// CloudWatch, from its config), the read around the alert or the diagnosis,
// the pure enrichment of the findings, and the graph. Nothing here can fail a
// diagnosis: a source that is down or slow leaves the report as it was, and
// says so in its skipped checks.
import type { ClusterConfig } from '../../config/schema.ts';
import { errorMessage } from '../../runtime/errors.ts';
import type { DiagnosisReport, ReportMetrics } from '../types.ts';
import { METRIC_IDS, metricForAlert, type MetricId } from './catalog.ts';
import { renderChart } from './chart/chart.ts';
import { chartMetrics, withMetricEvidence } from './evidence.ts';
import type { MetricSeries, MetricsReading, MetricsSource, TimeWindow } from './types.ts';
import { windowEnding } from './types.ts';

export { METRICS, METRIC_IDS, metricForAlert, type MetricId } from './catalog.ts';
export type { MetricSeries, MetricsReading, MetricsSource, TimeWindow } from './types.ts';

/** The source a cluster's config names, or null (no metrics: the diagnosis is as it always was). */
export async function metricsSourceFor(cluster: ClusterConfig): Promise<MetricsSource | null> {
  const m = cluster.metrics;
  if (m?.prometheus) {
    const { prometheusSource } = await import('./prometheus.ts');
    return prometheusSource(m.prometheus);
  }
  if (m?.cloudwatch) {
    const { cloudwatchSource } = await import('./cloudwatch.ts');
    return cloudwatchSource(m.cloudwatch);
  }
  return null;
}

/** What a diagnosis answering an alert knows of it. */
export interface AlertMoment {
  /** When it fired (epoch ms). */
  atMs: number;
  /** Alertmanager alertname or CloudWatch MetricName: its metric goes first on the graph. */
  metric?: string;
}

/** The window read: the configured minutes up to now, reaching back far enough to show the alert's firing. */
export function metricsWindow(cluster: ClusterConfig, nowMs: number, alert?: AlertMoment): TimeWindow {
  const minutes = cluster.metrics?.windowMinutes ?? 60;
  const from = nowMs - minutes * 60_000;
  const reach = alert ? Math.max(nowMs - 24 * 3600_000, Math.min(from, alert.atMs - (minutes * 60_000) / 2)) : from;
  return windowEnding(nowMs, minutes, reach);
}

export interface MetricsRead {
  reading: MetricsReading | null;
  /** Why there is no reading, for the report's skipped checks. */
  error?: string;
}

/** Reads every catalog metric; `brokers` (from the snapshot) only where the source needs them (CloudWatch). Never rejects. */
export async function readMetrics(source: MetricsSource, window: TimeWindow, brokers: Promise<readonly number[]> | readonly number[] = []): Promise<MetricsRead> {
  try {
    const ids = source.kind === 'cloudwatch' ? await brokers : [];
    return { reading: await source.read(METRIC_IDS, window, { brokers: ids }) };
  } catch (err) {
    return { reading: null, error: errorMessage(err) };
  }
}

/** The report with metric evidence in its findings and the charted series kept for the graph. */
export function withMetrics(report: DiagnosisReport, read: MetricsRead, alert?: AlertMoment): DiagnosisReport {
  const { reading } = read;
  if (!reading) return { ...report, skippedChecks: [...report.skippedChecks, `Metrics could not be read (${read.error ?? 'no answer'}): findings carry no metric evidence.`] };
  const findings = withMetricEvidence(report.findings, reading);
  const chart = chartMetrics(findings, reading, metricForAlert(alert?.metric));
  const shown = reading.series.filter((s) => chart.includes(s.metric));
  const metrics: ReportMetrics = {
    source: reading.source,
    window: shownWindow(reading.window, shown, alert?.atMs),
    ...(alert ? { markAtMs: alert.atMs } : {}),
    chart,
    series: shown,
    missing: reading.missing,
  };
  const skipped = reading.series.length === 0 ? [`No metric series came back from ${reading.source} for this cluster: check its labels (${reading.missing[0]?.reason ?? 'no data'}).`] : [];
  return { ...report, findings, skippedChecks: [...report.skippedChecks, ...skipped], metrics };
}

/** The window the graph spans: what was read, starting no earlier than the first point (a young Prometheus, a new cluster) or the alert. */
export function shownWindow(window: TimeWindow, series: readonly MetricSeries[], markAtMs?: number): TimeWindow {
  const first = Math.min(...series.flatMap((s) => (s.points.length ? [s.points[0]![0]] : [])), markAtMs ?? Infinity);
  if (!Number.isFinite(first)) return window;
  // At least a few minutes wide, so a line has room to show its shape.
  const from = Math.max(window.fromMs, Math.min(first - window.stepMs, window.toMs - 2 * 60_000));
  return { ...window, fromMs: from };
}

export interface ChartFile {
  filename: string;
  title: string;
  png: Buffer;
}

/** The graph of a report as a PNG file, or null when there is nothing to draw or drawing failed (the findings go out regardless). */
export function reportChart(report: DiagnosisReport, onError?: (message: string) => void): ChartFile | null {
  const m = report.metrics;
  if (!m || m.chart.length === 0) return null;
  try {
    const png = renderChart({ title: `${report.cluster}: ${m.chart.length === 1 ? 'metric' : 'metrics'} per broker`, window: m.window, metrics: m.chart, series: m.series, ...(m.markAtMs !== undefined ? { markAtMs: m.markAtMs } : {}) });
    const stamp = new Date(m.window.toMs).toISOString().slice(0, 16).replace(/[-:]/g, '');
    return { filename: `${report.cluster}-metrics-${stamp}.png`, title: `Metrics of ${report.cluster} (${m.source})`, png };
  } catch (err) {
    onError?.(errorMessage(err));
    return null;
  }
}

/**
 * The graph of a cluster over any window, for other features (the postmortem
 * timeline): reads the named metrics (default: under-replicated partitions, ISR
 * shrinks, request handler idle) and draws them. null without a metrics source
 * or data; never throws.
 */
export async function renderClusterChart(
  cluster: ClusterConfig,
  opts: { fromMs: number; toMs: number; markAtMs?: number; metrics?: MetricId[]; brokers?: number[]; source?: MetricsSource },
): Promise<ChartFile | null> {
  try {
    const source = opts.source ?? (await metricsSourceFor(cluster));
    if (!source) return null;
    const metrics = opts.metrics ?? ['underReplicated', 'isrShrinks', 'requestHandlerIdle'];
    const window = windowEnding(opts.toMs, 0, opts.fromMs);
    const reading = await source.read(metrics, window, { brokers: opts.brokers ?? [] });
    const chart = metrics.filter((m) => reading.series.some((s) => s.metric === m && s.points.length > 0));
    if (chart.length === 0) return null;
    const report: DiagnosisReport = {
      cluster: cluster.name, startedAt: new Date(opts.toMs).toISOString(), durationMs: 0, findings: [], skippedChecks: [], partial: false,
      metrics: { source: reading.source, window: shownWindow(reading.window, reading.series, opts.markAtMs), chart, series: reading.series, missing: reading.missing, ...(opts.markAtMs !== undefined ? { markAtMs: opts.markAtMs } : {}) },
    };
    return reportChart(report);
  } catch {
    return null;
  }
}
