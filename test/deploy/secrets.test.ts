// Secrets and the deployed config at run time: local variables first, else
// the SSM parameter their *_PARAMETER variable names (Powertools, decrypted,
// cached); SCRAM credentials reach the Kafka connection without entering the config.
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SECRETS, loadDeployedConfig, powertoolsParameterReader, readScramCredentials, readSecret } from '../../lib/config/secrets.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { attachScramCredentials, toConnectionConfig } from '../../lib/kafka/cluster-connection.ts';
import { kafkajsSecurity } from '../../lib/kafka/connection.ts';
import { BASE_CONFIG } from '../slack/helpers/harness.ts';

const ssm = mockClient(SSMClient);
const saved = { ...process.env };
beforeEach(() => {
  ssm.reset();
  Object.assign(process.env, { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
});
afterAll(() => {
  ssm.restore();
  process.env = saved;
});

const scramConfig = parseConfig({
  ...BASE_CONFIG,
  clusters: [
    { name: 'prod-eu', bootstrap: ['k1:9096'], auth: { mechanism: 'scram-sha-512' } },
    { name: 'plain', bootstrap: ['k2:9092'] },
  ],
  defaultCluster: 'prod-eu',
});

describe('secrets at run time', () => {
  it('reads a SecureString through Powertools with decryption, and serves repeats from its cache within the TTL', async () => {
    ssm.on(GetParameterCommand, { Name: '/kafka-responder/ci/slack-bot-token', WithDecryption: true }).resolves({ Parameter: { Value: 'xoxb-from-ssm' } });
    const reader = powertoolsParameterReader(60);
    const env = { KR_SLACK_BOT_TOKEN_PARAMETER: '/kafka-responder/ci/slack-bot-token' };
    expect(await readSecret(SECRETS.slackBotToken, env, reader)).toBe('xoxb-from-ssm');
    expect(await readSecret(SECRETS.slackBotToken, env, reader)).toBe('xoxb-from-ssm');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
  });

  it('prefers the local variable (serve, CLI), and says what to set when neither is there', async () => {
    const reader = async () => {
      throw new Error('must not be called');
    };
    expect(await readSecret(SECRETS.slackSigningSecret, { SLACK_SIGNING_SECRET: 'local', KR_SLACK_SIGNING_SECRET_PARAMETER: '/x' }, reader)).toBe('local');
    await expect(readSecret(SECRETS.alertmanagerToken, {}, reader)).rejects.toThrow(/no ALERTMANAGER_TOKEN: set it, or KR_ALERTMANAGER_TOKEN_PARAMETER/);
  });

  it('names the parameter when SSM refuses (missing parameter, no permission)', async () => {
    ssm.on(GetParameterCommand).rejects(Object.assign(new Error('User is not authorized to perform ssm:GetParameter'), { name: 'AccessDeniedException' }));
    await expect(readSecret(SECRETS.slackBotToken, { KR_SLACK_BOT_TOKEN_PARAMETER: '/kafka-responder/ci/nope' }, powertoolsParameterReader(1))).rejects.toThrow(/cannot read SSM parameter \/kafka-responder\/ci\/nope/);
  });

  it('loads the config from its parameter in AWS (bigger than Lambda\'s 4 KB environment), and from KR_CONFIG / KR_CONFIG_FILE locally', async () => {
    const big = { ...BASE_CONFIG, alerts: { routes: Array.from({ length: 60 }, (_, i) => ({ match: { alertname: `Alert${i}` }, diagnose: ['cluster'], note: 'n'.repeat(100) })) } };
    const text = JSON.stringify(big);
    expect(text.length).toBeGreaterThan(4096);
    const reads: string[] = [];
    const reader = async (name: string) => (reads.push(name), text);
    const config = await loadDeployedConfig({ KR_CONFIG_PARAMETER: '/kafka-responder/ci/config' }, reader);
    expect(config.alerts.routes).toHaveLength(60);
    expect(reads).toEqual(['/kafka-responder/ci/config']);
    expect((await loadDeployedConfig({ KR_CONFIG: JSON.stringify(BASE_CONFIG), KR_CONFIG_PARAMETER: '/x' }, reader)).clusters).toHaveLength(2);
    await expect(loadDeployedConfig({ KR_CONFIG_PARAMETER: '/p' }, async () => '{oops')).rejects.toThrow(/SSM parameter \/p is not valid JSON/);
  });

  it('wires SCRAM credentials from their SecureString into the Kafka connection, never into the config', async () => {
    const reader = async () => JSON.stringify({ 'prod-eu': { username: 'responder', password: 's3cret' }, other: { username: 'x', password: 'y' } });
    const creds = await readScramCredentials(scramConfig, { KR_KAFKA_CREDENTIALS_PARAMETER: '/kafka-responder/ci/kafka-scram-credentials' }, reader);
    expect([...creds.keys()]).toEqual(['prod-eu']);
    const cluster = scramConfig.clusters[0]!;
    // Before: the cluster's variables are required (locally).
    expect(() => kafkajsSecurity(toConnectionConfig(cluster), {})).toThrow(/needs credentials in \$KAFKA_SASL_USERNAME/);
    attachScramCredentials(cluster, creds.get('prod-eu')!);
    expect(kafkajsSecurity(toConnectionConfig(cluster), {})).toMatchObject({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'responder', password: 's3cret' } });
    expect(JSON.stringify(scramConfig)).not.toContain('s3cret');
    // Without the parameter (local runs) nothing is read.
    expect((await readScramCredentials(scramConfig, {}, reader)).size).toBe(0);
  });
});
