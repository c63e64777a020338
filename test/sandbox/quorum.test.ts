// The controller quorum's layout and files on each line, without a cluster: three
// controllers in a dynamic quorum on 4.x, one static voter on 3.9 KRaft, the
// ZooKeeper server in ZooKeeper mode; and how Kafka's quorum tool is read.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverProperties, toolClasses } from '../../sandbox/files.ts';
import {
  clusterFileSchema,
  controllerBootstrapServers,
  controllerIds,
  metricsPort,
  metricsTargets,
  nodeIds,
  nodeLayout,
  nodePorts,
  readSandboxCluster,
  sandboxSettings,
} from '../../sandbox/layout.ts';
import { formatQuorumArgs, initialControllers, parseQuorumStatus, predatesQuorum } from '../../sandbox/quorum.ts';
import { QUORUM_SCENARIOS } from '../../sandbox/quorum-scenarios.ts';
import { SCENARIOS } from '../../sandbox/scenarios.ts';
import { scratchDir } from '../helpers/scratch.ts';

const settings = (extra: Record<string, string> = {}) => sandboxSettings({ KR_SANDBOX_HOME: scratchDir('kr-quorum'), KR_SANDBOX_PORT_BASE: '34000', ...extra });

describe('sandbox controller quorum layout', () => {
  it('4.x lines run controllers 100, 101, 102; 3.9 KRaft one; ZooKeeper mode its server as node 100', () => {
    expect(nodeIds(settings())).toEqual([100, 101, 102, 1, 2, 3]);
    expect(controllerIds(settings({ KAFKA_VERSION: '4.1.1' }))).toEqual([100, 101, 102]);
    expect(nodeIds(settings({ KAFKA_VERSION: '3.9.1' }))).toEqual([100, 1, 2, 3]);
    expect(nodeIds(settings({ KAFKA_VERSION: '3.9.1', KR_SANDBOX_MODE: 'zookeeper' }))).toEqual([100, 1, 2, 3]);
    expect(nodeIds(settings({ KAFKA_VERSION: '2.8.2' }))).toEqual([100, 1, 2, 3]);
  });

  it('ports: controllers at B, B+4, B+5, exporters at B+30+(port-B); every port distinct and inside B..B+99', () => {
    const s = settings();
    const home = s.home;
    expect(controllerIds(s).map((id) => nodeLayout(s, id))).toMatchObject([
      { role: 'controller', port: 34000, hostDir: join(home, 'controller-100'), saslPort: null, tlsPort: null },
      { role: 'controller', port: 34004, hostDir: join(home, 'controller-101'), pidFile: join(home, 'controller-101', 'controller.pid') },
      { role: 'controller', port: 34005, hostDir: join(home, 'controller-102') },
    ]);
    expect(controllerBootstrapServers(s)).toBe('127.0.0.1:34000,127.0.0.1:34004,127.0.0.1:34005');
    expect(metricsTargets(s).split(',')).toEqual(['127.0.0.1:34030', '127.0.0.1:34034', '127.0.0.1:34035', '127.0.0.1:34031', '127.0.0.1:34032', '127.0.0.1:34033']);
    const all = [...nodeIds(s).flatMap((id) => nodePorts(nodeLayout(s, id))), ...nodeIds(s).map((id) => metricsPort(s, id))];
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((p) => p >= 34000 && p < 34100)).toBe(true);
    // The lines without a quorum keep their single node 100 where it always was.
    const single = settings({ KAFKA_VERSION: '3.9.1' });
    expect(nodeLayout(single, 100)).toMatchObject({ port: 34000, hostDir: join(single.home, 'controller') });
    expect(metricsTargets(single).split(',')).toHaveLength(4);
    expect(metricsTargets(settings({ KAFKA_VERSION: '2.8.2' })).split(',')).toHaveLength(3);
  });

  it('4.x nodes find the quorum through controller.quorum.bootstrap.servers; 3.9 keeps controller.quorum.voters', () => {
    const s = settings();
    const bootstrap = /^controller\.quorum\.bootstrap\.servers=127\.0\.0\.1:34000,127\.0\.0\.1:34004,127\.0\.0\.1:34005$/m;
    const controller = serverProperties(s, nodeLayout(s, 101));
    expect(controller).toMatch(bootstrap);
    expect(controller).toMatch(/^process\.roles=controller$/m);
    expect(controller).toMatch(/^node\.id=101$/m);
    expect(controller).toMatch(/^listeners=CONTROLLER:\/\/127\.0\.0\.1:34004$/m);
    expect(serverProperties(s, nodeLayout(s, 2))).toMatch(bootstrap);
    for (const id of [100, 2]) expect(serverProperties(s, nodeLayout(s, id))).not.toMatch(/controller\.quorum\.voters/);
    const old = settings({ KAFKA_VERSION: '3.9.1' });
    expect(serverProperties(old, nodeLayout(old, 2))).toMatch(/^controller\.quorum\.voters=100@127\.0\.0\.1:34000$/m);
    expect(serverProperties(old, nodeLayout(old, 2))).not.toMatch(/bootstrap\.servers/);
  });

  it('format: the same --initial-controllers on every controller of a new quorum, --no-initial-controllers otherwise', async () => {
    const s = settings();
    const controllers = controllerIds(s).map((id, i) => ({ id, port: nodeLayout(s, id).port, hostDir: nodeLayout(s, id).hostDir, directoryId: `dir${i}AAAAAAAAAAAAAAAAAA` }));
    const cluster = clusterFileSchema.parse({
      kafkaVersion: '4.4.0', mode: 'kraft', clusterId: 'c', portBase: 34000, bootstrapServers: 'b', binDir: 'd',
      controller: controllers[0], controllers, controllerQuorum: 'dynamic', brokers: [],
    });
    const initial = '100@127.0.0.1:34000:dir0AAAAAAAAAAAAAAAAAA,101@127.0.0.1:34004:dir1AAAAAAAAAAAAAAAAAA,102@127.0.0.1:34005:dir2AAAAAAAAAAAAAAAAAA';
    expect(initialControllers(cluster)).toBe(initial);
    expect(await formatQuorumArgs(s, nodeLayout(s, 102), cluster, true)).toEqual(['--initial-controllers', initial]);
    expect(await formatQuorumArgs(s, nodeLayout(s, 3), cluster, true)).toEqual(['--no-initial-controllers']);
    // A controller formatted into an existing quorum (a wiped one) joins it on start.
    mkdirSync(nodeLayout(s, 101).hostDir, { recursive: true });
    expect(await formatQuorumArgs(s, nodeLayout(s, 101), cluster, false)).toEqual(['--no-initial-controllers']);
    const old = settings({ KAFKA_VERSION: '3.9.1' });
    expect(await formatQuorumArgs(old, nodeLayout(old, 100), cluster, true)).toEqual([]);
  });

  it('cluster.json: files without the quorum fields still parse; a 4.x one from before the quorum is recognised', async () => {
    const s = settings();
    mkdirSync(s.home, { recursive: true });
    const before = { kafkaVersion: '4.4.0', mode: 'kraft', clusterId: 'x', portBase: 34000, bootstrapServers: 'b', binDir: 'd', controller: { id: 100, port: 34000, hostDir: join(s.home, 'controller') }, brokers: [] };
    writeFileSync(join(s.home, 'cluster.json'), JSON.stringify(before));
    const parsed = await readSandboxCluster(s);
    expect(parsed.controllers).toBeUndefined();
    expect(predatesQuorum(s, parsed)).toBe(true);
    expect(predatesQuorum(s, { ...parsed, controllerQuorum: 'dynamic' })).toBe(false);
    expect(predatesQuorum(settings({ KAFKA_VERSION: '3.9.1' }), parsed)).toBe(false);
  });

  it('kafka-metadata-quorum.sh is among the wrappers of every line that has it (3.x, 4.x)', () => {
    expect(toolClasses('4.4.0')['kafka-metadata-quorum.sh']).toBe('org.apache.kafka.tools.MetadataQuorumCommand');
    expect(toolClasses('3.9.1')['kafka-metadata-quorum.sh']).toBe('org.apache.kafka.tools.MetadataQuorumCommand');
    expect(toolClasses('2.8.2')).not.toHaveProperty('kafka-metadata-quorum.sh');
  });

  it('the quorum scenarios are registered', () => {
    for (const name of ['controller-down', 'quorum-lost', 'controller-failover']) expect(SCENARIOS[name]).toBe(QUORUM_SCENARIOS[name]);
  });
});

