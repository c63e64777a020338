// The bound on commands that cost a cluster work (diagnose, transactions,
// can-restart, audit) and on timeline exports: windows per user, per channel
// and per cluster (config commandLimits), kept in the state table so they hold
// across every Lambda instance. Each window is one counter item
// (cmd-budget:<scope>:<id>:<window start>) that a request raises by one atomic
// conditional write (StateStore.count): a burst of a hundred people in one
// channel costs one write each, never a retry against each other, and a full
// window refuses without anything to clean up. Fixed windows: at a window's
// edge a user may get up to twice the bound within seconds, the price of a
// counter that needs no read.
//
// Checked on the ack path, before anything is recorded or enqueued: a refused
// request costs the cluster nothing and is told when to try again.
import type { Config } from '../config/schema.ts';
import { doAfterAnswer, type AfterAnswer } from '../runtime/after-answer.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import type { StateStore } from '../state/state-store.ts';
import { ephemeral } from './commands.ts';
import type { CommandReply } from './registry.ts';

export interface RateWindow {
  requests: number;
  windowSeconds: number;
}

export type BudgetScope = 'user' | 'channel' | 'cluster';

/** A code, not prose: commandBudgetReply() renders it. */
export type BudgetAdmission = { ok: true } | { ok: false; scope: BudgetScope; limit: RateWindow; retryAfterSeconds: number };

/** The windows' counter keys (the Slack role may write only these; `serve` keeps them in process memory beside an in-process dynalite). */
export const BUDGET_KEY_PREFIX = 'cmd-budget:';

/** The window `now` falls in: its counter's key and when it ends (ms). */
export function budgetWindow(scope: BudgetScope, id: string, limit: RateWindow, now: number): { key: string; endsAt: number } {
  const windowMs = limit.windowSeconds * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  return { key: `${BUDGET_KEY_PREFIX}${scope}:${id}:${start}`, endsAt: start + windowMs };
}

export interface BudgetRequest {
  userId: string;
  channelId: string;
  /** The cluster the command reads; absent for work tied to no cluster yet (a timeline export). */
  cluster?: string;
}

export interface BudgetDeps {
  store: StateStore;
  config: Config;
  log: Log;
  /** Where a refusal's give-backs go (serve: after the answer); absent, they are done before it. */
  afterAnswer?: AfterAnswer;
}

/**
 * Counts a request against the user's, the channel's and the cluster's windows,
 * in that order (the narrowest first: one person's flood never eats the
 * channel's or the cluster's budget). A scope that refuses gives back the
 * slots the earlier ones took: the refusal does not depend on it, so where the
 * process outlives its answer (deps.afterAnswer) that is done after the answer.
 */
export async function admitCommand(deps: BudgetDeps, request: BudgetRequest, now = Date.now()): Promise<BudgetAdmission> {
  const limits = deps.config.commandLimits;
  const scopes: [BudgetScope, string, RateWindow][] = [
    ['user', request.userId, limits.perUser],
    ['channel', request.channelId, limits.perChannel],
    ...(request.cluster ? ([['cluster', request.cluster, limits.perCluster]] as [BudgetScope, string, RateWindow][]) : []),
  ];
  const taken: string[] = [];
  const releaseTaken = async () => void (await Promise.all(taken.map((k) => giveBack(deps.store, k, deps.log))));
  for (const [scope, id, limit] of scopes) {
    const { key, endsAt } = budgetWindow(scope, id, limit, now);
    let counted: boolean;
    try {
      // The counter outlives its window a little: DynamoDB's TTL deletes it within days, the key is never read again.
      counted = await deps.store.count(key, 1, limit.windowSeconds + 60, limit.requests);
    } catch (err) {
      await releaseTaken();
      throw err;
    }
    if (!counted) {
      if (taken.length) await doAfterAnswer(deps.afterAnswer, deps.log, 'giving command slots back', releaseTaken);
      return { ok: false, scope, limit, retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)) };
    }
    taken.push(key);
  }
  return { ok: true };
}

/** Gives back a count a later scope made useless (it refused the request); best effort. */
async function giveBack(store: StateStore, key: string, log: Log): Promise<void> {
  try {
    await store.count(key, -1, 60);
  } catch (err) {
    log.warn('could not give a command slot back', { key, error: errorMessage(err) });
  }
}

const WHOSE: Record<BudgetScope, string> = { user: 'from you', channel: 'in this channel', cluster: 'for this cluster' };

/** The refusal, in the ack: what the bound is and when to try again. */
export function commandBudgetReply(refusal: Extract<BudgetAdmission, { ok: false }>, what: string): CommandReply {
  const { requests, windowSeconds } = refusal.limit;
  // Only the commands that read a cluster spare it; a timeline export reads our own records.
  const why = what === 'timeline' ? '' : ', to spare the cluster while it is in trouble';
  return ephemeral(
    `:hourglass_flowing_sand: Too many ${what} requests ${WHOSE[refusal.scope]}: at most ${requests} every ${windowSeconds} s${why}. Nothing was started; try again in ${refusal.retryAfterSeconds} s.`,
  );
}

/**
 * admitCommand, then the refusal as a reply (null: go ahead). A store that
 * cannot be read throws (the router answers "failed on my side"): a bound
 * that opened whenever DynamoDB throttled would open exactly under a flood.
 */
export async function commandBudget(deps: BudgetDeps, request: BudgetRequest, what: string): Promise<CommandReply | null> {
  const admission = await admitCommand(deps, request);
  if (admission.ok) return null;
  deps.log.info('command over its limit', { what, scope: admission.scope, retryAfterSeconds: admission.retryAfterSeconds });
  return commandBudgetReply(admission, what);
}
