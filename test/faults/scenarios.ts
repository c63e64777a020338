// The fault-injection suite's scenarios (see jobs.test.ts for the rule), in
// groups: each group is one test file, so the groups run on different workers
// at once. Every scenario is in exactly one group (checked when this loads).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseAlertmanager } from '../../lib/alerts/alertmanager.ts';
import { ALERT_JOB_KIND } from '../../lib/alerts/event.ts';
import { alertGroupOf } from '../../lib/alerts/intake.ts';
import { newJob } from '../../lib/queue/job.ts';
import { parseSnsEvent } from '../../lib/alerts/cloudwatch.ts';
import { AUDIT_JOB_KINDS } from '../../lib/audit/kinds.ts';
import { OPS_JOB_KINDS } from '../../lib/operations/requests.ts';
import { APPROVED_START_GRACE_MS } from '../../lib/operations/jobs.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { alertmanagerPayload, cloudwatchAlarm, snsEvent } from '../alerts/fixtures/samples.ts';
import { ScriptedOperations } from '../operations/scripted-operations.ts';
import { ScriptedDiagnoser, finding, report } from '../slack/helpers/harness.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';
import { APPROVERS, REQUESTER, World, type WorldParts } from './world.ts';
import { everyWriteStopped, type Scenario } from './suite.ts';

let dynamo: LocalDynamo;
let stub: SlackStub;
let parts: WorldParts;

function hooks(): void {
  beforeAll(async () => {
    dynamo = await startLocalDynamo();
    stub = await new SlackStub().start();
    parts = {
      dynamo,
      stub,
      diagnoser: new ScriptedDiagnoser(report([finding(0), finding(1)])),
      auditor: { audit: async (cluster) => ({ cluster: cluster.name, startedAt: new Date(0).toISOString(), durationMs: 1, findings: [finding(2)], skippedChecks: [], partial: false, checks: [] }) },
      operations: () => new ScriptedOperations(),
    };
  });
  afterAll(async () => {
    await stub.stop();
    await dynamo.close();
  });
}

function alert(w: World, status: 'firing' | 'resolved'): void {
  const parsed = parseAlertmanager(JSON.stringify(alertmanagerPayload(status, { groupKey: 'fault-group' })));
  if (!parsed.ok) throw new Error(parsed.reason);
  w.pending.push(newJob(ALERT_JOB_KIND, parsed.value, `am-${status}`, alertGroupOf(parsed.value)));
}

const lastPlan = (): StubMessage => {
  const plan = stub.topLevel('C0OPS').at(-1);
  if (!plan) throw new Error('no plan was posted');
  return plan;
};
const requestId = (plan: StubMessage): string => {
  const button = JSON.stringify(plan.blocks).match(/"action_id":"ops:approve"[^}]*?"value":"([^"]+)"|"value":"([^"]+)"[^}]*?"action_id":"ops:approve"/);
  const id = button?.[1] ?? button?.[2];
  if (!id) throw new Error(`no Approve button on: ${plan.text}`);
  return id;
};

/** A leader election planned, then approved by `approvals` approvers (each approval's job settled). */
async function planApprovedBy(w: World, approvals: number): Promise<void> {
  await w.slash('elect-leader orders 0 3');
  await w.settle();
  const plan = lastPlan();
  for (let i = 0; i < approvals; i++) {
    if (i > 0) await w.settle();
    await w.click('ops:approve', requestId(plan), APPROVERS[i]!, plan);
  }
}

