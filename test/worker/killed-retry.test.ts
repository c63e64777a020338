// A worker killed mid-job: SQS delivers the same job again, and the retry
// posts one result, not two (what a job posted is recorded by job id in the
// state store, on dynalite). Covers `/kafka diagnose` and an alert's diagnosis.
import { describe, expect, it } from 'vitest';
import type { DiagnoseRequest, Diagnoser } from '../../lib/diagnose/diagnoser.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { DIAGNOSE_JOB_KINDS, type DiagnoseJob } from '../../lib/diagnose/kinds.ts';
import { ALERT_JOB_KIND } from '../../lib/alerts/event.ts';
import { parseAlertmanager } from '../../lib/alerts/alertmanager.ts';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { runJob } from '../../lib/worker/worker.ts';
import { alertmanagerPayload } from '../alerts/fixtures/samples.ts';
import { BASE_CONFIG, finding, report, type Harness } from '../slack/helpers/harness.ts';
import { useWorkerRetryWorld } from './retry-world.ts';

// A fresh table per test: a diagnosis shared from an earlier test must not answer this one.
const world = useWorkerRetryWorld();
const { stub } = world;

/** The first diagnosis never returns (its worker is killed in the middle); later ones answer. */
class KilledOnceDiagnoser implements Diagnoser {
  calls = 0;
  private hung: ((r: DiagnosisReport) => void) | null = null;
  async diagnose(req: DiagnoseRequest): Promise<DiagnosisReport> {
    this.calls++;
    req.onProgress?.({ stage: 'brokers probed', done: 1, total: 3 });
    if (this.calls === 1) return new Promise((resolve) => (this.hung = resolve));
    return report([finding(7)]);
  }
  async canRestart(): Promise<never> {
    throw new Error('not used');
  }
  /** The dead attempt's promise is dropped, as a killed Lambda's would be. */
  forget(): void {
    this.hung = null;
  }
}

/** Sharing on, as deployed: the retry must also get past the dead attempt's lease. */
const config = { ...BASE_CONFIG, clusters: BASE_CONFIG.clusters.map((c) => ({ ...c, load: { shareDiagnosisSeconds: 30 } })) };

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

function harness(diagnoser: Diagnoser): Harness {
  return world.harness({ diagnoser, config });
}

const run = (h: Harness, job: Job) => runJob(job, h.worker, h.jobs);

describe('a worker killed mid-diagnosis', () => {
  it('/kafka diagnose: the retry edits the first progress message and posts one result', async () => {
    const diagnoser = new KilledOnceDiagnoser();
    const h = harness(diagnoser);
    const payload: DiagnoseJob = { cluster: 'sandbox', origin: { channelId: 'C0OPS', userId: 'U0ALICE' } };
    const job = newJob(DIAGNOSE_JOB_KINDS.diagnose, payload, 'kr-killed-1');
    void run(h, job);
    await until(() => stub.topLevel('C0OPS').length === 1 && diagnoser.calls === 1, 'the first attempt to post its progress');
    diagnoser.forget();

    await run(h, job);
    const top = stub.topLevel('C0OPS');
    expect(top).toHaveLength(1);
    const results = stub.thread(top[0]!.ts);
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0]!.blocks)).toContain('orders-7');
    expect(top[0]!.text).toMatch(/1 finding/);
    expect(diagnoser.calls).toBe(2);
  });

  it('/kafka diagnose: a job delivered again after it finished posts nothing new', async () => {
    const diagnoser = new KilledOnceDiagnoser();
    diagnoser.calls = 1;
    const h = harness(diagnoser);
    const job = newJob(DIAGNOSE_JOB_KINDS.diagnose, { cluster: 'sandbox', origin: { channelId: 'C0OPS', userId: 'U0ALICE' } } satisfies DiagnoseJob, 'kr-twice-1');
    await run(h, job);
    const posts = stub.callsTo('chat.postMessage').length;
    const diagnoses = diagnoser.calls;
    await run(h, job);
    expect(stub.callsTo('chat.postMessage').length).toBe(posts);
    expect(stub.thread(stub.topLevel('C0OPS')[0]!.ts)).toHaveLength(1);
    expect(diagnoser.calls).toBe(diagnoses);
  });

  it("an alert's diagnosis: the retry finishes the same progress message in the group's thread", async () => {
    const diagnoser = new KilledOnceDiagnoser();
    const h = harness(diagnoser);
    const payload = alertmanagerPayload('firing');
    const events = parseAlertmanager(JSON.stringify({ ...payload, groupKey: `${payload.groupKey}#killed` }));
    if (!events.ok) throw new Error('fixture did not parse');
    const job = newJob(ALERT_JOB_KIND, events.value, 'am-killed-1', 'g-killed');
    void run(h, job);
    await until(() => stub.topLevel().length === 1 && diagnoser.calls === 1, 'the first attempt to open the thread');
    diagnoser.forget();

    await run(h, job);
    const [parent] = stub.topLevel();
    const thread = stub.thread(parent!.ts);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.text).toBe('1 finding on sandbox: 1 critical');
    expect(diagnoser.calls).toBe(2);
  });
});
