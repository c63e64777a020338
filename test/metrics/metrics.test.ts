// Metrics as evidence, without a network: the catalog's queries, the pure
// enrichment, the chart as a picture (decoded), Prometheus' answers read
// through a local HTTP server, CloudWatch's through the SDK (aws-sdk-client-mock).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_IDS, METRICS, metricForAlert } from '../../lib/diagnose/metrics/catalog.ts';
import { BROKER_COLOURS, MARK_COLOUR, plotArea, renderChart } from '../../lib/diagnose/metrics/chart/chart.ts';
import { cloudwatchSource } from '../../lib/diagnose/metrics/cloudwatch.ts';
import { chartMetrics, metricLinesFor, withMetricEvidence } from '../../lib/diagnose/metrics/evidence.ts';
import { reportChart, withMetrics } from '../../lib/diagnose/metrics/index.ts';
import { brokerIdFromLabel, prometheusSource, promQuery } from '../../lib/diagnose/metrics/prometheus.ts';
import type { MetricSeries, MetricsReading } from '../../lib/diagnose/metrics/types.ts';
import { clusterSchema } from '../../lib/config/schema.ts';
import { makeFinding } from '../../lib/diagnose/finding.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { countColour, decodePng, nonWhite } from '../helpers/png.ts';

const T0 = Date.parse('2026-12-01T03:00:00Z');
const STEP = 15_000;
const STOP = Date.parse('2026-12-01T03:16:00Z');
const window = { fromMs: T0, toMs: T0 + 20 * 60_000, stepMs: STEP };

function series(metric: MetricSeries['metric'], broker: number, f: (t: number) => number | null, unit: MetricSeries['unit'] = METRICS[metric].unit): MetricSeries {
  const points: [number, number][] = [];
  for (let t = window.fromMs; t <= window.toMs; t += STEP) {
    const v = f(t);
    if (v !== null) points.push([t, v]);
  }
  return { metric, broker, unit, points };
}

/** Broker 2's ISR shrinks start 03:12, it leaves at 03:16; the others' URP rises then; broker 1's handlers are saturated. */
function incident(): MetricsReading {
  const gone = (b: number, t: number) => b === 2 && t > STOP;
  return {
    source: 'prometheus',
    window,
    missing: [],
    series: [1, 2, 3].flatMap((b) => [
      series('underReplicated', b, (t) => (gone(b, t) ? null : t > STOP ? 6 : 0)),
      series('isrShrinks', b, (t) => (gone(b, t) ? null : b === 2 && t >= Date.parse('2026-12-01T03:12:00Z') ? 0.5 : b !== 2 && t > STOP ? 0.2 : 0)),
      series('requestHandlerIdle', b, (t) => (gone(b, t) ? null : b === 1 ? 3 : 85)),
    ]),
  };
}

const brokerDown = makeFinding({ kind: 'broker-unreachable', severity: 'error', title: 'Broker 2 is not in the cluster', summary: 's', brokers: [2], evidence: [{ label: 'metadata', value: 'broker 2 absent' }] });
const underReplicated = makeFinding({ kind: 'under-replicated', severity: 'warning', title: '6 partitions under-replicated', summary: 's', brokers: [1, 3] });

