import { describe, expect, it } from 'vitest';
import { runDiagnosis, type ProbeHostsFn, type SnapshotFn } from '../../lib/diagnose/run.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';
import type { Executor } from '../../lib/hosts/types.ts';
import { healthyCluster, okProbe } from './fixtures.ts';

const connection = parseConnectionConfig({ bootstrap: ['b1:9092'] });
const executor: Executor = { kind: 'local', run: async () => [] };
const targets = [1, 2, 3].map((brokerId) => ({ brokerId, address: `/h/${brokerId}` }));
const snap: SnapshotFn = async () => healthyCluster();

describe('runDiagnosis', () => {
  it('without host access (MSK) runs the metadata diagnosis and says which host checks did not run', async () => {
    const r = await runDiagnosis({ cluster: 'msk-prod', connection, timeoutMs: 5000, takeSnapshot: snap });
    expect(r.findings).toEqual([]);
    expect(r.partial).toBe(false);
    expect(r.skippedChecks).toHaveLength(1);
    expect(r.skippedChecks[0]).toMatch(/No host access.*disk-pressure.*broker-crash-loop/);
  });

  it('probes hosts concurrently with the snapshot and passes the topic filter on', async () => {
    const seen: { topics: string[] | null }[] = [];
    const probe: ProbeHostsFn = async (_e, t) => t.map((x) => okProbe(x.brokerId, x.brokerId === 2 ? { recoveryInProgress: true } : {}));
    const r = await runDiagnosis({
      connection,
      executor,
      hostTargets: targets.slice(0, 2),
      topic: 'orders',
      timeoutMs: 5000,
      takeSnapshot: async (_c, o) => (seen.push(o), healthyCluster()),
      probeHosts: probe,
    });
    expect(seen[0]!.topics).toEqual(['orders']);
    expect(r.findings.map((f) => f.kind)).toEqual(['unclean-shutdown-recovery']);
    expect(r.skippedChecks).toEqual(['No host target configured for broker 3: host checks skipped there.']);
  });

  it('a probe runner that throws becomes host-unreachable findings, not a failed diagnosis', async () => {
    const r = await runDiagnosis({ connection, executor, hostTargets: targets, timeoutMs: 5000, takeSnapshot: snap, probeHosts: async () => { throw new Error('SSM throttled'); } });
    expect(r.findings.map((f) => f.kind)).toEqual(['host-unreachable', 'host-unreachable', 'host-unreachable']);
    expect(r.findings[0]!.evidence[0]!.value).toMatch(/SSM throttled/);
  });

  it('an unreachable cluster is an error, with the snapshot\'s message', async () => {
    await expect(runDiagnosis({ connection, timeoutMs: 5000, takeSnapshot: async () => { throw new Error('could not read cluster metadata from any bootstrap server'); } })).rejects.toThrow(/any bootstrap server/);
  });
});

describe('runDiagnosis inputs', () => {
  it('a --topic that does not exist is a clear error, not a healthy report', async () => {
    const s = { ...healthyCluster(), errors: [{ scope: 'topic:nope', message: 'UNKNOWN_TOPIC_OR_PARTITION: This server does not host this topic-partition' }] };
    await expect(runDiagnosis({ connection, topic: 'nope', timeoutMs: 5000, takeSnapshot: async () => s })).rejects.toThrow(/topic nope does not exist on b1:9092 \(UNKNOWN_TOPIC_OR_PARTITION/);
  });

  it('a partial snapshot says what could not be read', async () => {
    const s = { ...healthyCluster(), partial: true, unreachableBrokers: [2], errors: [{ scope: 'broker:2', message: 'ListGroups: no answer within 3000 ms' }] };
    const r = await runDiagnosis({ connection, timeoutMs: 5000, takeSnapshot: async () => s });
    expect(r.partial).toBe(true);
    expect(r.snapshotErrors).toEqual([{ scope: 'broker:2', message: 'ListGroups: no answer within 3000 ms' }]);
    expect(r.findings.map((f) => f.kind)).toEqual(['broker-unreachable']);
  });
});
