// Kafka connection settings for lib/kafka from a configured cluster (config
// schema → ConnectionConfig), shared by diagnosis and operations.
import type { ClusterConfig } from '../config/schema.ts';
import type { ConnectionConfig } from './connection.ts';

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
    case 'scram-sha-512':
      return { ...base, ssl: auth.tls, sasl: { mechanism: auth.mechanism, usernameEnv: auth.usernameEnv, passwordEnv: auth.passwordEnv } };
    case 'msk-iam':
      return { ...base, ssl: true, sasl: { mechanism: 'aws-msk-iam', region: auth.region } };
  }
}
