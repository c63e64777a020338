// An alert storm on a real cluster: Alertmanager notifications for many groups
// through `serve`, the worker running the real diagnosis (snapshot over the
// Kafka protocol and host probes through the local executor) on the sandbox.
// Every group gets its thread with the diagnosis, and the cluster is read
// (snapshots counted at the diagnoser the worker calls) once per sharing
// window, not once per group. Loopback only; bounded to 200 notifications.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultDiagnoser, type Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { startLocalServer, type LocalServer } from '../../lib/local/server.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';
import { alertmanagerPayload } from './fixtures/samples.ts';

const GROUPS = 10;
const NOTIFICATIONS = 200;
const TOKEN = 'am-token-storm-sandbox-0123';
const up = hasSandbox();

describe.skipIf(!up)('an alert storm on the sandbox through serve', () => {
  let stub: SlackStub;
  let server: LocalServer;
  let snapshots = 0;
  const log = recordingLog();

  beforeAll(async () => {
    stub = await new SlackStub().start();
    const { config } = sandboxConfig({ ...process.env, KR_SLACK_USERS: 'U0ALICE', KR_INCIDENT_CHANNEL: 'C0INCIDENT' });
    const real = createDefaultDiagnoser(executorFactory());
    // Every call that reaches the real diagnosis is one snapshot of the cluster.
    const counted: Diagnoser = { diagnose: (r) => (snapshots++, real.diagnose(r)), canRestart: (r) => real.canRestart(r) };
    server = await startLocalServer({ config, signingSecret: 'storm', botToken: 'xoxb-storm', alertmanagerToken: TOKEN, log, slackApiUrl: stub.apiUrl, port: 0, diagnoser: counted, sweepIntervalMs: 0, slackDelivery: { postIntervalMs: 50 } });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await stub?.stop();
  });

  it(`${NOTIFICATIONS} notifications in ${GROUPS} groups: every group answered with the real diagnosis, one snapshot per window`, async () => {
    const cluster = sandboxConfig(process.env).config.clusters[0]!;
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < NOTIFICATIONS && Date.now() - started < 60_000) {
          const i = next++;
          const base = alertmanagerPayload('firing');
          const labels = { ...base.alerts[0]!.labels, cluster: cluster.name };
          const res = await fetch(`${server.url}/alerts/alertmanager`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ ...base, groupKey: `{}:{storm="${i % GROUPS}"}`, commonLabels: labels, alerts: [{ ...base.alerts[0]!, labels, fingerprint: `fp-${i}` }] }),
          });
          expect(res.status).toBe(202);
          await res.arrayBuffer();
        }
      }),
    );
    await server.queue.idle();
    const elapsedMs = Date.now() - started;
    const threads = stub.topLevel('C0INCIDENT');
    expect(threads).toHaveLength(GROUPS);
    for (const parent of threads) {
      const results = stub.thread(parent.ts).filter((m) => /on sandbox/.test(m.text) && !/^Diagnosing/.test(m.text));
      expect(results, parent.text).toHaveLength(1);
    }
    expect(snapshots).toBeGreaterThanOrEqual(1);
    expect(snapshots).toBeLessThanOrEqual(Math.ceil(elapsedMs / (cluster.load.shareDiagnosisSeconds * 1000)));
  }, 300_000);
});
