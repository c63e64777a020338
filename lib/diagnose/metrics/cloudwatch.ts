// Amazon MSK's CloudWatch metrics (namespace AWS/Kafka) as a metrics source:
// one GetMetricData call for every catalog metric MSK publishes, per broker
// where the metric has a "Broker ID" dimension. MSK publishes once a minute,
// so the period is never under 60 s.
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import type { MetricsConfig } from '../../config/schema.ts';
import { errorMessage } from '../../runtime/errors.ts';
import { METRICS, type MetricId } from './catalog.ts';
import type { MetricsReading, MetricsSource } from './types.ts';

export type CloudWatchConfig = NonNullable<MetricsConfig['cloudwatch']>;

const NAMESPACE = 'AWS/Kafka';
/** GetMetricData takes at most 500 queries a call; pages are followed this many times at most. */
const MAX_QUERIES = 500;
const MAX_PAGES = 10;

interface Planned {
  id: string;
  metric: MetricId;
  broker: number | null;
}

export function cloudwatchQueries(config: CloudWatchConfig, metrics: readonly MetricId[], brokers: readonly number[], periodSeconds: number): { queries: MetricDataQuery[]; planned: Planned[] } {
  const queries: MetricDataQuery[] = [];
  const planned: Planned[] = [];
  for (const metric of metrics) {
    const cw = METRICS[metric].cloudwatch;
    if (!cw) continue;
    for (const broker of cw.perBroker ? brokers : [null]) {
      const id = `m${planned.length}`;
      const dimensions = [{ Name: 'Cluster Name', Value: config.clusterName }, ...(broker === null ? [] : [{ Name: 'Broker ID', Value: String(broker) }])];
      queries.push({ Id: id, MetricStat: { Metric: { Namespace: NAMESPACE, MetricName: cw.metricName, Dimensions: dimensions }, Period: periodSeconds, Stat: cw.stat }, ReturnData: true });
      planned.push({ id, metric, broker });
    }
  }
  return { queries: queries.slice(0, MAX_QUERIES), planned: planned.slice(0, MAX_QUERIES) };
}

export function cloudwatchSource(config: CloudWatchConfig, opts: { client?: CloudWatchClient } = {}): MetricsSource {
  const client = opts.client ?? new CloudWatchClient({ ...(config.region ? { region: config.region } : {}), maxAttempts: 2 });
  return {
    kind: 'cloudwatch',
    async read(metrics, window, readOpts = {}) {
      const periodSeconds = Math.max(60, Math.ceil(window.stepMs / 60_000) * 60);
      const reading: MetricsReading = { source: 'cloudwatch', window: { ...window, stepMs: periodSeconds * 1000 }, series: [], missing: [] };
      for (const m of metrics) if (!METRICS[m].cloudwatch) reading.missing.push({ metric: m, reason: 'not published by Amazon MSK in CloudWatch' });
      const brokers = readOpts.brokers ?? [];
      const { queries, planned } = cloudwatchQueries(config, metrics, brokers, periodSeconds);
      if (queries.length === 0) return reading;
      const timeout = AbortSignal.timeout(config.timeoutMs);
      const signal = readOpts.signal ? AbortSignal.any([readOpts.signal, timeout]) : timeout;
      const points = new Map<string, [number, number][]>();
      try {
        let nextToken: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const out = await client.send(
            new GetMetricDataCommand({
              MetricDataQueries: queries,
              StartTime: new Date(window.fromMs),
              EndTime: new Date(window.toMs),
              ScanBy: 'TimestampAscending',
              ...(nextToken ? { NextToken: nextToken } : {}),
            }),
            { abortSignal: signal },
          );
          for (const r of out.MetricDataResults ?? []) {
            if (!r.Id) continue;
            const list = points.get(r.Id) ?? [];
            (r.Timestamps ?? []).forEach((t, i) => {
              const v = r.Values?.[i];
              if (v !== undefined && Number.isFinite(v)) list.push([t.getTime(), v]);
            });
            points.set(r.Id, list);
          }
          nextToken = out.NextToken;
          if (!nextToken) break;
        }
      } catch (err) {
        const reason = signal.aborted ? `no answer within ${config.timeoutMs} ms` : `GetMetricData failed: ${errorMessage(err)}`;
        for (const m of new Set(planned.map((p) => p.metric))) reading.missing.push({ metric: m, reason });
        return reading;
      }
      for (const p of planned) {
        const list = (points.get(p.id) ?? []).sort((a, b) => a[0] - b[0]);
        if (list.length === 0) continue;
        const def = METRICS[p.metric];
        const unit = def.cloudwatch?.unit ?? def.unit;
        // MSK gives the idle meters as a fraction (0-1); shown as percent like the exporter's.
        const scaled = unit === 'percent' && def.unit === 'percent' && list.every(([, v]) => v <= 1) ? list.map(([t, v]) => [t, v * 100] as [number, number]) : list;
        reading.series.push({ metric: p.metric, broker: p.broker, unit, points: scaled });
      }
      for (const m of new Set(planned.map((p) => p.metric))) {
        if (!reading.series.some((s) => s.metric === m)) reading.missing.push({ metric: m, reason: 'no datapoints' });
      }
      return reading;
    },
  };
}
