// Faults on the ack path, with state on dynalite: the job queue (SQS) refusing
// a job, and DynamoDB throttling. The user is always told what happened;
// nothing is half-recorded (no status entry, no approval request for a job
// that never ran); status bookkeeping never fails a command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import type { Plan } from '../../lib/operations/types.ts';
import type { Job, JobQueue } from '../../lib/queue/job.ts';
import { buildSlackHandler } from '../../lib/root/slack.ts';
import { listRunning } from '../../lib/state/activity.ts';
import type { StateStore } from '../../lib/state/state-store.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from './helpers/harness.ts';
import { SIGNING_SECRET, slashEvent } from './helpers/signed.ts';

let db: DynaliteHandle;
let dynamo: LocalDynamo;
let approvalStore: ApprovalStore;
beforeAll(async () => {
  db = await startDynalite();
  dynamo = await startLocalDynamo();
  approvalStore = new ApprovalStore(dynamo.client, { tableName: 'approvals-ack-faults' });
  await approvalStore.ensureTable();
});
afterAll(async () => {
  await db.close();
  await dynamo.close();
});

const config = parseConfig({ ...BASE_CONFIG, approvals: { approvers: ['U0ALICE', 'U0BOB'] } });

/** SQS answering SendMessage with an error (throttled, unavailable, access denied). */
class RefusingQueue implements JobQueue {
  attempts: Job[] = [];
  async enqueue(job: Job): Promise<void> {
    this.attempts.push(job);
    throw Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable' });
  }
}

class RecordingQueue implements JobQueue {
  jobs: Job[] = [];
  async enqueue(job: Job): Promise<void> {
    this.jobs.push(job);
  }
}

const throttled = () => Object.assign(new Error('The level of configured provisioned throughput for the table was exceeded'), { name: 'ProvisionedThroughputExceededException' });

/** The state store with DynamoDB throttling some writes for good (its own retries already spent). */
function throttling(store: StateStore, what: { puts?: boolean; creates?: boolean }): StateStore {
  return {
    get: (k) => store.get(k),
    create: (k, v, t) => (what.creates ? Promise.reject(throttled()) : store.create(k, v, t)),
    replace: (k, e, v, t) => store.replace(k, e, v, t),
    put: (k, v, t, l) => (what.puts ? Promise.reject(throttled()) : store.put(k, v, t, l)),
    remove: (k) => store.remove(k),
    list: (l, n) => store.list(l, n),
    count: (k, b, t, l) => store.count(k, b, t, l),
  };
}

let seq = 0;
function handler(queue: JobQueue, store: StateStore = db.store) {
  const log = recordingLog();
  const approvals = new ApprovalService<Plan>({ store: approvalStore, policy: approvalPolicy(config) });
  return { log, handle: buildSlackHandler({ config, queue, store, log, signingSecret: SIGNING_SECRET, botToken: 'xoxb-test', slackApiUrl: 'http://127.0.0.1:9/api/', approvals }) };
}
async function slash(h: ReturnType<typeof handler>, text: string) {
  const res = await h.handle(slashEvent({ text, responseUrl: `http://127.0.0.1:9/r${++seq}` }));
  return { status: res.statusCode, reply: res.statusCode === 200 ? (JSON.parse(res.body) as { text: string }) : null };
}

describe('the job queue refuses the job (SQS send failure)', () => {
  it('diagnose: the user is told nothing started, and no status entry is left behind', async () => {
    const queue = new RefusingQueue();
    const h = handler(queue);
    const { status, reply } = await slash(h, 'diagnose sandbox');
    expect(status).toBe(200);
    expect(reply!.text).toMatch(/could not queue this request.*nothing was started/s);
    expect(queue.attempts).toHaveLength(1);
    expect((await listRunning(db.store, 'C0OPS')).some((a) => a.id === queue.attempts[0]!.id)).toBe(false);
    expect(h.log.records.some((r) => r.level === 'error' && r.message.includes('could not enqueue'))).toBe(true);
  });

  it('an operation: the user is told, no status entry, and no approval request exists', async () => {
    const queue = new RefusingQueue();
    const h = handler(queue);
    const { reply } = await slash(h, 'drain 2');
    expect(reply!.text).toMatch(/could not queue this request/);
    expect((await listRunning(db.store, 'C0OPS')).some((a) => a.id === queue.attempts[0]!.id)).toBe(false);
    expect(await approvalStore.listForSweep()).toEqual([]);
  });
});

describe('DynamoDB throttling on the ack path', () => {
  it('status bookkeeping throttled for good: the command is still acked and its job queued', async () => {
    const queue = new RecordingQueue();
    const h = handler(queue, throttling(db.store, { puts: true }));
    const { status, reply } = await slash(h, 'diagnose sandbox');
    expect(status).toBe(200);
    expect(reply!.text).toMatch(/Diagnosing \*sandbox\*/);
    expect(queue.jobs).toHaveLength(1);
    expect(h.log.records.some((r) => r.level === 'warn' && r.message.includes('could not record the running job'))).toBe(true);
  });

  it('the replay check throttled for good: the request is refused with 503, never let through unchecked', async () => {
    const queue = new RecordingQueue();
    const h = handler(queue, throttling(db.store, { creates: true }));
    const { status } = await slash(h, 'diagnose sandbox');
    expect(status).toBe(503);
    expect(queue.jobs).toHaveLength(0);
  });
});
