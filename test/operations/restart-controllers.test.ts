// The rolling restart covers KRaft controllers: which nodes are controllers,
// their order (one at a time, the active controller last, before the brokers),
// their steps and the wait until each is back in the quorum; then a whole run
// on the runner, the hosts and the quorum scripted. On the real sandbox:
// serve-restart.int.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/service.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { assessRestart } from '../../lib/diagnose/can-restart.ts';
import type { ServiceCall, ServiceStatus } from '../../lib/hosts/service-control.ts';
import type { QuorumView } from '../../lib/kafka/quorum-view.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { restartBrokers } from '../../lib/operations/kinds/restart-brokers/index.ts';
import { renderPlanMessage } from '../../lib/operations/render-slack.ts';
import { noticeText } from '../../lib/operations/render-text.ts';
import { planRestart, restartPreconditions, runRestartStep, type RestartFacts, type RestartIo, type RestartStep, type RestartStepContext } from '../../lib/operations/kinds/restart-brokers/plan.ts';
import { controllerOrder, restartTargets } from '../../lib/operations/kinds/restart-brokers/controllers.ts';
import { runTick, type RunReporter } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { answeredQuorum, type VoterSpec } from '../helpers/quorum-fixtures.ts';
import { FakeCluster } from './fake-cluster.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { plan, reason, refusal, snapshot } from './plan-fixtures.ts';

const service = { unit: 'kafka', stopBoundSeconds: 60, readyTimeoutSeconds: 300 };
const host = { unit: 'kafka', logsDir: '/var/log/kafka', logDirs: ['/data/kafka'] };
const facts = (ids: number[]): RestartFacts[] => ids.map((brokerId) => ({ brokerId, probe: null, lastShutdownSeconds: 3, systemdStopTimeoutSeconds: 90, pid: 1000 + brokerId, host }));
const base = snapshot([1, 2, 3], { orders: [[1, [1, 2, 3], [1, 2, 3]], [2, [2, 3, 1], [2, 3, 1]], [3, [3, 1, 2], [3, 1, 2]]] });
const withQuorum = (leader: number, voters: (number | VoterSpec)[] = [100, 101, 102], observers = [1, 2, 3]): ClusterSnapshot => ({ ...base, quorum: answeredQuorum(leader, voters, observers) });

