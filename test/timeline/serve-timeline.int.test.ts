// An incident's postmortem timeline, end to end through the README's serve
// (the installed bin): an Alertmanager alert opens a thread and its diagnosis
// finds the offline partition (incident 1: the last in-sync leader killed and
// wiped); the finding's button plans a leader override in that thread, two
// approvers approve it and it runs; the alert resolves. The Timeline button
// then posts a Markdown file in the thread (files.uploadV2 through the Slack
// stub) whose events are in time order, each with its time, and list every
// event of the plan's audit trail as the approvals table holds it; the CLI
// (`kafka-responder timeline`) prints the same file. The CLI can only read a
// store outside serve's process, so this test is about that setting
// (KR_APPROVALS_DYNAMODB_ENDPOINT); the export from serve's default in-process
// store is test/operations/serve-readme.int.test.ts's `/kafka timeline`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { Sandbox } from '../../sandbox/cluster.ts';
import { sandboxSettings } from '../../sandbox/layout.ts';
import { runScenario } from '../../sandbox/scenarios.ts';
import { timeOf } from '../../lib/timeline/render-markdown.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { ALICE, BIN, BOB, REQUESTER, ServeHarness, readmeServeEnv, requestIdOf, threadOutcome, waitFor } from '../operations/serve-harness.ts';

const up = hasSandbox();
const settings = sandboxSettings();
/** Ports from the test run's own range (the sandbox uses base+0…23). */
const PORTS = { stub: settings.portBase + 90, serve: settings.portBase + 91, dynamo: settings.portBase + 92 };

type Button = { action_id: string; value: string };
/** Buttons in actions blocks and as section accessories (a finding's plan button). */
const buttonsOf = (m: StubMessage) => (m.blocks as { elements?: Button[]; accessory?: Button }[]).flatMap((b) => [...(b.elements ?? []), ...(b.accessory?.action_id ? [b.accessory] : [])]);

function alert(status: 'firing' | 'resolved', groupKey: string) {
  const now = new Date().toISOString();
  const labels = { alertname: 'KafkaOfflinePartitions', cluster: 'sandbox', topic: 'orders', severity: 'critical' };
  return {
    receiver: 'kafka-responder',
    status,
    alerts: [{ status, labels, annotations: { summary: 'orders-0 has no leader' }, startsAt: now, endsAt: status === 'firing' ? '0001-01-01T00:00:00Z' : now, generatorURL: 'http://prometheus:9090/graph', fingerprint: 'a1' }],
    groupLabels: { alertname: 'KafkaOfflinePartitions', cluster: 'sandbox' },
    commonLabels: labels,
    commonAnnotations: { summary: 'orders-0 has no leader' },
    externalURL: 'http://alertmanager:9093',
    version: '4',
    groupKey,
    truncatedAlerts: 0,
  };
}

