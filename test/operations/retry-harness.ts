// A worker that dies right after a chosen write succeeded, and the same job
// delivered again: the harness of execute-retry and sweep-retry tests. The
// approvals, the state store, Slack (a stub on loopback), the queue and the
// scripted cluster are each wrapped; once the chosen write has gone through,
// every later call of the dead attempt throws, as nothing of a killed process
// reaches anything any more. Approvals and state on dynalite; the queue only
// records, the test runs what was enqueued when it chooses ("the following jobs").
import { ApprovalService } from '../../lib/approvals/service.ts';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { approvalPolicy } from '../../lib/approvals/runtime.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { operationsJobs } from '../../lib/operations/jobs.ts';
import { OPS_JOB_KINDS, type OpsPlanJob } from '../../lib/operations/requests.ts';
import { parseOpsCommand } from '../../lib/operations/slack.ts';
import type { OperationsBackend } from '../../lib/operations/backend.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { newJob, type Job, type JobQueue } from '../../lib/queue/job.ts';
import type { StateStore } from '../../lib/state/state-store.ts';
import { webApiPoster, type SlackPoster } from '../../lib/slack/web.ts';
import { JobRegistry, runJob, type WorkerDeps } from '../../lib/worker/worker.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import type { LocalDynamo } from '../approvals/local-dynamodb.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';
import type { SlackStub, StubMessage } from '../slack/helpers/slack-stub.ts';
import { ScriptedOperations } from './scripted-operations.ts';

export const REQUESTER = 'U0REQ';
export const CONFIG = parseConfig({
  ...BASE_CONFIG,
  slack: { ...BASE_CONFIG.slack, allowedUsers: [REQUESTER, 'U0ALICE', 'U0BOB'] },
  approvals: { approvers: ['U0ALICE', 'U0BOB'] },
  operations: { pollSeconds: 1 },
});

/** Which write the worker dies right after: what was written (label), the method, its arguments. */
export type KillPoint = (label: 'slack' | 'store' | 'approvals' | 'kafka' | 'queue', method: string, args: unknown[]) => boolean;

export class Killed extends Error {
  override name = 'Killed';
}

/** Wraps `target`: after the call `at` names succeeds, that call and every later one throws. */
export function mortal(at: KillPoint) {
  const state = { dead: false };
  const wrap = <T extends object>(target: T, label: Parameters<KillPoint>[0]): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const value = Reflect.get(t, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (state.dead) throw new Killed('worker killed');
          const out = (value as (...a: unknown[]) => unknown).apply(t, args);
          if (!(out instanceof Promise)) return out;
          return out.then((result: unknown) => {
            if (state.dead) throw new Killed('worker killed');
            // The cluster's admin is opened from the backend: what it writes can kill too.
            if ((prop === 'io' || prop === 'openAdmin') && result && typeof result === 'object') return wrap(result, 'kafka');
            if (at(label, String(prop), args)) {
              state.dead = true;
              throw new Killed('worker killed');
            }
            return result;
          });
        };
      },
    });
  return { state, wrap };
}

/** The scripted backend whose io() is wrapped (io is sync; openAdmin's result is wrapped by mortal). */
function wrappedBackend(ops: ScriptedOperations, wrap: ReturnType<typeof mortal>['wrap']): OperationsBackend {
  return { plan: (c, r) => ops.plan(c, r), io: (c) => wrap(ops.io(c), 'kafka') };
}

export interface RetryWorld {
  approvals: ApprovalService<Plan>;
  ops: ScriptedOperations;
  store: StateStore;
  stub: SlackStub;
  queued: { job: Job; delayMs?: number }[];
  log: ReturnType<typeof recordingLog>;
  /** Moves the approvals' clock on: a dead worker's lease runs out. */
  skew(ms: number): void;
  /** Runs `job` as a healthy worker does (its errors are the test's). */
  run(job: Job, remainingMs?: number): Promise<void>;
  /**
   * Runs `job`, then what it enqueues, on a worker that dies right after `at`; resolves once it
   * is dead (with the job it died in: SQS delivers that one again) or nothing is left to run.
   */
  runDying(job: Job, at: KillPoint, remainingMs?: number): Promise<{ died: boolean; job: Job }>;
  /** Runs what is queued (and what that queues) until nothing is; at most `max` jobs. */
  drain(max?: number): Promise<number>;
}

