// broker-fenced (checks/fenced.ts): a broker the controller still has
// registered but fenced (DescribeCluster v2, KIP-1073), told apart from a
// broker we cannot reach, by whether its process runs, and a decommissioned one
// (gone, holding no replica) named with the command that unregisters it.
import { describe, expect, it } from 'vitest';
import { detect } from '../../lib/diagnose/detect.ts';
import { detectFencedBrokers, unregisterCommand } from '../../lib/diagnose/checks/broker-fenced.ts';
import type { Finding } from '../../lib/diagnose/types.ts';
import type { HostProbeOutcome } from '../../lib/hosts/types.ts';
import { registeredBrokersSkippedCheck, registrationOf } from '../../lib/kafka/registered-brokers-view.ts';
import type { ClusterSnapshot } from '../../lib/kafka/types.ts';
import { execution, okProbe, part, snapshot, topic } from './fixtures.ts';

const reg = (id: number, fenced: boolean) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null, fenced });

/**
 * Brokers 1 and 2 live; 3 registered and fenced, holding replicas (orders-0 led by 1, orders-1 whose ISR was {3});
 * `extra` registered brokers beside them (e.g. a decommissioned 4 holding nothing).
 */
function fencedCluster(extra: ReturnType<typeof reg>[] = [], over: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return snapshot([topic('orders', [part(0, 1, [1, 2, 3], [1, 2]), part(1, -1, [3, 1, 2], [3]), part(2, 2, [2, 1, 3], [2, 1])])], {
    brokers: [1, 2].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null })),
    registeredBrokers: { status: 'read', brokers: [reg(1, false), reg(2, false), reg(3, true), ...extra], reason: null, answeredBy: 1 },
    ...over,
  });
}

const running = { running: true, pid: 777, startedAt: '2026-01-01T00:00:00Z', configPath: '/etc/kafka/server.properties', logsDir: '/opt/kafka/logs' };
const stopped = { running: false, pid: null, startedAt: null, configPath: null, logsDir: null };
const fencedOf = (findings: Finding[], id: number) => findings.filter((f) => f.kind === 'broker-fenced' && f.affected.brokers.includes(id));
const ev = (f: Finding) => Object.fromEntries(f.evidence.map((e) => [e.label, e.value]));

