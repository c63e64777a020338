import { describe, expect, it } from 'vitest';
import { rotatingBuild } from '../../lib/runtime/rotating-build.ts';
import { recordingLog } from '../helpers/recording-log.ts';

function fixture(opts: { failFirst?: boolean } = {}) {
  const state = { secret: 's1', builds: 0, reads: 0 };
  const log = recordingLog();
  const get = rotatingBuild({
    name: 'test handler',
    log,
    readSecrets: async () => {
      state.reads++;
      return [state.secret, 'fixed'];
    },
    build: async () => {
      state.builds++;
      const secret = state.secret;
      await new Promise((r) => setTimeout(r, 5));
      if (opts.failFirst && state.builds === 1) throw new Error('SSM unavailable');
      return { value: `built with ${secret} (#${state.builds})`, secrets: [secret, 'fixed'] };
    },
  });
  return { state, get, log };
}

describe('rotatingBuild', () => {
  it('builds once while the secrets stay the same, and concurrent first calls share that build', async () => {
    const { state, get } = fixture();
    const values = await Promise.all([get(), get(), get()]);
    expect(new Set(values)).toEqual(new Set(['built with s1 (#1)']));
    expect(await get()).toBe('built with s1 (#1)');
    expect(state.builds).toBe(1);
  });

  it('rebuilds once when a secret rotates, however many calls see the change at the same time', async () => {
    const { state, get, log } = fixture();
    await get();
    state.secret = 's2';
    const values = await Promise.all([get(), get(), get()]);
    expect(new Set(values)).toEqual(new Set(['built with s2 (#2)']));
    expect(state.builds).toBe(2);
    expect(log.records.some((l) => /secret was rotated; rebuilding the test handler/.test(l.message))).toBe(true);
  });

  it('does not keep a failed build: the call fails, the next one builds again', async () => {
    const { state, get } = fixture({ failFirst: true });
    await expect(get()).rejects.toThrow(/SSM unavailable/);
    expect(await get()).toBe('built with s1 (#2)');
    expect(state.builds).toBe(2);
  });
});
