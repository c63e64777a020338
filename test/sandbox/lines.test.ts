// Which Kafka line and mode a sandbox runs, and what each line's files say.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loggingDeps } from '../../sandbox/dist.ts';
import { serverProperties, toolClasses, zookeeperProperties } from '../../sandbox/files.ts';
import { CONTROLLER_ID, DEFAULT_KAFKA_VERSION, nodeLayout, sandboxSettings } from '../../sandbox/layout.ts';
import { LINES, MATRIX_TESTS, lineEnv, testNamePattern } from './matrix.ts';
import { scratchDir } from '../helpers/scratch.ts';

const env = (extra: Record<string, string>) => ({ KR_SANDBOX_HOME: scratchDir('kr-lines'), ...extra });

describe('sandbox lines', () => {
  it('defaults to the newest line, KRaft; 2.8 means ZooKeeper mode; --zookeeper alone picks 3.9', () => {
    expect(sandboxSettings(env({}))).toMatchObject({ kafkaVersion: DEFAULT_KAFKA_VERSION, mode: 'kraft' });
    expect(DEFAULT_KAFKA_VERSION).toBe('4.4.0');
    expect(sandboxSettings(env({ KAFKA_VERSION: '2.8.2' }))).toMatchObject({ kafkaVersion: '2.8.2', mode: 'zookeeper' });
    expect(sandboxSettings(env({ KR_SANDBOX_MODE: 'zookeeper' }))).toMatchObject({ kafkaVersion: '3.9.1', mode: 'zookeeper' });
    expect(sandboxSettings(env({ KAFKA_VERSION: '3.9.1' }))).toMatchObject({ mode: 'kraft' });
  });

  it('refuses a mode the line does not have, saying which lines have it', () => {
    expect(() => sandboxSettings(env({ KAFKA_VERSION: '4.4.0', KR_SANDBOX_MODE: 'zookeeper' }))).toThrow(/no ZooKeeper mode.*3\.9\.1 or 2\.8\.2/);
    expect(() => sandboxSettings(env({ KAFKA_VERSION: '2.8.2', KR_SANDBOX_MODE: 'kraft' }))).toThrow(/ZooKeeper mode only/);
    expect(() => sandboxSettings(env({ KAFKA_VERSION: '3.6.0' }))).toThrow(/KAFKA_VERSION/);
  });

  it('unset, version and mode are those of the sandbox already at the home', () => {
    const home = scratchDir('kr-lines-existing');
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'cluster.json'),
      JSON.stringify({ kafkaVersion: '3.9.1', mode: 'zookeeper', clusterId: 'x', portBase: 1, bootstrapServers: 'b', binDir: 'd', controller: { id: 100, port: 1, hostDir: 'h' }, brokers: [] }),
    );
    expect(sandboxSettings({ KR_SANDBOX_HOME: home })).toMatchObject({ kafkaVersion: '3.9.1', mode: 'zookeeper' });
    // Asked for explicitly, the asked line wins (and `up` then refuses the mismatch).
    expect(sandboxSettings({ KR_SANDBOX_HOME: home, KAFKA_VERSION: '4.4.0' })).toMatchObject({ kafkaVersion: '4.4.0', mode: 'kraft' });
  });

  it('ZooKeeper mode: node 100 is the ZooKeeper server; brokers get broker.id and zookeeper.connect, no KRaft key', () => {
    const s = sandboxSettings(env({ KAFKA_VERSION: '2.8.2', KR_SANDBOX_PORT_BASE: '34100' }));
    const zk = nodeLayout(s, CONTROLLER_ID);
    expect(zk).toMatchObject({ role: 'zookeeper', port: 34100, saslPort: null });
    expect(zookeeperProperties(zk)).toMatch(/^clientPort=34100$/m);
    expect(zookeeperProperties(zk)).toMatch(/^admin\.enableServer=false$/m);
    const props = serverProperties(s, nodeLayout(s, 2));
    expect(props).toMatch(/^broker\.id=2$/m);
    expect(props).toMatch(/^zookeeper\.connect=127\.0\.0\.1:34100$/m);
    expect(props).not.toMatch(/^(process\.roles|node\.id|controller\.)/m);
    expect(props).not.toMatch(/CONTROLLER/);
    const kraft = serverProperties(sandboxSettings(env({})), nodeLayout(sandboxSettings(env({})), 2));
    expect(kraft).toMatch(/^process\.roles=broker$/m);
    expect(kraft).not.toMatch(/^zookeeper\./m);
  });

  it('each line runs its own tool classes and slf4j binding', () => {
    expect(toolClasses('2.8.2')['kafka-topics.sh']).toBe('kafka.admin.TopicCommand');
    expect(toolClasses('2.8.2')['kafka-reassign-partitions.sh']).toBe('kafka.admin.ReassignPartitionsCommand');
    expect(toolClasses('3.9.1')['kafka-topics.sh']).toBe('org.apache.kafka.tools.TopicCommand');
    expect(toolClasses('4.1.1')['kafka-configs.sh']).toBe('kafka.admin.ConfigCommand');
    expect(toolClasses('4.4.0')['kafka-configs.sh']).toBe('org.apache.kafka.tools.ConfigCommand');
    expect(toolClasses('4.4.0')).not.toHaveProperty('zookeeper-shell.sh');
    expect(loggingDeps('4.4.0')).toEqual([['org.apache.logging.log4j', 'log4j-slf4j-impl', '2.25.5']]);
    // 2.8's kafka-tools brings slf4j-log4j12 and log4j 1.2.17 itself: a second binding would clash.
    expect(loggingDeps('2.8.2')).toEqual([]);
  });

  it('the matrix gives each line its own home and ports, and its pattern names tests of each file', () => {
    const envs = LINES.map((l, i) => lineEnv(l, i, { KR_SANDBOX_HOME: '/tmp/sb', KR_SANDBOX_PORT_BASE: '34000' }));
    expect(envs.map((e) => e.KR_SANDBOX_HOME)).toEqual(['/tmp/sb-kraft-3.9', '/tmp/sb-zookeeper-3.9', '/tmp/sb-zookeeper-2.8']);
    expect(envs.map((e) => e.KR_SANDBOX_PORT_BASE)).toEqual(['34100', '34200', '34300']);
    expect(envs.map((e) => `${e.KAFKA_VERSION}/${e.KR_SANDBOX_MODE}`)).toEqual(['3.9.1/kraft', '3.9.1/zookeeper', '2.8.2/zookeeper']);
    const pattern = new RegExp(testNamePattern());
    expect(pattern.test('operations over the Kafka protocol on the sandbox, no host access leaderless partition with its last in-sync replica wiped: ...')).toBe(true);
    expect(pattern.test('diagnosis on the sandbox offsets-loading: groups are tied')).toBe(false);
    expect(MATRIX_TESTS.every((f) => f.tests.length > 0)).toBe(true);
  });
});
