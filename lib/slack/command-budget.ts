// The bound on commands that cost a cluster work (diagnose, transactions,
// can-restart, audit) and on timeline exports: sliding windows per user, per
// channel and per cluster (config commandLimits), kept in the state table so
// they hold across every Lambda instance, as lib/approvals/rate-limit.ts does
// for plan requests. One item per window (key cmd-budget:<scope>:<id>) holds
// the times of the requests still inside it; a request is counted by one
// conditional write on the version it read. Of two writers racing for the
// last slot exactly one wins, the other reads again and decides again; once a
// window is full every reader is refused without writing, so a flood costs
// one read per request and contention lasts only until the window fills.
//
// Checked on the ack path, before anything is recorded or enqueued: a refused
// request costs the cluster nothing and is told when to try again.
import type { Config } from '../config/schema.ts';
import { errorMessage } from '../runtime/errors.ts';
import type { Log } from '../runtime/log.ts';
import { jitteredBackoffMs, type StateStore } from '../state/state-store.ts';
import { ephemeral } from './commands.ts';
import type { CommandReply } from './registry.ts';

export interface RateWindow {
  requests: number;
  windowSeconds: number;
}

export type BudgetScope = 'user' | 'channel' | 'cluster';

/** A code, not prose: commandBudgetReply() renders it. */
export type BudgetAdmission = { ok: true } | { ok: false; scope: BudgetScope; limit: RateWindow; retryAfterSeconds: number };

interface Window {
  stamps: number[];
}

const MAX_ATTEMPTS = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const budgetKey = (scope: BudgetScope, id: string): string => `cmd-budget:${scope}:${id}`;

type Slot = { ok: true; at: number } | { ok: false; retryAfterSeconds: number };

/** Counts one request at `now` (ms) in the window at `key` if it has room; else how long until it has. */
export async function takeSlot(store: StateStore, key: string, limit: RateWindow, now: number): Promise<Slot> {
  const windowMs = limit.windowSeconds * 1000;
  const ttlSeconds = limit.windowSeconds + 60;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(jitteredBackoffMs(attempt, 5, 100));
    const current = await store.get<Window>(key);
    const live = (current?.value.stamps ?? []).filter((t) => t > now - windowMs).sort((a, b) => a - b);
    if (live.length >= limit.requests) {
      const freeAt = live[live.length - limit.requests]! + windowMs;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
    }
    const next: Window = { stamps: [...live, now] };
    const won = current ? await store.replace(key, current.version, next, ttlSeconds) : await store.create(key, next, ttlSeconds);
    if (won) return { ok: true, at: now };
  }
  // Everyone else kept winning the slot: that is a flood, and this one waits too.
  return { ok: false, retryAfterSeconds: 1 };
}

/** Gives back a slot taken at `at` (a later scope refused the request); best effort. */
async function giveBack(store: StateStore, key: string, at: number, limit: RateWindow, log: Log): Promise<void> {
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await store.get<Window>(key);
      const i = current?.value.stamps.indexOf(at) ?? -1;
      if (!current || i < 0) return;
      const stamps = current.value.stamps.filter((_, j) => j !== i);
      if (await store.replace(key, current.version, { stamps }, limit.windowSeconds + 60)) return;
    }
  } catch (err) {
    log.warn('could not give a command slot back', { key, error: errorMessage(err) });
  }
}

export interface BudgetRequest {
  userId: string;
  channelId: string;
  /** The cluster the command reads; absent for work tied to no cluster yet (a timeline export). */
  cluster?: string;
}

/**
 * Counts a request against the user's, the channel's and the cluster's windows,
 * in that order (the narrowest first: one person's flood never eats the
 * channel's or the cluster's budget). A scope that refuses gives back the
 * slots the earlier ones took.
 */
export async function admitCommand(deps: { store: StateStore; config: Config; log: Log }, request: BudgetRequest, now = Date.now()): Promise<BudgetAdmission> {
  const limits = deps.config.commandLimits;
  const scopes: [BudgetScope, string, RateWindow][] = [
    ['user', request.userId, limits.perUser],
    ['channel', request.channelId, limits.perChannel],
    ...(request.cluster ? ([['cluster', request.cluster, limits.perCluster]] as [BudgetScope, string, RateWindow][]) : []),
  ];
  const taken: [string, number, RateWindow][] = [];
  for (const [scope, id, limit] of scopes) {
    const key = budgetKey(scope, id);
    const slot = await takeSlot(deps.store, key, limit, now);
    if (!slot.ok) {
      await Promise.all(taken.map(([k, at, l]) => giveBack(deps.store, k, at, l, deps.log)));
      return { ok: false, scope, limit, retryAfterSeconds: slot.retryAfterSeconds };
    }
    taken.push([key, slot.at, limit]);
  }
  return { ok: true };
}

const WHOSE: Record<BudgetScope, string> = { user: 'from you', channel: 'in this channel', cluster: 'for this cluster' };

/** The refusal, in the ack: what the bound is and when to try again. */
export function commandBudgetReply(refusal: Extract<BudgetAdmission, { ok: false }>, what: string): CommandReply {
  const { requests, windowSeconds } = refusal.limit;
  return ephemeral(
    `:hourglass_flowing_sand: Too many ${what} requests ${WHOSE[refusal.scope]}: at most ${requests} every ${windowSeconds} s, to spare the cluster while it is in trouble. Nothing was started; try again in ${refusal.retryAfterSeconds} s.`,
  );
}

/**
 * admitCommand, then the refusal as a reply (null: go ahead). A store that
 * cannot be read throws (the router answers "failed on my side"): a bound
 * that opened whenever DynamoDB throttled would open exactly under a flood.
 */
export async function commandBudget(deps: { store: StateStore; config: Config; log: Log }, request: BudgetRequest, what: string): Promise<CommandReply | null> {
  const admission = await admitCommand(deps, request);
  if (admission.ok) return null;
  deps.log.info('command over its limit', { what, scope: admission.scope, retryAfterSeconds: admission.retryAfterSeconds });
  return commandBudgetReply(admission, what);
}
