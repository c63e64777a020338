// For a command that runs once and exits. zod compiles a fast parser for each
// object schema (code generated with `new Function` on its first parse, and
// compiled by V8), which pays off over thousands of parses in a long-running
// process; a one-shot command parses each schema once or twice, so building
// that code is all cost (about 20 ms of CPU in `diagnose`). The flag is read
// when an object schema is created: this module runs before any other loads.
// It is set where zod keeps its config, on globalThis (shared by every copy
// of zod in the process), without loading zod: a diagnosis starts its host
// probes before zod is needed (test/cli/zod-one-shot.test.ts holds zod to it).
// In place: a zod already loaded holds that very object.
const shared = globalThis as { __zod_globalConfig?: Record<string, unknown> };
(shared.__zod_globalConfig ??= {}).jitless = true;