describe('the catalog', () => {
  it('has one row per metric, each with a JMX exporter query and, where MSK publishes it, a CloudWatch name', () => {
    expect(Object.keys(METRICS).sort()).toEqual([...METRIC_IDS].sort());
    for (const id of METRIC_IDS) expect(METRICS[id].promql).toMatch(/^[a-z]+ by \(BY\) /);
    expect(METRICS.underReplicated.cloudwatch?.metricName).toBe('UnderReplicatedPartitions');
    expect(metricForAlert('OfflinePartitionsCount')).toBe('offlinePartitions');
    expect(metricForAlert('KafkaUnderReplicatedPartitions')).toBe('underReplicated');
    expect(metricForAlert('SomethingElse')).toBeNull();
  });

  it('puts the cluster labels, broker label and rate window into the query, quoting label values', () => {
    const q = promQuery('failedProduce', { labels: { cluster: 'prod "eu"' }, brokerLabel: 'broker' }, window);
    expect(q).toBe('sum by (broker) (rate(kafka_server_brokertopicmetrics_failedproducerequests_total{cluster="prod \\"eu\\"",topic=""}[60s]))');
    expect(promQuery('underReplicated', { labels: {}, brokerLabel: 'instance' }, window)).toBe('max by (instance) (kafka_server_replicamanager_underreplicatedpartitions)');
  });

  it('reads broker ids from the labels exporters use, and no id from an address', () => {
    expect(brokerIdFromLabel('2')).toBe(2);
    expect(brokerIdFromLabel('b-3.prod.abc123.c2.kafka.eu-west-1.amazonaws.com:11001')).toBe(3);
    expect(brokerIdFromLabel('kafka-2:9404')).toBe(2);
    expect(brokerIdFromLabel('10.0.1.7:9404')).toBeNull();
  });

  it('validates a metrics source in the cluster config, one source at most', () => {
    const base = { name: 'prod', bootstrap: ['k:9092'] };
    expect(clusterSchema.parse(base).metrics).toBeUndefined();
    const c = clusterSchema.parse({ ...base, metrics: { prometheus: { url: 'http://prom:9090', labels: { cluster: 'prod' } } } });
    expect(c.metrics?.prometheus?.brokerLabel).toBe('instance');
    expect(c.metrics?.windowMinutes).toBe(60);
    expect(() => clusterSchema.parse({ ...base, metrics: { prometheus: { url: 'http://p' }, cloudwatch: { clusterName: 'x' } } })).toThrow(/one metrics source/);
    expect(() => clusterSchema.parse({ ...base, metrics: { prometheus: { url: 'ftp://p' } } })).toThrow();
  });
});

describe('metric evidence', () => {
  it('says when ISR shrinks began on the broker that left, and how long before it left', () => {
    const lines = metricLinesFor(brokerDown, incident());
    expect(lines).toContain("ISR shrinks on broker 2 began 03:12:00 UTC, 4 min before it left the cluster (its metrics stop at 03:16:00 UTC)");
    expect(lines.some((l) => /^UnderReplicatedPartitions on broker 1 rose from 0 to 6 at 03:16:15 UTC/.test(l))).toBe(true);
  });

  it("takes the moment a broker left from Prometheus' up series when there is one", () => {
    const reading = incident();
    const left = STOP + 60_000;
    reading.series.push(series('scrapeUp', 2, (t) => (t > left ? 0 : 1)));
    const lines = metricLinesFor(brokerDown, reading);
    expect(lines).toContain('ISR shrinks on broker 2 began 03:12:00 UTC, 5 min before it left the cluster (its metrics stop at 03:17:00 UTC)');
  });

  it('names a saturated request handler pool', () => {
    expect(metricLinesFor(underReplicated, incident())).toContain('request handler idle 3.0% on broker 1 (lowest, at 03:00:00 UTC)');
  });

  it('adds lines after the detector\'s first evidence and leaves kind, severity and fingerprint as they were', () => {
    const [enriched] = withMetricEvidence([brokerDown], incident());
    expect(enriched!.evidence[0]).toEqual(brokerDown.evidence[0]);
    expect(enriched!.evidence[1]).toMatchObject({ label: 'metrics', source: 'prometheus' });
    expect({ ...enriched!, evidence: [] }).toEqual({ ...brokerDown, evidence: [] });
    expect(brokerDown.evidence).toHaveLength(1);
  });

  it('adds nothing when the series explain nothing', () => {
    const quiet: MetricsReading = { source: 'prometheus', window, missing: [], series: [series('underReplicated', 1, () => 0), series('requestHandlerIdle', 1, () => 90)] };
    expect(withMetricEvidence([brokerDown], quiet)[0]).toBe(brokerDown);
  });

  it('charts the alert\'s metric first, then what the findings are about', () => {
    expect(chartMetrics([brokerDown], incident(), null)).toEqual(['underReplicated', 'isrShrinks', 'requestHandlerIdle']);
    expect(chartMetrics([brokerDown], incident(), 'requestHandlerIdle')).toEqual(['requestHandlerIdle', 'underReplicated', 'isrShrinks']);
  });

  it('a source that could not be read leaves the findings as they were and says so', () => {
    const report: DiagnosisReport = { cluster: 'prod', startedAt: '', durationMs: 1, findings: [brokerDown], skippedChecks: [], partial: false };
    const out = withMetrics(report, { reading: null, error: 'connection refused' });
    expect(out.findings).toEqual(report.findings);
    expect(out.metrics).toBeUndefined();
    expect(out.skippedChecks[0]).toMatch(/Metrics could not be read \(connection refused\)/);
  });
});

