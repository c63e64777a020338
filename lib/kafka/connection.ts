// How we reach a cluster: bootstrap servers plus one of plaintext, TLS,
// SASL/SCRAM or MSK IAM. Validated with zod because it comes from config
// files, CLI flags and the environment. Secrets are never in the config
// itself: SCRAM credentials are read from named environment variables.

import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import * as z from 'zod';
import type { SASLOptions } from 'kafkajs';
import type { WireOptions } from './wire.ts';
import { once } from '../runtime/once.ts';

/** Built on first use, not at load: the CLI starts its host probes before it needs a connection. */
function buildSchema() {
  const hostPort = z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/, 'expected host:port')
    .refine((s) => {
      const port = Number(s.slice(s.lastIndexOf(':') + 1));
      return port > 0 && port < 65536;
    }, 'port must be 1-65535');

  const tlsSchema = z.union([
    z.boolean(),
    z.object({
      caPath: z.string().min(1).optional(),
      certPath: z.string().min(1).optional(),
      keyPath: z.string().min(1).optional(),
      /** Only for test clusters with self-signed certificates. */
      rejectUnauthorized: z.boolean().default(true),
    }),
  ]);

  const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');

  const saslSchema = z.discriminatedUnion('mechanism', [
    z.object({
      mechanism: z.enum(['scram-sha-256', 'scram-sha-512']),
      usernameEnv: envName.default('KAFKA_SASL_USERNAME'),
      passwordEnv: envName.default('KAFKA_SASL_PASSWORD'),
      /** Read at run time from SSM (lib/config/secrets.ts) in AWS; then the env variables are not used. */
      credentials: z.object({ username: z.string().min(1), password: z.string().min(1) }).optional(),
    }),
    z.object({
      mechanism: z.literal('aws-msk-iam'),
      region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'expected an AWS region like eu-west-1'),
    }),
  ]);

  return z.object({
    bootstrap: z.array(hostPort).min(1, 'at least one bootstrap server'),
    ssl: tlsSchema.default(false),
    sasl: saslSchema.optional(),
    clientId: z.string().min(1).default('kafka-responder'),
    /** TCP connect + handshake budget per broker. */
    connectionTimeoutMs: z.number().int().positive().default(3000),
    /** Budget for one request/response. */
    requestTimeoutMs: z.number().int().positive().default(10000),
    /** Requests in flight to one broker at a time from this process (a struggling broker is not piled on). */
    maxRequestsPerBroker: z.number().int().min(1).max(64).default(4),
  });
}

const connectionConfigSchema = once(buildSchema);

export type ConnectionConfig = z.infer<ReturnType<typeof buildSchema>>;
export type ConnectionConfigInput = z.input<ReturnType<typeof buildSchema>>;

export function parseConnectionConfig(input: unknown): ConnectionConfig {
  const r = connectionConfigSchema().safeParse(input);
  if (!r.success) {
    throw new Error(`invalid Kafka connection config: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  return r.data;
}

/** "a:9092, b:9092" → ["a:9092", "b:9092"] (validation happens in the schema). */
export function splitBootstrap(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Connection config from the environment, for the CLI:
 * KAFKA_SSL=1, KAFKA_SSL_CA / KAFKA_SSL_CERT / KAFKA_SSL_KEY (paths),
 * KAFKA_SASL_MECHANISM=scram-sha-256|scram-sha-512|aws-msk-iam, KAFKA_SASL_USERNAME,
 * KAFKA_SASL_PASSWORD, AWS_REGION (MSK IAM).
 */
export function connectionConfigFromEnv(bootstrap: string[], env: NodeJS.ProcessEnv = process.env): ConnectionConfig {
  const hasTlsFiles = Boolean(env.KAFKA_SSL_CA || env.KAFKA_SSL_CERT || env.KAFKA_SSL_KEY);
  const mechanism = env.KAFKA_SASL_MECHANISM?.toLowerCase();
  const ssl = hasTlsFiles
    ? { caPath: env.KAFKA_SSL_CA || undefined, certPath: env.KAFKA_SSL_CERT || undefined, keyPath: env.KAFKA_SSL_KEY || undefined }
    : env.KAFKA_SSL === '1' || env.KAFKA_SSL === 'true' || mechanism === 'aws-msk-iam';
  const sasl = !mechanism
    ? undefined
    : mechanism === 'aws-msk-iam'
      ? { mechanism, region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? '' }
      : { mechanism };
  return parseConnectionConfig({ bootstrap, ssl, sasl });
}

function readPem(path: string | undefined, what: string): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read TLS ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The ssl/sasl pieces of a kafkajs client config. */
export function kafkajsSecurity(config: ConnectionConfig, env: NodeJS.ProcessEnv = process.env): { ssl: boolean | TlsOptions; sasl?: SASLOptions } {
  let ssl: boolean | TlsOptions = false;
  if (typeof config.ssl === 'boolean') ssl = config.ssl;
  else {
    ssl = {
      ca: readPem(config.ssl.caPath, 'CA'),
      cert: readPem(config.ssl.certPath, 'certificate'),
      key: readPem(config.ssl.keyPath, 'key'),
      rejectUnauthorized: config.ssl.rejectUnauthorized,
    };
  }
  const s = config.sasl;
  if (!s) return { ssl };
  if (s.mechanism === 'aws-msk-iam') {
    const region = s.region;
    return {
      // MSK IAM only works over TLS.
      ssl: ssl === false ? true : ssl,
      sasl: {
        mechanism: 'oauthbearer',
        // Loaded on first use: the signer pulls in the AWS SDK, which plaintext/SCRAM users never need.
        oauthBearerProvider: async () => {
          const { generateAuthToken } = await import('aws-msk-iam-sasl-signer-js');
          return { value: (await generateAuthToken({ region })).token };
        },
      },
    };
  }
  const username = s.credentials?.username ?? env[s.usernameEnv];
  const password = s.credentials?.password ?? env[s.passwordEnv];
  if (!username || !password) {
    throw new Error(`SASL/${s.mechanism.toUpperCase()} needs credentials in $${s.usernameEnv} and $${s.passwordEnv}`);
  }
  return { ssl, sasl: { mechanism: s.mechanism, username, password } };
}

/** Options for every broker connection of one bounded pass (snapshot, admin): no single call outlives the pass. */
export function wireOptionsFor(config: ConnectionConfig, timeoutMs: number): WireOptions {
  return {
    ...kafkajsSecurity(config),
    clientId: config.clientId,
    connectionTimeoutMs: Math.min(config.connectionTimeoutMs, timeoutMs),
    requestTimeoutMs: Math.min(config.requestTimeoutMs, timeoutMs),
    maxRequestsPerBroker: config.maxRequestsPerBroker,
  };
}
