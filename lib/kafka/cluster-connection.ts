// Kafka connection settings for lib/kafka from a configured cluster (config
// schema → ConnectionConfig), shared by diagnosis and operations.
import type { ClusterConfig } from '../config/schema.ts';
import type { ConnectionConfig } from './connection.ts';

/**
 * SCRAM credentials read at run time (SSM SecureString in AWS,
 * lib/config/secrets.ts readScramCredentials), attached to the configured
 * cluster they belong to. Kept beside the config, never in it: the config
 * holds no secret, and a cluster without attached credentials uses its
 * usernameEnv/passwordEnv variables (local runs, the CLI).
 */
const scramCredentials = new WeakMap<ClusterConfig, { username: string; password: string }>();

export function attachScramCredentials(cluster: ClusterConfig, credentials: { username: string; password: string }): void {
  scramCredentials.set(cluster, credentials);
}

/** Kafka connection settings for lib/kafka from a configured cluster. */
export function toConnectionConfig(cluster: ClusterConfig): ConnectionConfig {
  const auth = cluster.auth;
  const base = { bootstrap: cluster.bootstrap, clientId: 'kafka-responder', connectionTimeoutMs: 3000, requestTimeoutMs: 10_000, maxRequestsPerBroker: cluster.load.maxRequestsPerBroker };
  switch (auth.mechanism) {
    case 'none':
      return { ...base, ssl: false };
    case 'tls':
      return {
        ...base,
        ssl: auth.caPath || auth.certPath || auth.keyPath
          ? { caPath: auth.caPath, certPath: auth.certPath, keyPath: auth.keyPath, rejectUnauthorized: true }
          : true,
      };
    case 'scram-sha-256':
    case 'scram-sha-512': {
      const credentials = scramCredentials.get(cluster);
      return { ...base, ssl: auth.tls, sasl: { mechanism: auth.mechanism, usernameEnv: auth.usernameEnv, passwordEnv: auth.passwordEnv, ...(credentials ? { credentials } : {}) } };
    }
    case 'msk-iam':
      return { ...base, ssl: true, sasl: { mechanism: 'aws-msk-iam', region: auth.region } };
  }
}
