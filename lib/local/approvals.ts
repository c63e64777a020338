// Approvals for `kafka-responder serve`. The approval service needs DynamoDB's
// conditional writes; locally that is either a DynamoDB-compatible endpoint
// you run (KR_APPROVALS_DYNAMODB_ENDPOINT, e.g. DynamoDB Local; table
// APPROVALS_TABLE, created if missing) or, by default, an in-process dynalite
// (in memory: requests and audit are lost when `serve` stops). dynalite is a
// devDependency: in an install without it, operations are off and `serve`
// says so.
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { DynamoStateStore } from '../state/dynamo-state-store.ts';
import type { StateStore } from '../state/state-store.ts';
import type { AddressInfo } from 'node:net';
import { ApprovalService } from '../approvals/service.ts';
import { ApprovalStore } from '../approvals/store.ts';
import type { Config } from '../config/schema.ts';
import { approvalPolicy, approvalsConfigured } from '../approvals/runtime.ts';
import type { Plan } from '../operations/types.ts';

export interface LocalApprovals {
  approvals: ApprovalService<Plan> | undefined;
  /**
   * With KR_APPROVALS_DYNAMODB_ENDPOINT, the bot's state (plan threads, alert
   * groups) lives there too (table KR_STATE_TABLE, default kafka-responder-state),
   * so a `serve` that is killed and started again picks running operations up
   * where they were, as a new Lambda would.
   */
  state?: StateStore;
  note: string;
  close(): Promise<void>;
}

export async function startLocalApprovals(config: Config, env: NodeJS.ProcessEnv = process.env): Promise<LocalApprovals> {
  const none = async () => {};
  if (!approvalsConfigured(config)) return { approvals: undefined, note: 'no approvers configured (approvals.approvers / KR_APPROVERS): operations are off', close: none };
  const tableName = env.APPROVALS_TABLE ?? 'kafka-responder-approvals';
  let endpoint = env.KR_APPROVALS_DYNAMODB_ENDPOINT;
  let stopServer = none;
  let what: string;
  if (endpoint) what = `approvals in DynamoDB at ${endpoint}, table ${tableName}`;
  else {
    let dynalite: typeof import('dynalite').default;
    try {
      dynalite = (await import('dynalite')).default;
    } catch {
      return { approvals: undefined, note: 'dynalite is not installed and KR_APPROVALS_DYNAMODB_ENDPOINT is not set: operations are off', close: none };
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
    what = 'approvals in an in-process dynalite (in memory: lost when serve stops)';
  }
  const client = new DynamoDBClient({ endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const store = new ApprovalStore(client, { tableName });
  await store.ensureTable();
  let state: StateStore | undefined;
  if (env.KR_APPROVALS_DYNAMODB_ENDPOINT) {
    const stateTable = env.KR_STATE_TABLE ?? 'kafka-responder-state';
    await ensureStateTable(client, stateTable);
    state = new DynamoStateStore(client, stateTable);
    what += `; bot state in table ${stateTable}`;
  }
  return {
    approvals: new ApprovalService<Plan>({ store, policy: approvalPolicy(config) }),
    ...(state ? { state } : {}),
    note: what,
    close: async () => {
      client.destroy();
      await stopServer();
    },
  };
}

/** The state table as serverless.yml defines it (pk, TTL on expiresAt), created when missing. */
async function ensureStateTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
}
