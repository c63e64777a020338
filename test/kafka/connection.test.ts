import { describe, expect, it } from 'vitest';
import { connectionConfigFromEnv, kafkajsSecurity, parseConnectionConfig, splitBootstrap } from '../../lib/kafka/connection.ts';

describe('connection config', () => {
  it('accepts a plain bootstrap list with defaults', () => {
    const c = parseConnectionConfig({ bootstrap: ['b1:9092', '10.0.0.2:9094'] });
    expect(c.ssl).toBe(false);
    expect(c.sasl).toBeUndefined();
    expect(kafkajsSecurity(c)).toEqual({ ssl: false });
  });

  it.each([[[]], [['nohost']], [['a:0']], [['a:70000']], [['a:9092; rm -rf /']]])('rejects bootstrap %j with a clear message', (bootstrap) => {
    expect(() => parseConnectionConfig({ bootstrap })).toThrow(/invalid Kafka connection config: bootstrap/);
  });

  it('splits and trims a --bootstrap value', () => {
    expect(splitBootstrap(' a:1, b:2 ,,')).toEqual(['a:1', 'b:2']);
  });

  it('reads SCRAM credentials from the named environment variables only', () => {
    const c = parseConnectionConfig({ bootstrap: ['a:9096'], ssl: true, sasl: { mechanism: 'scram-sha-512' } });
    expect(() => kafkajsSecurity(c, {})).toThrow(/KAFKA_SASL_USERNAME and \$KAFKA_SASL_PASSWORD/);
    const sec = kafkajsSecurity(c, { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' });
    expect(sec).toEqual({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' } });
  });

  it('MSK IAM uses OAUTHBEARER over TLS', () => {
    const c = connectionConfigFromEnv(['b-1.msk:9098'], { KAFKA_SASL_MECHANISM: 'aws-msk-iam', AWS_REGION: 'eu-west-1' });
    const sec = kafkajsSecurity(c);
    expect(sec.ssl).toBe(true);
    expect(sec.sasl?.mechanism).toBe('oauthbearer');
  });

  it('MSK IAM without a region is a config error, not a runtime surprise', () => {
    expect(() => connectionConfigFromEnv(['b-1.msk:9098'], { KAFKA_SASL_MECHANISM: 'aws-msk-iam' })).toThrow(/sasl.region/);
  });

  it('names the TLS file it cannot read', () => {
    const c = parseConnectionConfig({ bootstrap: ['a:9093'], ssl: { caPath: '/nonexistent/ca.pem' } });
    expect(() => kafkajsSecurity(c)).toThrow(/TLS CA file \/nonexistent\/ca.pem/);
  });
});
