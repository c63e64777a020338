// Operations respect the KRaft quorum, on the real sandbox (4.x: three
// controllers): with two of the three stopped, the quorum has no leader, and
//   - a leader-override request made then is refused with that reason, through
//     the operations backend and the real snapshot (what the plan job calls);
//   - an approved run re-checked then pauses (nothing runs), and Cancel ends it;
//   - can-restart of a controller, through the CLI, says no while another
//     voter is down, and yes again once the quorum is whole.
// The controllers are started again before the file ends, the quorum whole.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/index.ts';
import type { RestartAssessment } from '../../lib/diagnose/can-restart.ts';
import { parseConfig, type ClusterConfig } from '../../lib/config/schema.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import { quorumHealth } from '../../lib/kafka/quorum-health.ts';
import type { QuorumView } from '../../lib/kafka/quorum-view.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { refusalText } from '../../lib/operations/render-text.ts';
import { runTick, type RunReporter } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { createTopic, withAdmin } from '../../sandbox/client.ts';
import { bootstrapServers, controllerIds, hasControllerQuorum, sandboxSettings } from '../../sandbox/layout.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';

const settings = sandboxSettings();
const up = hasSandbox() && hasControllerQuorum(settings);
const bootstrap = bootstrapServers(settings);
const connection = parseConnectionConfig({ bootstrap: bootstrap.split(',') });
const TOPIC = 'quorum-rf1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const config = parseConfig({
  clusters: [{ name: 'sandbox', bootstrap: bootstrap.split(','), hosts: { executor: 'none' }, diagnosisTimeoutMs: 30_000 }],
  slack: { allowEveryone: true, incidentChannel: 'C0INCIDENT' },
  approvals: { approvers: ['UALICE', 'UBOB'] },
});
const cluster = config.clusters[0] as ClusterConfig;
const operations = createDefaultOperations(async () => null);