describe('the graph', () => {
  it('is a PNG with a line colour per broker, the alert marked, and URP rising at the stop', () => {
    const reading = incident();
    const markAtMs = STOP + 60_000;
    const png = decodePng(renderChart({ title: 'prod', window, metrics: ['underReplicated', 'isrShrinks', 'requestHandlerIdle'], series: reading.series, markAtMs }));
    expect(png.width).toBe(1200);
    expect(png.height).toBeGreaterThan(500);
    expect(nonWhite(png)).toBeGreaterThan(20_000);
    for (const c of BROKER_COLOURS.slice(0, 3)) expect(countColour(png, c)).toBeGreaterThan(200);
    expect(countColour(png, BROKER_COLOURS[3]!)).toBe(0);
    expect(countColour(png, MARK_COLOUR)).toBeGreaterThan(100);
    // Panel 0 (URP): before the stop every line lies on the zero line; after it, a line stands above it.
    const area = plotArea(window, 0);
    const colours = BROKER_COLOURS.slice(0, 3);
    const lined = (x0: number, x1: number, y0: number, y1: number) => colours.reduce((n, c) => n + countColour(png, c, { x0: Math.round(x0), x1: Math.round(x1), y0, y1 }), 0);
    expect(lined(area.x0 + 5, area.xOf(STOP) - 5, area.top, area.bottom - 4)).toBe(0);
    expect(lined(area.xOf(STOP) + 5, area.x1, area.top, area.bottom - 4)).toBeGreaterThan(50);
  });

  it('a report without metrics has no graph, and an unusable one is dropped, not thrown', () => {
    const report: DiagnosisReport = { cluster: 'prod', startedAt: '', durationMs: 1, findings: [], skippedChecks: [], partial: false };
    expect(reportChart(report)).toBeNull();
    const errors: string[] = [];
    const broken = { ...report, metrics: { source: 'prometheus' as const, window, chart: ['underReplicated' as const], series: [{ metric: 'underReplicated' as const, broker: 1, unit: 'count' as const, points: null as unknown as [number, number][] }], missing: [] } };
    expect(reportChart(broken, (e) => errors.push(e))).toBeNull();
    expect(errors).toHaveLength(1);
  });
});

