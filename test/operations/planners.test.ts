import { describe, expect, it } from 'vitest';
import {
  digestOf,
  planDrain,
  planExplicitReassignment,
  planPreferredElection,
  planRaiseReplicationFactor,
  preconditionsFor,
  LeaderOverrideRequest,
  RaiseReplicationFactorRequest,
} from '../../lib/operations/index.ts';
import { checkParams, HOST_SCRIPTS } from '../../lib/hosts/scripts.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { parseOpsCommand } from '../../lib/operations/slack.ts';

import { codes, plan, reason, refusal, snapshot, warningLines, type P } from './plan-fixtures.ts';

// Leader override cases live in leader-override.test.ts.

describe('planDrain', () => {
  const s = snapshot([1, 2, 3, 4], {
    logs: [
      [1, [1], [1]],
      [2, [2], [2]],
      [1, [1], [1]],
    ],
    orders: [
      [1, [1, 2, 3], [1, 2, 3]],
      [2, [2, 3, 4], [2, 3, 4]],
      [3, [3, 1, 4], [3, 1, 4]],
    ],
  });


  it('a fenced broker (DescribeCluster v2) is told apart from one not registered; holding nothing, it is named with the unregister command', () => {
    const reg = (id: number, fenced: boolean) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null, fenced });
    const withRegistrations = (registered: ReturnType<typeof reg>[], topics: Record<string, P[]>) => ({
      ...snapshot([1, 2, 3], topics),
      registeredBrokers: { status: 'read' as const, brokers: registered, reason: null, answeredBy: 1 },
    });
    const held = { t: [[2, [4, 2, 3], [2, 3]] as P] };
    // Broker 4 holds a replica, is not live: fenced when registered, else not registered at all.
    const fenced = plan(planDrain(withRegistrations([reg(1, false), reg(2, false), reg(3, false), reg(4, true)], held), { broker: 4 }));
    expect(fenced.warnings).toContainEqual({ code: 'drained-broker-down', broker: 4, registration: 'fenced' });
    expect(warningLines(fenced).join('\n')).toMatch(/broker 4 is registered but fenced \(not heartbeating/);
    const gone = plan(planDrain(withRegistrations([reg(1, false), reg(2, false), reg(3, false)], held), { broker: 4 }));
    expect(warningLines(gone).join('\n')).toMatch(/broker 4 is not registered with the controller/);
    // A line that cannot tell (no registrations read): the old wording, no guess.
    expect(warningLines(plan(planDrain(snapshot([1, 2, 3], held), { broker: 4 }))).join('\n')).toMatch(/broker 4 is not live:/);
    // Fenced and holding nothing: nothing to drain, and how to unregister it.
    const empty = planDrain(withRegistrations([reg(1, false), reg(2, false), reg(3, false), reg(4, true)], { t: [[1, [1, 2, 3], [1, 2, 3]]] }), { broker: 4 });
    expect(refusal(empty)).toEqual({ code: 'nothing-to-drain', broker: 4, registration: 'fenced' });
    expect(reason(empty)).toMatch(/kafka-cluster\.sh unregister --bootstrap-server <broker:port> --id 4/);
  });
  it('moves every replica off the broker, keeping the replication factor, never two on one broker', () => {
    const p = plan(planDrain(s, { broker: 1 }));
    const step = p.steps[0]!;
    if (step.action !== 'reassign') throw new Error('first step must reassign');
    const moves = step.partitions;
    expect(moves.map((m) => `${m.topic}-${m.partition}`)).toEqual(['logs-0', 'logs-2', 'orders-0', 'orders-2']);
    for (const m of moves) {
      expect(m.replicas).not.toContain(1);
      expect(new Set(m.replicas).size).toBe(m.replicas.length);
      const before = s.topics.find((t) => t.name === m.topic)!.partitions[m.partition]!;
      expect(m.replicas).toHaveLength(before.replicas.length);
      // Replicas that stay keep their order, the new one goes last.
      expect(m.replicas.slice(0, -1)).toEqual(before.replicas.filter((r) => r !== 1));
    }
    expect(step.throttleBytesPerSec).toBe(50 * 1024 * 1024);
    expect(p.steps.map((x) => x.action)).toEqual(['reassign', 'wait-reassignment', 'remove-throttles', 'verify-assignment']);
    expect(p.impact.replicasToCopy).toBe(4);
  });

  it('balances new replicas over the least-loaded brokers', () => {
    const many = snapshot([1, 2, 3], { t: Array.from({ length: 10 }, (): P => [1, [1], [1]]) });
    const p = plan(planDrain(many, { broker: 1 }));
    const step = p.steps[0]!;
    if (step.action !== 'reassign') throw new Error('reassign expected');
    const counts = new Map<number, number>();
    for (const m of step.partitions) counts.set(m.replicas[0]!, (counts.get(m.replicas[0]!) ?? 0) + 1);
    expect(counts.get(2)).toBe(5);
    expect(counts.get(3)).toBe(5);
  });

  it('refuses when the other brokers cannot hold every replica, unless asked for a partial drain', () => {
    const small = snapshot([1, 2, 3], { t: [[1, [1, 2, 3], [1, 2, 3]]], logs: [[1, [1], [1]], [2, [1, 2], [2]]] });
    expect(refusal(planDrain(small, { broker: 1 }))).toMatchObject({ code: 'drain-needs-brokers', broker: 1, stuck: 1, movable: 2, example: { topic: 't', partition: 0, replicas: [1, 2, 3] } });
    expect(reason(planDrain(small, { broker: 1 }))).toMatch(/lacks brokers: 1 partition \(e.g. t-0, replicas 1,2,3\) already has a replica/);
    const p = plan(planDrain(small, { broker: 1, partial: true }));
    const step = p.steps[0]!;
    expect(step.action === 'reassign' && step.partitions.map((m) => `${m.topic}-${m.partition}`)).toEqual(['logs-0', 'logs-1']);
    expect(p.warnings).toEqual([{ code: 'replicas-stay', broker: 1, partitions: { names: ['t-0'], total: 1 }, offlineIfStopped: { names: [], total: 0 } }]);
    expect(warningLines(p).join()).toMatch(/^1 partition stays on broker 1 /);
    expect(p.title).toMatch(/1 stay: no free broker/);
    // Staying partitions whose only in-sync replica is the drained broker are called out.
    const risky = snapshot([1, 2], { t: [[1, [1, 2], [1]]], logs: [[1, [1], [1]]] });
    expect(plan(planDrain(risky, { broker: 1, partial: true })).warnings[0]).toMatchObject({ code: 'replicas-stay', offlineIfStopped: { names: ['t-0'], total: 1 } });
    expect(refusal(planDrain(snapshot([1], { logs: [[1, [1], [1]]] }), { broker: 1 }))).toEqual({ code: 'no-other-live-broker', broker: 1 });
    expect(refusal(planDrain(snapshot([1, 2], { t: [[1, [1, 2], [1, 2]]] }), { broker: 1, partial: true }))).toMatchObject({ code: 'nothing-can-move', broker: 1 });
  });

  it('refuses a broker without replicas, a running reassignment, a bad id or throttle', () => {
    expect(refusal(planDrain(s, { broker: 9 }))).toEqual({ code: 'nothing-to-drain', broker: 9 });
    const busy = snapshot([1, 2, 3], { t: [[1, [1, 2], [1, 2]]] }, { 't-0': { addingReplicas: [3] } });
    expect(refusal(planDrain(busy, { broker: 1 }))).toEqual({ code: 'reassignment-running', partitions: { names: ['t-0'], total: 1 } });
    expect(reason(planDrain(busy, { broker: 1 }))).toBe('a reassignment is already running for t-0');
    expect(refusal(planDrain(s, { broker: -1 })).code).toBe('invalid-request');
    expect(reason(planDrain(s, { broker: '1 && reboot' }))).toMatch(/integer/);
    expect(refusal(planDrain(s, { broker: 1 }, { throttleBytesPerSec: 10 })).code).toBe('bad-throttle');
  });

  it('fingerprints the assignment of affected partitions, live brokers and the cluster id, not leadership', () => {
    const p = plan(planDrain(s, { broker: 1 }));
    const leaderMoved = structuredClone(s);
    leaderMoved.topics[1]!.partitions[0]!.leader = 2;
    expect(digestOf(preconditionsFor(p, leaderMoved))).toBe(p.fingerprint);
    const reassigned = structuredClone(s);
    reassigned.topics[1]!.partitions[0]!.replicas = [1, 2, 4];
    expect(digestOf(preconditionsFor(p, reassigned))).not.toBe(p.fingerprint);
    const brokerGone = snapshot([1, 2, 3], {});
    brokerGone.topics = s.topics;
    expect(digestOf(preconditionsFor(p, brokerGone))).not.toBe(p.fingerprint);
    // The same state on another cluster is another cluster: STALE.
    expect(digestOf(preconditionsFor(p, { ...structuredClone(s), clusterId: 'other-cluster' }))).not.toBe(p.fingerprint);
  });

  it('rf1 before a planned stop: the single replica moves elsewhere', () => {
    const rf1 = snapshot([1, 2, 3], { logs: [[1, [1], [1]], [2, [2], [2]], [3, [3], [3]]] });
    const p = plan(planDrain(rf1, { broker: 2 }));
    const step = p.steps[0]!;
    expect(step.action === 'reassign' && step.partitions).toEqual([{ topic: 'logs', partition: 1, replicas: [1] }]);
  });
});

