// The configuration: one zod schema, clear messages for every mistake.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCluster, loadConfig, parseConfig } from '../../lib/config/schema.ts';
import { hostTargets } from '../../lib/hosts/executors.ts';
import { toConnectionConfig } from '../../lib/kafka/cluster-connection.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';
import { scratchDir } from '../helpers/scratch.ts';

const base = structuredClone(BASE_CONFIG);

describe('configuration', () => {
  it('fills defaults: approvals need two, alerts have a window', () => {
    const c = parseConfig(base);
    expect(c.approvals).toEqual({ approvers: [], required: 2, ttlSeconds: 1800 });
    expect(c.alerts.flappingWindowSeconds).toBe(3600);
    expect(c.clusters[1]!.auth).toEqual({ mechanism: 'none' });
    expect(c.clusters[1]!.hosts).toEqual({ executor: 'none' });
  });

  it('names each problem with its path', () => {
    const bad = {
      ...base,
      clusters: [{ name: 'bad name!', bootstrap: ['nohostport'], hosts: { executor: 'ssm', instances: { '1': 'not-an-instance' } } }],
      slack: { ...base.slack, incidentChannel: '#incidents' },
      approvals: { required: 1 },
    };
    expect(() => parseConfig(bad)).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(
          /clusters\.0\.name: cluster names are[\s\S]*clusters\.0\.bootstrap\.0: expected host:port[\s\S]*clusters\.0\.hosts\.instances\.1: expected an EC2 instance id[\s\S]*slack\.incidentChannel: channel ids look like[\s\S]*approvals\.required: at least two distinct approvals/,
        ),
      }),
    );
  });

  it('takes operations settings per cluster (an optional absolute Kafka bin dir for host measurements, a default throttle) and a poll interval', () => {
    const withOps = (operations: unknown) => ({ ...base, clusters: [{ ...base.clusters[0], operations }] });
    expect(parseConfig(withOps({ kafkaBin: '/opt/kafka/bin' })).clusters[0]!.operations).toEqual({ kafkaBin: '/opt/kafka/bin', throttleBytesPerSec: 50 * 1024 * 1024 });
    // Operations run over the Kafka protocol: no host tools needed.
    expect(parseConfig(withOps({})).clusters[0]!.operations).toEqual({ throttleBytesPerSec: 50 * 1024 * 1024 });
    expect(() => parseConfig(withOps({ kafkaBin: 'bin; rm -rf /' }))).toThrow(/clusters\.0\.operations\.kafkaBin: expected a plain absolute path/);
    expect(() => parseConfig(withOps({ throttleBytesPerSec: 10 }))).toThrow(/clusters\.0\.operations\.throttleBytesPerSec/);
    expect(parseConfig(base).clusters[0]!.operations).toBeUndefined();
    expect(parseConfig(base).operations.pollSeconds).toBe(10);
    expect(() => parseConfig({ ...base, operations: { pollSeconds: 901 } })).toThrow(/operations\.pollSeconds/);
  });

  it('requires the workspace (team or Enterprise Grid id) unless explicitly opted out', () => {
    const slack = { ...base.slack, allowedTeams: [] };
    expect(() => parseConfig({ ...base, slack })).toThrow(/slack: set allowedTeams \(your workspace id, T0123ABCD\) or allowedEnterprises/);
    expect(() => parseConfig({ ...base, slack: { ...slack, allowedTeams: ['workspace'] } })).toThrow(/slack\.allowedTeams\.0: team ids look like T0123ABCD/);
    expect(parseConfig({ ...base, slack: { ...slack, allowedEnterprises: ['E0GRID'] } }).slack.allowedEnterprises).toEqual(['E0GRID']);
    expect(parseConfig({ ...base, slack: { ...slack, allowAnyWorkspace: true } }).slack.allowAnyWorkspace).toBe(true);
  });

  it('refuses an empty allow-list, duplicate clusters and an unknown default', () => {
    expect(() => parseConfig({ ...base, slack: { incidentChannel: 'C0INC' } })).toThrow(/slack: set at least one of allowedChannels, allowedUsers or allowedUserGroup/);
    expect(() => parseConfig({ ...base, clusters: [base.clusters[0], base.clusters[0]] })).toThrow(/clusters\.1\.name: duplicate cluster name "sandbox"/);
    expect(() => parseConfig({ ...base, defaultCluster: 'nope' })).toThrow(/defaultCluster: "nope" is not one of the configured clusters \(sandbox, other\)/);
  });

  it('loads from KR_CONFIG or KR_CONFIG_FILE and says what is wrong with either', () => {
    expect(loadConfig({ KR_CONFIG: JSON.stringify(base) }).clusters).toHaveLength(2);
    expect(() => loadConfig({})).toThrow(/set KR_CONFIG \(JSON\) or KR_CONFIG_FILE/);
    expect(() => loadConfig({ KR_CONFIG: '{oops' })).toThrow(/KR_CONFIG is not valid JSON/);
    const dir = scratchDir('kr-config');
    writeFileSync(join(dir, 'c.json'), JSON.stringify(base));
    expect(loadConfig({ KR_CONFIG_FILE: join(dir, 'c.json') }).defaultCluster).toBe('sandbox');
    expect(() => loadConfig({ KR_CONFIG_FILE: join(dir, 'missing.json') })).toThrow(/cannot read KR_CONFIG_FILE/);
  });

  it('finds clusters by name or alert alias, and the default when none is named', () => {
    const c = parseConfig(base);
    expect(findCluster(c, 'prod-msk')?.name).toBe('sandbox');
    expect(findCluster(c, undefined)?.name).toBe('sandbox');
    expect(findCluster(c, 'nope')).toBeUndefined();
  });

  it('maps auth to Kafka connection settings and broker maps to host targets', () => {
    const c = parseConfig({
      ...base,
      clusters: [
        { name: 'msk', bootstrap: ['b-1.msk.example:9098'], auth: { mechanism: 'msk-iam', region: 'eu-west-1' } },
        { name: 'scram', bootstrap: ['k:9096'], auth: { mechanism: 'scram-sha-512', usernameEnv: 'K_USER', passwordEnv: 'K_PASS' }, hosts: { executor: 'ssm', instances: { '2': 'i-0123456789abcdef0', '1': 'i-0fedcba9876543210' } } },
      ],
      defaultCluster: 'msk',
    });
    expect(toConnectionConfig(c.clusters[0]!)).toMatchObject({ ssl: true, sasl: { mechanism: 'aws-msk-iam', region: 'eu-west-1' } });
    expect(toConnectionConfig(c.clusters[1]!)).toMatchObject({ ssl: true, sasl: { mechanism: 'scram-sha-512', usernameEnv: 'K_USER', passwordEnv: 'K_PASS' } });
    expect(hostTargets(c.clusters[1]!)).toEqual([
      { brokerId: 1, address: 'i-0fedcba9876543210' },
      { brokerId: 2, address: 'i-0123456789abcdef0' },
    ]);
    expect(hostTargets(c.clusters[1]!, [2])).toEqual([{ brokerId: 2, address: 'i-0123456789abcdef0' }]);
    expect(hostTargets(c.clusters[0]!)).toEqual([]);
  });
});
