// AWS clients for the Lambda entry points, built once per container (outside
// the handler) with short timeouts: a Lambda must not spend its 3 seconds in
// SDK retries. Only DynamoDB and SQS: this module is on the Slack ack path and
// in the alerts bundle, so it imports no feature and no approvals code.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoStateStore } from '../state/dynamo-state-store.ts';
import { SqsJobQueue } from '../queue/queue.ts';

export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const v = env[name];
  if (!v) throw new Error(`environment variable ${name} is not set`);
  return v;
}

const requestHandler = { connectionTimeout: 1000, requestTimeout: 2000 };

/** A DynamoDB client with the short Lambda timeouts. */
export function dynamoClient(maxAttempts: number): DynamoDBClient {
  return new DynamoDBClient({ maxAttempts, requestHandler });
}

export function awsStateStore(env: NodeJS.ProcessEnv = process.env): DynamoStateStore {
  return new DynamoStateStore(dynamoClient(2), requireEnv('STATE_TABLE', env));
}

export function sqsJobQueue(env: NodeJS.ProcessEnv = process.env): SqsJobQueue {
  const client = new SQSClient({ maxAttempts: 2, requestHandler });
  // DELAY_QUEUE_URL: the standard queue for a long operation's next tick (FIFO queues take no per-message delay).
  return new SqsJobQueue({ sendMessage: (input) => client.send(new SendMessageCommand(input)) }, requireEnv('JOB_QUEUE_URL', env), env.DELAY_QUEUE_URL || undefined);
}