describe('planRaiseReplicationFactor', () => {
  it('1 → 3: appends replicas on distinct brokers, keeping the existing one first', () => {
    const s = snapshot([1, 2, 3], { logs: [[1, [1], [1]], [2, [2], [2]], [3, [3], [3]]] });
    const p = plan(planRaiseReplicationFactor(s, { topic: 'logs', replicationFactor: 3 }));
    const step = p.steps[0]!;
    if (step.action !== 'reassign') throw new Error('reassign expected');
    for (const m of step.partitions) {
      expect(m.replicas).toHaveLength(3);
      expect(new Set(m.replicas).size).toBe(3);
      expect(m.replicas[0]).toBe(m.partition + 1);
    }
    expect(p.impact.replicasToCopy).toBe(6);
  });
  it('refuses too few brokers, a factor that is not higher, unknown topics', () => {
    const s = snapshot([1, 2], { logs: [[1, [1], [1]]], full: [[1, [1, 2], [1, 2]]] });
    expect(refusal(planRaiseReplicationFactor(s, { topic: 'logs', replicationFactor: 3 }))).toEqual({ code: 'not-enough-brokers', replicationFactor: 3, live: 2 });
    expect(reason(planRaiseReplicationFactor(s, { topic: 'full', replicationFactor: 2 }))).toMatch(/already has replication factor 2/);
    expect(refusal(planRaiseReplicationFactor(s, { topic: 'x', replicationFactor: 2 }))).toEqual({ code: 'topic-not-found', topic: 'x' });
    expect(reason(planRaiseReplicationFactor(s, { topic: 'logs', replicationFactor: 1 }))).toMatch(/≥ 2/);
  });
});

