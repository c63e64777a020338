// Runs one of our fixed host scripts on EC2 instances through SSM Run Command
// — its own Command document (lib/hosts/scripts.ts, deployed with the stack),
// sent by name with typed parameters, never AWS-RunShellScript — and waits for
// every invocation with short polls. A command still not over when the wait
// ends is cancelled (CancelCommand) and followed for a few seconds more to its
// final state; whatever is still unknown then is reported as such
// (outcome may-still-be-running), never as "not sent".
//
// Why not the SDK waiter: its delays (5–120 s) are far too slow for a Lambda
// that has seconds, and it waits for one instance at a time.

import {
  CancelCommandCommand,
  GetCommandInvocationCommand,
  SendCommandCommand,
  type GetCommandInvocationCommandOutput,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { HOST_SCRIPTS, checkParams, scriptOf, type HostScripts } from './scripts.ts';
import type { ExecutionOutcome, ExecutionResult, ExecutionStatus, Executor, HostTarget, ScriptRun } from './types.ts';
import { errorMessage } from '../runtime/errors.ts';

/** SendCommand takes at most 50 instance ids. */
export const SSM_BATCH_SIZE = 50;
/** StandardOutputContent keeps the first 24,000 characters; StandardErrorContent 8,000. */
export const SSM_STDOUT_LIMIT = 24_000;
export const SSM_STDERR_LIMIT = 8_000;
const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

/** The deployed stack names each script's document <stack>-<script> (serverless.yml, KR_SSM_DOCUMENT_PREFIX). */
export const DEFAULT_DOCUMENT_PREFIX = 'kafka-responder-prod-';

export interface SsmExecutorOptions {
  client: SSMClient;
  /** Document name = prefix + script name, e.g. "kafka-responder-prod-probe". */
  documentPrefix?: string;
  scripts?: HostScripts;
  /** First poll delay; each later one is 1.5× longer, up to pollMaxMs. */
  pollMinMs?: number;
  pollMaxMs?: number;
  /** Delivery timeout given to SSM (TimeoutSeconds, at least 30). */
  deliveryTimeoutSeconds?: number;
  /** After the wait: how long a cancelled command is followed to its final state (beyond run.timeoutMs). */
  cancelFollowMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export function isInstanceId(s: string): boolean {
  return INSTANCE_ID.test(s);
}

/** SendCommand's Parameters for a script run: every value checked against the script's patterns first. */
export function documentParameters(run: ScriptRun, scripts: HostScripts = HOST_SCRIPTS): Record<string, string[]> {
  const values = checkParams(scriptOf(scripts, run.script), run.params);
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(values)) out[name] = [value];
  out.executionTimeout = [String(Math.max(1, Math.ceil(run.timeoutMs / 1000)))];
  return out;
}

interface Pending {
  index: number;
  target: HostTarget;
  commandId: string;
  lastStatus: string | null;
  lastError: string | null;
  /** The agent reported it running at some point (InProgress, or a start time). */
  started: boolean;
  /** We sent CancelCommand for it (our wait ran out). */
  cancelSent: boolean;
}

const errorName = (e: unknown): string =>
  (e && typeof e === 'object' && 'name' in e && typeof e.name === 'string' ? e.name : '') || 'Error';

/** SSM's "slow down" answers (the SDK's own retries already spent): wait and ask again. */
const THROTTLED = new Set(['ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded']);
const SEND_ATTEMPTS = 5;

/** Records target `i`'s result as a failure. */
type FailTarget = (i: number, status: ExecutionStatus, outcome: ExecutionOutcome, detail: string, commandId?: string | null) => void;

export class SsmExecutor implements Executor {
  readonly kind = 'ssm' as const;
  private readonly client: SSMClient;
  private readonly documentPrefix: string;
  private readonly scripts: HostScripts;
  private readonly pollMinMs: number;
  private readonly pollMaxMs: number;
  private readonly deliveryTimeoutSeconds: number;
  private readonly cancelFollowMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(opts: SsmExecutorOptions) {
    this.client = opts.client;
    this.documentPrefix = opts.documentPrefix ?? DEFAULT_DOCUMENT_PREFIX;
    this.scripts = opts.scripts ?? HOST_SCRIPTS;
    this.pollMinMs = opts.pollMinMs ?? 250;
    this.pollMaxMs = opts.pollMaxMs ?? 1500;
    this.deliveryTimeoutSeconds = Math.max(30, opts.deliveryTimeoutSeconds ?? 30);
    this.cancelFollowMs = Math.max(0, opts.cancelFollowMs ?? 5_000);
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.now = opts.now ?? Date.now;
  }

  async run(targets: HostTarget[], run: ScriptRun): Promise<ExecutionResult[]> {
    const started = this.now();
    const deadline = started + run.timeoutMs;
    const results: (ExecutionResult | undefined)[] = new Array(targets.length);
    const fail: FailTarget = (i, status, outcome, detail, commandId = null) => {
      results[i] = {
        target: targets[i]!,
        status,
        outcome,
        exitCode: null,
        stdout: '',
        stderr: '',
        truncated: false,
        commandId,
        durationMs: this.now() - started,
        detail,
      };
    };

    const valid: number[] = [];
    targets.forEach((t, i) => {
      if (isInstanceId(t.address)) valid.push(i);
      else fail(i, 'Failed', 'not-delivered', `not an EC2 instance id: ${JSON.stringify(t.address)}`);
    });

    const pending = await this.sendBatches(targets, valid, run, deadline, fail);

    let waiting = await this.poll(pending, deadline, results, started);
    if (waiting.length > 0) {
      // Not over at the deadline: it may still run (a stop may still be issued). Cancel it,
      // then follow it a little longer, so what we report is its final state where SSM has one.
      await this.cancel(waiting);
      waiting = await this.poll(waiting, this.now() + this.cancelFollowMs, results, started);
    }

    for (const p of waiting) {
      const waited = `no result within ${run.timeoutMs} ms`;
      const unconfirmed = `; CancelCommand sent, not confirmed within ${this.cancelFollowMs} ms: it may still run`;
      if (p.lastStatus === 'Delayed') fail(p.index, 'Delayed', 'may-still-be-running', `${waited}; SSM could not deliver the command yet (Delayed)${unconfirmed}`, p.commandId);
      else if (!p.started && (p.lastStatus === 'Pending' || p.lastStatus === null)) {
        const why = p.lastError ? `; last error ${p.lastError}` : '';
        fail(p.index, 'TimedOut', 'may-still-be-running', `${waited}; the agent had not started it (${p.lastStatus ?? 'no invocation'})${why}${unconfirmed}`, p.commandId);
      } else fail(p.index, 'TimedOut', 'may-still-be-running', `${waited}; still ${p.lastStatus ?? 'running'}${unconfirmed}`, p.commandId);
    }
    return results.map((r, i) => r ?? { ...this.missing(targets[i]!, started) });
  }

  /** One SendCommand per 50 instances: the invocations sent, to poll; a batch SSM did not accept fails its targets. */
  private async sendBatches(targets: HostTarget[], valid: number[], run: ScriptRun, deadline: number, fail: FailTarget): Promise<Pending[]> {
    const pending: Pending[] = [];
    const parameters = documentParameters(run, this.scripts);
    const documentName = `${this.documentPrefix}${scriptOf(this.scripts, run.script).name}`;
    const comment = run.comment.slice(0, 100);

    for (let b = 0; b < valid.length; b += SSM_BATCH_SIZE) {
      const batch = valid.slice(b, b + SSM_BATCH_SIZE);
      const instanceIds = [...new Set(batch.map((i) => targets[i]!.address))];
      try {
        const out = await this.sendThrottled(deadline, () =>
          this.client.send(new SendCommandCommand({
            DocumentName: documentName,
            // The newest version: a stack update that changed a script took effect at once.
            DocumentVersion: '$LATEST',
            InstanceIds: instanceIds,
            Parameters: parameters,
            TimeoutSeconds: this.deliveryTimeoutSeconds,
            Comment: comment,
            MaxConcurrency: String(SSM_BATCH_SIZE),
            // One broken host must not stop the command reaching the others (the default is 0).
            MaxErrors: '100%',
          })),
        );
        const commandId = out.Command?.CommandId;
        if (!commandId) {
          for (const i of batch) fail(i, 'Failed', 'not-delivered', 'SendCommand returned no command id');
          continue;
        }
        for (const i of batch) pending.push({ index: i, target: targets[i]!, commandId, lastStatus: null, lastError: null, started: false, cancelSent: false });
      } catch (e) {
        // InvalidInstanceId: not managed by SSM, stopped, or the agent is not online.
        const status: ExecutionStatus = errorName(e) === 'InvalidInstanceId' ? 'Unreachable' : 'Failed';
        // A send that failed is a command SSM never accepted.
        for (const i of batch) fail(i, status, 'not-delivered', `SendCommand failed: ${errorName(e)}: ${errorMessage(e)}`);
      }
    }
    return pending;
  }

  /** Polls until each invocation is final or `until`; final ones go into `results`, the rest are returned. */
  private async poll(pending: Pending[], until: number, results: (ExecutionResult | undefined)[], started: number): Promise<Pending[]> {
    let delay = this.pollMinMs;
    let waiting = pending;
    while (waiting.length > 0) {
      const remaining = until - this.now();
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
              if (p.lastStatus === 'InProgress' || inv.ExecutionStartDateTime) p.started = true;
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
    return waiting;
  }

  /** CancelCommand for these invocations, per command. A refusal (it just finished: InvalidCommandId) changes nothing: the follow-up polls tell. */
  private async cancel(pending: readonly Pending[]): Promise<void> {
    const byCommand = new Map<string, string[]>();
    for (const p of pending) {
      p.cancelSent = true;
      byCommand.set(p.commandId, [...(byCommand.get(p.commandId) ?? []), p.target.address]);
    }
    await Promise.all(
      [...byCommand].map(async ([commandId, instanceIds]) => {
        try {
          await this.client.send(new CancelCommandCommand({ CommandId: commandId, InstanceIds: [...new Set(instanceIds)] }));
        } catch (e) {
          for (const p of pending) if (p.commandId === commandId) p.lastError = `CancelCommand: ${errorName(e)}: ${errorMessage(e)}`;
        }
      }),
    );
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
    return { target, status: 'Failed', outcome: 'may-still-be-running', exitCode: null, stdout: '', stderr: '', truncated: false, commandId: null, durationMs: this.now() - started, detail: 'no result' };
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
    const withDetail = (s: ExecutionStatus, outcome: ExecutionOutcome, detail?: string): ExecutionResult =>
      detail ? { ...base, status: s, outcome, detail } : { ...base, status: s, outcome };

    switch (status) {
      case 'Success':
        return withDetail('Success', 'completed');
      case 'Cancelled':
        // Cancelled while it waited for the agent (seen waiting, never running, no start time): nothing ran.
        // Otherwise part of it may have.
        if (!p.started && !inv.ExecutionStartDateTime && (p.lastStatus === 'Pending' || p.lastStatus === 'Delayed' || p.lastStatus === 'Cancelling')) {
          return p.cancelSent
            ? withDetail('TimedOut', 'not-delivered', `no result in time; the agent never started it (${p.lastStatus}), and it was cancelled`)
            : withDetail('Cancelled', 'not-delivered', `cancelled before the agent started it (${details || 'Cancelled'})`);
        }
        return withDetail('Cancelled', 'interrupted', `cancelled (${details || 'Cancelled'}): part of it may have run`);
      case 'TimedOut':
        // Delivery Timed Out: the agent never got it (host down or agent offline).
        if (details === 'Delivery Timed Out') return withDetail('Unreachable', 'not-delivered', 'SSM could not deliver the command (Delivery Timed Out)');
        return withDetail('TimedOut', 'interrupted', `the script ran out of time (${details || 'Execution Timed Out'})`);
      case 'Failed':
        if (details === 'Undeliverable') return withDetail('Undeliverable', 'not-delivered', 'SSM could not deliver the command (Undeliverable: instance unknown, stopped, or without a working agent)');
        if (details === 'Terminated') return withDetail('Failed', 'interrupted', 'the command was terminated before it finished (Terminated)');
        return withDetail('Failed', 'completed', `the script failed with exit code ${code ?? 'unknown'}${details && details !== 'Failed' ? ` (${details})` : ''}`);
      default:
        if (details === 'Undeliverable') return withDetail('Undeliverable', 'not-delivered', 'SSM could not deliver the command (Undeliverable)');
        return withDetail('Failed', 'may-still-be-running', `unexpected SSM status ${status}${details ? ` (${details})` : ''}`);
    }
  }
}