describe('Prometheus source', () => {
  let server: Server;
  let url = '';
  const seen: { auth?: string; body: URLSearchParams }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const params = new URLSearchParams(body);
        seen.push({ ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), body: params });
        const q = params.get('query') ?? '';
        res.setHeader('content-type', 'application/json');
        if (q.includes('isrshrinks')) return res.end(JSON.stringify({ status: 'error', errorType: 'bad_data', error: 'parse error' }));
        if (!q.includes('underreplicated')) return res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } }));
        res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [
          { metric: { broker: '1' }, values: [[T0 / 1000, '0'], [T0 / 1000 + 15, '4'], [T0 / 1000 + 30, 'NaN']] },
          { metric: { broker: '10.0.0.9:9404' }, values: [[T0 / 1000, '1']] },
        ] } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads one series per broker, says which metrics it could not read, and sends the bearer token', async () => {
    const source = prometheusSource({ url, auth: { type: 'bearer', tokenEnv: 'PROM_TOKEN' }, labels: { cluster: 'prod' }, brokerLabel: 'broker', timeoutMs: 2000 }, { env: { PROM_TOKEN: 'sekrit' } });
    const reading = await source.read(['underReplicated', 'isrShrinks', 'offlinePartitions'], window);
    expect(reading.series).toEqual([
      { metric: 'underReplicated', broker: 1, unit: 'count', points: [[T0, 0], [T0 + 15_000, 4]] },
      { metric: 'underReplicated', broker: null, label: '10.0.0.9:9404', unit: 'count', points: [[T0, 1]] },
    ]);
    expect(reading.missing).toEqual([{ metric: 'isrShrinks', reason: 'Prometheus: parse error' }, { metric: 'offlinePartitions', reason: 'no series' }]);
    expect(seen[0]!.auth).toBe('Bearer sekrit');
    expect(seen[0]!.body.get('step')).toBe('15s');
    expect(seen[0]!.body.get('query')).toContain('{cluster="prod"}');
  });

  it('a server that does not answer costs at most its timeout', async () => {
    const source = prometheusSource({ url: 'http://127.0.0.1:9', auth: { type: 'none' }, labels: {}, brokerLabel: 'instance', timeoutMs: 300 });
    const started = Date.now();
    const reading = await source.read(['underReplicated'], window);
    expect(reading.series).toEqual([]);
    expect(reading.missing).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('CloudWatch source (AWS/Kafka, GetMetricData)', () => {
  it('asks per broker for per-broker metrics, once for cluster-wide ones, and reads the answers back', async () => {
    const cw = mockClient(CloudWatchClient);
    cw.on(GetMetricDataCommand).callsFake((input: { MetricDataQueries: { Id: string; MetricStat: { Metric: { MetricName: string; Dimensions: { Name: string; Value: string }[] } } }[] }) => ({
      MetricDataResults: input.MetricDataQueries.map((q) => {
        const broker = q.MetricStat.Metric.Dimensions.find((d) => d.Name === 'Broker ID')?.Value;
        const name = q.MetricStat.Metric.MetricName;
        const v = name === 'RequestHandlerAvgIdlePercent' ? 0.25 : broker === '2' ? 5 : 0;
        return { Id: q.Id, Timestamps: [new Date(T0 + 60_000), new Date(T0)], Values: [v, 0] };
      }),
    }));
    const source = cloudwatchSource({ clusterName: 'prod-msk', region: 'eu-west-1', timeoutMs: 2000 }, { client: new CloudWatchClient({ region: 'eu-west-1' }) });
    const reading = await source.read(['underReplicated', 'offlinePartitions', 'requestHandlerIdle', 'isrShrinks'], window, { brokers: [1, 2, 3] });
    const calls = cw.commandCalls(GetMetricDataCommand);
    expect(calls).toHaveLength(1);
    const queries = calls[0]!.args[0].input.MetricDataQueries!;
    // 3 brokers × (URP + request idle) + OfflinePartitionsCount once.
    expect(queries).toHaveLength(7);
    expect(queries.every((q) => q.MetricStat!.Metric!.Namespace === 'AWS/Kafka' && q.MetricStat!.Period === 60)).toBe(true);
    expect(queries.find((q) => q.MetricStat!.Metric!.MetricName === 'OfflinePartitionsCount')!.MetricStat!.Metric!.Dimensions).toEqual([{ Name: 'Cluster Name', Value: 'prod-msk' }]);
    const urp2 = reading.series.find((s) => s.metric === 'underReplicated' && s.broker === 2)!;
    expect(urp2.points).toEqual([[T0, 0], [T0 + 60_000, 5]]);
    expect(reading.series.find((s) => s.metric === 'offlinePartitions')!.broker).toBeNull();
    // MSK's idle fraction is shown as percent.
    expect(reading.series.find((s) => s.metric === 'requestHandlerIdle')!.points[1]![1]).toBe(25);
    expect(reading.missing).toEqual([{ metric: 'isrShrinks', reason: 'not published by Amazon MSK in CloudWatch' }]);
    cw.restore();
  });

  it('an API error leaves no series and names the failure', async () => {
    const cw = mockClient(CloudWatchClient);
    cw.on(GetMetricDataCommand).rejects(Object.assign(new Error('User is not authorized to perform: cloudwatch:GetMetricData'), { name: 'AccessDenied' }));
    const source = cloudwatchSource({ clusterName: 'prod-msk', timeoutMs: 2000 }, { client: new CloudWatchClient({ region: 'eu-west-1' }) });
    const reading = await source.read(['underReplicated'], window, { brokers: [1] });
    expect(reading.series).toEqual([]);
    expect(reading.missing[0]!.reason).toMatch(/GetMetricData failed: User is not authorized/);
    cw.restore();
  });
});