describe('planExplicitReassignment', () => {
  const s = snapshot([1, 2, 3], { t: [[1, [1, 2], [1, 2]], [2, [2, 3], [2, 3]]] });
  it('keeps only partitions that change', () => {
    const p = plan(planExplicitReassignment(s, { partitions: [{ topic: 't', partition: 0, replicas: [1, 2] }, { topic: 't', partition: 1, replicas: [3, 1] }] }));
    const step = p.steps[0]!;
    expect(step.action === 'reassign' && step.partitions).toEqual([{ topic: 't', partition: 1, replicas: [3, 1] }]);
    expect(p.impact.replicasToCopy).toBe(1);
  });
  it('refuses dead brokers, duplicates, no-ops', () => {
    expect(refusal(planExplicitReassignment(s, { partitions: [{ topic: 't', partition: 0, replicas: [1, 9] }] }))).toEqual({ code: 'target-not-live', partition: 't-0', brokers: [9] });
    expect(reason(planExplicitReassignment(s, { partitions: [{ topic: 't', partition: 0, replicas: [1, 1] }] }))).toMatch(/twice/);
    expect(reason(planExplicitReassignment(s, { partitions: [{ topic: 't', partition: 0, replicas: [1, 2] }] }))).toMatch(/nothing to change/);
  });
});

