// Flapping: an alert group that fires and resolves again and again within a
// window. An outage of consumer groups that could not consume began with exactly such an alert, and it was ignored.
import type { AlertStatus } from './event.ts';

export interface Transition {
  status: AlertStatus;
  /** Epoch milliseconds. */
  at: number;
}

/** Appends a transition if the status changed, and forgets what fell out of the window. */
export function recordTransition(history: Transition[], next: Transition, windowMs: number, now: number): Transition[] {
  const last = history.at(-1);
  const appended = last && last.status === next.status ? history : [...history, next];
  return appended.filter((t) => t.at >= now - windowMs).slice(-50);
}

/** Completed firing → resolved cycles in the history. */
export function countCycles(history: Transition[]): number {
  let cycles = 0;
  for (let i = 1; i < history.length; i++) if (history[i - 1]!.status === 'firing' && history[i]!.status === 'resolved') cycles++;
  return cycles;
}

export function isFlapping(history: Transition[], minCycles: number): boolean {
  return countCycles(history) >= minCycles;
}

/** An alert that cleared this fast is worth a word even the first time. */
export const BRIEF_ALERT_MS = 5 * 60 * 1000;

/** Duration of the last firing period, when the history ends with firing → resolved. */
export function lastFiringDurationMs(history: Transition[]): number | null {
  const n = history.length;
  if (n < 2 || history[n - 1]!.status !== 'resolved' || history[n - 2]!.status !== 'firing') return null;
  return history[n - 1]!.at - history[n - 2]!.at;
}
