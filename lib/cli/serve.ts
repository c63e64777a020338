// `kafka-responder serve`: the Slack and alert handlers behind a local HTTP
// server, worker in-process. See lib/local/README.md for wiring a real Slack app.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../config/schema.ts';
import { powertoolsLog } from '../jobs/log.ts';
import { sandboxConfig } from '../local/defaults.ts';
import { startLocalServer } from '../local/server.ts';

const USAGE = `usage: kafka-responder serve [--port 3000] [--host 127.0.0.1]

Environment:
  SLACK_SIGNING_SECRET   the Slack app's signing secret (required)
  SLACK_BOT_TOKEN        the bot token, xoxb-... (required)
  SLACK_API_URL          Slack Web API base URL (default https://slack.com/api/; a stub for tests)
  ALERTMANAGER_TOKEN     bearer token Alertmanager must send (default: generated and printed)
  KR_CONFIG / KR_CONFIG_FILE   configuration JSON (default: the local Kafka sandbox)
  KR_SLACK_CHANNELS, KR_SLACK_USERS, KR_INCIDENT_CHANNEL   allow-lists for the sandbox default

Routes: POST /slack/events, /slack/interactivity, /alerts/alertmanager, /alerts/sns; GET /healthz`;

function parseArgs(argv: string[]): { port: number; host: string } | { error: string } | 'help' {
  let port = 3000;
  let host = '127.0.0.1';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') return 'help';
    const value = argv[i + 1];
    if (a === '--port' && value !== undefined) {
      if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) return { error: `--port: "${value}" is not a port number` };
      port = Number(value);
      i++;
    } else if (a === '--host' && value !== undefined) {
      host = value;
      i++;
    } else return { error: `unknown argument "${a}"` };
  }
  return { port, host };
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
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
  const log = powertoolsLog('kafka-responder-local');
  const server = await startLocalServer({
    config,
    signingSecret,
    botToken,
    alertmanagerToken,
    log,
    host: args.host,
    port: args.port,
    ...(process.env.SLACK_API_URL ? { slackApiUrl: process.env.SLACK_API_URL } : {}),
  });
  for (const n of notes) console.error(`note: ${n}`);
  console.error(`kafka-responder listening on ${server.url} (clusters: ${config.clusters.map((c) => c.name).join(', ')}; Slack API: ${process.env.SLACK_API_URL ?? 'https://slack.com/api/'})`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  console.error('stopping: finishing queued jobs…');
  await server.close();
  return 0;
}
