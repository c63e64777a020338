// The fault-injection suite's rule, for any scenario: stop the worker process
// right after each write of a clean run in turn, deliver the job again, and
// compare what anyone can see with the clean run's.
import { expect } from 'vitest';
import type { OperationsBackend } from '../../lib/operations/backend.ts';
import { World, type Outcome, type WorldParts } from './world.ts';

export interface Scenario {
  name: string;
  /** The cluster for this scenario, when the suite's scripted one does not do. */
  operations?: () => OperationsBackend;
  /** Puts the jobs under test in `pending` (anything before them settled without faults). */
  arrange(w: World): Promise<void>;
}

async function runOnce(parts: WorldParts, s: Scenario, stopAfter: number | null) {
  const w = await World.create({ ...parts, ...(s.operations ? { operations: s.operations } : {}) });
  try {
    await s.arrange(w);
    const from = w.clock;
    const run = await w.drain(stopAfter);
    await w.afterwards(from);
    return { ...run, outcome: await w.outcome() };
  } finally {
    await w.close();
  }
}

/**
 * What a job delivered again adds by design, and nothing else: a run taken
 * over from a stopped worker says so in its thread, and its audit trail
 * records the takeover. Anything else extra, or anything missing, is a fault.
 */
const A_RETRY_MAY_ADD = [/Resumed at step .*the previous worker stopped reporting/, / AUDIT## resumed$/];

/** What one outcome has that the other has not, line by line; empty when they agree. */
function differences(expected: Outcome, actual: Outcome): string[] {
  const out: string[] = [];
  for (const field of ['slack', 'uploads', 'responses', 'items'] as const) {
    const left = [...expected[field]];
    const extra: string[] = [];
    for (const line of actual[field]) {
      const i = left.indexOf(line);
      if (i >= 0) left.splice(i, 1);
      else extra.push(line);
    }
    for (const l of left) out.push(`${field}: missing ${l}`);
    for (const l of extra) if (!A_RETRY_MAY_ADD.some((allowed) => allowed.test(l))) out.push(`${field}: extra ${l}`);
  }
  if (expected.cluster !== actual.cluster) out.push(`cluster: ${actual.cluster} instead of ${expected.cluster}`);
  return out;
}


/** The rule itself; returns the clean run's writes, for the closing note's count. */
export async function everyWriteStopped(parts: WorldParts, scenario: Scenario): Promise<string[]> {
  const clean = await runOnce(parts, scenario, null);
  // The scenario itself is deterministic: a second clean run leaves the same.
  expect(differences(clean.outcome, (await runOnce(parts, scenario, null)).outcome)).toEqual([]);
  expect(clean.writes.length).toBeGreaterThan(0);
  const failures: string[] = [];
  for (let k = 1; k <= clean.writes.length; k++) {
    const faulted = await runOnce(parts, scenario, k);
    const diff = differences(clean.outcome, faulted.outcome);
    if (diff.length) failures.push(`stopped after write ${k} (${faulted.stoppedAt ?? clean.writes[k - 1]}):\n    ${diff.join('\n    ')}`);
  }
  console.log(`${scenario.name}: ${clean.writes.length} writes, each stopped after and retried:\n  ${clean.writes.join('\n  ')}`);
  expect(failures, failures.join('\n')).toEqual([]);
  return clean.writes;
}
