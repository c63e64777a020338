// The in-process queue (`serve`) treats a job past its time limit as killed,
// as Lambda would: its group's next job must not start while it still runs
// (two jobs of one FIFO group never run at once), and what it remembers of
// killed jobs stays bounded however long the server runs.
import { describe, expect, it } from 'vitest';
import { newJob, type Job } from '../../lib/queue/job.ts';

const job = (id: string, group?: string, payload: unknown = {}): Job => ({ ...newJob('k', payload, `c-${id}`, group), id });
import { InProcessJobQueue } from '../../lib/queue/queue.ts';

describe('in-process queue: a job past its time limit', () => {
  it("holds its group's next job until it has stopped, while other groups go on", async () => {
    const events: string[] = [];
    let slowEnded!: () => void;
    const slowDone = new Promise<void>((r) => (slowEnded = r));
    const queue = new InProcessJobQueue(
      async (j, limits) => {
        events.push(`start ${j.id}`);
        if (j.id === 'slow') {
          // Stops only some time after its signal is aborted, as a job finishing its current step does.
          await new Promise<void>((resolve) => limits.signal.addEventListener('abort', () => setTimeout(resolve, 25)));
        }
        events.push(`end ${j.id}`);
        if (j.id === 'slow') slowEnded();
      },
      undefined,
      50,
    );
    await queue.enqueue(job('slow', 'g1'));
    await queue.enqueue(job('next-in-group', 'g1'));
    await queue.enqueue(job('other-group', 'g2'));
    await Promise.all([queue.idle(), slowDone]);
    expect(events.indexOf('start next-in-group')).toBeGreaterThan(events.indexOf('end slow'));
    expect(events.indexOf('end other-group')).toBeLessThan(events.indexOf('end slow'));
    expect(queue.timedOut.map((t) => t.id)).toEqual(['slow']);
  });

  it('remembers the last 100 killed jobs by id only, not their payloads', async () => {
    const queue = new InProcessJobQueue(
      (_job, limits) => new Promise<void>((resolve) => limits.signal.addEventListener('abort', () => resolve())),
      undefined,
      1,
    );
    const payload = { blob: 'x'.repeat(200_000) };
    for (let i = 0; i < 150; i++) await queue.enqueue(job(`j${i}`, undefined, payload));
    await queue.idle();
    expect(queue.timedOut).toHaveLength(100);
    expect(queue.timedOut.at(-1)).toMatchObject({ id: 'j149', kind: 'k' });
    expect(JSON.stringify(queue.timedOut).length).toBeLessThan(10_000);
  });
});