export const SCENARIOS: Scenario[] = [
  { name: 'diagnose', arrange: async (w) => void (await w.slash('diagnose sandbox')) },
  { name: 'can-restart', arrange: async (w) => void (await w.slash('can-restart 2')) },
  { name: 'audit', arrange: async (w) => void (await w.slash('audit sandbox')) },
  { name: 'alert (firing)', arrange: async (w) => alert(w, 'firing') },
  {
    name: 'alert (resolved)',
    arrange: async (w) => {
      alert(w, 'firing');
      await w.settle();
      alert(w, 'resolved');
    },
  },
  {
    name: 'alert (CloudWatch through SNS)',
    arrange: async (w) => {
      const parsed = parseSnsEvent(snsEvent([cloudwatchAlarm('ALARM', 'UnderMinIsrPartitionCount', { StateChangeTime: new Date().toISOString() })]));
      if (!parsed.ok || !parsed.value.events[0]) throw new Error('no alarm parsed');
      const event = parsed.value.events[0];
      w.pending.push(newJob(ALERT_JOB_KIND, event, 'sns-1', alertGroupOf(event)));
    },
  },
  { name: 'audit (scheduled)', arrange: async (w) => void w.pending.push(newJob(AUDIT_JOB_KINDS.scheduled, { mode: 'summary' }, 'sched-1')) },
  {
    name: 'timeline',
    arrange: async (w) => {
      alert(w, 'firing');
      await w.settle();
      const thread = stub.topLevel('C0INCIDENT')[0]!;
      await w.slash(`timeline ${thread.channel}/${thread.ts}`, REQUESTER, 'C0INCIDENT');
    },
  },
  { name: 'ops.plan', arrange: async (w) => void (await w.slash('elect-leader orders 0 3')) },
  {
    // Over 64K characters: stored in pieces (a drain of a busy broker).
    name: 'ops.plan (a plan stored in pieces)',
    operations: () => {
      const ops = new ScriptedOperations();
      ops.cluster.addTopic('slow', Array.from({ length: 1500 }, (_, i) => [1 + (i % 3)]));
      return ops;
    },
    arrange: async (w) => void (await w.slash('raise-rf slow 2')),
  },
  {
    name: 'ops.sweep (a plan nobody approved in time expires)',
    arrange: async (w) => {
      await w.slash('elect-leader orders 0 3');
      await w.settle();
      w.advance(w.config.approvals.ttlSeconds * 1000 + 60_000);
      w.pending.push(newJob(OPS_JOB_KINDS.sweep, {}, 'sweep-1'));
    },
  },
  {
    name: 'ops.sweep (an approved run whose start was lost is started)',
    arrange: async (w) => {
      await planApprovedBy(w, 2);
      // The execute job never arrives (lost with its queue message): the sweep starts the run.
      w.pending.splice(0, w.pending.length, ...w.pending.filter((j) => j.kind !== OPS_JOB_KINDS.execute));
      await w.settle();
      w.advance(APPROVED_START_GRACE_MS + 60_000);
      w.pending.push(newJob(OPS_JOB_KINDS.sweep, {}, 'sweep-2'));
    },
  },
  {
    name: 'ops.refresh (an approval)',
    arrange: (w) => planApprovedBy(w, 1),
  },
  {
    name: 'ops.execute (the second approval runs the plan)',
    arrange: (w) => planApprovedBy(w, 2),
  },
];

/**
 * The groups, one test file each, balanced by how long their scenarios take
 * (every stop point of a scenario runs in its one file, as before).
 */
export const FAULT_GROUPS = {
  slash: ['diagnose', 'can-restart', 'audit', 'timeline', 'ops.plan', 'ops.refresh (an approval)'],
  alerts: ['alert (firing)', 'alert (resolved)', 'alert (CloudWatch through SNS)', 'audit (scheduled)'],
  sweep: ['ops.sweep (a plan nobody approved in time expires)', 'ops.sweep (an approved run whose start was lost is started)', 'ops.plan (a plan stored in pieces)'],
  execute: ['ops.execute (the second approval runs the plan)'],
} as const satisfies Record<string, readonly string[]>;

{
  const grouped = Object.values(FAULT_GROUPS).flat();
  const names = SCENARIOS.map((s) => s.name);
  const missing = names.filter((n) => grouped.filter((g) => g === n).length !== 1);
  const unknown = grouped.filter((g) => !names.includes(g));
  if (missing.length || unknown.length) throw new Error(`fault groups must hold every scenario once: ${[...missing, ...unknown].join(', ')}`);
}

/** Registers one group's scenarios as tests, with the dynalite and Slack stub they share. */
export function faultGroup(group: keyof typeof FAULT_GROUPS): void {
  hooks();
  const wanted: readonly string[] = FAULT_GROUPS[group];
  describe('every write of every job kind, the process stopped right after it and the job delivered again', () => {
    it.each(SCENARIOS.filter((s) => wanted.includes(s.name)).map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
      await everyWriteStopped(parts, scenario);
    });
  });
}
