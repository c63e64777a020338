// A sweep job retried after its worker died right after one of its writes:
// the cleanup a finished run owed is said in its thread once, never lost.
// Real jobs, Slack stub, approvals and state on dynalite, the scripted cluster.
import { beforeEach, describe, expect, it } from 'vitest';
import { newJob } from '../../lib/queue/job.ts';
import { OPS_JOB_KINDS } from '../../lib/operations/requests.ts';
import { approvedRequest, executeJob, inThread, type KillPoint, type RetryWorld } from './retry-harness.ts';
import { useOpsRetryWorld } from './retry-world.ts';

const world = useOpsRetryWorld();
let w: RetryWorld;
beforeEach(async () => {
  w = await world.slowTopicWorld('sweep-retry', 1);
});

/** A raise-rf run that finished owing its throttles' removal (a broker refused it while the run lasted). */
async function owingCleanup() {
  const real = w.ops.cluster.openAdmin.bind(w.ops.cluster);
  let refusing = true;
  w.ops.cluster.openAdmin = async () => {
    const admin = await real();
    const alter = admin.incrementalAlterConfigs.bind(admin);
    admin.incrementalAlterConfigs = async (resources) => {
      if (resources.some((r) => r.ops.some((o) => o.op === 'subtract' || o.op === 'delete')) && refusing) throw new Error('broker 2 unreachable');
      return alter(resources);
    };
    return admin;
  };
  const { id, plan } = await approvedRequest(w, 'raise-rf slow 2');
  await w.run(executeJob(id), 10_500);
  await w.drain();
  refusing = false;
  const owed = (await w.approvals.get(id))!;
  expect(owed.status).toBe('SUCCEEDED');
  expect(owed.run?.cleanupPending).toBe(true);
  return { id, plan };
}

const sweepJob = () => newJob(OPS_JOB_KINDS.sweep, {}, 'kr-sweep-retry');
const cleanupPost = /^:broom: Cleanup finished/;

describe('a sweep retried after its worker died', () => {
  const cases: [string, KillPoint][] = [
    ['right after the cleanup was done and cleared, before saying so', (l, m) => l === 'approvals' && m === 'clearCleanup'],
    ['right after the compensation finished in Kafka, before saying so', (l, m) => l === 'approvals' && m === 'putRunData'],
    ['right after saying the cleanup finished', (l, m, args) => l === 'slack' && m === 'post' && cleanupPost.test(String((args[0] as { text?: string }).text))],
  ];
  for (const [when, at] of cases) {
    it(`${when}: "Cleanup finished" is in the thread once and the run owes nothing`, async () => {
      const { id, plan } = await owingCleanup();
      const job = sweepJob();
      expect((await w.runDying(job, at)).died).toBe(true);
      await w.run(job);
      // And the next minute's sweep: nothing more.
      await w.run(sweepJob());
      expect(inThread(w, plan, cleanupPost)).toHaveLength(1);
      expect((await w.approvals.get(id))!.run?.cleanupPending).toBe(false);
      expect(await w.approvals.listForSweep()).not.toContain(id);
    });
  }
});
