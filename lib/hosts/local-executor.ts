// Runs a host script on this machine, against a sandbox broker's host
// directory, with the same contract as SSM: bounded time, stdout cut at
// 24,000 characters (and `truncated` set), stderr at 8,000.

import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import type { ExecutionResult, Executor, HostTarget, ScriptRun } from './types.ts';

export const STDOUT_LIMIT = 24_000;
export const STDERR_LIMIT = 8_000;
/** Bytes kept from each stream before decoding; generous so multi-byte text still yields the first 24,000 characters. */
const CAPTURE_BYTES = 4 * STDOUT_LIMIT;

export interface LocalExecutorOptions {
  /** Runs at once (the machine is small). */
  concurrency?: number;
  /** The shell to run; bash by default. */
  shell?: string;
}

/** Cuts text to `limit` characters (UTF-16 code units, as SSM's limit is applied to the text). */
export function capText(text: string, limit: number): { text: string; cut: boolean } {
  return text.length > limit ? { text: text.slice(0, limit), cut: true } : { text, cut: false };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class LocalExecutor implements Executor {
  readonly kind = 'local' as const;
  private readonly concurrency: number;
  private readonly shell: string;

  constructor(opts: LocalExecutorOptions = {}) {
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.shell = opts.shell ?? 'bash';
  }

  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    const results: ExecutionResult[] = new Array(targets.length);
    let next = 0;
    const worker = async () => {
      while (next < targets.length) {
        const i = next++;
        results[i] = await this.runOne(targets[i]!, run);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, targets.length) }, worker));
    return results;
  }

  private async runOne(target: HostTarget, run: ScriptRun): Promise<ExecutionResult> {
    const started = Date.now();
    const base = { target, commandId: null, truncated: false, stdout: '', stderr: '', exitCode: null };
    // A host directory that is not there is a host that does not answer.
    // (Synchronous: one local stat, and the script starts in this same turn of the event loop.)
    const isDir = isDirectory(target.address);
    if (!isDir) {
      return { ...base, status: 'Unreachable', durationMs: Date.now() - started, detail: `host directory ${target.address} does not exist` };
    }

    return new Promise<ExecutionResult>((resolve) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let overflow = false;
      let timedOut = false;
      let settled = false;

      // The script goes in on stdin and the arguments as argv: nothing is interpolated into a command line.
      const child = spawn(this.shell, ['-s', '--', ...run.args], {
        cwd: target.address,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // own process group, so a timeout kills the probe's children too
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: process.env.HOME ?? '/' },
      });

      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, run.timeoutMs);

      child.stdout.on('data', (b: Buffer) => {
        if (outBytes < CAPTURE_BYTES) out.push(b);
        else overflow = true;
        outBytes += b.length;
      });
      child.stderr.on('data', (b: Buffer) => {
        if (errBytes < CAPTURE_BYTES) err.push(b);
        errBytes += b.length;
      });
      child.stdin.on('error', () => {
        // the script may exit before reading all of stdin; its exit status tells the story
      });

      const finish = (code: number | null, spawnError?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // Whatever the script left running in its group goes with it.
        killGroup();
        const stdout = capText(Buffer.concat(out).toString('utf8'), STDOUT_LIMIT);
        const stderr = capText(Buffer.concat(err).toString('utf8'), STDERR_LIMIT);
        const durationMs = Date.now() - started;
        const common = { ...base, stdout: stdout.text, stderr: stderr.text, truncated: stdout.cut || overflow, durationMs };
        if (spawnError) {
          resolve({ ...common, status: 'Failed', detail: `could not start ${this.shell}: ${spawnError.message}` });
        } else if (timedOut) {
          resolve({ ...common, status: 'TimedOut', exitCode: null, detail: `no answer within ${run.timeoutMs} ms; process group killed` });
        } else if (code === 0) {
          resolve({ ...common, status: 'Success', exitCode: 0 });
        } else {
          resolve({ ...common, status: 'Failed', exitCode: code, detail: `script exited with ${code === null ? 'a signal' : `status ${code}`}` });
        }
      };
      child.on('error', (e) => finish(null, e));
      child.on('close', (code) => finish(code));
      child.stdin.end(run.script);
    });
  }
}
