// `kafka-responder serve`: the Slack and alert handlers behind a local HTTP
// server, worker in-process. See lib/local/README.md for wiring a real Slack app.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../config/schema.ts';
import { powertoolsLog } from '../runtime/log.ts';
import { sandboxConfig } from '../local/defaults.ts';
import { startLocalServer } from '../local/server.ts';
import { DEPLOYED_WORKER_TIMEOUT_SECONDS } from '../local/worker-timeout.ts';
import { parseArgs } from 'node:util';
import { ALERT_SOURCES } from '../alerts/sources/index.ts';
import { ALERTMANAGER_SECRET } from '../alerts/sources/auth.ts';
import { routeAuth } from '../alerts/sources/types.ts';

const USAGE = `usage: kafka-responder serve [--port 3000] [--host 127.0.0.1] [--worker-timeout SECONDS]

  --worker-timeout   each job's time limit, as the deployed worker's Lambda timeout
                     (default ${DEPLOYED_WORKER_TIMEOUT_SECONDS} s, serverless.yml): a job still running then is
                     treated as killed; long operations continue in their next job

Environment:
  SLACK_SIGNING_SECRET   the Slack app's signing secret (required)
  SLACK_BOT_TOKEN        the bot token, xoxb-... (required)
  SLACK_API_URL          Slack Web API base URL (default https://slack.com/api/; a stub for tests)
  ALERTMANAGER_TOKEN     bearer token POST /alerts/alertmanager and /alerts/sns must send
                         (default: generated and printed)
  GRAFANA_TOKEN          the token POST /alerts/grafana takes, as bearer or Basic password
                         (default: ALERTMANAGER_TOKEN)
  PAGERDUTY_WEBHOOK_SECRETS   the V3 webhook secrets POST /alerts/pagerduty checks
                         X-PagerDuty-Signature against, one a line (default: ALERTMANAGER_TOKEN)
  KR_CONFIG / KR_CONFIG_FILE   configuration JSON (default: the local Kafka sandbox)
  KR_SLACK_CHANNELS, KR_SLACK_USERS, KR_INCIDENT_CHANNEL   allow-lists for the sandbox default
  KR_SLACK_TEAMS         the workspace ids (T0123ABCD) the sandbox default answers (default: any)
  KR_APPROVERS           approvers of operations (Slack user ids) for the sandbox default
  KR_APPROVALS_DYNAMODB_ENDPOINT   a DynamoDB-compatible endpoint for approvals and bot state
                         (default: in-process, lost when serve stops)
  KR_SWEEP_SECONDS       how often the operations sweep runs (default 60, as deployed)

Routes: POST /slack/events, /slack/interactivity, /alerts/alertmanager, /alerts/sns, /alerts/grafana; GET /healthz`;

function parseServeArgs(argv: string[]): { port: number; host: string; workerTimeout: number } | { error: string } | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      options: { port: { type: 'string' }, host: { type: 'string' }, 'worker-timeout': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const port = v.port ?? '3000';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return { error: `--port: "${port}" is not a port number` };
  const timeout = v['worker-timeout'] ?? String(DEPLOYED_WORKER_TIMEOUT_SECONDS);
  if (!/^\d{1,4}$/.test(timeout) || Number(timeout) < 10 || Number(timeout) > 900) return { error: `--worker-timeout: "${timeout}" must be whole seconds from 10 to 900 (Lambda's maximum)` };
  return { port: Number(port), host: v.host ?? '127.0.0.1', workerTimeout: Number(timeout) };
}

/** Each alert source's own secret from its variable (GRAFANA_TOKEN); unset, its route takes ALERTMANAGER_TOKEN. */
function localAlertSecrets(notes: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of ALERT_SOURCES) {
    const { secret } = routeAuth(source);
    if (secret.parameter === ALERTMANAGER_SECRET.parameter) continue;
    const value = process.env[secret.valueVar];
    if (value) out[secret.parameter] = value;
    else notes.push(`${secret.valueVar} not set: POST ${source.path} takes the ALERTMANAGER_TOKEN`);
  }
  return out;
}

export async function run(argv: string[]): Promise<number> {
  const args = parseServeArgs(argv);
  if (args === 'help') {
    console.log(USAGE);
    return 0;
  }
  if ('error' in args) {
    console.error(`${args.error}\n\n${USAGE}`);
    return 2;
  }
  const signingSecret = process.env.SLACK_SIGNING_SECRET;
  const botToken = process.env.SLACK_BOT_TOKEN;
  if (!signingSecret || !botToken) {
    console.error(`SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN must be set\n\n${USAGE}`);
    return 2;
  }
  let config: Config;
  const notes: string[] = [];
  if (process.env.KR_CONFIG || process.env.KR_CONFIG_FILE) config = loadConfig();
  else {
    const sandbox = sandboxConfig();
    config = sandbox.config;
    notes.push('no KR_CONFIG/KR_CONFIG_FILE: using the local sandbox cluster with the local executor', ...sandbox.notes);
  }
  let alertmanagerToken = process.env.ALERTMANAGER_TOKEN;
  if (!alertmanagerToken) {
    alertmanagerToken = randomBytes(18).toString('base64url');
    notes.push(`ALERTMANAGER_TOKEN not set; generated one for this run: ${alertmanagerToken}`);
  }
  const alertSecrets = localAlertSecrets(notes);
  const log = powertoolsLog('kafka-responder-local');
  const server = await startLocalServer({
    config,
    signingSecret,
    botToken,
    alertmanagerToken,
    alertSecrets,
    log,
    host: args.host,
    port: args.port,
    workerTimeoutSeconds: args.workerTimeout,
    ...(process.env.KR_SWEEP_SECONDS && /^\d{1,4}$/.test(process.env.KR_SWEEP_SECONDS) ? { sweepIntervalMs: Number(process.env.KR_SWEEP_SECONDS) * 1000 } : {}),
    ...(process.env.SLACK_API_URL ? { slackApiUrl: process.env.SLACK_API_URL } : {}),
  });
  notes.push(`local DynamoDB: ${server.storeNote}`);
  for (const n of notes) console.error(`note: ${n}`);
  const operations = server.operations.on ? `operations on (${server.operations.approvers})` : `operations are off: ${server.operations.why}`;
  console.error(
    `kafka-responder listening on ${server.url} (worker timeout ${args.workerTimeout} s; clusters: ${config.clusters.map((c) => c.name).join(', ')}; ${operations}; Slack API: ${process.env.SLACK_API_URL ?? 'https://slack.com/api/'})`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  console.error('stopping: finishing queued jobs…');
  await server.close();
  return 0;
}
