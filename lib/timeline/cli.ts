// `kafka-responder timeline --incident ID [--format markdown|json]`: the same
// file the Timeline button posts, printed. It reads the bot's tables: the
// DynamoDB-compatible server `serve` was given (KR_APPROVALS_DYNAMODB_ENDPOINT,
// tables KR_STATE_TABLE and APPROVALS_TABLE as serve names them), or the
// deployed tables (STATE_TABLE, APPROVALS_TABLE) with your AWS credentials.
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ApprovalStore } from '../approvals/store.ts';
import { DynamoStateStore } from '../state/dynamo-state-store.ts';
import { exportTimeline, type ReadRequest } from './load.ts';
import { parseIncidentArg } from './slack.ts';
import { UsageError } from '../runtime/errors.ts';

const USAGE = `usage: kafka-responder timeline --incident <id | thread link | CHANNEL/TS> [--format markdown|json]

  --incident   the incident thread: the id in its timeline file, a Slack link to the
               thread (or any message in it), or <channel id>/<thread ts>
  --format     markdown (default: the file the Timeline button posts) or json (the entries)

Environment:
  KR_APPROVALS_DYNAMODB_ENDPOINT   the DynamoDB-compatible server serve uses
                                   (tables KR_STATE_TABLE, default kafka-responder-state,
                                   and APPROVALS_TABLE, default kafka-responder-approvals)
  STATE_TABLE, APPROVALS_TABLE     otherwise: the deployed tables (AWS_PROFILE, AWS_REGION…)`;

function stores(env: NodeJS.ProcessEnv): { state: DynamoStateStore; readRequest: ReadRequest | undefined; where: string; close(): void } {
  const endpoint = env.KR_APPROVALS_DYNAMODB_ENDPOINT;
  let client: DynamoDBClient;
  let stateTable: string | undefined;
  let approvalsTable: string | undefined;
  if (endpoint) {
    client = new DynamoDBClient({ endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 2 });
    stateTable = env.KR_STATE_TABLE ?? 'kafka-responder-state';
    approvalsTable = env.APPROVALS_TABLE ?? 'kafka-responder-approvals';
  } else {
    stateTable = env.STATE_TABLE;
    approvalsTable = env.APPROVALS_TABLE;
    if (!stateTable) throw new UsageError(`set KR_APPROVALS_DYNAMODB_ENDPOINT (a local serve's store) or STATE_TABLE (the deployed bot's)\n\n${USAGE}`);
    client = new DynamoDBClient({ maxAttempts: 3 });
  }
  const approvals = approvalsTable ? new ApprovalStore(client, { tableName: approvalsTable }) : null;
  const where = `table ${stateTable}${endpoint ? ` at ${endpoint}` : ''}`;
  return { state: new DynamoStateStore(client, stateTable), readRequest: approvals ? (id) => approvals.get(id) : undefined, where, close: () => client.destroy() };
}

export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, strict: true, options: { incident: { type: 'string' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const format = values.format ?? 'markdown';
  if (format !== 'markdown' && format !== 'json') {
    console.error(`--format: "${format}" is not markdown or json\n\n${USAGE}`);
    return 2;
  }
  const incidentId = values.incident ? parseIncidentArg(values.incident) : null;
  if (!incidentId) {
    console.error(`${values.incident ? `--incident: "${values.incident}" is neither an incident id nor a Slack thread link` : '--incident is required'}\n\n${USAGE}`);
    return 2;
  }
  const s = stores(env);
  try {
    const exported = await exportTimeline(s.state, s.readRequest, incidentId);
    process.stdout.write(format === 'json' ? `${JSON.stringify(exported.timeline, null, 2)}\n` : exported.markdown);
    return 0;
  } catch (err) {
    if ((err as { name?: string }).name === 'ResourceNotFoundException') throw new Error(`the bot's state (${s.where}) does not exist: point KR_APPROVALS_DYNAMODB_ENDPOINT or STATE_TABLE at the store the bot writes`);
    throw err;
  } finally {
    s.close();
  }
}
