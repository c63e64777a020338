// One round of each operation, ours (the installed serve, signed command, two
// approvals) and Kafka's own tool, each on a setup built afresh. Every figure is
// milliseconds from t0: for ours, when the second Approve request is sent; for
// Kafka's tool, when it is spawned.
import type { Sandbox } from '../../sandbox/cluster.ts';
import type { Bot } from './bot.ts';
import { parsePhases } from './phases.ts';
import { leads, movedOff, observe, preferredLeads, settle, type PartitionPredicate } from './observe.ts';
import { buildDrain, buildOutage, buildPreferred, runTool } from './setups.ts';

export interface Sample {
  /** Phase → ms from t0 (undefined: not observed within the round's time). */
  figures: Record<string, number | undefined>;
  /** The run's own phases, parsed from its summary (ours only). */
  phases?: Map<string, number>;
  /** Who leads the observed partition when the poller stopped. */
  leader?: number;
  /** The Metadata poll interval achieved (mean ms between polls). */
  pollMs: number;
  note?: string;
}

export type Side = 'ours' | 'kafka';
export interface Operation {
  name: string;
  /** Kafka's tool for the same setup, or none (drain). */
  kafka: boolean;
  run(ctx: RoundContext, side: Side, round: number): Promise<Sample>;
}

export interface RoundContext {
  sandbox: Sandbox;
  bot: Bot;
  log: (line: string) => void;
}

const since = (t0: number, at: number | undefined) => (at === undefined ? undefined : at - t0);
const SETTLE_MS = 60_000;

/** Ours: the signed command, its plan, two approvals; the client observes from before the second one. */
async function ours(ctx: RoundContext, command: string, topic: string, partition: number, until: PartitionPredicate, write: boolean, figure: string): Promise<Sample> {
  const plan = await ctx.bot.plan(command);
  const id = await ctx.bot.firstApproval(plan);
  const observers = await observe(ctx.sandbox.bootstrapServers, topic, partition, until, write);
  try {
    const t0 = await ctx.bot.secondApproval(plan, id);
    const summary = await ctx.bot.summary(plan);
    ctx.log(`summary: ${summary.text.replace(/\s*\n\s*/g, ' | ').slice(0, 600)}`);
    const { poll, write: wrote } = await settle(observers, SETTLE_MS);
    const figures: Sample['figures'] = { [figure]: since(t0, poll.at) };
    if (write) figures['first acks=all write'] = since(t0, wrote?.at);
    figures['summary posted'] = summary.at - t0;
    const notes = [summary.status === 'SUCCEEDED' ? '' : `run ${summary.status}: ${summary.text.split('\n').slice(0, 3).join(' / ')}`, poll.at ? '' : `never seen; last metadata ${JSON.stringify(poll.last)}`].filter(Boolean);
    const leader = poll.last?.find((p) => p.partition === partition)?.leader;
    return { figures, phases: parsePhases(summary.text), pollMs: poll.meanIntervalMs, ...(leader !== undefined ? { leader } : {}), ...(notes.length ? { note: notes.join('; ') } : {}) };
  } finally {
    await Promise.all([observers.poller.stop(), observers.writer?.stop()]);
  }
}

/** Kafka's own kafka-leader-election.sh, t0 at spawn. */
async function kafkaTool(ctx: RoundContext, type: 'unclean' | 'preferred', topic: string, partition: number, until: PartitionPredicate, write: boolean, figure: string): Promise<Sample> {
  const observers = await observe(ctx.sandbox.bootstrapServers, topic, partition, until, write);
  try {
    const t0 = Date.now();
    const tool = await runTool(ctx.sandbox.binDir, 'kafka-leader-election.sh', ['--bootstrap-server', ctx.sandbox.bootstrapServers, '--election-type', type, '--topic', topic, '--partition', String(partition)]);
    const { poll, write: wrote } = await settle(observers, SETTLE_MS);
    const figures: Sample['figures'] = { [figure]: since(t0, poll.at) };
    if (write) figures['first acks=all write'] = since(t0, wrote?.at);
    figures['tool exited'] = tool.exitAt - t0;
    const note = tool.code === 0 ? undefined : `exit ${tool.code}: ${tool.output.slice(-300)}`;
    const leader = poll.last?.find((p) => p.partition === partition)?.leader;
    return { figures, pollMs: poll.meanIntervalMs, ...(leader !== undefined ? { leader } : {}), ...(note ? { note } : {}) };
  } finally {
    await Promise.all([observers.poller.stop(), observers.writer?.stop()]);
  }
}

export const OVERRIDE: Operation = {
  name: 'leader override (orders-0, isr-one-leader-lost)',
  kafka: true,
  async run(ctx, side) {
    await buildOutage(ctx.sandbox);
    return side === 'ours'
      ? ours(ctx, 'elect-leader orders 0 3', 'orders', 0, leads(0, 3), true, 'leader seen')
      : kafkaTool(ctx, 'unclean', 'orders', 0, leads(0), true, 'leader seen');
  },
};

export const PREFERRED: Operation = {
  name: 'preferred election (leader 1, preferred 2)',
  kafka: true,
  async run(ctx, side, round) {
    const topic = `bench-preferred-${side}-${round}-${Date.now()}`;
    await buildPreferred(ctx.sandbox, topic);
    return side === 'ours'
      ? ours(ctx, `preferred-election ${topic}:0`, topic, 0, preferredLeads(0), false, 'leader seen')
      : kafkaTool(ctx, 'preferred', topic, 0, preferredLeads(0), false, 'leader seen');
  },
};

export const DRAIN: Operation = {
  name: 'drain 3 partial (2 partitions on broker 3 alone)',
  kafka: false,
  async run(ctx, _side, round) {
    const topic = `bench-drain-${round}-${Date.now()}`;
    await buildDrain(ctx.sandbox, topic);
    return ours(ctx, 'drain 3 partial', topic, 0, movedOff(3), false, 'first move done');
  },
};

export const OPERATIONS: Record<string, Operation> = { override: OVERRIDE, preferred: PREFERRED, drain: DRAIN };