describe('kafka-metadata-quorum.sh describe --status, as the sandbox reads it', () => {
  it('reads the leader, epoch and the voters with their directory ids (4.4.0 output)', () => {
    const text = [
      'ClusterId:              U_nBzujgWm2QYWAKQJ4G1Q',
      'LeaderId:               101',
      'LeaderEpoch:            1',
      'HighWatermark:          165',
      'MaxFollowerLag:         0',
      'MaxFollowerLagTimeMs:   93',
      'CurrentVoters:          [{"id": 100, "directoryId": "9kuWhK1mFKKjX2yHe5quTw", "endpoints": ["CONTROLLER://127.0.0.1:31090"]}, {"id": 101, "directoryId": "7ESRQ714dUoosrXoRRMuew", "endpoints": ["CONTROLLER://127.0.0.1:31094"]}, {"id": 102, "directoryId": "iZZeo-iYi9bOU_eZf_6CEQ", "endpoints": ["CONTROLLER://127.0.0.1:31095"]}]',
      'CurrentObservers:       [{"id": 1, "directoryId": "WDl_UYRB_QXtOKQGFlRz_A"}, {"id": 2, "directoryId": "w8CVHBWMLB8g0Zn5rErrpw"}]',
      '',
    ].join('\n');
    const s = parseQuorumStatus(text);
    expect(s).toMatchObject({ leaderId: 101, leaderEpoch: 1, highWatermark: 165, maxFollowerLag: 0 });
    expect(s.voters.map((v) => [v.id, v.directoryId])).toEqual([[100, '9kuWhK1mFKKjX2yHe5quTw'], [101, '7ESRQ714dUoosrXoRRMuew'], [102, 'iZZeo-iYi9bOU_eZf_6CEQ']]);
    expect(s.observers.map((o) => o.id)).toEqual([1, 2]);
  });

  it('reads the bare id lists of older lines, and refuses output without a leader line', () => {
    const s = parseQuorumStatus('ClusterId: x\nLeaderId: 100\nLeaderEpoch: 3\nHighWatermark: 9\nMaxFollowerLag: 0\nCurrentVoters: [100]\nCurrentObservers: [1,2,3]\n');
    expect(s.voters).toEqual([{ id: 100 }]);
    expect(s.observers.map((o) => o.id)).toEqual([1, 2, 3]);
    expect(() => parseQuorumStatus('Error: no leader\n')).toThrow(/LeaderId/);
  });
});
