// Secrets and the deployed configuration, read at run time.
//
// In AWS they are SSM Parameter Store parameters (SecureString for secrets)
// whose NAMES only are in the Lambda environment (`*_PARAMETER` variables,
// serverless.yml): values are read with Powertools Parameters, decrypted, and
// cached for SECRET_TTL_SECONDS, so a warm function asks SSM at most once per
// TTL and a rotated secret is picked up within it. Locally (serve, the CLI,
// tests) the value variables themselves are used (SLACK_SIGNING_SECRET…), and
// the configuration comes from KR_CONFIG / KR_CONFIG_FILE as before.
//
// The Powertools module (and with it the SSM client) is imported on first
// use: a local run never loads it, and the Slack ack path pays for it only
// when a parameter is actually read.
import { ConfigError, loadConfig, parseConfig, type Config } from './schema.ts';

/** How long a parameter value is cached in the warm function before SSM is asked again. */
export const SECRET_TTL_SECONDS = 300;

/** One secret: the local value variable, and the variable naming its SSM parameter in AWS. */
export interface SecretSource {
  valueVar: string;
  parameterVar: string;
}

export const SECRETS = {
  slackSigningSecret: { valueVar: 'SLACK_SIGNING_SECRET', parameterVar: 'KR_SLACK_SIGNING_SECRET_PARAMETER' },
  slackBotToken: { valueVar: 'SLACK_BOT_TOKEN', parameterVar: 'KR_SLACK_BOT_TOKEN_PARAMETER' },
  alertmanagerToken: { valueVar: 'ALERTMANAGER_TOKEN', parameterVar: 'KR_ALERTMANAGER_TOKEN_PARAMETER' },
  /** One or more V3 webhook subscription secrets, one a line: a new one is added before the old one goes (rotation). */
  pagerdutyWebhookSecrets: { valueVar: 'PAGERDUTY_WEBHOOK_SECRETS', parameterVar: 'KR_PAGERDUTY_WEBHOOK_SECRETS_PARAMETER' },
  /** The Events API v2 integration key Change Events are sent with. */
  pagerdutyRoutingKey: { valueVar: 'PAGERDUTY_ROUTING_KEY', parameterVar: 'KR_PAGERDUTY_ROUTING_KEY_PARAMETER' },
  /** A REST API token allowed to add notes to incidents. */
  pagerdutyApiToken: { valueVar: 'PAGERDUTY_API_TOKEN', parameterVar: 'KR_PAGERDUTY_API_TOKEN_PARAMETER' },
} as const satisfies Record<string, SecretSource>;

/** Reads an SSM parameter, decrypted, through the Powertools cache. */
export type ParameterReader = (name: string) => Promise<string>;

let defaultReader: ParameterReader | undefined;

/** Powertools Parameters' getParameter with decryption and the TTL; loaded on first use. */
export function powertoolsParameterReader(maxAgeSeconds = SECRET_TTL_SECONDS): ParameterReader {
  return async (name) => {
    const { getParameter } = await import('@aws-lambda-powertools/parameters/ssm');
    let value: string | undefined;
    try {
      value = await getParameter(name, { decrypt: true, maxAge: maxAgeSeconds });
    } catch (err) {
      // SSM refusing the request (the AWS SDK's $fault 'client': no such parameter, access denied) needs a person; no answer may pass.
      const refused = (err as { $fault?: unknown }).$fault === 'client';
      throw new ConfigError(`cannot read SSM parameter ${name}: ${(err as Error).message}`, refused ? 'needs-human' : 'transient');
    }
    if (!value) throw new ConfigError(`SSM parameter ${name} is empty`);
    return value;
  };
}

const readerOrDefault = (reader?: ParameterReader): ParameterReader => reader ?? (defaultReader ??= powertoolsParameterReader());

/** A secret's value: the local variable if set, else its SSM parameter (cached). */
export async function readSecret(source: SecretSource, env: NodeJS.ProcessEnv = process.env, reader?: ParameterReader): Promise<string> {
  const local = env[source.valueVar];
  if (local) return local;
  const parameter = env[source.parameterVar];
  if (parameter) return readerOrDefault(reader)(parameter);
  throw new ConfigError(`no ${source.valueVar}: set it, or ${source.parameterVar} to the name of its SSM parameter`);
}

/**
 * The configuration: KR_CONFIG_PARAMETER (an SSM parameter holding the JSON,
 * String or SecureString, cached) in AWS, else KR_CONFIG / KR_CONFIG_FILE. A
 * packaged file works too: KR_CONFIG_FILE=/var/task/<file>.
 */
export async function loadDeployedConfig(env: NodeJS.ProcessEnv = process.env, reader?: ParameterReader): Promise<Config> {
  const parameter = env.KR_CONFIG_PARAMETER;
  if (!parameter || env.KR_CONFIG || env.KR_CONFIG_FILE) return loadConfig(env);
  const text = await readerOrDefault(reader)(parameter);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`SSM parameter ${parameter} is not valid JSON: ${(err as Error).message}`);
  }
  return parseConfig(json, `SSM parameter ${parameter}`);
}

export interface ScramCredentials {
  username: string;
  password: string;
}

/**
 * SCRAM credentials of the configured SASL/SCRAM clusters, by cluster name,
 * from the SecureString KR_KAFKA_CREDENTIALS_PARAMETER names: JSON
 * {"<cluster>": {"username": "…", "password": "…"}}. Without that variable
 * (locally) nothing is returned and each cluster's usernameEnv/passwordEnv
 * variables are used.
 */
export async function readScramCredentials(config: Config, env: NodeJS.ProcessEnv = process.env, reader?: ParameterReader): Promise<Map<string, ScramCredentials>> {
  const out = new Map<string, ScramCredentials>();
  const parameter = env.KR_KAFKA_CREDENTIALS_PARAMETER;
  const scram = config.clusters.filter((c) => c.auth.mechanism === 'scram-sha-256' || c.auth.mechanism === 'scram-sha-512');
  if (!parameter || scram.length === 0) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readerOrDefault(reader)(parameter));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`SSM parameter ${parameter} is not valid JSON (expected {"<cluster>": {"username": "…", "password": "…"}})`);
  }
  for (const cluster of scram) {
    const entry = (parsed as Record<string, unknown> | null)?.[cluster.name] as Partial<ScramCredentials> | undefined;
    if (entry && typeof entry.username === 'string' && typeof entry.password === 'string' && entry.username && entry.password) {
      out.set(cluster.name, { username: entry.username, password: entry.password });
    }
  }
  return out;
}
