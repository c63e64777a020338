// Consumer groups of both rebalance protocols on the real sandbox (Kafka 4.x),
// with Kafka's own console consumer as the client and kafka-consumer-groups.sh
// as the oracle: a KIP-848 group (group.protocol=consumer) must read as what
// it is (ConsumerGroupDescribe), never as DescribeGroups' "Dead, no members".
// Consumers are frozen with SIGSTOP (a stuck client: still a member until its
// session times out) and always resumed and killed in afterAll.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdmin, type KafkaAdmin } from '../../lib/kafka/admin.ts';
import { parseConnectionConfig, splitBootstrap } from '../../lib/kafka/connection.ts';
import { takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { runDiagnosis } from '../../lib/diagnose/run.ts';
import type { DiagnosisReport, Finding } from '../../lib/diagnose/types.ts';
import { createTopic, kafkaClient, kafkaTool, produce, sleep, waitFor, withAdmin } from '../../sandbox/client.ts';
import { sandboxSettings } from '../../sandbox/layout.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';
import { parseConfig, type ClusterConfig } from '../../lib/config/schema.ts';
import { createDefaultOperations } from '../../lib/operations/backend.ts';
import { leaderOverrideLossLines } from '../../lib/operations/kinds/leader-override/loss-text.ts';
import { refusalText } from '../../lib/operations/render-text.ts';
import { groupReport, lagRows, parseDescribeState, type ToolGroupState } from './consumer-groups-tool.ts';

const up = hasSandbox();
// group.protocol=consumer is GA from 4.0 (KIP-848); 3.9 and 2.8 sandboxes have no ConsumerGroupDescribe to read.
const line = up ? sandboxSettings().kafkaVersion : '';
const newProtocolLine = /^[4-9]\./.test(line);
const sandbox = up ? testSandbox() : null;
const bootstrap = () => process.env.KAFKA_BOOTSTRAP_SERVERS ?? sandbox!.bootstrapServers;
const bin = () => process.env.KAFKA_BIN ?? sandbox!.binDir;
const connection = () => parseConnectionConfig({ bootstrap: splitBootstrap(bootstrap()) });
const UNKNOWN_MEMBER_ID = 25;

type Protocol = 'consumer' | 'classic';
const consumers = new Set<ChildProcess>();

/** Kafka's console consumer in the group, from the beginning of the topic; `extra` adds its own arguments. */
function startConsumer(group: string, topic: string, protocol: Protocol, extra: string[] = []): ChildProcess {
  const args = ['--bootstrap-server', bootstrap(), '--topic', topic, '--group', group, '--from-beginning', '--consumer-property', `group.protocol=${protocol}`, ...extra];
  const child = spawn(`${bin()}/kafka-console-consumer.sh`, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
  child.on('exit', (code) => {
    consumers.delete(child);
    if (code !== 0 && code !== null) console.log(`[consumer ${group}] exited ${code}: ${stderr}`);
  });
  consumers.add(child);
  return child;
}

function freeze(child: ChildProcess): void {
  process.kill(child.pid!, 'SIGSTOP');
}

async function stopGracefully(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000)]);
}

const tool = (args: string[], timeoutMs = 120_000) => kafkaTool(bin(), 'kafka-consumer-groups.sh', ['--bootstrap-server', bootstrap(), ...args], timeoutMs);
const groupArgs = (groups: readonly string[]) => groups.flatMap((g) => ['--group', g]);

/** kafka-consumer-groups.sh --describe --state, per group. */
async function toolStates(groups: readonly string[]): Promise<Map<string, ToolGroupState>> {
  return parseDescribeState(await tool(['--describe', '--state', ...groupArgs(groups)]));
}

async function committed(admin: KafkaAdmin, group: string, topic: string): Promise<number> {
  const rows = await admin.fetchCommittedOffsets(group, [{ topic, partition: 0 }]).catch(() => []);
  return rows.find((r) => r.errorCode === 0)?.offset ?? -1;
}

async function recreateTopic(topic: string, assignment: number[][], configs: Record<string, string> = {}): Promise<void> {
  await withAdmin(bootstrap(), async (admin) => {
    if ((await admin.listTopics()).includes(topic)) {
      await admin.deleteTopics({ topics: [topic], timeout: 30_000 });
      await waitFor(`${topic} deleted`, async () => !(await admin.listTopics()).includes(topic), 60_000);
    }
    await createTopic(admin, topic, { assignment, configs });
  });
}