describe('broker-fenced', () => {
  it('process gone: fenced, not unreachable; its replicas and the partition it left leaderless; start it, drain before any unregister', () => {
    const findings = detect(fencedCluster(), [okProbe(1), okProbe(2), okProbe(3, { process: stopped })]);
    const [f, ...more] = fencedOf(findings, 3);
    expect(more).toEqual([]);
    expect(findings.filter((x) => x.kind === 'broker-unreachable')).toEqual([]);
    expect(f).toMatchObject({ kind: 'broker-fenced', severity: 'error', runbook: 'broker-fenced', affected: { brokers: [3] } });
    expect(f!.title).toBe('Broker 3 is registered but fenced: its process is not running (3 replicas assigned to it)');
    expect(f!.summary).toMatch(/still registered with the controller but fenced: its process is not running/);
    expect(f!.summary).toMatch(/Its 3 replicas are out of every ISR while it is fenced; 1 partition it holds has no leader/);
    expect(f!.summary).toMatch(/not a network problem/);
    expect(ev(f!)).toMatchObject({ registration: 'broker 3 at 127.0.0.1:9093: registered, fenced', 'live brokers': '1,2', 'replicas assigned': '3', process: 'not running' });
    expect(f!.evidence.find((e) => e.label === 'registration')?.source).toBe('DescribeCluster (broker 1)');
    expect(f!.nextActions[0]).toMatch(/start it/);
    // Replicas still assigned: no unregister command, the replicas move first.
    expect(f!.nextActions.join('\n')).not.toMatch(/kafka-cluster\.sh unregister/);
    expect(f!.nextActions[1]).toMatch(/moved to other brokers first \(\/kafka drain 3\)/);
  });

  it('process running: kept fenced (heartbeat or controller path); recovering its logs: wait, do not restart', () => {
    const live = fencedOf(detect(fencedCluster(), [okProbe(3, { process: running })]), 3)[0]!;
    expect(live.title).toBe("Broker 3's process runs but the controller keeps it fenced (3 replicas assigned to it)");
    expect(ev(live)['process']).toBe('running (pid 777, started 2026-01-01T00:00:00Z)');
    expect(live.nextActions[0]).toMatch(/heartbeat or controller connection errors/);
    expect(live.nextActions.join('\n')).not.toMatch(/unregister|start it/);

    const recovering = fencedOf(detect(fencedCluster(), [okProbe(3, { process: running, recoveryInProgress: true })]), 3)[0]!;
    expect(recovering.summary).toMatch(/still recovering its logs/);
    expect(ev(recovering)['process']).toMatch(/; log recovery in progress$/);
    expect(recovering.nextActions[0]).toMatch(/^Let broker 3 finish recovering its logs.*Do not restart it now/);
    // Same problem, same fingerprint, whatever the process does.
    expect(recovering.fingerprint).toBe(live.fingerprint);
  });

  it('process unknown: without host access, or with a failed probe, the finding says so and keeps both ways out', () => {
    const noHosts = fencedOf(detect(fencedCluster()), 3)[0]!;
    expect(noHosts.title).toBe('Broker 3 is registered but fenced and not heartbeating (3 replicas assigned to it)');
    expect(noHosts.summary).toMatch(/no host access, so whether its process runs is not known/);
    expect(ev(noHosts)['process']).toBe('not checked (no host access)');

    const failed: HostProbeOutcome = { brokerId: 3, ok: false, reason: 'unreachable', message: 'SSM: Undeliverable', execution: execution(3, { status: 'Undeliverable', exitCode: null, stdout: '' }) };
    const f = fencedOf(detect(fencedCluster(), [okProbe(1), failed]), 3)[0]!;
    expect(ev(f)['process']).toBe('not checked (host probe failed: SSM: Undeliverable)');
    // Host access to others but no target for broker 3.
    expect(ev(fencedOf(detect(fencedCluster(), [okProbe(1)]), 3)[0]!)['process']).toBe('not checked (no host target for broker 3)');
  });

  it('decommissioned: gone and holding no replica, a warning with the exact unregister command on live brokers', () => {
    const s = fencedCluster([reg(4, true)]);
    const f = fencedOf(detect(s, [okProbe(3, { process: stopped }), okProbe(4, { process: stopped })]), 4)[0]!;
    expect(f).toMatchObject({ severity: 'warning', affected: { brokers: [4], partitions: [] } });
    expect(f.title).toBe('Broker 4 is registered but fenced: its process is not running (no replica assigned to it)');
    expect(f.summary).toMatch(/holds no replica\. If it has been decommissioned, it only stays registered/);
    expect(f.nextActions[1]).toBe('If broker 4 has been decommissioned, unregister it: kafka-cluster.sh unregister --bootstrap-server 127.0.0.1:9091,127.0.0.1:9092 --id 4 (add --command-config for a secured listener).');
    // Without host access it is still offered (the operator knows whether the host is gone); never for a running process.
    expect(fencedOf(detect(s), 4)[0]!.nextActions.join('\n')).toContain('kafka-cluster.sh unregister --bootstrap-server 127.0.0.1:9091,127.0.0.1:9092 --id 4');
    expect(fencedOf(detect(s, [okProbe(4, { process: running })]), 4)[0]!.nextActions.join('\n')).not.toMatch(/unregister/);
    // A topic-limited diagnosis knows only those topics' replicas: the command comes with that condition.
    const limited = fencedOf(detect({ ...s, topicFilter: ['orders'] }), 4)[0]!;
    expect(limited.title).toBe('Broker 4 is registered but fenced and not heartbeating (no replica of orders assigned to it)');
    expect(limited.nextActions[1]).toMatch(/^If broker 4 has been decommissioned and holds no replica of any topic \(this diagnosis read orders only: diagnose every topic to be sure\), unregister it: kafka-cluster\.sh unregister /);
    // IPv6 hosts are bracketed; no live broker at all leaves a placeholder.
    expect(unregisterCommand(snapshot([], { brokers: [{ id: 1, host: '::1', port: 9092, rack: null }] }), 4)).toBe('kafka-cluster.sh unregister --bootstrap-server [::1]:9092 --id 4');
    expect(unregisterCommand(snapshot([], { brokers: [] }), 4)).toBe('kafka-cluster.sh unregister --bootstrap-server <broker:port> --id 4');
  });

  it('fenced against unreachable and unregistered: a live broker that does not answer, or a replica holder the controller does not know, stays broker-unreachable', () => {
    const s = fencedCluster([], {
      // Broker 2 live but silent; 3 fenced; 5 holds a replica but is not registered at all.
      unreachableBrokers: [2],
      topics: [topic('orders', [part(0, 1, [1, 2, 3], [1, 2]), part(1, 1, [1, 5], [1])])],
    });
    const findings = detect(s);
    expect(findings.filter((f) => f.kind === 'broker-fenced').map((f) => f.affected.brokers)).toEqual([[3]]);
    const unreachable = findings.filter((f) => f.kind === 'broker-unreachable');
    expect(unreachable.map((f) => f.title).sort()).toEqual(['Broker 2 is registered but not answering', 'Broker 5 is not registered (1 replica assigned to it)']);
    expect(unreachable.find((f) => f.affected.brokers[0] === 2)!.summary).toMatch(/registered and unfenced \(it heartbeats\)/);
    expect(registrationOf(s, 1)).toBe('live');
    expect(registrationOf(s, 3)).toBe('fenced');
    expect(registrationOf(s, 5)).toBe('not-registered');
  });

  it('a line without the API (before 4.0, ZooKeeper mode), a failed read, or an older snapshot: no finding, the down broker stays broker-unreachable, said once among the skipped checks', () => {
    const unsupported = fencedCluster([], { registeredBrokers: { status: 'unsupported', brokers: [], reason: 'broker 1 serves DescribeCluster v0-v1', answeredBy: null } });
    expect(detectFencedBrokers({ snapshot: unsupported, probes: [], lagHistory: [] })).toEqual([]);
    const findings = detect(unsupported);
    expect(findings.filter((f) => f.kind === 'broker-fenced')).toEqual([]);
    expect(findings.filter((f) => f.kind === 'broker-unreachable').map((f) => f.title)).toEqual(['Broker 3 is down (3 replicas assigned to it)']);
    expect(registrationOf(unsupported, 3)).toBe('unknown');
    expect(registeredBrokersSkippedCheck(unsupported)).toMatch(/^Fenced brokers \(broker-fenced\): not available on this Kafka line \(broker 1 serves DescribeCluster v0-v1\); listing fenced brokers needs DescribeCluster v2/);

    const failed = fencedCluster([], { registeredBrokers: { status: 'failed', brokers: [], reason: 'timeout', answeredBy: null } });
    expect(detect(failed).filter((f) => f.kind === 'broker-fenced')).toEqual([]);
    expect(registeredBrokersSkippedCheck(failed)).toMatch(/could not be read \(timeout\)/);

    const { registeredBrokers: _none, ...older } = fencedCluster();
    expect(detect(older).filter((f) => f.kind === 'broker-fenced')).toEqual([]);
    expect(registeredBrokersSkippedCheck(older)).toBeNull();
    expect(registeredBrokersSkippedCheck(fencedCluster())).toBeNull();
  });

  it('killed moments ago: still live and unfenced, not answering, its process gone: said so (fenced at the session timeout), never "not a stopped process"', () => {
    const all = [1, 2, 3].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null }));
    const s = fencedCluster([], { brokers: all, unreachableBrokers: [3], registeredBrokers: { status: 'read', brokers: [reg(1, false), reg(2, false), reg(3, false)], reason: null, answeredBy: 1 } });
    const [gone] = detect(s, [okProbe(1), okProbe(2), okProbe(3, { process: stopped })]).filter((f) => f.kind === 'broker-unreachable');
    expect(gone!.title).toBe("Broker 3's process is not running; the controller has not fenced it yet");
    expect(gone!.summary).toMatch(/until its broker session times out \(broker\.session\.timeout\.ms, 9 s by default\)/);
    expect(gone!.summary).not.toMatch(/not a stopped process/);
    expect(ev(gone!)).toMatchObject({ registration: 'registered, unfenced', process: 'not running' });
    expect(gone!.nextActions[0]).toMatch(/^Find out why broker 3 stopped/);
    // Process running: the path or its request handling; not known: that, or a stop within the session timeout.
    const [live] = detect(s, [okProbe(3, { process: running })]).filter((x) => x.kind === 'broker-unreachable');
    expect(live!.title).toBe('Broker 3 is registered but not answering');
    expect(live!.summary).toMatch(/the trouble is on the path between us and it .* or in its request handling, not a stopped process\.$/);
    const [blind] = detect(s).filter((x) => x.kind === 'broker-unreachable');
    expect(blind!.title).toBe('Broker 3 is registered but not answering');
    expect(blind!.summary).toMatch(/or in its request handling, unless it stopped less than a broker session timeout ago \(broker\.session\.timeout\.ms, 9 s by default\)/);
    // The same problem each time: the fingerprint does not depend on what the host said.
    expect(new Set([gone!.fingerprint, live!.fingerprint, blind!.fingerprint]).size).toBe(1);
  });

  it('a broker listed fenced that Metadata lists live (unfenced between the two reads) is no finding', () => {
    const s = fencedCluster([], { brokers: [1, 2, 3].map((id) => ({ id, host: '127.0.0.1', port: 9090 + id, rack: null })) });
    expect(detect(s).filter((f) => f.kind === 'broker-fenced' || f.kind === 'broker-unreachable')).toEqual([]);
  });
});