describe.skipIf(!up)('the postmortem timeline of an incident, through serve', () => {
  let stub: SlackStub;
  let harness: ServeHarness;
  let dynamo: Server;

  beforeAll(async () => {
    stub = await new SlackStub().start(PORTS.stub);
    dynamo = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as Server;
    dynamo.keepAliveTimeout = 10 * 60_000;
    await new Promise<void>((resolve) => dynamo.listen(PORTS.dynamo, '127.0.0.1', resolve));
    harness = new ServeHarness(
      stub,
      {
        // The CLI export reads the store serve writes: a DynamoDB-compatible server both reach (docs/evidence.md, the timeline).
        KR_APPROVALS_DYNAMODB_ENDPOINT: `http://127.0.0.1:${PORTS.dynamo}`,
      },
      ['--port', String(PORTS.serve)],
    );
  });

  afterAll(async () => {
    harness?.stop();
    await stub?.stop();
    await new Promise<void>((resolve) => (dynamo ? dynamo.close(() => resolve()) : resolve()));
  });

  /** What the thread and serve said, when a wait times out. */
  const explain = async <T>(what: Promise<T>, thread: () => string): Promise<T> => {
    try {
      return await what;
    } catch (err) {
      throw new Error(`${(err as Error).message}\nthread:\n${thread()}\nserve:\n${harness.logs.join('').slice(-4000)}`);
    }
  };

  it('alert → diagnosis → leader override (two approvals) → resolved: the exported timeline is in order, timed, and matches the audit trail', async () => {
    const t0 = Date.now();
    await runScenario(new Sandbox(settings, () => {}), 'isr-one-leader-lost');
    const tScenario = Date.now();
    await harness.start();
    // No ALERTMANAGER_TOKEN, as the README's serve: the alerts carry the one serve generated and printed.
    const token = /note: ALERTMANAGER_TOKEN not set; generated one for this run: (\S+)/.exec(harness.logs.join(''))?.[1];
    expect(token, harness.logs.join('')).toBeTruthy();
    const fire = async (status: 'firing' | 'resolved') => {
      const res = await fetch(`http://127.0.0.1:${PORTS.serve}/alerts/alertmanager`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(alert(status, groupKey)) });
      expect(res.status).toBe(202);
    };
    const groupKey = `{}:{alertname="KafkaOfflinePartitions", run="${randomUUID().slice(0, 8)}"}`;

    await fire('firing');
    const parent = await waitFor('the alert thread', () => stub.messages.find((m) => !m.thread_ts && m.text.startsWith('FIRING: ')), 60_000, 250);
    expect(buttonsOf(parent).map((b) => b.action_id)).toContain('timeline:export');
    const threadText = () => stub.thread(parent.ts).map((m) => `${m.text} ${JSON.stringify(m.blocks).slice(0, 600)}`).join('\n');
    const diagnosis = await explain(waitFor('the diagnosis with its leader-override button', () => stub.thread(parent.ts).find((m) => buttonsOf(m).some((b) => b.action_id === 'ops:plan' && b.value.includes('leader-override'))), 90_000, 500), threadText);
    const plan = buttonsOf(diagnosis).find((b) => b.action_id === 'ops:plan' && b.value.includes('leader-override'))!;

    // The finding's button plans in the incident's thread; two approvers approve it.
    expect(await harness.clickAnswer('ops:plan', plan.value, REQUESTER, diagnosis)).toMatch(/Planning/);
    const planMessage = await waitFor('the plan in the thread', () => stub.thread(parent.ts).find((m) => m.text.startsWith('REQUESTED: ')), 120_000, 250);
    const requestId = requestIdOf(planMessage);
    await harness.click('ops:approve', requestId, ALICE, planMessage);
    await harness.click('ops:approve', requestId, BOB, planMessage);
    const outcome = await threadOutcome(stub, parent.ts, 300_000, 250);
    expect(outcome.status, outcome.summary).toBe('SUCCEEDED');

    await fire('resolved');
    await waitFor('the thread resolved', () => stub.messages.find((m) => m.ts === parent.ts && m.text.startsWith('RESOLVED: ')) && stub.thread(parent.ts).find((m) => m.text.startsWith('Resolved at')), 60_000, 250);

    // The Timeline button on the thread's parent: a Markdown file in the thread.
    await harness.click('timeline:export', 'thread', ALICE, stub.messages.find((m) => m.ts === parent.ts)!);
    const file = await waitFor('the timeline file in the thread', () => stub.uploads.find((u) => u.filename?.startsWith('timeline-') && u.thread_ts === parent.ts && u.content), 60_000, 250);
    expect(file.filename).toMatch(/\.md$/);
    expect(file.channel).toBe(parent.channel);
    const md = file.content;
    const rows = md.split('\n').filter((l) => /^\| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \|/.test(l));
    const times = rows.map((r) => Date.parse(`${r.slice(2, 21).replace(' ', 'T')}Z`));
    // Each event has its time, and they are in order.
    expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]!))).toBe(true);
    const index = (re: RegExp) => {
      const i = rows.findIndex((r) => re.test(r));
      expect(i, `${re} in:\n${md}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const story = [
      index(/Alert \*\*firing\*\*/),
      index(/\| Diagnosis of sandbox: \d+ finding/),
      index(/Finding first seen: CRITICAL .*offline-partition/),
      index(/Plan requested by U0REQ/),
      index(/Approved by U0ALICE/),
      index(/Approved by U0BOB/),
      index(/Run started/),
      index(/Operation SUCCEEDED/),
      index(/Alert \*\*resolved\*\*/),
    ];
    expect([...story].sort((a, b) => a - b)).toEqual(story);
    // Brokers 2 and 3 came back during the scenario: the host probe's start times are in it.
    expect(md).toMatch(/Cluster changed: broker [23] \(re\)started/);
    for (const h of ['Impact', 'Root cause', 'Follow-ups']) expect(md).toContain(`## ${h}`);

    // Every event of the plan's audit trail, as the approvals table holds it, at its time and in its order.
    const client = new DynamoDBClient({ endpoint: `http://127.0.0.1:${PORTS.dynamo}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const trail = await new ApprovalStore(client, { tableName: 'kafka-responder-approvals' }).audit.trail(requestId);
    client.destroy();
    expect(trail.map((e) => e.type)).toEqual(expect.arrayContaining(['requested', 'approved', 'claimed', 'step', 'succeeded']));
    const auditRows = rows.filter((r) => /\| (Plan requested|Approved|Rejected|Run started|Step|Operation|Cancel|Resume|Expired|Run )/.test(r));
    expect(auditRows).toHaveLength(trail.length);
    trail.forEach((e, i) => expect(auditRows[i]!.startsWith(`| ${timeOf(new Date(e.at).toISOString())} |`), `${auditRows[i]} vs ${e.type} at ${new Date(e.at).toISOString()}`).toBe(true));

    // The CLI prints the same file (only the export time differs).
    const link = `https://acme.slack.com/archives/${parent.channel}/p${parent.ts.replace('.', '')}`;
    // Not execFileSync: the dynalite it reads runs on this test's event loop.
    const { stdout: printed } = await promisify(execFile)(process.execPath, [BIN, 'timeline', '--incident', link, '--format', 'markdown'], { env: readmeServeEnv(stub.apiUrl, { KR_APPROVALS_DYNAMODB_ENDPOINT: `http://127.0.0.1:${PORTS.dynamo}` }), encoding: 'utf8', timeout: 60_000 });
    const withoutExportTime = (s: string) => s.replace(/^- Exported .*$/m, '');
    expect(withoutExportTime(printed)).toBe(withoutExportTime(md));
    // And as a deployed bot's operator runs it: STATE_TABLE and APPROVALS_TABLE through the AWS SDK's own
    // configuration (region, credentials, endpoint): the same tables, reached at the local endpoint with test credentials.
    const deployed = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      STATE_TABLE: 'kafka-responder-state',
      APPROVALS_TABLE: 'kafka-responder-approvals',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL: `http://127.0.0.1:${PORTS.dynamo}`,
    };
    const { stdout: fromTables } = await promisify(execFile)(process.execPath, [BIN, 'timeline', '--incident', link, '--format', 'markdown'], { env: deployed, encoding: 'utf8', timeout: 60_000 });
    expect(withoutExportTime(fromTables)).toBe(withoutExportTime(md));
    console.log(`[timeline] scenario ${((tScenario - t0) / 1000).toFixed(1)} s, alert → exported timeline ${((Date.now() - tScenario) / 1000).toFixed(1)} s; ${rows.length} events, ${trail.length} audit events`);
  }, 600_000);
});
