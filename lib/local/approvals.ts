// Approvals and bot state for `kafka-responder serve`. Both need DynamoDB's
// conditional writes and queries; locally that is either a DynamoDB-compatible
// endpoint you run (KR_APPROVALS_DYNAMODB_ENDPOINT, e.g. DynamoDB Local; tables
// APPROVALS_TABLE and KR_STATE_TABLE, created if missing) or, by default, an
// in-process dynalite (in memory: requests and audit are lost when `serve`
// stops). The compiled CLI carries dynalite in its in-memory mode
// (scripts/build-cli.mjs), so an installed `kafka-responder serve` needs
// nothing else; from source (KR_FROM_SOURCE=1) it is the devDependency. If it
// cannot be loaded, `serve` says why (the real error), keeps the bot state in
// process memory and turns operations off.
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoStateStore, LIST_INDEX, STATE_TABLE_KEYS } from '../state/dynamo-state-store.ts';
import { errorMessage } from '../runtime/errors.ts';
import { waitUntilTableActive } from '../runtime/dynamo-table.ts';
import type { StateStore } from '../state/state-store.ts';
import type { AddressInfo } from 'node:net';
import { ApprovalService } from '../approvals/service.ts';
import { ApprovalStore } from '../approvals/store.ts';
import type { Config } from '../config/schema.ts';
import { approvalPolicy, approvalsConfigured, type ListGroupMembers } from '../approvals/runtime.ts';
import type { Plan } from '../operations/types.ts';

export interface LocalApprovals {
  approvals: ApprovalService<Plan> | undefined;
  /**
   * The bot's state (plan threads, alert groups, status lists) on the same
   * DynamoDB-compatible server (table KR_STATE_TABLE, default
   * kafka-responder-state): conditional writes and list queries are
   * DynamoDB's own. With KR_APPROVALS_DYNAMODB_ENDPOINT a `serve` that is
   * killed and started again picks running operations up where they were.
   */
  state?: StateStore;
  /** The store is an in-process dynalite: in this process's memory, gone when it stops. */
  inProcess: boolean;
  note: string;
  close(): Promise<void>;
}

type Dynalite = typeof import('dynalite').default;
const loadDynalite = async (): Promise<Dynalite> => (await import('dynalite')).default;

/**
 * `load`: how dynalite is imported (tests give one that fails, as a broken bundle would).
 * `listGroup`: Slack's usergroups.users.list, so `approvals.approverGroup` members can approve here as deployed.
 */
export async function startLocalApprovals(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
  load: () => Promise<Dynalite> = loadDynalite,
  listGroup?: ListGroupMembers,
): Promise<LocalApprovals> {
  const none = async () => {};
  const withApprovals = approvalsConfigured(config);
  const tableName = env.APPROVALS_TABLE ?? 'kafka-responder-approvals';
  let endpoint = env.KR_APPROVALS_DYNAMODB_ENDPOINT;
  let stopServer = none;
  let what: string;
  if (endpoint) what = `DynamoDB at ${endpoint}`;
  else {
    let dynalite: Dynalite;
    try {
      dynalite = await load();
    } catch (err) {
      return {
        approvals: undefined,
        inProcess: false,
        note: `dynalite could not be loaded (${errorMessage(err)}) and KR_APPROVALS_DYNAMODB_ENDPOINT is not set: bot state in process memory${withApprovals ? ', operations are off' : ''}`,
        close: none,
      };
    }
    const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    // The SDK keeps idle sockets open: a server that closes them after Node's 5 s default races
    // the next request on them (ECONNRESET). Keep idle sockets as long as the client might.
    (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 10 * 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
    what = 'an in-process dynalite (in memory: lost when serve stops)';
  }
  const client = new DynamoDBClient({ endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const stateTable = env.KR_STATE_TABLE ?? 'kafka-responder-state';
  let approvals: ApprovalService<Plan> | undefined;
  try {
    await ensureStateTable(client, stateTable);
    if (withApprovals) {
      const store = new ApprovalStore(client, { tableName });
      await store.ensureTable();
      approvals = new ApprovalService<Plan>({ store, policy: approvalPolicy(config, listGroup) });
    }
  } catch (err) {
    client.destroy();
    await stopServer();
    throw err;
  }
  return {
    approvals,
    state: new DynamoStateStore(client, stateTable),
    inProcess: !env.KR_APPROVALS_DYNAMODB_ENDPOINT,
    note: `bot state (table ${stateTable})${withApprovals ? ` and approvals (table ${tableName})` : ''} in ${what}${withApprovals ? '' : '; no approvers configured (approvals.approvers / KR_APPROVERS): operations are off'}`,
    close: async () => {
      client.destroy();
      await stopServer();
    },
  };
}

/**
 * The state table as serverless.yml defines it (pk, TTL on expiresAt, the
 * list index), created when missing. A table from an older version lacks the
 * list index: it is added, or, where the server cannot add an index to an
 * existing table (dynalite), the error says what to do.
 */
async function ensureStateTable(client: DynamoDBClient, tableName: string): Promise<void> {
  let existing;
  try {
    existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  if (!existing) {
    await client.send(new CreateTableCommand({ TableName: tableName, BillingMode: 'PAY_PER_REQUEST', ...STATE_TABLE_KEYS }));
    return waitUntilTableActive(client, tableName);
  }
  if (existing.GlobalSecondaryIndexes?.some((i) => i.IndexName === LIST_INDEX)) return;
  const index = STATE_TABLE_KEYS.GlobalSecondaryIndexes![0]!;
  try {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: STATE_TABLE_KEYS.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } }],
      }),
    );
  } catch (err) {
    throw new Error(`state table ${tableName} has no ${LIST_INDEX} and it could not be added (${errorMessage(err)}): delete the table or set KR_STATE_TABLE to a new name`);
  }
}
