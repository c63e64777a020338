// The worker's adapter around the diagnosis: progress counted over the whole
// run however the probe runner batches, and the correlation id carried into
// each host command's comment (SSM Comment).
import { describe, expect, it } from 'vitest';
import type { ExecutionResult, Executor, HostTarget, ScriptRun } from '../../lib/hosts/types.ts';
import { tracingExecutor, type DiagnoseProgress } from '../../lib/diagnose/diagnoser.ts';

class FakeExecutor implements Executor {
  readonly kind = 'ssm' as const;
  readonly runs: { targets: HostTarget[]; comment: string }[] = [];
  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    this.runs.push({ targets, comment: run.comment });
    return targets.map((target) => ({ target, status: 'Success', outcome: 'completed', exitCode: 0, stdout: '{}', stderr: '', truncated: false, commandId: `cmd-${target.brokerId}`, durationMs: 1 }));
  }
}

const script: ScriptRun = { script: 'probe', params: {}, timeoutMs: 1000, comment: 'kafka-responder read-only host probe' };
const t = (brokerId: number): HostTarget => ({ brokerId, address: `i-0000000000000000${brokerId}` });

describe('tracingExecutor', () => {
  it('counts progress across calls, one host per call, with command ids', async () => {
    const inner = new FakeExecutor();
    const seen: DiagnoseProgress[] = [];
    const ex = tracingExecutor(inner, { total: 3, correlationId: 'kr-abc', onProgress: (p) => seen.push(p) });
    const first = await ex.run([t(1), t(2)], script);
    await ex.run([t(3)], script);
    expect(first.map((r) => r.commandId)).toEqual(['cmd-1', 'cmd-2']);
    expect(inner.runs.map((r) => r.targets.length)).toEqual([1, 1, 1]);
    expect(seen.map((p) => `${p.done}/${p.total}`)).toEqual(['0/3', '1/3', '2/3', '3/3']);
    expect(seen.at(-1)).toMatchObject({ brokerId: 3, commandId: 'cmd-3', stage: 'hosts probed' });
  });

  it('puts the correlation id in the command comment, within SSM’s 100 characters', async () => {
    const inner = new FakeExecutor();
    await tracingExecutor(inner, { total: 1, correlationId: 'kr-0123456789abcdef' }).run([t(1)], { ...script, comment: 'x'.repeat(100) });
    expect(inner.runs[0]!.comment.startsWith('kr-0123456789abcdef ')).toBe(true);
    expect(inner.runs[0]!.comment.length).toBe(100);
  });
});
