// What a metrics source answers: one series per metric and broker over a
// window, in plain numbers so the enrichment and the chart stay pure and the
// whole thing travels inside the diagnosis report (JSON, shared between workers).
import type { MetricId, MetricUnit } from './catalog.ts';

export interface TimeWindow {
  /** Epoch ms. */
  fromMs: number;
  toMs: number;
  /** Spacing of the points asked for. */
  stepMs: number;
}

export interface MetricSeries {
  metric: MetricId;
  /** The broker the series is about; null for a cluster-wide value (MSK's OfflinePartitionsCount). */
  broker: number | null;
  /** The source's label for it when it is no broker id we could read (e.g. "10.0.1.7:9404"). */
  label?: string;
  unit: MetricUnit;
  /** [epoch ms, value], oldest first; gaps (no sample) are simply absent. */
  points: [number, number][];
}

export interface MetricsReading {
  source: 'prometheus' | 'cloudwatch';
  window: TimeWindow;
  series: MetricSeries[];
  /** Metrics asked for that the source could not give, with why. */
  missing: { metric: MetricId; reason: string }[];
}

export interface ReadOptions {
  /** The cluster's broker ids (from its metadata): sources keyed by broker (CloudWatch) ask for these. */
  brokers?: readonly number[];
  signal?: AbortSignal;
}

/** A metrics backend: reads the named metrics over the window, one series per broker. */
export interface MetricsSource {
  readonly kind: MetricsReading['source'];
  read(metrics: readonly MetricId[], window: TimeWindow, opts?: ReadOptions): Promise<MetricsReading>;
}

/** Points spaced for a window: about 240 of them, never under 5 s apart, on whole seconds. */
export function windowEnding(toMs: number, minutes: number, fromMs?: number): TimeWindow {
  const from = fromMs ?? toMs - minutes * 60_000;
  const stepMs = Math.max(5_000, Math.ceil((toMs - from) / 240 / 1000) * 1000);
  return { fromMs: from, toMs, stepMs };
}
