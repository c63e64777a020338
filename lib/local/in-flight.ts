// The requests serve is answering right now, so that work which can wait (the
// in-process queue's jobs, a refusal's give-backs) starts once they are
// answered: under a burst of slash commands the acks come first, the
// diagnoses right after.
import type { IncomingMessage, ServerResponse } from 'node:http';

export class RequestsInFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Counts `req` until its answer is sent or its connection is gone. */
  track(req: IncomingMessage, res: ServerResponse): void {
    this.count++;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      if (--this.count === 0) this.waiters.splice(0).forEach((wake) => wake());
    };
    res.once('finish', end);
    res.once('close', end);
    req.once('error', end);
  }

  /** Resolves when no request is in flight, or after `maxWaitMs` at most (a steady stream of requests never holds work back for longer). */
  quiet(maxWaitMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(wake, maxWaitMs);
      function wake() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(wake);
    });
  }
}
