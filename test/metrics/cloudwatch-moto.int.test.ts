// MSK's CloudWatch metrics on moto (`moto_server`, .ci/run installs it):
// AWS/Kafka-shaped datapoints go in with PutMetricData (the "Cluster Name" and
// "Broker ID" dimensions MSK publishes), our CloudWatch source reads them back
// with GetMetricData; and a CloudWatch alarm that arrives through SNS gets its
// own metric as the first series of the graph in its thread.
import { CloudWatchClient, PutMetricDataCommand, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnsHandler } from '../../lib/alerts/intake.ts';
import { makeFinding } from '../../lib/diagnose/finding.ts';
import type { Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import { cloudwatchSource } from '../../lib/diagnose/metrics/cloudwatch.ts';
import { METRIC_IDS, metricsWindow, readMetrics, withMetrics } from '../../lib/diagnose/metrics/index.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { sandboxSettings } from '../../sandbox/layout.ts';
import { cloudwatchAlarm, snsEvent } from '../alerts/fixtures/samples.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { hasMoto, startMoto, type Moto } from '../deploy/moto.ts';
import { decodePng, nonWhite } from '../helpers/png.ts';
import { BASE_CONFIG, buildHarness, ScriptedDiagnoser } from '../slack/helpers/harness.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';

const MSK = 'prod-msk';
const NOW = Math.floor(Date.now() / 60_000) * 60_000;
/** Broker 2 leaves 10 minutes ago: the others report 4 under-replicated partitions from then on. */
const STOP = NOW - 10 * 60_000;
const MINUTES = Array.from({ length: 30 }, (_, i) => NOW - (29 - i) * 60_000);

function datapoints(): MetricDatum[] {
  const out: MetricDatum[] = [];
  const dims = (broker?: number) => [{ Name: 'Cluster Name', Value: MSK }, ...(broker === undefined ? [] : [{ Name: 'Broker ID', Value: String(broker) }])];
  for (const t of MINUTES) {
    for (const b of [1, 2, 3]) {
      if (b === 2 && t > STOP) continue;
      out.push({ MetricName: 'UnderReplicatedPartitions', Dimensions: dims(b), Timestamp: new Date(t), Value: t > STOP ? 4 : 0, Unit: 'Count' });
      // MSK reports the idle meters as a fraction.
      out.push({ MetricName: 'RequestHandlerAvgIdlePercent', Dimensions: dims(b), Timestamp: new Date(t), Value: b === 1 && t > STOP ? 0.03 : 0.8, Unit: 'Percent' });
    }
    out.push({ MetricName: 'OfflinePartitionsCount', Dimensions: dims(), Timestamp: new Date(t), Value: 0, Unit: 'Count' });
    out.push({ MetricName: 'ActiveControllerCount', Dimensions: dims(), Timestamp: new Date(t), Value: 1, Unit: 'Count' });
  }
  return out;
}

describe.skipIf(!hasMoto())('CloudWatch (AWS/Kafka) on moto', () => {
  let moto: Moto;
  let client: CloudWatchClient;
  const config = { clusterName: MSK, region: 'us-east-1', timeoutMs: 5000 };

  beforeAll(async () => {
    moto = await startMoto(sandboxSettings().portBase + 60);
    // moto does not inflate the SDK's gzipped PutMetricData bodies (request compression above 10 KiB).
    client = new CloudWatchClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' }, disableRequestCompression: true });
    const all = datapoints();
    for (let i = 0; i < all.length; i += 500) await client.send(new PutMetricDataCommand({ Namespace: 'AWS/Kafka', MetricData: all.slice(i, i + 500) }));
  }, 90_000);
  afterAll(async () => {
    client?.destroy();
    await moto?.stop();
  });

  it('GetMetricData gives back what was put: per broker where MSK has a Broker ID, cluster-wide otherwise, idle as percent', async () => {
    const source = cloudwatchSource(config, { client });
    const reading = await source.read(METRIC_IDS, { fromMs: NOW - 30 * 60_000, toMs: NOW + 60_000, stepMs: 60_000 }, { brokers: [1, 2, 3] });
    const urp = (b: number) => reading.series.find((s) => s.metric === 'underReplicated' && s.broker === b);
    expect(urp(1)!.points.length).toBeGreaterThanOrEqual(28);
    expect(urp(1)!.points.filter(([t]) => t <= STOP).every(([, v]) => v === 0)).toBe(true);
    expect(urp(1)!.points.filter(([t]) => t > STOP).map(([, v]) => v)).toEqual(Array(10).fill(4));
    // Broker 2's points stop when it left.
    expect(Math.max(...urp(2)!.points.map(([t]) => t))).toBe(STOP);
    const idle = reading.series.find((s) => s.metric === 'requestHandlerIdle' && s.broker === 1)!;
    expect(idle.points.at(-1)![1]).toBeCloseTo(3, 5);
    expect(reading.series.find((s) => s.metric === 'offlinePartitions')).toMatchObject({ broker: null });
    expect(reading.series.find((s) => s.metric === 'activeController')?.points.at(-1)?.[1]).toBe(1);
    // What MSK does not publish is said, not invented.
    expect(reading.missing.map((m) => m.metric)).toContain('isrShrinks');
    expect(reading.series.some((s) => s.metric === 'isrShrinks')).toBe(false);
  });

  it("a CloudWatch alarm through SNS: its own metric is the graph's first series, the other metrics after it", async () => {
    const [stub, db]: [SlackStub, DynaliteHandle] = await Promise.all([new SlackStub().start(), startDynalite()]);
    try {
      const cluster = { ...BASE_CONFIG.clusters[0]!, aliases: [MSK], hosts: { executor: 'none' }, metrics: { cloudwatch: { clusterName: MSK, region: 'us-east-1' } } };
      const reports: DiagnosisReport[] = [];
      const findings = [makeFinding({ kind: 'under-replicated', severity: 'warning', title: '4 partitions under-replicated', summary: 's', brokers: [1, 3] })];
      // The metrics path of the real diagnoser (lib/diagnose/diagnoser.ts), with the cluster's findings scripted and moto's CloudWatch.
      const scripted = new ScriptedDiagnoser();
      const diagnoser: Diagnoser = {
        canRestart: () => scripted.canRestart(),
        async diagnose(req) {
          const source = cloudwatchSource(req.cluster.metrics!.cloudwatch!, { client });
          const read = await readMetrics(source, metricsWindow(req.cluster, Date.now(), req.alert), [1, 2, 3]);
          const report = withMetrics({ cluster: req.cluster.name, startedAt: new Date().toISOString(), durationMs: 1, findings, skippedChecks: [], partial: false }, read, req.alert);
          reports.push(report);
          return report;
        },
      };
      const h = buildHarness({ stub, store: db.store, diagnoser, config: { ...BASE_CONFIG, clusters: [cluster, BASE_CONFIG.clusters[1]] } });
      const sns = createSnsHandler({ queue: h.queue, store: db.store, log: h.log });
      const firedAt = new Date(STOP + 60_000).toISOString().replace('Z', '+0000');
      await sns(snsEvent([cloudwatchAlarm('ALARM', 'RequestHandlerAvgIdlePercent', { StateChangeTime: firedAt, AlarmArn: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:idle-moto' })]));
      await h.queue.idle();

      const report = reports[0]!;
      // Without the alarm, the findings (under-replicated) would put URP first.
      expect(report.metrics?.chart[0]).toBe('requestHandlerIdle');
      expect(report.metrics?.chart).toContain('underReplicated');
      expect(report.metrics?.markAtMs).toBe(Date.parse(firedAt.replace('+0000', 'Z')));
      expect(report.findings[0]!.evidence.map((e) => e.value).join(' ')).toMatch(/UnderReplicatedPartitions on broker [13] rose from 0 to 4/);
      const parent = stub.topLevel().find((m) => m.text.startsWith('FIRING: prod-msk-RequestHandlerAvgIdlePercent'));
      expect(parent, stub.topLevel().map((m) => m.text).join('\n')).toBeDefined();
      const png = stub.uploads.find((u) => u.thread_ts === parent!.ts && u.filename?.endsWith('.png'));
      expect(png, 'graph in the alarm thread').toBeDefined();
      const image = decodePng(png!.bytes);
      expect(image.width).toBe(1200);
      expect(nonWhite(image)).toBeGreaterThan(10_000);
    } finally {
      await stub.stop();
      await db.close();
    }
  });
});