/** The quorum as the snapshot reads it, until `done` says so (or the bound). */
async function quorumUntil(what: string, done: (q: QuorumView) => boolean, boundMs: number): Promise<QuorumView> {
  const deadline = Date.now() + boundMs;
  let last: QuorumView | undefined;
  while (Date.now() < deadline) {
    last = (await takeSnapshot(connection, { topics: [TOPIC], timeoutMs: 20_000, consumers: false }).catch(() => null))?.quorum;
    if (last && done(last)) return last;
    await sleep(1_000);
  }
  throw new Error(`${what}: not within ${boundMs / 1000} s (last: ${last?.status} ${last?.reason ?? ''})`);
}
/** The installed bin (the bundle the global setup built) on the run's sandbox: its output, when it exits with one of `ok`. */
function kafkaResponder(args: string[], ok: number[]): string {
  const r = spawnSync(process.execPath, ['bin/kafka-responder.js', ...args], { cwd: process.cwd(), env: { ...process.env, KR_CONFIG_FILE: '' }, encoding: 'utf8', timeout: 120_000 });
  if (r.status === null || !ok.includes(r.status)) throw new Error(`kafka-responder ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const whole = (q: QuorumView) => q.status === 'ok' && quorumHealth(q)?.inSync.length === q.voters.length && q.voters.length === 3;

describe.skipIf(!up)('operations while the KRaft quorum has no leader (sandbox, three controllers)', () => {
  const sandbox = testSandbox();
  let dynamo: LocalDynamo;
  let approvals: ApprovalService<Plan>;
  let stopped: number[] = [];

  beforeAll(async () => {
    dynamo = await startLocalDynamo();
    ({ approvals } = await approvalsOn(dynamo.client, 'quorum-int'));
    await sandbox.up();
    await withAdmin(bootstrap, async (admin) => {
      if ((await admin.listTopics()).includes(TOPIC)) return;
      await createTopic(admin, TOPIC, { assignment: [[1], [2]] });
    });
    await quorumUntil('the quorum whole before the test', whole, 120_000);
  }, 300_000);

  afterAll(async () => {
    for (const id of stopped) await sandbox.start(id).catch(() => undefined);
    await quorumUntil('the quorum whole again', whole, 180_000).catch((err: unknown) => console.warn(String(err)));
    await withAdmin(bootstrap, (admin) => admin.deleteTopics({ topics: [TOPIC] })).catch(() => undefined);
    await dynamo?.close();
  }, 300_000);

  it('can-restart of a controller says yes on a whole quorum, no while another voter is down', async () => {
    const q = await quorumUntil('a leader', (v) => v.status === 'ok', 60_000);
    const [follower, down] = q.voters.filter((v) => v.role === 'follower').map((v) => v.id) as [number, number];
    const yes = JSON.parse(kafkaResponder(['can-restart', String(follower), '--format', 'json'], [0])) as RestartAssessment;
    expect(yes).toMatchObject({ role: 'controller', verdict: 'yes' });
    expect(yes.notes.join(' ')).toMatch(/brokers keep serving produce and fetch requests/);
    // The other follower stops: restarting this one would leave the leader alone.
    await sandbox.stop(down);
    stopped.push(down);
    await quorumUntil(`controller ${down} seen not fetching`, (v) => v.status === 'ok' && quorumHealth(v)!.inSync.length === 2, 60_000);
    const no = JSON.parse(kafkaResponder(['can-restart', String(follower), '--format', 'json'], [3])) as RestartAssessment;
    expect(no.verdict).toBe('no');
    expect(no.reasons[0]).toMatch(new RegExp(`^Restarting controller ${follower} would cost the quorum its majority`));
    expect(no.reasons.join(' ')).toMatch(new RegExp(`Controller ${down} is (not fetching|lagging)`));
    await sandbox.start(down);
    stopped = stopped.filter((c) => c !== down);
    await quorumUntil('the quorum whole again', whole, 120_000);
  }, 300_000);

  it('with two of three controllers stopped: a leader-override request is refused with that reason, and an approved run pauses', async () => {
    // Planned and approved while the quorum is whole.
    const planned = await operations.plan(cluster, { kind: 'raise-replication-factor', topic: TOPIC, replicationFactor: 2 });
    if (!planned.ok) throw new Error(refusalText(planned.refusal));
    const id = await approvedByTwo(approvals, planned.plan, 'sandbox');

    const q = await quorumUntil('a leader', (v) => v.status === 'ok', 60_000);
    const two = controllerIds(settings).filter((c) => c !== q.leaderId);
    for (const c of two) {
      await sandbox.stop(c);
      stopped.push(c);
    }
    const t0 = Date.now();
    // The leader resigns once no majority has fetched from it (Kafka's check-quorum): then brokers find none.
    const lost = await quorumUntil('the quorum without a leader', (v) => v.status === 'no-leader', 120_000);
    console.log(`[quorum] controllers ${two.join(', ')} stopped; no leader seen after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${lost.reason}`);

    const started = Date.now();
    const refused = await operations.plan(cluster, { kind: 'leader-override', topic: TOPIC, partition: 0 });
    const planSeconds = (Date.now() - started) / 1000;
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.refusal).toMatchObject({ code: 'quorum-no-leader', stage: 'plan' });
    const text = refusalText(refused.refusal, 'leader-override');
    console.log(`[quorum] leader-override refused in ${planSeconds.toFixed(1)} s: ${text}`);
    expect(text).toMatch(/^The KRaft controller quorum has no leader/);
    expect(text).toContain('no leader election, reassignment, topic creation or config change can happen');
    expect(text).toContain('Brokers keep serving with the leaders they have');

    // The approved run, re-checked now: paused with the reason, nothing ran.
    const paused: string[] = [];
    const report: RunReporter = { step: async () => {}, progress: async () => {}, finished: async () => {}, paused: async (reason) => void paused.push(reason) };
    const tick = () => runTick({ approvals, io: operations.io(cluster), requestId: id, workerId: 'w-quorum', deadline: Date.now() + 120_000, pollMs: 1_000, scheduleNext: async () => {}, report });
    expect(await tick()).toMatchObject({ kind: 'parked' });
    expect(paused[0]).toMatch(/^The KRaft controller quorum has no leader/);
    expect(paused[0]).toMatch(/it is paused/);
    const held = (await approvals.get(id))!;
    expect(held.run?.data?.pause).toMatchObject({ cursor: 0, notice: { code: 'quorum-no-leader', stage: 'run' } });
    expect(held.run?.cursor).toBe(0);
    // Cancel ends it; the topic kept its replicas.
    await approvals.requestCancel(id, 'UALICE');
    expect(await tick()).toMatchObject({ kind: 'finished', status: 'CANCELLED' });
    for (const c of two) await sandbox.start(c);
    stopped = [];
    await quorumUntil('the quorum whole again', whole, 180_000);
    const s = await takeSnapshot(connection, { topics: [TOPIC], timeoutMs: 20_000, consumers: false });
    expect(s.topics.find((t) => t.name === TOPIC)!.partitions.map((p) => p.replicas)).toEqual([[1], [2]]);
  }, 600_000);
});
