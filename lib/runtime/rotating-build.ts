// "Rebuild when a secret rotates", once for every Lambda handler: the handler
// (or worker) is built once per container from secrets it reads itself; each
// invocation reads the secrets again (within their cache TTL that is no call)
// and a changed one rebuilds it. A failed build is not kept: the next
// invocation tries again instead of the container crashing in a loop.
import { errorMessage } from './errors.ts';
import type { Log } from './log.ts';

export interface BuiltWith<T> {
  value: T;
  /** The secrets `value` was built with, in `readSecrets` order. */
  secrets: readonly string[];
}

export interface RotatingBuildOptions<T> {
  /** Named in the log lines, e.g. "slack handler". */
  name: string;
  log: Log;
  /** The current secrets (cached reads), compared with those of the build. */
  readSecrets: () => Promise<readonly string[]>;
  /** Builds the value, reading its secrets itself so it can overlap them with other set-up. */
  build: () => Promise<BuiltWith<T>>;
  /** Start building at once (Lambda init has a full CPU) instead of on the first call. */
  eager?: boolean;
}

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The value of the current build; concurrent callers share one build and one rebuild. */
export function rotatingBuild<T>(opts: RotatingBuildOptions<T>): () => Promise<T> {
  let building: Promise<BuiltWith<T>> | undefined;
  const start = (): Promise<BuiltWith<T>> => {
    const p = opts.build();
    building = p;
    p.catch((err: unknown) => {
      opts.log.error(`${opts.name} could not be built`, { error: errorMessage(err) });
      if (building === p) building = undefined;
    });
    return p;
  };
  if (opts.eager) start();
  return async () => {
    const p = building ?? start();
    const built = await p;
    if (same(await opts.readSecrets(), built.secrets)) return built.value;
    // Another caller may have started the rebuild already: join it.
    if (building === p) {
      opts.log.info(`a secret was rotated; rebuilding the ${opts.name}`);
      start();
    }
    return (await (building ?? start())).value;
  };
}
