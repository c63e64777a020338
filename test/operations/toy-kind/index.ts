// A toy operation kind, as a new kind is written: one folder with its request
// schema, planner, its own step action (registered with the kind), the
// capability it asks for, compensation and renderer. toy-kind.test.ts adds it
// to OPERATION_KINDS (the one table line) and runs it through the planner and
// the runner; nothing else in lib/operations knows it.
import * as z from 'zod';
import { nothingOwed } from '../../../lib/operations/compensation.ts';
import type { OperationKind } from '../../../lib/operations/kind.ts';
import { basePreconditions, finishPlan } from '../../../lib/operations/planners.ts';
import type { StepContext, StepHandlers, StepOutcome } from '../../../lib/operations/step-context.ts';
import type { PlanKind, PlanStep } from '../../../lib/operations/types.ts';

export const TOY_KIND = 'toy-count';

/** The toy's own step: counts the topic's partitions and reads the bell it asked for. */
interface ToyCountStep {
  action: 'toy-count';
  description: string;
  topic: string;
}

const ToyRequest = z.object({ topic: z.string().min(1) });
type ToyParams = z.infer<typeof ToyRequest>;

async function toyCount(step: ToyCountStep, ctx: StepContext): Promise<StepOutcome> {
  const topic = (await ctx.snapshot()).topics.find((t) => t.name === step.topic);
  const bell = (ctx.capabilities as Record<string, unknown> | undefined)?.toyBell ?? null;
  return { status: 'done', detail: `${step.topic} has ${topic?.partitions.length ?? 0} partitions; bell ${String(bell)}` };
}

const preconditions = (params: ToyParams, s: Parameters<OperationKind<PlanKind>['preconditions']>[1]) => ({
  ...basePreconditions(TOY_KIND as PlanKind, s),
  leaders: s.topics.find((t) => t.name === params.topic)?.partitions.map((p) => p.leader) ?? [],
});

/** Typed loosely: the toy is not declared into PlanParamsByKind, so the real table's type stays as it is. */
export const toyKind = {
  kind: TOY_KIND,
  summary: 'count a topic’s partitions (a toy)',
  request: ToyRequest,
  commands: [],
  describeRequest: (r: Record<string, unknown>) => `count the partitions of ${String(r.topic)}`,
  exclusive: false,
  needs: ['toyBell'],
  steps: { 'toy-count': toyCount } as unknown as StepHandlers,
  topics: (params: ToyParams) => [params.topic],
  async plan(io: { snapshot(topics: string[] | null): Promise<Parameters<typeof preconditions>[1]> }, request: Record<string, unknown>) {
    const params = ToyRequest.parse(request);
    const s = await io.snapshot([params.topic]);
    const topic = s.topics.find((t) => t.name === params.topic);
    if (!topic) return { ok: false, refusal: { code: 'toy-no-topic', topic: params.topic } };
    const steps = [
      { action: 'toy-count', description: `count the partitions of ${params.topic}`, topic: params.topic },
      // A shared step, from the same table.
      { action: 'verify-leaders', description: 'leaders unchanged', expected: topic.partitions.map((p) => ({ topic: params.topic, partition: p.partition, leader: p.leader })) },
    ] as unknown as PlanStep[];
    const plan = finishPlan(s, TOY_KIND as PlanKind, params as never, preconditions(params, s), { title: `count ${params.topic}`, steps, impact: { risk: 'low', partitionsAffected: 0 }, warnings: [] });
    return { ok: true, plan };
  },
  preconditions: (params: ToyParams, s: Parameters<typeof preconditions>[1]) => preconditions(params, s),
  recheckOnResume: () => false,
  compensate: nothingOwed,
  render: {
    headline: () => ['Counts partitions. Changes nothing.'],
    success: (plan: { params: ToyParams }) => `counted ${plan.params.topic}`,
    notice: (n: { code: string }) => (n.code === 'toy-no-topic' ? 'no such topic' : undefined),
  },
} as unknown as OperationKind<PlanKind>;