/** Writes one message every `everyMs` until stopped (at most `max`): the log end moves while consumers are frozen. */
function keepWriting(topic: string, everyMs: number, max: number): { stop: () => Promise<number> } {
  const producer = kafkaClient(bootstrap(), 'consumer-protocol-writer').producer({ allowAutoTopicCreation: false });
  let running = true;
  let written = 0;
  const loop = (async () => {
    await producer.connect();
    for (let i = 0; running && i < max; i++) {
      await producer.send({ topic, acks: -1, messages: [{ partition: 0, value: `live ${i}` }] });
      written++;
      await sleep(everyMs);
    }
    await producer.disconnect();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return written;
    },
  };
}

const lagFinding = (r: DiagnosisReport, group: string): Finding | undefined => r.findings.find((f) => f.kind === 'consumer-lag' && f.affected.groups.includes(group));
const evidence = (f: Finding | undefined, label: string) => f?.evidence.find((e) => e.label === label)?.value;

let admin: KafkaAdmin;
beforeAll(async () => {
  if (up && newProtocolLine) admin = await openAdmin(connection(), { timeoutMs: 30_000 });
});
afterAll(async () => {
  for (const child of consumers) {
    try {
      process.kill(child.pid!, 'SIGCONT');
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  await admin?.close();
  // Deleting the topics drops the groups' committed offsets with them (both coordinators do), so the
  // lagging and retention-passed groups left here are not findings of the files that run next.
  if (up && newProtocolLine) await withAdmin(bootstrap(), (a) => a.deleteTopics({ topics: ['cp-stall', 'cp-retention', 'cp-override'], timeout: 30_000 })).catch(() => undefined);
});

describe.skipIf(!up || !newProtocolLine)(`consumer groups of both protocols on Kafka ${line}`, { timeout: 600_000 }, () => {
  it('consumers frozen while writes go on: STALLED with the state and member count kafka-consumer-groups.sh shows, for the consumer protocol and the classic one', async () => {
    const topic = 'cp-stall';
    const groups = { consumer: 'cp-stall-new', classic: 'cp-stall-old' } as const;
    await recreateTopic(topic, [[1, 2, 3]]);
    await produce(bootstrap(), topic, 0, 100, -1);
    // Frozen members stay members until their session times out: long enough here for the diagnosis and the tool
    // (the consumer protocol's session timeout is the group's config, at most group.consumer.max.session.timeout.ms, 60 s).
    await kafkaTool(bin(), 'kafka-configs.sh', ['--bootstrap-server', bootstrap(), '--alter', '--entity-type', 'groups', '--entity-name', groups.consumer, '--add-config', 'consumer.session.timeout.ms=60000']);
    const stuck = [startConsumer(groups.consumer, topic, 'consumer'), startConsumer(groups.classic, topic, 'classic', ['--consumer-property', 'session.timeout.ms=120000'])];
    for (const g of Object.values(groups)) await waitFor(`${g} committed 100`, async () => (await committed(admin, g, topic)) === 100, 120_000);
    stuck.forEach(freeze);
    const frozenAt = Date.now();
    const writer = keepWriting(topic, 200, 1_000);
    let report: DiagnosisReport;
    try {
      await sleep(1_000);
      report = await runDiagnosis({ connection: connection(), timeoutMs: 30_000, lagWindowMs: 3_000 });
    } finally {
      console.log(`[stalled] ${await writer.stop()} messages written while frozen; diagnosis ${((Date.now() - frozenAt) / 1000).toFixed(1)} s after SIGSTOP`);
    }
    const states = await toolStates(Object.values(groups));
    const rows = lagRows(await tool(['--describe', ...groupArgs(Object.values(groups))]));
    console.log(`[stalled] kafka-consumer-groups.sh ${((Date.now() - frozenAt) / 1000).toFixed(1)} s after SIGSTOP: ${JSON.stringify([...states])}`);
    for (const [protocol, group] of Object.entries(groups)) {
      const f = lagFinding(report, group);
      expect(f, `${group}: ${report.findings.map((x) => x.title).join(' | ')}`).toBeDefined();
      expect(f!.severity).toBe('error');
      const theirs = states.get(group)!;
      // Kafka's tool, after our diagnosis: still Stable with its one frozen member.
      expect(theirs).toMatchObject({ state: 'Stable', members: 1 });
      expect(f!.title).toBe(`Group ${group} (${protocol} protocol, ${theirs.state}, ${theirs.members} member) STALLED: lag ${f!.title.match(/lag (\d+)/)![1]} on 1 partition`);
      expect(evidence(f, 'group state')).toBe(groupReport(protocol, theirs));
      // Same committed offset as the tool; the lag we saw is at most what it saw later (writes went on).
      const row = rows.find((r) => r.group === group && r.topic === topic && r.partition === 0)!;
      const ours = /committed (\d+), log start \d+, log end (\d+), lag (\d+)/.exec(evidence(f, `${topic}-0`) ?? '')!;
      expect(Number(ours[1])).toBe(row.current);
      expect(Number(ours[3])).toBe(Number(ours[2]) - Number(ours[1]));
      expect(Number(ours[3])).toBeGreaterThan(0);
      expect(Number(ours[3])).toBeLessThanOrEqual(row.lag);
    }
    // Who owns the partition is read for the consumer protocol (ConsumerGroupDescribe lists assignments).
    expect(evidence(lagFinding(report, groups.consumer), `${topic}-0`)).toMatch(/owned by console-consumer at \/127\.0\.0\.1 \(member \S+, epoch \d+\)/);
  });

  it('a consumer-protocol group whose committed offset fell below the log start is named with the messages it skipped', async () => {
    const topic = 'cp-retention';
    const group = 'cp-retention-new';
    await recreateTopic(topic, [[2, 3]]);
    await produce(bootstrap(), topic, 0, 100, -1);
    // Ten records per poll, twenty read, then a clean exit: commits 20 on close and leaves (the group is Empty).
    const reader = startConsumer(group, topic, 'consumer', ['--max-messages', '20', '--consumer-property', 'max.poll.records=10']);
    await Promise.race([new Promise((r) => reader.once('exit', r)), sleep(120_000)]);
    expect(await committed(admin, group, topic)).toBe(20);
    await waitFor(`${group} Empty`, async () => (await toolStates([group])).get(group)?.state === 'Empty', 120_000);
    // DeleteRecords up to offset 60 (what kafka-delete-records.sh sends; the sandbox's bin does not ship that script).
    await withAdmin(bootstrap(), async (a) => {
      await a.fetchTopicMetadata({ topics: [topic] });
      await a.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '60' }] });
    });

    const snapshot = await takeSnapshot(connection(), { timeoutMs: 30_000 });
    expect(snapshot.groups.find((g) => g.groupId === group)).toMatchObject({ groupType: 'consumer', state: 'Empty', members: 0, error: null });
    const report = await runDiagnosis({ connection: connection(), timeoutMs: 30_000, lagWindowMs: 0 });
    const f = report.findings.find((x) => x.kind === 'consumer-offset-below-log-start' && x.affected.groups.includes(group));
    const theirs = (await toolStates([group])).get(group)!;
    expect(theirs).toEqual({ state: 'Empty', members: 0 });
    expect(f?.title).toBe(`Group ${group} (consumer protocol, Empty, 0 members) lost 40 messages to retention on 1 partition`);
    expect(evidence(f, `${topic}-0`)).toBe('committed 20, log start 60, log end 100, 40 messages skipped; assigned to no member');
    const row = lagRows(await tool(['--describe', '--group', group])).find((r) => r.topic === topic)!;
    expect([row.current, row.end]).toEqual([20, 100]);
  });

  it('leader override: groups of both protocols committed beyond the new end; the plan says what Kafka answers an admin commit into each, as a real OffsetCommit shows', async () => {
    const topic = 'cp-override';
    const groups = { newLive: 'cp-ovr-new-live', newEmpty: 'cp-ovr-new-empty', oldLive: 'cp-ovr-old-live', oldEmpty: 'cp-ovr-old-empty' };
    const config = parseConfig({
      clusters: [{ name: 'sandbox', bootstrap: splitBootstrap(bootstrap()), hosts: { executor: 'none' }, diagnosisTimeoutMs: 30_000 }],
      slack: { allowEveryone: true, incidentChannel: 'C0INCIDENT' },
      approvals: { approvers: ['UALICE', 'UBOB'] },
    });
    const cluster = config.clusters[0] as ClusterConfig;
    const operations = createDefaultOperations(async () => null);
    await recreateTopic(topic, [[1, 2]], { 'min.insync.replicas': '1' });
    try {
      await produce(bootstrap(), topic, 0, 1_000, -1);
      // Broker 2 falls behind at 1,000; broker 1 alone takes 500 more; every group reads to 1,500.
      await sandbox!.stop(2);
      await produce(bootstrap(), topic, 0, 500, -1, 1_000);
      const running = {
        [groups.newLive]: startConsumer(groups.newLive, topic, 'consumer'),
        [groups.newEmpty]: startConsumer(groups.newEmpty, topic, 'consumer'),
        [groups.oldLive]: startConsumer(groups.oldLive, topic, 'classic'),
        [groups.oldEmpty]: startConsumer(groups.oldEmpty, topic, 'classic'),
      };
      for (const g of Object.values(groups)) await waitFor(`${g} committed 1500`, async () => (await committed(admin, g, topic)) === 1_500, 120_000);
      // A clean exit leaves the group: Empty, no members.
      await stopGracefully(running[groups.newEmpty]!);
      await stopGracefully(running[groups.oldEmpty]!);
      await sandbox!.kill(1);
      await sandbox!.start(2);
      let seen = '';
      await waitFor(`${topic}-0 leaderless`, async () => {
        const p = (await takeSnapshot(connection(), { timeoutMs: 15_000, topics: [topic], consumers: false }).catch(() => null))?.topics.find((t) => t.name === topic)?.partitions[0];
        seen = JSON.stringify(p);
        return p !== undefined && p.leader < 0;
      }, 120_000).catch((err: unknown) => {
        throw new Error(`${String(err)}; last seen ${seen}`);
      });
      // Coordinators on broker 1 moved: wait until each group reads as it should again.
      const expected = { [groups.newLive]: 'Stable/1', [groups.oldLive]: 'Stable/1', [groups.newEmpty]: 'Empty/0', [groups.oldEmpty]: 'Empty/0' };
      await waitFor('groups settled', async () => {
        const d = await admin.describeGroups(Object.values(groups)).catch(() => []);
        return d.length === 4 && d.every((g) => `${g.state}/${g.members}` === expected[g.groupId]);
      }, 120_000);

      const planned = await operations.plan(cluster, { kind: 'leader-override', topic, partition: 0, replica: 2 });
      if (!planned.ok) throw new Error(refusalText(planned.refusal));
      const beyond = planned.plan.impact.groupsBeyondEnd ?? [];
      expect(beyond.map((g) => [g.groupId, g.groupType, g.state, g.members, g.committedOffset, g.committedByPlan, g.adminCommit])).toEqual([
        [groups.newEmpty, 'consumer', 'Empty', 0, 1_500, true, 'accepted'],
        [groups.newLive, 'consumer', 'Stable', 1, 1_500, false, 'refused-members'],
        [groups.oldEmpty, 'classic', 'Empty', 0, 1_500, true, 'accepted'],
        [groups.oldLive, 'classic', 'Stable', 1, 1_500, false, 'refused-members'],
      ]);
      const commit = planned.plan.steps.find((st) => st.action === 'commit-offsets');
      expect(commit?.action === 'commit-offsets' ? [...commit.groups].sort() : []).toEqual([groups.newEmpty, groups.oldEmpty]);
      const lines = leaderOverrideLossLines(planned.plan).join('\n');
      console.log(`[override plan]\n${lines}`);
      expect(lines).toContain(`${groups.newLive} (at 1,500; consumer protocol, Stable, 1 member)`);
      expect(lines).toMatch(/admin offset commit .* consumer-protocol group .* while it has members: UNKNOWN_MEMBER_ID/);
      expect(lines).toMatch(/admin offset commit .* classic group that is not Empty: UNKNOWN_MEMBER_ID/);

      // What Kafka actually answers an admin OffsetCommit (generation / member epoch -1, no member id) into each.
      const answers: Record<string, number> = {};
      for (const g of Object.values(groups)) answers[g] = (await admin.commitOffsets(g, [{ topic, partition: 0, offset: 1_000 }]))[0]!.errorCode;
      console.log(`[admin OffsetCommit on ${line}] ${JSON.stringify(answers)}`);
      expect(answers).toEqual({ [groups.newLive]: UNKNOWN_MEMBER_ID, [groups.newEmpty]: 0, [groups.oldLive]: UNKNOWN_MEMBER_ID, [groups.oldEmpty]: 0 });
      for (const g of beyond) expect(answers[g.groupId], g.groupId).toBe(g.adminCommit === 'accepted' ? 0 : UNKNOWN_MEMBER_ID);
      // A frozen member of a consumer-protocol group is still a member until its session times out: refused too.
      freeze(running[groups.newLive]!);
      expect((await admin.commitOffsets(groups.newLive, [{ topic, partition: 0, offset: 1_000 }]))[0]!.errorCode).toBe(UNKNOWN_MEMBER_ID);
    } finally {
      for (const child of consumers) {
        process.kill(child.pid!, 'SIGCONT');
        child.kill('SIGKILL');
      }
      await sandbox!.start(1);
      await sandbox!.start(2);
      await withAdmin(bootstrap(), (a) => a.deleteTopics({ topics: [topic], timeout: 30_000 })).catch(() => undefined);
    }
  });
});
