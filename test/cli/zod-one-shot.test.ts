// lib/cli/zod-one-shot.ts sets zod's jitless flag through the config zod keeps
// on globalThis, without importing zod: this holds zod (a dependency update)
// to that place, with zod loaded before the flag is set and after.
import { afterEach, describe, expect, it, vi } from 'vitest';

type Shared = { __zod_globalConfig?: Record<string, unknown> };
const shared = globalThis as Shared;
const original = shared.__zod_globalConfig;

afterEach(() => {
  shared.__zod_globalConfig = original;
  if (original) delete original.jitless;
});

describe('zod for one-shot commands', () => {
  it('zod loaded before the flag: the config it already holds gets jitless', async () => {
    const { config } = await import('zod');
    config({ jitless: false });
    vi.resetModules();
    await import('../../lib/cli/zod-one-shot.ts');
    expect(config().jitless).toBe(true);
  });

  it('zod loaded after the flag: it reads jitless', async () => {
    delete shared.__zod_globalConfig;
    vi.resetModules();
    await import('../../lib/cli/zod-one-shot.ts');
    const { config } = await import('zod');
    expect(config().jitless).toBe(true);
  });
});
