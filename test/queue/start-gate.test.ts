// The in-process queue's start gate (serve: jobs start once the requests in
// flight are answered): a job waits for it, is never dropped by it (a gate
// that fails lets it start), and jobs of one group still run one at a time in
// their order.
import { describe, expect, it } from 'vitest';
import { newJob, type Job } from '../../lib/queue/job.ts';
import { InProcessJobQueue } from '../../lib/queue/queue.ts';

const job = (id: string, group?: string): Job => ({ ...newJob('k', {}, `c-${id}`, group), id });

function gate(): { wait: () => Promise<void>; open: () => void; waits: number } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const g = { waits: 0, open: () => open(), wait: () => (g.waits++, opened) };
  return g;
}

describe('in-process queue: the start gate', () => {
  it('holds every job until it opens, then runs them all, a group in its order', async () => {
    const started: string[] = [];
    const g = gate();
    const queue = new InProcessJobQueue(async (j) => void started.push(j.id), undefined, 60_000, g.wait);
    for (const id of ['a1', 'a2', 'a3']) await queue.enqueue(job(id, 'a'));
    await queue.enqueue(job('b1'));
    // Enqueued (the ack can answer) but not started while the gate is shut.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([]);
    expect(queue.enqueued.map((j) => j.id)).toEqual(['a1', 'a2', 'a3', 'b1']);
    g.open();
    await queue.idle();
    expect(started.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect([...started].sort()).toEqual(['a1', 'a2', 'a3', 'b1']);
  });

  it('a gate that fails lets the job run: no job is lost to it', async () => {
    const ran: string[] = [];
    const queue = new InProcessJobQueue(async (j) => void ran.push(j.id), undefined, 60_000, () => Promise.reject(new Error('gate broke')));
    await queue.enqueue(job('x'));
    await queue.enqueue(job('y', 'g'));
    await queue.idle();
    expect(ran.sort()).toEqual(['x', 'y']);
  });

  it('two jobs of one group never run at once behind the gate', async () => {
    let running = 0;
    let most = 0;
    const queue = new InProcessJobQueue(
      async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      },
      undefined,
      60_000,
      () => new Promise<void>((r) => setImmediate(r)),
    );
    for (let i = 0; i < 5; i++) await queue.enqueue(job(`j${i}`, 'one-group'));
    await queue.idle();
    expect(most).toBe(1);
  });
});
