// Load: an alert storm through `serve` (the real HTTP server, handlers and
// in-process worker; bot state in serve's own dynalite). 500 Alertmanager
// notifications across 20 alert groups, sent within 60 s while Slack answers
// 429 for a while: 20 threads, every group answered with the diagnosis, and
// the sick cluster diagnosed at most once per sharing window (counted where
// the snapshot is taken: the injected diagnoser). Loopback only; the storm
// is bounded in count (500) and time (60 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { startLocalServer, type LocalServer } from '../../lib/local/server.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG, CountingDiagnoser } from '../slack/helpers/harness.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';
import { alertmanagerPayload } from './fixtures/samples.ts';

const GROUPS = 20;
const NOTIFICATIONS = 500;
const STORM_BUDGET_MS = 60_000;
const SHARE_SECONDS = 30;
const TOKEN = 'am-token-storm-0123456789';

let stub: SlackStub;
let server: LocalServer;
const diagnoser = new CountingDiagnoser();
const log = recordingLog();

beforeAll(async () => {
  stub = await new SlackStub().start();
  const config = parseConfig({ ...BASE_CONFIG, clusters: BASE_CONFIG.clusters.map((c) => ({ ...c, load: { shareDiagnosisSeconds: SHARE_SECONDS } })) });
  server = await startLocalServer({
    config,
    signingSecret: 'storm-signing-secret',
    botToken: 'xoxb-storm',
    alertmanagerToken: TOKEN,
    log,
    slackApiUrl: stub.apiUrl,
    port: 0,
    diagnoser,
    sweepIntervalMs: 0,
    // Slack's pace is ~1 s per channel; 20 ms keeps the same ordering logic and a short test.
    slackDelivery: { postIntervalMs: 20 },
  });
});
afterAll(async () => {
  await server?.close();
  await stub?.stop();
});

function notification(group: number, n: number) {
  const base = alertmanagerPayload('firing');
  const alertname = ['KafkaUnderReplicatedPartitions', 'KafkaOfflinePartitions', 'KafkaBrokerDown', 'KafkaUnderMinIsrPartitions'][group % 4]!;
  const labels = { ...base.alerts[0]!.labels, alertname, broker: `kafka-${(group % 3) + 1}:9092`, topic: `topic-${group}` };
  return {
    ...base,
    groupKey: `{}/{severity="critical"}:{alertname="${alertname}", storm="${group}"}`,
    groupLabels: { alertname, cluster: 'sandbox', storm: String(group) },
    commonLabels: labels,
    alerts: [{ ...base.alerts[0]!, labels, fingerprint: `fp-${group}-${n}`, startsAt: new Date(Date.now() - 60_000).toISOString() }],
  };
}

describe('an alert storm through serve', () => {
  it(`${NOTIFICATIONS} notifications in ${GROUPS} groups: ${GROUPS} threads, every group answered, one diagnosis per window`, async () => {
    stub.rateLimitFromNextCall(1500, 1);
    const started = Date.now();
    const order = Array.from({ length: NOTIFICATIONS }, (_, i) => ({ group: i % GROUPS, n: Math.floor(i / GROUPS) }));
    const statuses: number[] = [];
    // 25 senders in parallel, as Alertmanager's dispatchers would; stops at the time budget.
    let next = 0;
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (next < order.length && Date.now() - started < STORM_BUDGET_MS) {
          const { group, n } = order[next++]!;
          const res = await fetch(`${server.url}/alerts/alertmanager`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify(notification(group, n)),
          });
          statuses.push(res.status);
          await res.arrayBuffer();
        }
      }),
    );
    expect(Date.now() - started).toBeLessThan(STORM_BUDGET_MS);
    expect(statuses).toHaveLength(NOTIFICATIONS);
    expect(statuses.every((s) => s === 202)).toBe(true);
    await server.queue.idle();
    const elapsedMs = Date.now() - started;

    const threads = stub.topLevel('C0INCIDENT');
    expect(threads).toHaveLength(GROUPS);
    for (const parent of threads) {
      const replies = stub.thread(parent.ts);
      // The progress message, edited into the diagnosis result.
      expect(replies.some((m) => m.text === '1 finding on sandbox: 1 critical'), parent.text).toBe(true);
    }
    // One diagnosis per cluster per sharing window (the whole storm fits in one or two windows).
    expect(diagnoser.snapshots).toBeGreaterThanOrEqual(1);
    expect(diagnoser.snapshots).toBeLessThanOrEqual(Math.ceil(elapsedMs / (SHARE_SECONDS * 1000)));
    // Slack's 429s were waited out: nothing undelivered.
    expect(stub.calls.some((c) => c.status === 429)).toBe(true);
    expect(log.records.filter((r) => r.message === 'slack message not delivered')).toEqual([]);
  }, 120_000);
});
