// Alerts all the way to Slack: intake → queue → worker → stub. One group keeps
// one thread, resolution edits it, flapping is called out, and the routed
// diagnosis lands in the thread.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAlertmanagerHandler, createSnsHandler } from '../../lib/alerts/intake.ts';
import { listIncidents } from '../../lib/state/activity.ts';
import { ScriptedDiagnoser, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { slashEvent } from '../slack/helpers/signed.ts';
import { useSlackStubAndDynalite } from '../slack/helpers/slack-and-dynalite.ts';
import { alertmanagerPayload, cloudwatchAlarm, snsEvent } from './fixtures/samples.ts';

const TOKEN = 'am-token-0123456789abcdef';
const env = useSlackStubAndDynalite();
const { stub } = env;
let h: Harness;
let diagnoser: ScriptedDiagnoser;
let am: ReturnType<typeof createAlertmanagerHandler>;
let sns: ReturnType<typeof createSnsHandler>;
let group = 0;

beforeEach(() => {
  diagnoser = new ScriptedDiagnoser();
  h = buildHarness({ stub, store: env.db.store, diagnoser });
  am = createAlertmanagerHandler({ queue: h.queue, store: env.db.store, log: h.log, bearerToken: TOKEN });
  sns = createSnsHandler({ queue: h.queue, store: env.db.store, log: h.log });
  group++;
});

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

/** One alert group (per test), firing or resolved, at a time relative to now. */
async function sendAm(status: 'firing' | 'resolved', startedMsAgo: number, endedMsAgo = 0, extra: Record<string, unknown> = {}) {
  const base = alertmanagerPayload(status);
  const payload = {
    ...base,
    groupKey: `${base.groupKey}#${group}`,
    alerts: base.alerts.map((a) => ({ ...a, startsAt: iso(startedMsAgo), endsAt: status === 'firing' ? '0001-01-01T00:00:00Z' : iso(endedMsAgo) })),
    ...extra,
  };
  const res = await am({
    rawPath: '/alerts/alertmanager',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    requestContext: { http: { method: 'POST' } },
  });
  expect(res.statusCode).toBe(202);
  await h.queue.idle();
}

describe('alert triage threads', () => {
  it('a firing alert opens one thread in the incident channel with the routed diagnosis', async () => {
    await sendAm('firing', 120_000);
    const top = stub.topLevel();
    expect(top).toHaveLength(1);
    const parent = top[0]!;
    expect(parent.channel).toBe('C0INCIDENT');
    expect(parent.text).toBe('FIRING: KafkaUnderReplicatedPartitions on sandbox');
    const blocks = JSON.stringify(parent.blocks);
    expect(blocks).toContain('Broker 2 reports 12 under-replicated partitions');
    expect(blocks).toContain('*Brokers:* 2');
    expect(blocks).toContain('*Cluster:* sandbox');
    // Built-in route for under-replication: whole cluster plus the named broker's host.
    expect(diagnoser.requests).toHaveLength(1);
    expect(diagnoser.requests[0]).toMatchObject({ cluster: { name: 'sandbox' }, brokers: [2] });
    expect(diagnoser.requests[0]!.topic).toBeUndefined();
    const [progress] = stub.thread(parent.ts);
    expect(progress!.history[0]).toBe('Diagnosing sandbox: starting');
    expect(progress!.text).toBe('1 finding on sandbox: 1 critical');
  });

  it('repeat notifications of the same group stay in the thread and do not re-run the diagnosis', async () => {
    await sendAm('firing', 120_000);
    await sendAm('firing', 120_000);
    expect(stub.topLevel()).toHaveLength(1);
    expect(diagnoser.requests).toHaveLength(1);
    expect(stub.thread(stub.topLevel()[0]!.ts)).toHaveLength(1);
  });

  it('a resolved alert marks its thread resolved and says when it cleared fast', async () => {
    await sendAm('firing', 100_000);
    expect((await listIncidents(env.db.store, 'C0INCIDENT')).some((i) => i.groupKey.endsWith(`#${group}`))).toBe(true);
    await sendAm('resolved', 100_000, 60_000);
    const [parent] = stub.topLevel();
    expect(parent!.text).toBe('RESOLVED: KafkaUnderReplicatedPartitions on sandbox');
    expect(parent!.history[0]).toMatch(/^FIRING/);
    const replies = stub.thread(parent!.ts);
    const resolved = replies.at(-1)!;
    expect(resolved.text).toMatch(/^Resolved at/);
    expect(JSON.stringify(resolved.blocks)).toMatch(/cleared after 4\d s.*a broker dropping whole request batches/);
    expect((await listIncidents(env.db.store, 'C0INCIDENT')).some((i) => i.groupKey.endsWith(`#${group}`))).toBe(false);
  });

  it('a resolution for a group we never announced posts nothing', async () => {
    await sendAm('resolved', 100_000, 50_000);
    expect(stub.calls.filter((c) => c.method.startsWith('chat.'))).toHaveLength(0);
  });

  it('fire/resolve/fire/resolve within the window is called out as flapping, once', async () => {
    await sendAm('firing', 600_000);
    await sendAm('resolved', 600_000, 590_000);
    await sendAm('firing', 300_000);
    const [parent] = stub.topLevel();
    expect(parent!.text).not.toMatch(/FLAPPING/);
    await sendAm('resolved', 300_000, 290_000);
    expect(stub.topLevel()).toHaveLength(1);
    expect(parent!.text).toBe('FLAPPING RESOLVED: KafkaUnderReplicatedPartitions on sandbox');
    const callouts = stub.thread(parent!.ts).filter((m) => m.text === 'This alert is flapping');
    expect(callouts).toHaveLength(1);
    expect(JSON.stringify(callouts[0]!.blocks)).toMatch(/fired and resolved 2 times within 60 minutes.*such an alert, once ignored, has ended with consumers stopped/);
    await sendAm('firing', 10_000);
    expect(stub.thread(parent!.ts).filter((m) => m.text === 'This alert is flapping')).toHaveLength(1);
    // A flapping group stays on /kafka status in its channel even between fires.
    await sendAm('resolved', 10_000, 5_000);
    const status = JSON.parse((await h.handler(slashEvent({ text: 'status', user: 'U0ALICE', channel: 'C0INCIDENT' }))).body);
    expect(JSON.stringify(status.blocks)).toMatch(/flapping\* KafkaUnderReplicatedPartitions on sandbox/);
  });

  it('transitions older than the window do not count towards flapping', async () => {
    await sendAm('firing', 3 * 3600_000);
    await sendAm('resolved', 3 * 3600_000, 2.9 * 3600_000);
    await sendAm('firing', 60_000);
    await sendAm('resolved', 60_000, 30_000);
    const parent = stub.topLevel()[0]!;
    expect(parent.text).toBe('RESOLVED: KafkaUnderReplicatedPartitions on sandbox');
    expect(stub.thread(parent.ts).some((m) => m.text === 'This alert is flapping')).toBe(false);
  });
});

describe('CloudWatch MSK alarms', () => {
  it('resolves the "Cluster Name" dimension through cluster aliases and diagnoses the cluster', async () => {
    const arnSuffix = `-${group}`;
    const alarm = cloudwatchAlarm('ALARM', 'OfflinePartitionsCount', { AlarmArn: `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:offline${arnSuffix}`, StateChangeTime: iso(30_000) });
    await sns(snsEvent([alarm]));
    await h.queue.idle();
    const [parent] = stub.topLevel();
    expect(parent!.text).toBe('FIRING: prod-msk-OfflinePartitionsCount on prod-msk');
    expect(JSON.stringify(parent!.blocks)).toContain('Offline partitions: find the partitions with leader -1');
    expect(diagnoser.requests[0]).toMatchObject({ cluster: { name: 'sandbox' } });
    await sns(snsEvent([{ ...alarm, NewStateValue: 'OK', OldStateValue: 'ALARM', StateChangeTime: iso(1000) }]));
    await h.queue.idle();
    expect(parent!.text).toBe('RESOLVED: prod-msk-OfflinePartitionsCount on prod-msk');
  });

  it('says so in the thread when the alert names a cluster that is not configured', async () => {
    const alarm = cloudwatchAlarm('ALARM', 'ActiveControllerCount', {
      AlarmArn: `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:ctrl-${group}`,
      Trigger: { MetricName: 'ActiveControllerCount', Namespace: 'AWS/Kafka', Dimensions: [{ name: 'Cluster Name', value: 'mystery' }] },
    });
    await sns(snsEvent([alarm]));
    await h.queue.idle();
    const [parent] = stub.topLevel();
    expect(JSON.stringify(parent!.blocks)).toContain('mystery (not configured)');
    expect(stub.thread(parent!.ts)[0]!.text).toBe('No diagnosis: unknown cluster');
    expect(diagnoser.requests).toHaveLength(0);
  });
});
