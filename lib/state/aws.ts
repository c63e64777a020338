// The Lambda entry points' state store, from the environment (STATE_TABLE).
import { dynamoClient, requireEnv } from '../runtime/aws.ts';
import { DynamoStateStore } from './dynamo-state-store.ts';

export function awsStateStore(env: NodeJS.ProcessEnv = process.env): DynamoStateStore {
  return new DynamoStateStore(dynamoClient(2), requireEnv('STATE_TABLE', env));
}
