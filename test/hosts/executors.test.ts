// Probe fan-out is capped per cluster: however many diagnoses run at once,
// at most `load.maxConcurrentProbes` hosts are probed at a time, in order.
import { describe, expect, it } from 'vitest';
import { cappedExecutor } from '../../lib/hosts/executors.ts';
import type { ExecutionResult, Executor, HostTarget } from '../../lib/hosts/types.ts';
import { Semaphore } from '../../lib/runtime/semaphore.ts';

function countingExecutor() {
  let inFlight = 0;
  const stats = { peak: 0, calls: [] as number[] };
  const executor: Executor = {
    kind: 'ssm',
    async run(targets) {
      stats.calls.push(targets.length);
      inFlight += targets.length;
      stats.peak = Math.max(stats.peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight -= targets.length;
      return targets.map((target): ExecutionResult => ({ target, status: 'Success', outcome: 'completed', exitCode: 0, stdout: `${target.brokerId}`, stderr: '', truncated: false, commandId: 'c', durationMs: 5 }));
    },
  };
  return { executor, stats };
}

const targets = (n: number): HostTarget[] => Array.from({ length: n }, (_, i) => ({ brokerId: i + 1, address: `i-${i + 1}` }));
const script = { script: 'probe', params: {}, timeoutMs: 1000, comment: 'probe' };

describe('cappedExecutor', () => {
  it('probes 30 hosts of three concurrent diagnoses at most 4 at a time, results in target order', async () => {
    const { executor, stats } = countingExecutor();
    const capped = cappedExecutor(executor, new Semaphore(4));
    const runs = await Promise.all([capped.run(targets(10), script), capped.run(targets(10), script), ...targets(10).map((t) => capped.run([t], script))]);
    expect(stats.peak).toBeLessThanOrEqual(4);
    expect(Math.max(...stats.calls)).toBeLessThanOrEqual(4);
    expect(runs[0]!.map((r) => r.stdout)).toEqual(targets(10).map((t) => String(t.brokerId)));
    expect(capped.kind).toBe('ssm');
  });
});
