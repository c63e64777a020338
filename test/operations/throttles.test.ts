// The throttle ledger's ownership rules on the scripted cluster (the same rules
// run against Kafka in throttles.int.test.ts): only entries and rates that were
// absent before the run become ours, and only ours are removed.
import { describe, expect, it } from 'vitest';
import { applyThrottles, removeThrottles, throttleLedgerFor } from '../../lib/operations/throttles.ts';
import { FakeCluster } from './fake-cluster.ts';

const moves = [
  { topic: 'orders', partition: 0, replicas: [1, 3] },
  { topic: 'orders', partition: 1, replicas: [2, 3] },
];
const current: Record<number, number[]> = { 0: [1], 1: [2] };
const wanted = () => throttleLedgerFor(moves, (_t, p) => current[p], 1_048_576);

describe('throttle ledger', () => {
  it('records only entries the lists lacked; cleanup leaves coinciding operator entries', async () => {
    const cluster = new FakeCluster().addTopic('orders', [[1], [2]]);
    cluster.config('topic:orders').set('leader.replication.throttled.replicas', '0:1,1:9');
    const admin = await cluster.openAdmin();
    const ledger = await applyThrottles(admin, wanted(), async () => {});
    expect(ledger.topics).toEqual([{ topic: 'orders', leader: ['1:2'], follower: ['0:3', '1:3'] }]);
    expect((await removeThrottles(admin, ledger)).complete).toBe(true);
    expect(cluster.config('topic:orders').get('leader.replication.throttled.replicas')).toBe('0:1,1:9');
    expect(cluster.config('topic:orders').has('follower.replication.throttled.replicas')).toBe(false);
  });

  it('a list that is "*" already covers ours: nothing appended to it, nothing taken from it', async () => {
    const cluster = new FakeCluster().addTopic('orders', [[1], [2]]);
    cluster.config('topic:orders').set('leader.replication.throttled.replicas', '*');
    const admin = await cluster.openAdmin();
    const ledger = await applyThrottles(admin, wanted(), async () => {});
    expect(ledger.topics).toEqual([{ topic: 'orders', leader: [], follower: ['0:3', '1:3'] }]);
    expect(cluster.config('topic:orders').get('leader.replication.throttled.replicas')).toBe('*');
    await removeThrottles(admin, ledger);
    expect(cluster.config('topic:orders').get('leader.replication.throttled.replicas')).toBe('*');
  });

  it('a broker rate is set only where none was, and removed only while it still holds our value', async () => {
    const cluster = new FakeCluster().addTopic('orders', [[1], [2]]);
    cluster.config('broker:2').set('follower.replication.throttled.rate', '777');
    const admin = await cluster.openAdmin();
    const ledger = await applyThrottles(admin, wanted(), async () => {});
    expect(ledger.brokers).toEqual([1, 3]);
    expect(ledger.operatorRateBrokers).toEqual([2]);
    expect(cluster.config('broker:2').has('leader.replication.throttled.rate')).toBe(false);
    // An operator changes broker 3's leader rate during the run: it is theirs now.
    cluster.config('broker:3').set('leader.replication.throttled.rate', '5000');
    await removeThrottles(admin, ledger);
    expect([...cluster.config('broker:1').keys()]).toEqual([]);
    expect(Object.fromEntries(cluster.config('broker:3'))).toEqual({ 'leader.replication.throttled.rate': '5000' });
    expect(Object.fromEntries(cluster.config('broker:2'))).toEqual({ 'follower.replication.throttled.rate': '777' });
  });
});