describe('which nodes a restart covers', () => {
  const s = withQuorum(100);
  it('nothing named (rolling-restart): every controller the bot reaches, then every live broker', () => {
    expect(restartTargets(s, [], () => true)).toEqual({ controllers: [100, 101, 102], brokers: [1, 2, 3], warnings: [] });
    expect(restartTargets(s, [], (id) => id !== 102)).toEqual({ controllers: [100, 101], brokers: [1, 2, 3], warnings: [{ code: 'controllers-not-restarted', controllers: [102], why: 'no-host' }] });
    // A quorum of one voter (Kafka 3.9's sandbox) cannot spare it: brokers only, and the plan says why.
    const lone = restartTargets({ ...base, quorum: answeredQuorum(100, [100]) }, [], () => true);
    expect(lone).toMatchObject({ controllers: [], brokers: [1, 2, 3], warnings: [{ code: 'controllers-not-restarted', controllers: [100], why: 'too-few-voters', voters: 1 }] });
    expect(noticeText(lone.warnings[0]!, 'restart-brokers')).toMatch(/^controller 100 is not restarted: a quorum of 1 voter cannot spare one/);
    // ZooKeeper mode, older snapshots: no quorum, brokers as before.
    expect(restartTargets(base, [], () => true)).toEqual({ controllers: [], brokers: [1, 2, 3], warnings: [] });
  });

  it('named ids: controllers recognised from the quorum, the rest are brokers; a named controller needs a host', () => {
    expect(restartTargets(s, [101, 2], () => true)).toMatchObject({ controllers: [101], brokers: [2] });
    // Brokers are observers of the metadata log too: still brokers.
    expect(restartTargets(s, [1], () => true)).toMatchObject({ controllers: [], brokers: [1] });
    const refused = restartTargets(s, [101], () => false).refusal!;
    expect(refused).toEqual({ code: 'restart-controller-no-host', controllers: [101] });
    expect(noticeText(refused, 'restart-brokers')).toMatch(/^controller 101 has no host in this cluster's config \(hosts\.instances \/ hosts\.hostDirs, keyed by node id\)/);
  });

  it('orders observers, then followers, the active controller last', () => {
    expect(controllerOrder(withQuorum(101, [100, 101, 102], [1, 2, 3, 103]), [100, 101, 102, 103])).toEqual([103, 100, 102, 101]);
  });
});

describe("serve's sandbox configuration", () => {
  const hostsOf = (env: Record<string, string>) => {
    const hosts = sandboxConfig({ KR_SANDBOX_HOME: '/nonexistent/kr-sandbox', ...env }).config.clusters[0]!.hosts;
    return hosts.executor === 'local' ? hosts.hostDirs : {};
  };
  it('reaches every Kafka node by node id: the KRaft controllers too, never a ZooKeeper server', () => {
    expect(hostsOf({ KAFKA_VERSION: '4.4.0' })).toEqual({
      '1': '/nonexistent/kr-sandbox/broker-1',
      '2': '/nonexistent/kr-sandbox/broker-2',
      '3': '/nonexistent/kr-sandbox/broker-3',
      '100': '/nonexistent/kr-sandbox/controller-100',
      '101': '/nonexistent/kr-sandbox/controller-101',
      '102': '/nonexistent/kr-sandbox/controller-102',
    });
    expect(Object.keys(hostsOf({ KAFKA_VERSION: '3.9.1', KR_SANDBOX_MODE: 'kraft' }))).toEqual(['1', '2', '3', '100']);
    expect(Object.keys(hostsOf({ KAFKA_VERSION: '3.9.1', KR_SANDBOX_MODE: 'zookeeper' }))).toEqual(['1', '2', '3']);
  });
});

describe('a restart plan with controllers', () => {
  it('controllers first, one at a time, the active one last, each waited for in the quorum; then the brokers', () => {
    const s = withQuorum(100);
    const p = plan(planRestart(s, { brokers: [1, 2, 3], rolling: true, service, facts: facts([100, 101, 102, 1, 2, 3]), assess: assessRestart, activeControllerId: null, controllers: { ids: [100, 101, 102], facts: facts([100, 101, 102]) } }));
    expect(p.title).toBe('rolling restart of 3 controllers then 3 brokers (101 → 102 → 100, then 1 → 2 → 3)');
    expect(p.kind === 'restart-brokers' && p.params).toMatchObject({ controllers: [101, 102, 100], brokers: [1, 2, 3] });
    expect(p.steps.map((st) => `${st.action}:${'broker' in st ? st.broker : ''}`)).toEqual([
      ...[101, 102, 100].flatMap((c) => [`restart-check:${c}`, `stop-broker:${c}`, `start-broker:${c}`, `wait-controller-ready:${c}`]),
      ...[1, 2, 3].flatMap((b) => [`restart-check:${b}`, `stop-broker:${b}`, `start-broker:${b}`, `wait-broker-ready:${b}`]),
    ]);
    // A controller keeps no clean-shutdown marker: none is looked for.
    const stop = p.steps[1]!;
    expect(stop).toMatchObject({ action: 'stop-broker', broker: 101, role: 'controller', host: { logDirs: [] } });
    expect(p.steps[3]!.description).toBe("controller 101: wait until it fetches from the quorum's leader again and is caught up (DescribeQuorum; up to 300 s)");
    // The fingerprint names the controllers; the plan message names them and says the active one goes last.
    expect(restartPreconditions(p.kind === 'restart-brokers' ? p.params : { brokers: [] }, s)).toMatchObject({ controllers: [101, 102, 100] });
    const message = JSON.stringify(renderPlanMessage({ plan: p as Plan, status: 'REQUESTED', requester: 'U1', approvals: [], requiredApprovals: 2, expiresAt: Date.now() + 60_000, events: [], createdAt: Date.now(), id: 'r1', planDigest: 'd' } as never).blocks);
    expect(message).toContain('Stops and starts controllers 101 → 102 → 100, then brokers 1 → 2 → 3, one node at a time in this order');
    expect(message).toContain('3. controller 100: can-restart: yes · the active controller (quorum leader): last of the controllers, its restart elects a new leader');
    expect(message).toContain('4. broker 1: can-restart: yes');
  });

  it('restart of one controller; a controller can-restart says no to is a warning, and the run pauses at its check', () => {
    const s = withQuorum(100, [100, 101, { id: 102, fetchAgo: 40_000 }]);
    const p = plan(planRestart(s, { brokers: [], rolling: false, service, facts: facts([101]), assess: assessRestart, activeControllerId: null, controllers: { ids: [101], facts: facts([101]) } }));
    expect(p.title).toBe('restart controller 101');
    expect(p.warnings).toContainEqual(expect.objectContaining({ code: 'cannot-restart-now', broker: 101, node: 'controller' }));
    expect(noticeText(p.warnings.find((w) => w.code === 'cannot-restart-now')!, 'restart-brokers')).toMatch(/^controller 101: can-restart says no now \(Restarting controller 101 would cost the quorum its majority/);
    // Named nodes only: a controller alone restarts no broker.
    expect(p.steps.every((st) => 'broker' in st && st.broker === 101)).toBe(true);
    expect(reason(planRestart(s, { brokers: [1], rolling: false, service, facts: facts([1, 101]), assess: assessRestart, activeControllerId: null, controllers: { ids: [101], facts: facts([101]) } }))).toMatch(/exactly one broker/);
    expect(refusal(planRestart(s, { brokers: [7], rolling: true, service, facts: [], assess: assessRestart, activeControllerId: null, controllers: { ids: [101], facts: facts([101]) } }))).toMatchObject({ code: 'restart-broker-not-live', brokers: [7] });
  });
});

describe('a controller back in the quorum', () => {
  const step: RestartStep = { action: 'wait-controller-ready', description: '', broker: 101, timeoutSeconds: 60, host };
  const io = { assess: assessRestart, probe: async () => null, service: async () => ({ ok: true, stdout: '', detail: '', execution: null }), status: async () => ({ state: 'active', pid: 1, markers: [], timeoutStopRaw: null }) } as RestartIo;
  const ctx = (s: ClusterSnapshot, now: number): RestartStepContext => ({ restart: io, snapshot: async () => s, progress: undefined, stepStartedAt: 0, resumedFrom: null, now: () => now });

  it('waits while it does not fetch, lags, or the quorum has no leader; counts only fetches of the new process', async () => {
    expect(await runRestartStep(step, ctx(withQuorum(100, [100, { id: 101, fetchAgo: 8_000 }, 102]), 10_000))).toMatchObject({ status: 'waiting', progress: 'controller 101: not fetching from the leader yet (10 s)' });
    expect(await runRestartStep(step, ctx(withQuorum(100, [100, { id: 101, lag: 90, caughtUpAgo: 9_000 }, 102]), 10_000))).toMatchObject({ status: 'waiting', progress: expect.stringMatching(/catching up \(90 records behind\)/) });
    expect(await runRestartStep(step, ctx({ ...base, quorum: { ...answeredQuorum(null, []), voters: [] } as QuorumView }, 10_000))).toMatchObject({ status: 'waiting', progress: expect.stringMatching(/the quorum has no leader yet/) });
    // Caught up within the fetch window since the step began: that fetch may be the old process's.
    expect(await runRestartStep(step, ctx(withQuorum(100), 2_000))).toMatchObject({ status: 'waiting', progress: expect.stringMatching(/confirming it is the new process/) });
    expect(await runRestartStep(step, ctx(withQuorum(100), 6_000))).toMatchObject({ status: 'done', detail: 'controller 101 is back: a voter, caught up (leader 100 in epoch 7; 3 of 3 voters caught up)' });
  });

  it('not back within its bound: fatal, and no further node is touched', async () => {
    const e = await runRestartStep(step, ctx(withQuorum(100, [100, { id: 101, fetchAgo: null }, 102]), 61_000)).catch((err: unknown) => err);
    expect(e).toMatchObject({ failure: 'fatal', notice: { code: 'controller-not-back', broker: 101, seconds: 61 } });
    expect(noticeText((e as { notice: { code: string } }).notice, 'restart-brokers')).toBe('controller 101 is not back in the quorum after 61 s: not fetching from the leader yet. No further node is touched');
  });
});

// ---------------------------------------------------------------- a whole run

/** Every node's host, and a quorum that follows them: a stopped controller stops fetching; a stopped leader hands over. */
class Nodes {
  pids = new Map<number, number | null>([100, 101, 102, 1, 2, 3].map((id) => [id, 4000 + id]));
  calls: string[] = [];
  leader = 100;
  quorum(): QuorumView {
    const up = (id: number) => this.pids.get(id) !== null;
    return answeredQuorum(this.leader, [100, 101, 102].map((id) => (up(id) ? { id } : { id, fetchAgo: 30_000, lag: 50 })));
  }
  io(): RestartIo {
    return {
      assess: assessRestart,
      probe: async () => null,
      hasHost: () => true,
      service: async (id, call: ServiceCall) => {
        this.calls.push(`${call.action} ${id}`);
        if (call.action === 'stop') this.pids.set(id, null);
        // The leader's stop: the other voters elect one of them.
        if (call.action === 'stop' && id === this.leader) this.leader = [100, 101, 102].find((v) => this.pids.get(v) !== null) ?? this.leader;
        if (call.action === 'start' && this.pids.get(id) === null) this.pids.set(id, 5000 + id);
        return { ok: true, stdout: '', detail: '', execution: null };
      },
      status: async (id): Promise<ServiceStatus> => ({ state: this.pids.get(id) ? 'active' : 'inactive', pid: this.pids.get(id) ?? null, markers: [], timeoutStopRaw: null }),
    };
  }
}

class QuorumCluster extends FakeCluster {
  constructor(readonly nodes: Nodes) {
    super();
  }
  override async snapshot(topics: string[] | null): Promise<ClusterSnapshot> {
    return { ...(await super.snapshot(topics)), quorum: this.nodes.quorum() };
  }
}

describe('a rolling restart of every node, run', () => {
  let dynamo: LocalDynamo;
  let approvals: ApprovalService<Plan>;
  let table = 0;
  beforeAll(async () => {
    dynamo = await startLocalDynamo();
  });
  afterAll(async () => {
    await dynamo.close();
  });
  beforeEach(async () => {
    ({ approvals } = await approvalsOn(dynamo.client, `ctl-restart-${++table}`));
  });

  it('restarts the controllers one at a time (the active one last), each back in the quorum, then the brokers', async () => {
    const nodes = new Nodes();
    const cluster = new QuorumCluster(nodes).addTopic('orders', [[1, 2, 3], [2, 3, 1], [3, 1, 2]]) as QuorumCluster;
    cluster.restart = async () => nodes.io();
    const config = parseConfig({
      clusters: [{ name: 'fake', bootstrap: ['k:9092'], hosts: { executor: 'local', hostDirs: Object.fromEntries([1, 2, 3, 100, 101, 102].map((id) => [String(id), `/hosts/${id}`])), service: { unit: 'kafka', stopBoundSeconds: 60, readyTimeoutSeconds: 300 } } }],
      slack: { allowEveryone: true, incidentChannel: 'C0INC' },
    });
    const io = Object.assign(cluster, { cluster: config.clusters[0]! });
    const planned = await restartBrokers.plan(io, { brokers: [], rolling: true });
    if (!planned.ok) throw new Error(noticeText(planned.refusal, 'restart-brokers'));
    expect(planned.plan.title).toBe('rolling restart of 3 controllers then 3 brokers (101 → 102 → 100, then 1 → 2 → 3)');
    const id = await approvedByTwo(approvals, planned.plan, 'fake');

    let t = Date.now();
    const steps: string[] = [];
    const report: RunReporter = { step: async (r) => void steps.push(`${r.name}: ${r.detail ?? ''}`), progress: async () => {}, finished: async () => {} };
    const tick = () => runTick({ approvals, io, requestId: id, workerId: 'w-1', deadline: t + 3_600_000, pollMs: 1_000, scheduleNext: async () => {}, report, now: () => t, sleep: async (ms) => void (t += ms) });
    let result = await tick();
    for (let i = 0; i < 20 && result.kind === 'parked'; i++) result = await tick();
    expect(result, steps.join('\n')).toMatchObject({ kind: 'finished', status: 'SUCCEEDED' });
    expect(nodes.calls.filter((c) => c.startsWith('stop') || c.startsWith('start'))).toEqual([101, 102, 100, 1, 2, 3].flatMap((n) => [`stop ${n}`, `start ${n}`]));
    // The active controller handed over when it stopped; each controller was back before the next stopped.
    expect(steps.filter((l) => l.startsWith('wait-controller-ready'))).toEqual([
      expect.stringMatching(/^wait-controller-ready: controller 101 is back: a voter, caught up \(leader 100/),
      expect.stringMatching(/^wait-controller-ready: controller 102 is back: a voter, caught up \(leader 100/),
      expect.stringMatching(/^wait-controller-ready: controller 100 is back: a voter, caught up \(leader 101/),
    ]);
    expect(steps.find((l) => l.startsWith('stop-broker') && l.includes('controller 101'))).toMatch(/a controller keeps no clean-shutdown marker/);
    const done = (await approvals.get(id))!;
    expect(done.outcome?.summary).toBe('restarted controllers 101, 102, 100 each back in the quorum, caught up; then brokers 1, 2, 3, each back in every ISR');
  });
});
