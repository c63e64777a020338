// The requests serve is answering right now, so that work which can wait (the
// in-process queue's jobs, a refusal's give-backs) starts once they are
// answered: under a burst of slash commands the acks come first, the
// diagnoses right after.
import type { IncomingMessage, ServerResponse } from 'node:http';

export class RequestsInFlight {
  /** One promise per request being answered, settled when its answer is sent or its connection is gone. */
  private readonly answering = new Set<Promise<void>>();

  /** Counts `req` until its answer is sent or its connection is gone. */
  track(req: IncomingMessage, res: ServerResponse): void {
    let end!: () => void;
    const answered = new Promise<void>((resolve) => (end = resolve));
    this.answering.add(answered);
    const done = () => {
      this.answering.delete(answered);
      end();
    };
    res.once('finish', done);
    res.once('close', done);
    req.once('error', done);
  }

  /**
   * Resolves once the requests in flight now are answered, or after
   * `maxWaitMs` at most. Requests that arrive later are not waited for: a
   * steady stream of alerts never holds an approved run back.
   */
  quiet(maxWaitMs: number): Promise<void> {
    if (this.answering.size === 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)));
    return Promise.race([Promise.all([...this.answering]).then(() => undefined), bound]).finally(() => clearTimeout(timer));
  }
}
