// An executor whose first runs began before the program that wants them had
// loaded: the CLI starts the sandbox's host probes first thing (lib/cli/early-probes.ts),
// and the diagnosis, asking for the very same runs, gets those already under way.
// A run asked for that was not started (other targets, parameters or time) runs
// as it would have; a started one nobody asked for is stopped by discard().

import type { ExecutionResult, Executor, HostTarget, ScriptRun, StoppableExecutor } from './types.ts';

const keyOf = (targets: HostTarget[], run: ScriptRun): string => JSON.stringify([targets, run]);

export class PrestartedExecutor implements Executor {
  readonly kind: Executor['kind'];
  private readonly started = new Map<string, Promise<ExecutionResult[]>>();

  constructor(private readonly inner: StoppableExecutor) {
    this.kind = inner.kind;
  }

  /** Lets `start` run whatever it would through this executor; each run is kept for the caller that asks for it again. */
  prestart(start: (executor: Executor) => unknown): void {
    start({
      kind: this.kind,
      run: (targets, run) => {
        const executions = this.inner.run(targets, run);
        this.started.set(keyOf(targets, run), executions);
        return executions;
      },
    });
  }

  /** How many prestarted runs nobody has taken yet. */
  get unclaimed(): number {
    return this.started.size;
  }

  run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    const key = keyOf(targets, run);
    const executions = this.started.get(key);
    if (!executions) return this.inner.run(targets, run);
    this.started.delete(key);
    return executions;
  }

  /** Stops the runs started, claimed or not: call it once the program is done with them. */
  discard(): void {
    this.started.clear();
    this.inner.stopAll();
  }
}
