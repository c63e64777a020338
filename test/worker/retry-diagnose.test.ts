// `/kafka diagnose` (and `/kafka transactions`, the same job kind) and
// `/kafka can-restart` retried after their worker died right after a write:
// each message is in the thread once, and the file and the graph the dead
// attempt had not uploaded yet are uploaded by the retry. Real worker, Slack
// stub, state on dynalite; the kill is test/worker/kill.ts.
import { describe, expect, it } from 'vitest';
import type { Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import { DIAGNOSE_JOB_KINDS, type CanRestartJob, type DiagnoseJob } from '../../lib/diagnose/kinds.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { incidentEvents, incidentIdOf } from '../../lib/state/incident-log.ts';
import { newJob } from '../../lib/queue/job.ts';
import { runJob } from '../../lib/worker/worker.ts';
import { ScriptedDiagnoser, finding, report, type Harness } from '../slack/helpers/harness.ts';
import { killedThenRetried } from './kill.ts';
import { useWorkerRetryWorld } from './retry-world.ts';

const world = useWorkerRetryWorld();
const { stub } = world;

/** Twenty findings (more than the message shows: the full report goes in a file) and a graph. */
function bigReport(): DiagnosisReport {
  const t = Date.parse('2026-11-29T07:00:00.000Z');
  return {
    ...report(Array.from({ length: 20 }, (_, i) => finding(i))),
    metrics: {
      source: 'prometheus',
      window: { fromMs: t - 600_000, toMs: t, stepMs: 60_000 },
      chart: ['underReplicated'],
      series: [{ metric: 'underReplicated', broker: 1, unit: 'count', points: [[t - 600_000, 0], [t - 300_000, 4], [t, 12]] }],
      missing: [],
    },
  };
}

function harness(diagnoser: Diagnoser = new ScriptedDiagnoser(bigReport())): Harness {
  return world.harness({ diagnoser });
}

const diagnoseJob = (focus?: 'transactions') =>
  newJob(DIAGNOSE_JOB_KINDS.diagnose, { cluster: 'sandbox', origin: { channelId: 'C0OPS', userId: 'U0ALICE' }, ...(focus ? { focus } : {}) } satisfies DiagnoseJob, 'kr-retry-diag');
const isResult = (text: string) => /^20 findings on sandbox/.test(text);
const files = () => stub.uploads.filter((u) => (u.filename ?? '').startsWith('diagnosis-'));
const charts = () => stub.uploads.filter((u) => (u.filename ?? '').endsWith('.png'));

function thread() {
  const top = stub.topLevel('C0OPS');
  expect(top).toHaveLength(1);
  return { parent: top[0]!, replies: stub.thread(top[0]!.ts) };
}

describe('/kafka diagnose retried after its worker died', () => {
  it('killed right after posting the result: the retry finds it; one result, the file and the graph once each', async () => {
    const h = harness();
    await killedThenRetried(h, diagnoseJob(), { post: (m) => isResult(m.text) });
    const { parent, replies } = thread();
    expect(replies.filter((m) => isResult(m.text))).toHaveLength(1);
    expect(files()).toHaveLength(1);
    expect(charts()).toHaveLength(1);
    expect(parent.text).toMatch(/20 findings/);
    // The diagnosis is in the postmortem timeline once, not once per attempt.
    const events = await incidentEvents(world.db.store, incidentIdOf(parent.channel, parent.ts));
    expect(events.filter((e) => e.type === 'diagnosis')).toHaveLength(1);
  });

  it('/kafka transactions killed right after posting the result: one result', async () => {
    const h = harness(new ScriptedDiagnoser(report([finding(1, { kind: 'hanging-transaction', fingerprint: 'hanging-transaction:1' })])));
    await killedThenRetried(h, diagnoseJob('transactions'), { post: (m) => /^1 finding on sandbox/.test(m.text) });
    const { replies } = thread();
    expect(replies).toHaveLength(1);
  });

  it('killed after recording the result, before the file: the retry uploads the file and the graph', async () => {
    const h = harness();
    let resultPosted = false;
    await killedThenRetried(h, diagnoseJob(), {
      post: (m) => ((resultPosted ||= isResult(m.text)), false),
      write: (key) => resultPosted && key.startsWith('job-posted:'),
    });
    const { parent, replies } = thread();
    expect(replies.filter((m) => isResult(m.text))).toHaveLength(1);
    expect(files()).toHaveLength(1);
    expect(charts()).toHaveLength(1);
    expect(parent.text).toMatch(/20 findings/);
  });

  it('killed right after uploading the file: the graph is not lost (the file may be uploaded twice: it carries no metadata)', async () => {
    const h = harness();
    await killedThenRetried(h, diagnoseJob(), { upload: (f) => f.filename.startsWith('diagnosis-') });
    const { parent, replies } = thread();
    expect(replies.filter((m) => isResult(m.text))).toHaveLength(1);
    expect(files().length).toBeGreaterThanOrEqual(1);
    expect(files().length).toBeLessThanOrEqual(2);
    expect(charts()).toHaveLength(1);
    expect(parent.text).toMatch(/20 findings/);
  });

  it('delivered again after it finished: no Slack call but the final edit, no second diagnosis', async () => {
    const diagnoser = new ScriptedDiagnoser(bigReport());
    const h = harness(diagnoser);
    const job = diagnoseJob();
    await runJob(job, h.worker, h.jobs);
    const calls = stub.calls.length;
    await runJob(job, h.worker, h.jobs);
    expect(stub.calls.slice(calls).map((c) => c.method)).toEqual(['chat.update']);
    expect(diagnoser.requests).toHaveLength(1);
  });
});

describe('/kafka can-restart retried after its worker died', () => {
  it('killed right after posting its answer: the retry finds it and posts no second one', async () => {
    const h = harness();
    const job = newJob(DIAGNOSE_JOB_KINDS.canRestart, { cluster: 'sandbox', brokerId: 2, origin: { channelId: 'C0OPS', userId: 'U0ALICE' } } satisfies CanRestartJob, 'kr-retry-cr');
    await killedThenRetried(h, job, { post: () => true });
    expect(stub.topLevel('C0OPS')).toHaveLength(1);
    expect(stub.callsTo('conversations.history').length).toBeGreaterThan(0);
  });
});
