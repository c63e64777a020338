// A table just created answers reads and writes only once it is ACTIVE: until
// then DynamoDB (and dynalite, even with createTableMs 0, on a busy machine)
// answers ResourceNotFoundException, so whoever creates a table waits here.
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

export async function waitUntilTableActive(
  client: DynamoDBClient,
  tableName: string,
  opts: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return;
    if (Date.now() >= deadline) {
      throw new Error(`DynamoDB table ${tableName} is still ${table?.TableStatus ?? 'missing'} after ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 50));
  }
}
