import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capText, LocalExecutor } from '../../lib/hosts/local-executor.ts';
import type { HostScript } from '../../lib/hosts/scripts.ts';
import type { ScriptRun } from '../../lib/hosts/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'kr-local-exec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const target = { brokerId: 1, address: dir };

/** Test scripts: `body` with no parameters, and `args` whose (deliberately permissive) parameters show how values arrive. */
let body = '';
const SCRIPTS: Record<string, HostScript> = {
  body: { name: 'body', description: 't', body: () => body, parameters: [] },
  args: {
    name: 'args',
    description: 't',
    body: () => 'printf "%s|" "$@"; pwd',
    parameters: [
      { name: 'first', description: 'anything', allowedPattern: '^.*$', pass: { as: 'positional' } },
      { name: 'opt', description: 'anything', allowedPattern: '^.*$', optional: true, pass: { as: 'option', flag: '--opt' } },
      { name: 'list', description: 'anything', allowedPattern: '^.*$', optional: true, pass: { as: 'list' } },
    ],
  },
};
const exec = new LocalExecutor({ scripts: SCRIPTS });
const run = (script: string, over: Partial<ScriptRun> = {}): ScriptRun => {
  body = script;
  return { script: 'body', params: {}, timeoutMs: 10_000, comment: 'test', ...over };
};

describe('LocalExecutor', () => {
  it('runs the script with parameter values as data, never as shell text', async () => {
    const marker = join(dir, 'pwned');
    const evil = `$(touch ${marker})`;
    const [r] = await exec.run([target], { script: 'args', params: { first: evil, opt: "it's `id`", list: 'a b,*,c' }, timeoutMs: 10_000, comment: 't' });
    expect(r).toMatchObject({ status: 'Success', exitCode: 0, truncated: false, commandId: null });
    // Lists split on commas only, no globbing; an option is passed with its flag.
    expect(r!.stdout).toBe(`${evil}|--opt|it's \`id\`|a b|*|c|${dir}\n`);
    expect(existsSync(marker)).toBe(false);
    const [none] = await exec.run([target], { script: 'args', params: { first: 'x' }, timeoutMs: 10_000, comment: 't' });
    expect(none!.stdout).toBe(`x|${dir}\n`);
  });

  it('refuses an unknown script or parameter, and a missing required one, before running anything', async () => {
    await expect(exec.run([target], { script: 'nope', params: {}, timeoutMs: 1000, comment: 't' })).rejects.toThrow(/no host script "nope"/);
    await expect(exec.run([target], { script: 'args', params: { first: 'x', other: 'y' }, timeoutMs: 1000, comment: 't' })).rejects.toThrow(/no parameter "other"/);
    await expect(exec.run([target], { script: 'args', params: {}, timeoutMs: 1000, comment: 't' })).rejects.toThrow(/"first" is required/);
  });

  it('reports a failing script with its exit code and stderr', async () => {
    const [r] = await exec.run([target], run('echo oops >&2; exit 3'));
    expect(r).toMatchObject({ status: 'Failed', exitCode: 3, stderr: 'oops\n' });
  });

  it('cuts stdout at 24,000 characters like SSM and says so', async () => {
    const [r] = await exec.run([target], run('head -c 30000 /dev/zero | tr "\\0" x'));
    expect(r!.stdout).toHaveLength(24_000);
    expect(r!.truncated).toBe(true);
    const [exact] = await exec.run([target], run('head -c 24000 /dev/zero | tr "\\0" y'));
    expect(exact!.stdout).toHaveLength(24_000);
    expect(exact!.truncated).toBe(false);
  });

  it('kills the whole process group when the time is up', async () => {
    const pidFile = join(dir, 'child.pid');
    const started = Date.now();
    const [r] = await exec.run([target], run(`sleep 30 & echo $! > ${pidFile}; wait`, { timeoutMs: 400 }));
    expect(r).toMatchObject({ status: 'TimedOut', exitCode: null });
    expect(Date.now() - started).toBeLessThan(5_000);
    const { readFileSync } = await import('node:fs');
    const childPid = Number(readFileSync(pidFile, 'utf8').trim());
    // The background sleep is gone too (dead, or a zombie waiting for its new parent to reap it).
    const alive = () => {
      try {
        return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${childPid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 40 && alive(); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive()).toBe(false);
  });

  it('calls a missing host directory unreachable and runs the others', async () => {
    const results = await exec.run([{ brokerId: 9, address: join(dir, 'missing') }, target], run('echo ok'));
    expect(results.map((r) => [r.target.brokerId, r.status])).toEqual([
      [9, 'Unreachable'],
      [1, 'Success'],
    ]);
  });

  it('keeps result order with more targets than its concurrency', async () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ brokerId: i, address: dir }));
    const results = await new LocalExecutor({ concurrency: 2, scripts: SCRIPTS }).run(many, run('sleep 0.0$((RANDOM % 5)); echo done'));
    expect(results.map((r) => r.target.brokerId)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(results.every((r) => r.status === 'Success')).toBe(true);
  });

  it('capText cuts by characters', () => {
    expect(capText('abcdef', 4)).toEqual({ text: 'abcd', cut: true });
    expect(capText('abc', 4)).toEqual({ text: 'abc', cut: false });
  });

  it('stopAll kills the scripts still running, their children too, and each answers as interrupted', async () => {
    const marker = join(dir, 'after-stop');
    const running = exec.run([target], run(`sleep 5 & wait; touch ${marker}`));
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    exec.stopAll();
    const [r] = await running;
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(r).toMatchObject({ status: 'Failed', outcome: 'interrupted', exitCode: null });
    expect(existsSync(marker)).toBe(false);
    exec.stopAll(); // nothing left: a no-op
  });
});
