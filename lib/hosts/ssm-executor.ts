// Runs a host script on EC2 instances through SSM Run Command
// (AWS-RunShellScript), and waits for every invocation with short polls.
//
// Why not the SDK waiter: its delays (5–120 s) are far too slow for a Lambda
// that has seconds, and it waits for one instance at a time.

import { gzipSync } from 'node:zlib';
import {
  GetCommandInvocationCommand,
  SendCommandCommand,
  type GetCommandInvocationCommandOutput,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import type { ExecutionResult, ExecutionStatus, Executor, HostTarget, ScriptRun } from './types.ts';
import { errorMessage } from '../runtime/errors.ts';

/** SendCommand takes at most 50 instance ids. */
export const SSM_BATCH_SIZE = 50;
/** StandardOutputContent keeps the first 24,000 characters; StandardErrorContent 8,000. */
export const SSM_STDOUT_LIMIT = 24_000;
export const SSM_STDERR_LIMIT = 8_000;
const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
/** Arguments are embedded (single-quoted) in the command text, so only plain tokens are accepted. */
const SAFE_ARG = /^[A-Za-z0-9_.,:=/@+%-]{0,256}$/;

export interface SsmExecutorOptions {
  client: SSMClient;
  /** First poll delay; each later one is 1.5× longer, up to pollMaxMs. */
  pollMinMs?: number;
  pollMaxMs?: number;
  /** Delivery timeout given to SSM (TimeoutSeconds, at least 30). */
  deliveryTimeoutSeconds?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export function isInstanceId(s: string): boolean {
  return INSTANCE_ID.test(s);
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The fixed wrapper: writes the script (gzip + base64, so no quoting can go
 * wrong and the parameter stays small) to a private temp file, runs it with
 * bash and the validated arguments, and removes it.
 */
export function buildCommands(script: string, args: string[]): string[] {
  for (const a of args) {
    if (!SAFE_ARG.test(a)) throw new Error(`refusing to send argument ${JSON.stringify(a)}: only [A-Za-z0-9_.,:=/@+%-] are allowed`);
  }
  const payload = gzipSync(Buffer.from(script, 'utf8'), { level: 9 }).toString('base64');
  return [
    'kr_dir=$(mktemp -d /tmp/kafka-responder.XXXXXXXX) || exit 97',
    `trap 'rm -rf "$kr_dir"' EXIT`,
    `printf '%s' '${payload}' | base64 -d | gzip -dc > "$kr_dir/probe.sh" || exit 98`,
    `bash "$kr_dir/probe.sh"${args.map((a) => ' ' + shellQuote(a)).join('')}`,
  ];
}

interface Pending {
  index: number;
  target: HostTarget;
  commandId: string;
  lastStatus: string | null;
  lastError: string | null;
}

const errorName = (e: unknown): string =>
  (e && typeof e === 'object' && 'name' in e && typeof e.name === 'string' ? e.name : '') || 'Error';

/** SSM's "slow down" answers (the SDK's own retries already spent): wait and ask again. */
const THROTTLED = new Set(['ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded']);
const SEND_ATTEMPTS = 5;

export class SsmExecutor implements Executor {
  readonly kind = 'ssm' as const;
  private readonly client: SSMClient;
  private readonly pollMinMs: number;
  private readonly pollMaxMs: number;
  private readonly deliveryTimeoutSeconds: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(opts: SsmExecutorOptions) {
    this.client = opts.client;
    this.pollMinMs = opts.pollMinMs ?? 250;
    this.pollMaxMs = opts.pollMaxMs ?? 1500;
    this.deliveryTimeoutSeconds = Math.max(30, opts.deliveryTimeoutSeconds ?? 30);
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.now = opts.now ?? Date.now;
  }

  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    const started = this.now();
    const deadline = started + run.timeoutMs;
    const results: (ExecutionResult | undefined)[] = new Array(targets.length);
    const fail = (i: number, status: ExecutionStatus, detail: string, commandId: string | null = null) => {
      results[i] = {
        target: targets[i]!,
        status,
        exitCode: null,
        stdout: '',
        stderr: '',
        truncated: false,
        commandId,
        durationMs: this.now() - started,
        detail,
      };
    };

    const commands = buildCommands(run.script, run.args);
    const executionTimeout = Math.max(1, Math.ceil(run.timeoutMs / 1000));
    const comment = run.comment.slice(0, 100);

    const valid: number[] = [];
    targets.forEach((t, i) => {
      if (isInstanceId(t.address)) valid.push(i);
      else fail(i, 'Failed', `not an EC2 instance id: ${JSON.stringify(t.address)}`);
    });

    // One SendCommand per 50 instances.
    const pending: Pending[] = [];
    for (let b = 0; b < valid.length; b += SSM_BATCH_SIZE) {
      const batch = valid.slice(b, b + SSM_BATCH_SIZE);
      const instanceIds = [...new Set(batch.map((i) => targets[i]!.address))];
      try {
        const out = await this.sendThrottled(deadline, () =>
          this.client.send(new SendCommandCommand({
            DocumentName: 'AWS-RunShellScript',
            InstanceIds: instanceIds,
            Parameters: { commands, executionTimeout: [String(executionTimeout)] },
            TimeoutSeconds: this.deliveryTimeoutSeconds,
            Comment: comment,
            MaxConcurrency: String(SSM_BATCH_SIZE),
            // One broken host must not stop the command reaching the others (the default is 0).
            MaxErrors: '100%',
          })),
        );
        const commandId = out.Command?.CommandId;
        if (!commandId) {
          for (const i of batch) fail(i, 'Failed', 'SendCommand returned no command id');
          continue;
        }
        for (const i of batch) pending.push({ index: i, target: targets[i]!, commandId, lastStatus: null, lastError: null });
      } catch (e) {
        // InvalidInstanceId: not managed by SSM, stopped, or the agent is not online.
        const status: ExecutionStatus = errorName(e) === 'InvalidInstanceId' ? 'Unreachable' : 'Failed';
        for (const i of batch) fail(i, status, `SendCommand failed: ${errorName(e)}: ${errorMessage(e)}`);
      }
    }

    let delay = this.pollMinMs;
    let waiting = pending;
    while (waiting.length > 0) {
      const remaining = deadline - this.now();
      if (remaining <= 0) break;
      await this.sleep(Math.min(delay, remaining));
      delay = Math.min(this.pollMaxMs, Math.round(delay * 1.5));
      const still: Pending[] = [];
      let throttled = false;
      await Promise.all(
        waiting.map(async (p) => {
          try {
            const inv = await this.client.send(
              new GetCommandInvocationCommand({ CommandId: p.commandId, InstanceId: p.target.address }),
            );
            const done = this.toResult(p, inv, started);
            if (done) results[p.index] = done;
            else {
              p.lastStatus = inv.Status ?? null;
              still.push(p);
            }
          } catch (e) {
            // Right after SendCommand the invocation may not exist yet (InvocationDoesNotExist),
            // or SSM throttles the polls: ask again, later.
            if (THROTTLED.has(errorName(e))) throttled = true;
            p.lastError = `${errorName(e)}: ${errorMessage(e)}`;
            still.push(p);
          }
        }),
      );
      // Throttled: the next round waits longer than the usual growth.
      if (throttled) delay = Math.min(this.pollMaxMs * 4, delay * 2);
      waiting = still;
    }

    for (const p of waiting) {
      const waited = `no result within ${run.timeoutMs} ms`;
      if (p.lastStatus === 'Delayed') fail(p.index, 'Delayed', `${waited}; SSM could not deliver the command yet (Delayed)`, p.commandId);
      else if (p.lastStatus === 'Pending' || p.lastStatus === null) {
        const why = p.lastError ? `; last error ${p.lastError}` : '';
        fail(p.index, 'TimedOut', `${waited}; the agent never started it (${p.lastStatus ?? 'no invocation'})${why}`, p.commandId);
      } else fail(p.index, 'TimedOut', `${waited}; last status ${p.lastStatus}`, p.commandId);
    }
    return results.map((r, i) => r ?? { ...this.missing(targets[i]!, started) });
  }

  /** One SSM call, tried again with growing, jittered waits while SSM throttles and time is left. */
  private async sendThrottled<O>(deadline: number, call: () => Promise<O>): Promise<O> {
    let wait = this.pollMinMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (e) {
        const pause = wait + Math.floor(Math.random() * wait);
        if (!THROTTLED.has(errorName(e)) || attempt >= SEND_ATTEMPTS || this.now() + pause >= deadline) throw e;
        await this.sleep(pause);
        wait *= 2;
      }
    }
  }

  private missing(target: HostTarget, started: number): ExecutionResult {
    return { target, status: 'Failed', exitCode: null, stdout: '', stderr: '', truncated: false, commandId: null, durationMs: this.now() - started, detail: 'no result' };
  }

  /** A finished invocation as an ExecutionResult; null while it is still running. */
  private toResult(p: Pending, inv: GetCommandInvocationCommandOutput, started: number): ExecutionResult | null {
    const status = inv.Status ?? 'Pending';
    const details = inv.StatusDetails ?? '';
    if (status === 'Pending' || status === 'InProgress' || status === 'Delayed') return null;
    if (status === 'Cancelling') return null; // becomes Cancelled

    const stdout = inv.StandardOutputContent ?? '';
    const stderr = inv.StandardErrorContent ?? '';
    const code = inv.ResponseCode;
    const base = {
      target: p.target,
      exitCode: code === undefined || code === -1 ? null : code,
      stdout,
      stderr,
      // SSM keeps the first 24,000 characters: exactly that many means it was cut.
      truncated: stdout.length >= SSM_STDOUT_LIMIT,
      commandId: p.commandId,
      durationMs: this.now() - started,
    };
    const withDetail = (s: ExecutionStatus, detail?: string): ExecutionResult =>
      detail ? { ...base, status: s, detail } : { ...base, status: s };

    switch (status) {
      case 'Success':
        return withDetail('Success');
      case 'Cancelled':
        return withDetail('Cancelled', `cancelled (${details || 'Cancelled'})`);
      case 'TimedOut':
        // Delivery Timed Out: the agent never got it (host down or agent offline).
        if (details === 'Delivery Timed Out') return withDetail('Unreachable', 'SSM could not deliver the command (Delivery Timed Out)');
        return withDetail('TimedOut', `the script ran out of time (${details || 'Execution Timed Out'})`);
      case 'Failed':
        if (details === 'Undeliverable') return withDetail('Undeliverable', 'SSM could not deliver the command (Undeliverable: instance unknown, stopped, or without a working agent)');
        if (details === 'Terminated') return withDetail('Failed', 'the command was terminated before it finished (Terminated)');
        return withDetail('Failed', `the script failed with exit code ${code ?? 'unknown'}${details && details !== 'Failed' ? ` (${details})` : ''}`);
      default:
        if (details === 'Undeliverable') return withDetail('Undeliverable', 'SSM could not deliver the command (Undeliverable)');
        return withDetail('Failed', `unexpected SSM status ${status}${details ? ` (${details})` : ''}`);
    }
  }
}
