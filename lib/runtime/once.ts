// A value built on first use and kept. For module-level zod schemas a command
// may never parse with: zod builds each schema at a cost (about 10 ms of CPU
// for a config's worth), paid at load otherwise, by every start.
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
