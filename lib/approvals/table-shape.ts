// The approvals table's shape (keys and the sparse sweep index) and the sweep
// index's cursor, as the store (store.ts) uses them.
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { waitUntilTableActive } from '../runtime/dynamo-table.ts';

/**
 * Sparse index of the requests the scheduled sweep must look at (open,
 * running, or owing cleanup): `sweep` is set only on those, so the index
 * stays as small as the number of live requests.
 */
export const SWEEP_INDEX = 'sweep-index';
export const SWEEP_VALUE = 'OPEN';

const sweepKeySchema = z.object({ pk: z.string().startsWith('REQ#').max(200), sk: z.string().max(200), sweep: z.literal(SWEEP_VALUE), sweepSince: z.number() });

/** A sweep-index position as an opaque string (it travels in a sweep continuation job). */
export function encodeSweepCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeSweepCursor(cursor: string): Record<string, unknown> {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new Error('malformed sweep cursor');
  }
  const parsed = sweepKeySchema.safeParse(key);
  if (!parsed.success) throw new Error('malformed sweep cursor');
  return parsed.data;
}

/** Creates the approvals table (pay per request) with its sweep index if it does not exist; for local use and tests. */
export async function ensureApprovalsTable(client: DynamoDBClient, table: string, wait: { pollMs?: number } = {}): Promise<void> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    if (Table?.TableStatus !== 'ACTIVE') await waitUntilTableActive(client, table, wait);
    return;
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        { AttributeName: 'sweep', AttributeType: 'S' },
        { AttributeName: 'sweepSince', AttributeType: 'N' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: SWEEP_INDEX,
          KeySchema: [
            { AttributeName: 'sweep', KeyType: 'HASH' },
            { AttributeName: 'sweepSince', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    }),
  );
  await waitUntilTableActive(client, table, wait);
}
