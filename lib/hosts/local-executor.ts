// Runs a host script on this machine, against a sandbox broker's host
// directory, with the same contract as SSM: bounded time, stdout cut at
// 24,000 characters (and `truncated` set), stderr at 8,000. What runs is
// what the script's SSM document ends in (lib/hosts/scripts.ts): its body as
// `bash -c` text, with the arguments the document makes of the parameters
// (scriptArgs: test/hosts/scripts.test.ts runs the document under sh and
// compares) and stdin empty. Without the document's sh, here-document and
// cat: three processes fewer a script, 15 ms of a sandbox diagnosis whose
// three probes share the machine's cores with it.

import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { HOST_SCRIPTS, scriptArgs, scriptOf, type HostScripts } from './scripts.ts';
import type { ExecutionResult, HostTarget, ScriptRun, StoppableExecutor } from './types.ts';

export const STDOUT_LIMIT = 24_000;
export const STDERR_LIMIT = 8_000;
/** Bytes kept from each stream before decoding; generous so multi-byte text still yields the first 24,000 characters. */
const CAPTURE_BYTES = 4 * STDOUT_LIMIT;

export interface LocalExecutorOptions {
  /** Runs at once (the machine is small). */
  concurrency?: number;
  /** The scripts it may run (tests give their own); HOST_SCRIPTS by default. */
  scripts?: HostScripts;
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

export class LocalExecutor implements StoppableExecutor {
  readonly kind = 'local' as const;
  /** Process groups of the scripts under way, each with what kills it. */
  private readonly running = new Set<() => void>();
  private readonly concurrency: number;
  private readonly scripts: HostScripts;

  constructor(opts: LocalExecutorOptions = {}) {
    this.concurrency = Math.max(1, opts.concurrency ?? 4);
    this.scripts = opts.scripts ?? HOST_SCRIPTS;
  }

  /** Kills every script still running, with its process group (they answer as killed by a signal). */
  stopAll(): void {
    for (const kill of this.running) kill();
  }

  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    const script = scriptOf(this.scripts, run.script);
    // scriptArgs checks every value against its parameter's pattern first, as the document's allowedPattern does.
    const argv = ['-c', script.body(), script.name, ...scriptArgs(script, run.params)];
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: process.env.HOME ?? '/' };
    const results: ExecutionResult[] = new Array(targets.length);
    let next = 0;
    const worker = async () => {
      while (next < targets.length) {
        const i = next++;
        results[i] = await this.runOne(targets[i]!, argv, env, run.timeoutMs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, targets.length) }, worker));
    return results;
  }

  private async runOne(target: HostTarget, argv: string[], env: Record<string, string>, timeoutMs: number): Promise<ExecutionResult> {
    const started = Date.now();
    const base = { target, commandId: null, truncated: false, stdout: '', stderr: '', exitCode: null };
    // A host directory that is not there is a host that does not answer.
    // (Synchronous: one local stat, and the script starts in this same turn of the event loop.)
    const isDir = isDirectory(target.address);
    if (!isDir) {
      return { ...base, status: 'Unreachable', outcome: 'not-delivered', durationMs: Date.now() - started, detail: `host directory ${target.address} does not exist` };
    }

    return new Promise<ExecutionResult>((resolve) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outBytes = 0;
      let errBytes = 0;
      let overflow = false;
      let timedOut = false;
      let settled = false;

      // Parameter values are arguments, never shell text; stdin is empty, as the document's `< /dev/null` makes it.
      const child = spawn('bash', argv, {
        cwd: target.address,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // own process group, so a timeout kills the probe's children too
        env,
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
      }, timeoutMs);
      this.running.add(killGroup);

      child.stdout.on('data', (b: Buffer) => {
        if (outBytes < CAPTURE_BYTES) out.push(b);
        else overflow = true;
        outBytes += b.length;
      });
      child.stderr.on('data', (b: Buffer) => {
        if (errBytes < CAPTURE_BYTES) err.push(b);
        errBytes += b.length;
      });

      const finish = (code: number | null, spawnError?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.running.delete(killGroup);
        // Whatever the script left running in its group goes with it.
        killGroup();
        const stdout = capText(Buffer.concat(out).toString('utf8'), STDOUT_LIMIT);
        const stderr = capText(Buffer.concat(err).toString('utf8'), STDERR_LIMIT);
        const durationMs = Date.now() - started;
        const common = { ...base, stdout: stdout.text, stderr: stderr.text, truncated: stdout.cut || overflow, durationMs };
        if (spawnError) {
          resolve({ ...common, status: 'Failed', outcome: 'not-delivered', detail: `could not start bash: ${spawnError.message}` });
        } else if (timedOut) {
          // Killed with its whole process group: not running any more, but part of it may have run.
          resolve({ ...common, status: 'TimedOut', outcome: 'interrupted', exitCode: null, detail: `no answer within ${timeoutMs} ms; process group killed` });
        } else if (code === 0) {
          resolve({ ...common, status: 'Success', outcome: 'completed', exitCode: 0 });
        } else {
          resolve({ ...common, status: 'Failed', outcome: code === null ? 'interrupted' : 'completed', exitCode: code, detail: `script exited with ${code === null ? 'a signal' : `status ${code}`}` });
        }
      };
      child.on('error', (e) => finish(null, e));
      child.on('close', (code) => finish(code));
    });
  }
}
