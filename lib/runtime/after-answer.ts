// Work a request's answer need not wait for (giving back a command slot a
// refusal made useless). A long-lived process (`serve`) answers first and does
// it afterwards; a Lambda is frozen once it answers, so there the work is done
// before the answer (no AfterAnswer given: see doAfterAnswer).
import { errorMessage } from './errors.ts';
import type { Log } from './log.ts';

/** Runs `work` once the current answers are out; never throws to its caller. */
export type AfterAnswer = (what: string, work: () => Promise<void>) => void;

/** `work` through `after` when there is one, else now (awaited). Failures are logged, never thrown. */
export async function doAfterAnswer(after: AfterAnswer | undefined, log: Log, what: string, work: () => Promise<void>): Promise<void> {
  if (after) return after(what, work);
  await work().catch((err: unknown) => log.warn(`${what} failed`, { error: errorMessage(err) }));
}

/**
 * serve's AfterAnswer: the work starts once `startGate` opens (serve: when the
 * requests in flight are answered, so under a burst it does not take the CPU
 * the other acks need); idle() waits for all of it. A gate that fails only
 * lets the work start.
 */
export class BackgroundWork {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly log: Log,
    private readonly startGate: () => Promise<void> = () => new Promise<void>((r) => setImmediate(r)),
  ) {}

  readonly after: AfterAnswer = (what, work) => {
    const p: Promise<void> = this.startGate()
      .catch(() => undefined)
      .then(work)
      .catch((err: unknown) => this.log.warn(`${what} failed`, { error: errorMessage(err) }))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  };

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }
}
