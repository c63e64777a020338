// Incidents of the controller quorum, on the 4.x lines' three controllers (a
// dynamic quorum): one controller down, the majority lost, the active
// controller killed. Who leads, and at which epoch, is what Kafka's own
// kafka-metadata-quorum.sh says (quorum.ts).
import type { Sandbox } from './cluster.ts';
import { createTopic, produce, waitFor } from './client.ts';
import { hasControllerQuorum, lineName } from './layout.ts';
import { describeQuorumResult, type QuorumStatus } from './quorum.ts';
import type { ScenarioContext, ScenarioResult } from './scenarios.ts';

/** The quorum as a scenario leaves it. */
export interface QuorumExpect {
  /** Voter ids, as the tool listed them last (a stopped controller stays a voter). */
  voters: number[];
  runningControllers: number[];
  /** null: the tool finds no leader (no majority of the voters runs). */
  leaderId: number | null;
  leaderEpoch: number | null;
  /** controller-failover: the leader that was killed, and its epoch. */
  previousLeader?: { id: number; epoch: number };
}

type QuorumScenario = (sandbox: Sandbox, ctx: ScenarioContext) => Promise<ScenarioResult['expect']>;

function requireQuorum(sandbox: Sandbox, scenario: string): void {
  if (!hasControllerQuorum(sandbox.settings)) {
    throw new Error(`${scenario} needs the controller quorum of the 4.x lines; this sandbox runs ${lineName(sandbox.settings)} with a single controller`);
  }
}

async function leader(sandbox: Sandbox, what = 'the quorum leader', other?: (s: QuorumStatus) => boolean): Promise<QuorumStatus> {
  return waitFor(what, async () => {
    const r = await describeQuorumResult(sandbox.settings);
    return 'status' in r && r.status.leaderId >= 0 && (!other || other(r.status)) ? r.status : null;
  }, 90_000);
}

const followers = (s: QuorumStatus) => s.voters.map((v) => v.id).filter((id) => id !== s.leaderId).sort((a, b) => a - b);

async function quorumExpect(sandbox: Sandbox, voters: number[], status: QuorumStatus | null): Promise<QuorumExpect> {
  const running = (await sandbox.status()).filter((s) => s.role === 'controller' && s.running).map((s) => s.id);
  return { voters, runningControllers: running, leaderId: status?.leaderId ?? null, leaderEpoch: status?.leaderEpoch ?? null };
}

async function stopController(sandbox: Sandbox, ctx: ScenarioContext, id: number, why: string): Promise<void> {
  await sandbox.stop(id);
  ctx.controllers.stopped.push(id);
  ctx.did(`stopped controller ${id} (graceful; ${why})`);
}

/** One of three controllers down, a follower: the leader stays, and one more failure loses the majority. */
const controllerDown: QuorumScenario = async (sandbox, ctx) => {
  requireQuorum(sandbox, 'controller-down');
  const before = await leader(sandbox);
  const victim = followers(before)[0]!;
  await stopController(sandbox, ctx, victim, `a follower; controller ${before.leaderId} stays the active one`);
  const after = await leader(sandbox);
  ctx.did(`the quorum keeps its leader ${after.leaderId} (epoch ${after.leaderEpoch}) with 2 of 3 voters: one more failure loses its majority`);
  return { quorum: await quorumExpect(sandbox, after.voters.map((v) => v.id), after) };
};

/**
 * Two of three controllers down (both followers): the survivor resigns once no
 * majority fetches from it, so no controller leads. The brokers keep serving
 * with the partition leaders they have: writes with acks=all still succeed.
 */
const quorumLost: QuorumScenario = async (sandbox, ctx) => {
  requireQuorum(sandbox, 'quorum-lost');
  const topic = 'inventory';
  await ctx.admin((a) => createTopic(a, topic, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] }));
  ctx.topics.push(topic);
  ctx.did(`created ${topic}: 3 partitions on brokers 1,2,3`);
  const before = await leader(sandbox);
  const victims = followers(before);
  await Promise.all(victims.map((id) => stopController(sandbox, ctx, id, `a follower of controller ${before.leaderId}`)));
  const lost = await waitFor('no quorum leader', async () => {
    const r = await describeQuorumResult(sandbox.settings);
    return 'error' in r ? r.error : null;
  }, 120_000);
  ctx.did(`kafka-metadata-quorum.sh finds no leader: ${lost.split('\n')[0]}`);
  let produced = 0;
  for (let p = 0; p < 3; p++) produced += await produce(ctx.bootstrap, topic, p, 100, -1);
  ctx.did(`produced ${produced} messages with acks=all: the brokers keep serving without a quorum`);
  ctx.details = { lastLeader: { id: before.leaderId, epoch: before.leaderEpoch }, toolError: lost.split('\n')[0], producedWithoutQuorum: produced };
  return { quorum: await quorumExpect(sandbox, before.voters.map((v) => v.id), null) };
};

/** The active controller SIGKILLed: a follower is elected at a higher epoch; the killed one stays down (a voter still). */
const controllerFailover: QuorumScenario = async (sandbox, ctx) => {
  requireQuorum(sandbox, 'controller-failover');
  const before = await leader(sandbox);
  await sandbox.kill(before.leaderId);
  ctx.controllers.killed.push(before.leaderId);
  ctx.did(`killed the active controller ${before.leaderId} (SIGKILL) at epoch ${before.leaderEpoch}`);
  const after = await leader(sandbox, 'a new quorum leader', (s) => s.leaderId !== before.leaderId && s.leaderEpoch > before.leaderEpoch);
  ctx.did(`controller ${after.leaderId} elected at epoch ${after.leaderEpoch}`);
  const previousLeader = { id: before.leaderId, epoch: before.leaderEpoch };
  ctx.details = { oldLeader: previousLeader, newLeader: { id: after.leaderId, epoch: after.leaderEpoch } };
  return { quorum: { ...(await quorumExpect(sandbox, after.voters.map((v) => v.id), after)), previousLeader } };
};

export const QUORUM_SCENARIOS: Record<string, QuorumScenario> = {
  'controller-down': controllerDown,
  'quorum-lost': quorumLost,
  'controller-failover': controllerFailover,
};