export async function retryWorld(dynamo: LocalDynamo, store: StateStore, stub: SlackStub, table: string): Promise<RetryWorld> {
  const approvalStore = new ApprovalStore(dynamo.client, { tableName: table });
  await approvalStore.ensureTable({ pollMs: 5 });
  let skew = 0;
  const approvals = new ApprovalService<Plan>({ store: approvalStore, policy: approvalPolicy(CONFIG), now: () => Date.now() + skew });
  const ops = new ScriptedOperations();
  const log = recordingLog();
  const queued: { job: Job; delayMs?: number }[] = [];
  const queue: JobQueue = { enqueue: async (job, o) => void queued.push({ job, ...(o?.delayMs !== undefined ? { delayMs: o.delayMs } : {}) }) };
  const slack: SlackPoster = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 0, store, log });
  const deps = (remainingMs?: number): WorkerDeps => ({ config: CONFIG, slack, store, log, queue, ...(remainingMs ? { remainingMs: () => remainingMs } : {}) });
  const healthy = new JobRegistry(operationsJobs({ approvals, operations: ops }));
  const world: RetryWorld = {
    approvals,
    ops,
    store,
    stub,
    queued,
    log,
    skew: (ms) => void (skew += ms),
    run: (job, remainingMs) => runJob(job, deps(remainingMs), healthy),
    async runDying(job, at, remainingMs) {
      const m = mortal(at);
      const d = deps(remainingMs);
      const registry = new JobRegistry(operationsJobs({ approvals: m.wrap(approvals, 'approvals'), operations: wrappedBackend(ops, m.wrap) }));
      const dying: WorkerDeps = { ...d, slack: m.wrap(slack, 'slack'), store: m.wrap(store, 'store'), queue: m.wrap(queue, 'queue') };
      let current = job;
      for (let ran = 0; ran < 40; ran++) {
        await runJob(current, dying, registry).catch((err: unknown) => {
          if (!m.state.dead) throw err;
        });
        if (m.state.dead || !queued.length) break;
        current = queued.shift()!.job;
      }
      return { died: m.state.dead, job: current };
    },
    async drain(max = 40) {
      let ran = 0;
      while (queued.length && ran < max) {
        const next = queued.shift()!;
        ran++;
        await world.run(next.job, 10_500);
      }
      return ran;
    },
  };
  return world;
}

/** Plans `command` (as typed after /kafka) and has it approved by two approvers; the request id. */
export async function approvedRequest(w: RetryWorld, command: string): Promise<{ id: string; plan: StubMessage }> {
  const [verb, ...args] = command.split(' ');
  const parsed = parseOpsCommand(verb!, args, CONFIG);
  if ('error' in parsed) throw new Error(parsed.error);
  const payload: OpsPlanJob = { cluster: 'sandbox', request: parsed.request, origin: { channelId: 'C0OPS', userId: REQUESTER } };
  const job = newJob(OPS_JOB_KINDS.plan, payload, `kr-retry-${Math.random().toString(36).slice(2, 8)}`);
  await w.run(job);
  const id = job.id;
  await w.approvals.approve(id, 'U0ALICE');
  await w.approvals.approve(id, 'U0BOB');
  const plan = w.stub.topLevel('C0OPS').find((m) => JSON.stringify(m.blocks).includes(id))!;
  return { id, plan };
}

export const executeJob = (id: string): Job => newJob(OPS_JOB_KINDS.execute, { requestId: id, cluster: 'sandbox' }, `kr-exec-${id.slice(0, 8)}`, `ops-${id}`);

/** The plan thread's messages whose text matches. */
export const inThread = (w: RetryWorld, plan: StubMessage, re: RegExp) => w.stub.thread(plan.ts).filter((m) => re.test(m.text));
