// A worker that dies right after one chosen write succeeded: Slack accepted a
// post or an upload, or the state store took an item. From then on every call
// it makes (Slack or store) fails, as nothing runs in a killed Lambda; the
// test then runs the same job again with a live worker, as SQS would.
import { expect } from 'vitest';
import type { Job } from '../../lib/queue/job.ts';
import type { FileUpload, OutgoingMessage, SlackPoster } from '../../lib/slack/web.ts';
import type { StateStore } from '../../lib/state/state-store.ts';
import { runJob, type JobRegistry, type WorkerDeps } from '../../lib/worker/worker.ts';

export interface KillPoint {
  post?: (m: OutgoingMessage) => boolean;
  upload?: (f: FileUpload) => boolean;
  /** A store write (create, replace, put) of a key. */
  write?: (key: string) => boolean;
}

export class WorkerKilled extends Error {
  override name = 'WorkerKilled';
  constructor() {
    super('worker killed');
  }
}

export function dyingWorker<D extends WorkerDeps>(deps: D, at: KillPoint): D & { died: () => boolean } {
  let dead = false;
  const alive = () => {
    if (dead) throw new WorkerKilled();
  };
  const after = <T>(matched: boolean, value: T): T => {
    if (matched) {
      dead = true;
      throw new WorkerKilled();
    }
    return value;
  };
  const s = deps.slack;
  const slack: SlackPoster = {
    post: async (m) => (alive(), after(at.post?.(m) ?? false, await s.post(m))),
    update: async (m) => (alive(), s.update(m)),
    upload: async (f) => (alive(), after(at.upload?.(f) ?? false, await s.upload(f))),
    respond: async (u, b) => (alive(), s.respond(u, b)),
    ...(s.find ? { find: async (w, m) => (alive(), s.find!(w, m)) } : {}),
  };
  const st = deps.store;
  const store: StateStore = {
    get: async (k) => (alive(), st.get(k)),
    // A conditional write that lost changed nothing: the worker goes on.
    create: async (k, v, t) => {
      alive();
      const ok = await st.create(k, v, t);
      return after(ok && (at.write?.(k) ?? false), ok);
    },
    replace: async (k, ver, v, t) => {
      alive();
      const ok = await st.replace(k, ver, v, t);
      return after(ok && (at.write?.(k) ?? false), ok);
    },
    put: async (k, v, t, l) => (alive(), after(at.write?.(k) ?? false, await st.put(k, v, t, l))),
    remove: async (k) => (alive(), st.remove(k)),
    list: async (l, n) => (alive(), st.list(l, n)),
    count: async (k, by, t, lim) => (alive(), st.count(k, by, t, lim)),
  };
  return { ...deps, slack, store, died: () => dead };
}

/** Runs `job` on a worker killed at `at` (it must die there), then again on a live one, as SQS delivers it again. */
export async function killedThenRetried(h: { worker: WorkerDeps; jobs: JobRegistry }, job: Job, at: KillPoint): Promise<void> {
  const dying = dyingWorker<WorkerDeps>(h.worker, at);
  await runJob(job, dying, h.jobs).catch(() => {});
  expect(dying.died()).toBe(true);
  await runJob(job, h.worker, h.jobs);
}
