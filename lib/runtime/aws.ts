// AWS clients for the Lambda entry points, built once per container (outside
// the handler) with short timeouts: a Lambda must not spend its 3 seconds in
// SDK retries. Only DynamoDB and SQS: this module is on the Slack ack path.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { ApprovalService } from '../approvals/service.ts';
import type { Config } from '../config/schema.ts';
import type { Plan } from '../operations/types.ts';
import { createApprovalService, type ListGroupMembers } from '../approvals/runtime.ts';
import { DynamoStateStore } from '../state/dynamo-state-store.ts';
import { SqsJobQueue } from '../queue/queue.ts';

export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const v = env[name];
  if (!v) throw new Error(`environment variable ${name} is not set`);
  return v;
}

const requestHandler = { connectionTimeout: 1000, requestTimeout: 2000 };

export function awsStateStore(env: NodeJS.ProcessEnv = process.env): DynamoStateStore {
  return new DynamoStateStore(new DynamoDBClient({ maxAttempts: 2, requestHandler }), requireEnv('STATE_TABLE', env));
}

export function sqsJobQueue(env: NodeJS.ProcessEnv = process.env): SqsJobQueue {
  const client = new SQSClient({ maxAttempts: 2, requestHandler });
  // DELAY_QUEUE_URL: the standard queue for a long operation's next tick (FIFO queues take no per-message delay).
  return new SqsJobQueue({ sendMessage: (input) => client.send(new SendMessageCommand(input)) }, requireEnv('JOB_QUEUE_URL', env), env.DELAY_QUEUE_URL || undefined);
}

/**
 * The approvals table (APPROVALS_TABLE), or undefined when it is not set:
 * operations are then refused with a clear message instead of failing.
 */
export function awsApprovalService(config: Config, listGroup?: ListGroupMembers, env: NodeJS.ProcessEnv = process.env): ApprovalService<Plan> | undefined {
  const tableName = env.APPROVALS_TABLE;
  if (!tableName) return undefined;
  return createApprovalService({ client: new DynamoDBClient({ maxAttempts: 3, requestHandler }), tableName, config, ...(listGroup ? { listGroup } : {}) });
}