describe('planPreferredElection', () => {
  it('targets partitions whose preferred replica is live, in sync and not leading', () => {
    const s = snapshot([1, 2, 3], { t: [[2, [1, 2], [1, 2]], [1, [1, 2], [1, 2]], [3, [2, 3], [3]], [3, [4, 3], [3]]] });
    const p = plan(planPreferredElection(s));
    expect(p.steps[0]).toMatchObject({ action: 'elect-leaders', electionType: 'preferred', partitions: [{ topic: 't', partition: 0 }] });
    expect(p.steps[1]).toMatchObject({ action: 'verify-leaders', expected: [{ topic: 't', partition: 0, leader: 1 }] });
    expect(p.impact.risk).toBe('low');
    expect(codes(p)).toEqual([]);
    // A topic selects every partition of it; the other topics are left alone.
    const two = snapshot([1, 2], { a: [[2, [1, 2], [1, 2]]], b: [[2, [1, 2], [1, 2]]] });
    expect(plan(planPreferredElection(two, { topics: ['b'] })).params.partitions).toEqual([{ topic: 'b', partition: 0 }]);
  });
  it('refuses when nothing needs it', () => {
    const s = snapshot([1, 2], { t: [[1, [1, 2], [1, 2]]] });
    expect(refusal(planPreferredElection(s))).toEqual({ code: 'all-preferred' });
    expect(reason(planPreferredElection(s))).toMatch(/preferred replica/);
    expect(reason(planPreferredElection(s, { partitions: [{ topic: 'q', partition: 0 }] }))).toMatch(/not found/);
  });
});

describe('topic names in plans: one length rule, Kafka\'s (1-249 characters)', () => {
  const longest = 'x'.repeat(249);
  it('a 249-character topic is accepted, planned, and fits the host script it may need (no 256-character argument limit any more)', () => {
    expect(RaiseReplicationFactorRequest.safeParse({ topic: longest, replicationFactor: 3 }).success).toBe(true);
    expect(LeaderOverrideRequest.safeParse({ topic: longest, partition: 0 }).success).toBe(true);
    const s = snapshot([1, 2, 3], { [longest]: [[1, [1], [1]]] });
    const p = plan(planRaiseReplicationFactor(s, { topic: longest, replicationFactor: 3 }));
    expect(p.steps[0]!.action === 'reassign' && p.steps[0]!.partitions[0]!.topic).toBe(longest);
    // The leader override's measurement on the hosts takes the same name as a document parameter.
    expect(checkParams(HOST_SCRIPTS['replica-data'], { kafkaBin: '/opt/kafka/bin', topic: longest, partition: '0', logDirs: '/data' }).topic).toBe(longest);
  });
  it('a 250-character topic is refused up front, with the rule', () => {
    const r = RaiseReplicationFactorRequest.safeParse({ topic: 'x'.repeat(250), replicationFactor: 3 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/1-249 characters/);
  });
});

describe('every kind is reachable from Slack: /kafka reassign and /kafka preferred-election', () => {
  const config = parseConfig({ clusters: [{ name: 'prod', bootstrap: ['k:9092'] }, { name: 'stage', bootstrap: ['s:9092'] }], defaultCluster: 'prod', slack: { allowEveryone: true, incidentChannel: 'C0INC' } });
  it('reassign takes topic:partition=brokers words (a colon cannot be in a topic name) and an optional cluster', () => {
    expect(parseOpsCommand('reassign', ['orders:0=1,2,3', 'orders.v2:11=3,1', 'stage'], config)).toMatchObject({
      request: { kind: 'reassign', partitions: [{ topic: 'orders', partition: 0, replicas: [1, 2, 3] }, { topic: 'orders.v2', partition: 11, replicas: [3, 1] }] },
      cluster: { name: 'stage' },
    });
    expect(parseOpsCommand('reassign', ['orders:0=1,1'], config)).toMatchObject({ error: expect.stringMatching(/twice/) });
    expect(parseOpsCommand('reassign', ['orders-0=1,2'], config)).toMatchObject({ error: expect.stringMatching(/is not topic:partition=brokers/) });
    expect(parseOpsCommand('reassign', ['orders:0=1;reboot'], config)).toHaveProperty('error');
    expect(parseOpsCommand('reassign', [], config)).toHaveProperty('error');
  });
  it('preferred-election: nothing (every partition), topics, or topic:partition', () => {
    expect(parseOpsCommand('preferred-election', [], config)).toMatchObject({ request: { kind: 'preferred-election' }, cluster: { name: 'prod' } });
    expect(parseOpsCommand('preferred-election', ['orders', 'logs:3', 'stage'], config)).toMatchObject({ request: { topics: ['orders'], partitions: [{ topic: 'logs', partition: 3 }] }, cluster: { name: 'stage' } });
    expect(parseOpsCommand('preferred-election', ['bad topic!'], config)).toHaveProperty('error');
  });
});
