// Config changes in "what changed": the configs set at runtime (dynamic
// broker configs per broker and cluster-wide, every topic override) read from
// DescribeConfigs answers and compared with the last kept view.
import { describe, expect, it } from 'vitest';
import { configView } from '../../lib/diagnose/config-view.ts';
import { changeLines } from '../../lib/diagnose/render-changes.ts';
import { factsOf, whatChanged, type ClusterChange } from '../../lib/diagnose/what-changed.ts';
import { config, healthyTopic, snapshot, topic, part } from './fixtures.ts';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const e = (name: string, value: string | null, source: number, isSensitive = false) => ({ name, value, source, isSensitive });
const broker = (id: number, entries: ReturnType<typeof e>[]) => ({ name: String(id), errorCode: 0, entries });
const topicAnswer = (name: string, entries: ReturnType<typeof e>[]) => ({ name, errorCode: 0, entries });

describe('the config view (pure)', () => {
  it('keeps per broker what was set on it at runtime, the cluster-wide defaults once, topic overrides; never static, default or sensitive values', () => {
    const view = configView(
      [
        broker(1, [e('log.cleaner.threads', '2', 2), e('num.io.threads', '8', 4), e('log.retention.ms', '3600000', 3), e('listener.name.x.ssl.keystore.password', null, 2, true), e('message.max.bytes', '1048588', 5)]),
        broker(2, [e('log.retention.ms', '3600000', 3)]),
        { name: '3', errorCode: 7, entries: [] },
      ],
      [topicAnswer('orders', [e('retention.ms', '60000', 1), e('min.insync.replicas', '2', 4), e('cleanup.policy', 'delete', 5)])],
    );
    expect(view).toEqual({ brokers: { '1': { 'log.cleaner.threads': '2' }, '2': {}, '': { 'log.retention.ms': '3600000' } }, topics: { orders: { 'retention.ms': '60000' } } });
    expect(configView([broker(1, [])], null).topics).toBeUndefined();
    expect(configView([broker(1, [e('process.roles', 'broker', 4)])], null).kraft).toBe(true);
    expect(configView([broker(1, [e('zookeeper.connect', 'zk:2181', 4)])], null).kraft).toBeUndefined();
  });
});

describe('config changes against the last view (pure)', () => {
  const snap = (min: number, minIsr = 2) => snapshot([topic('orders', [part(0, 1, [1, 2, 3])], config({ minInsyncReplicas: minIsr })), healthyTopic('audit', 1)], { takenAt: at(min) });
  const w = { at: at(10), since: at(0) };

  it('names a broker setting set, changed and removed, the cluster-wide default, and every topic override set, changed or removed', () => {
    const before = configView(
      [broker(1, [e('log.cleaner.threads', '1', 2)]), broker(2, [e('log.cleaner.threads', '1', 2)])],
      [topicAnswer('orders', [e('retention.ms', '60000', 1), e('min.insync.replicas', '2', 1)]), topicAnswer('audit', [])],
    );
    const after = configView(
      [broker(1, [e('log.cleaner.threads', '2', 2), e('log.retention.ms', '7200000', 3)]), broker(2, [e('log.retention.ms', '7200000', 3)]), broker(4, [e('x', '1', 2)])],
      [topicAnswer('orders', [e('min.insync.replicas', '1', 1)]), topicAnswer('audit', [e('max.message.bytes', '2000000', 1)])],
    );
    const r = whatChanged(snap(10, 1), [], { facts: factsOf(snap(0), [], before), changes: [] }, [], T0 + 10 * 60_000, after);
    const configChanges = r.changes.filter((c) => c.code.endsWith('config-changed'));
    expect(configChanges).toEqual(
      expect.arrayContaining<ClusterChange>([
        { code: 'broker-config-changed', broker: 1, setting: 'log.cleaner.threads', from: '1', to: '2', ...w },
        { code: 'broker-config-changed', broker: 2, setting: 'log.cleaner.threads', from: '1', to: null, ...w },
        { code: 'broker-config-changed', broker: null, setting: 'log.retention.ms', from: null, to: '7200000', ...w },
        { code: 'topic-config-changed', topic: 'orders', setting: 'min.insync.replicas', from: '2', to: '1', ...w },
        { code: 'topic-config-changed', topic: 'orders', setting: 'retention.ms', from: '60000', to: null, ...w },
        { code: 'topic-config-changed', topic: 'audit', setting: 'max.message.bytes', from: null, to: '2000000', ...w },
      ]),
    );
    // Once each (the snapshot's min ISR subset is not compared again beside the overrides); broker 4 has nothing to compare with.
    expect(configChanges).toHaveLength(6);
    const text = changeLines(configChanges).join('\n');
    expect(text).toContain('broker 1 config: log.cleaner.threads changed from 1 to 2 between 00:00:00 UTC and 00:10:00 UTC');
    expect(text).toContain('broker 2 config: log.cleaner.threads (1) removed, back to its default');
    expect(text).toContain('cluster-wide broker default: log.retention.ms set to 7200000');
    expect(text).toContain('topic audit: max.message.bytes set to 2000000');
  });

  it('KRaft: the controller id Metadata names (a random live broker) is not a controller change; ZooKeeper mode: it is', () => {
    const s = (min: number, controllerId: number) => snapshot([healthyTopic('orders', 1)], { takenAt: at(min), controllerId });
    const kraft = configView([broker(1, [e('process.roles', 'broker', 4)])], null);
    const zk = configView([broker(1, [])], null);
    const moved = (view: typeof kraft) => whatChanged(s(10, 2), [], { facts: factsOf(s(0, 1), [], view), changes: [] }, [], T0 + 10 * 60_000, view).changes.map((c) => c.code);
    expect(moved(kraft)).not.toContain('controller-changed');
    expect(moved(zk)).toContain('controller-changed');
  });

  it('without a view on either side: the snapshot subset as before, no broker config compared', () => {
    const r = whatChanged(snap(10, 1), [], { facts: factsOf(snap(0), []), changes: [] }, [], T0 + 10 * 60_000, configView([broker(1, [e('a', '1', 2)])], null));
    expect(r.changes.filter((c) => c.code.endsWith('config-changed'))).toEqual([{ code: 'topic-config-changed', topic: 'orders', setting: 'min.insync.replicas', from: '2', to: '1', ...w }]);
    // The view is kept for the next run.
    expect(r.keep.facts.brokerConfigs).toEqual({ '1': { a: '1' }, '': {} });
  });
});
