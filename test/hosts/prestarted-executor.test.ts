// Runs started before their caller loaded are handed to it when it asks for
// exactly the same run; anything else runs as it would have; discard stops them.
import { describe, expect, it } from 'vitest';
import { PrestartedExecutor } from '../../lib/hosts/prestarted-executor.ts';
import type { ExecutionResult, HostTarget, ScriptRun, StoppableExecutor } from '../../lib/hosts/types.ts';

function fakeInner() {
  const calls: { targets: HostTarget[]; run: ScriptRun }[] = [];
  let stopped = 0;
  const inner: StoppableExecutor = {
    kind: 'local',
    run: (targets, run) => {
      calls.push({ targets, run });
      return Promise.resolve(targets.map((target): ExecutionResult => ({ target, commandId: null, status: 'Success', outcome: 'completed', exitCode: 0, stdout: `run ${calls.length}`, stderr: '', truncated: false, durationMs: 1 })));
    },
    stopAll: () => void stopped++,
  };
  return { inner, calls, stops: () => stopped };
}

const host = (brokerId: number): HostTarget => ({ brokerId, address: `/sandbox/broker-${brokerId}` });
const probe = (params: Record<string, string> = { config: '/sandbox/broker-1/config/server.properties' }): ScriptRun => ({ script: 'probe', params, timeoutMs: 18_000, comment: 'c' });

describe('PrestartedExecutor', () => {
  it('hands the started run to the first identical request, once; a second one runs anew', async () => {
    const { inner, calls } = fakeInner();
    const ex = new PrestartedExecutor(inner);
    ex.prestart((e) => e.run([host(1)], probe()));
    expect(ex.kind).toBe('local');
    expect(ex.unclaimed).toBe(1);
    const [first] = await ex.run([host(1)], probe());
    expect(first!.stdout).toBe('run 1');
    expect(calls).toHaveLength(1);
    expect(ex.unclaimed).toBe(0);
    const [again] = await ex.run([host(1)], probe());
    expect(again!.stdout).toBe('run 2');
  });

  it('another host, other parameters or another timeout is not the started run', async () => {
    const { inner, calls } = fakeInner();
    const ex = new PrestartedExecutor(inner);
    ex.prestart((e) => e.run([host(1)], probe()));
    await ex.run([host(2)], probe());
    await ex.run([host(1)], probe({ config: '/elsewhere/server.properties' }));
    await ex.run([host(1)], { ...probe(), timeoutMs: 5_000 });
    expect(calls).toHaveLength(4);
    expect(ex.unclaimed).toBe(1);
  });

  it('discard stops what was started and forgets what nobody took', () => {
    const { inner, stops } = fakeInner();
    const ex = new PrestartedExecutor(inner);
    ex.prestart((e) => [e.run([host(1)], probe()), e.run([host(2)], probe())]);
    ex.discard();
    expect(stops()).toBe(1);
    expect(ex.unclaimed).toBe(0);
  });
});
