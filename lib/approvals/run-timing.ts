// Where a run's seconds went, from its own audit trail: each step's start
// (recorded with the step) and end (its audit event), and the milestones an
// outage is measured by, counted from the approval that let it run:
// re-checked → elected → writable → done. A step says which milestone its
// end reached (StepReport.phase); this only reads them. Pure codes and
// numbers; the thread's summary and the postmortem timeline word them.
import type { AuditEvent, RunPhase } from './types.ts';

export type Phase = RunPhase | 'done';

export interface StepTiming {
  index: number;
  name: string;
  /** Milliseconds after the approval; null for a step recorded without its start. */
  startedMs: number | null;
  endedMs: number;
}

export interface RunTiming {
  /** When the last approval was given (epoch ms). */
  approvedAt: number;
  /** Each phase reached, once, in the order reached, in ms after the approval, with the audit event that marks it. */
  phases: { phase: Phase; afterMs: number; seq: number | null }[];
  steps: StepTiming[];
}

/** The audit events that close a run. */
const FINISHED = new Set(['succeeded', 'failed', 'stale', 'cancelled']);

interface Timed {
  events: readonly AuditEvent[];
  outcome?: { at: number } | undefined;
}

const PHASES: ReadonlySet<unknown> = new Set<RunPhase>(['re-checked', 'elected', 'writable']);

function reached(e: AuditEvent): RunPhase | null {
  return e.data?.status === 'ok' && PHASES.has(e.data?.phase) ? (e.data.phase as RunPhase) : null;
}

/** The run's timing from its audit trail; null before it was approved. */
export function runTiming(request: Timed): RunTiming | null {
  const approvedAt = request.events.findLast((e) => e.type === 'approved')?.at;
  if (approvedAt === undefined) return null;
  const phases: RunTiming['phases'] = [];
  const steps: StepTiming[] = [];
  for (const e of request.events) {
    if (e.type !== 'step' || e.at < approvedAt) continue;
    const started = typeof e.data?.startedAt === 'number' ? e.data.startedAt - approvedAt : null;
    steps.push({ index: Number(e.data?.index ?? 0), name: String(e.data?.name ?? 'step'), startedMs: started, endedMs: e.at - approvedAt });
    const phase = reached(e);
    if (phase && !phases.some((p) => p.phase === phase)) phases.push({ phase, afterMs: e.at - approvedAt, seq: e.seq });
  }
  if (request.outcome) phases.push({ phase: 'done', afterMs: request.outcome.at - approvedAt, seq: request.events.findLast((e) => FINISHED.has(e.type))?.seq ?? null });
  return { approvedAt, phases, steps };
}
