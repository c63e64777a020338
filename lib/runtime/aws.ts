// AWS client factories for the Lambda entry points, built once per container (outside
// the handler) with short timeouts: a Lambda must not spend its 3 seconds in
// SDK retries. Only DynamoDB and SQS: this module is on the Slack ack path and
// in the alerts bundle, so it imports no feature and no approvals code.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';

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

/** An SQS client with the short Lambda timeouts. */
export function sqsClient(): SQSClient {
  return new SQSClient({ maxAttempts: 2, requestHandler });
}
