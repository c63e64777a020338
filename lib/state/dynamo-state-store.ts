// DynamoDB implementation of StateStore. Table: partition key `pk` (S), TTL
// attribute `expiresAt` (N, epoch seconds). Values are stored as JSON text so
// any shape round-trips without marshalling surprises.
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { nowSeconds, type StateStore, type StoredItem } from './state-store.ts';

export class DynamoStateStore implements StateStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async get<T>(key: string): Promise<StoredItem<T> | null> {
    const out = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: key } }, ConsistentRead: true }),
    );
    const item = out.Item;
    if (!item?.value?.S || !item.version?.N || !item.expiresAt?.N) return null;
    const expiresAt = Number(item.expiresAt.N);
    // TTL deletion runs days late: an expired item is gone as far as we care.
    if (expiresAt <= nowSeconds()) return null;
    return { value: JSON.parse(item.value.S) as T, version: Number(item.version.N), expiresAt };
  }

  async create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean> {
    const now = nowSeconds();
    return this.conditionalPut(
      key,
      value,
      1,
      now + ttlSeconds,
      'attribute_not_exists(pk) OR expiresAt <= :now',
      { ':now': { N: String(now) } },
    );
  }

  async replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean> {
    const now = nowSeconds();
    return this.conditionalPut(key, value, expectedVersion + 1, now + ttlSeconds, 'version = :expected AND expiresAt > :now', {
      ':expected': { N: String(expectedVersion) },
      ':now': { N: String(now) },
    });
  }

  private async conditionalPut(
    key: string,
    value: unknown,
    version: number,
    expiresAt: number,
    condition: string,
    values: Record<string, { N: string }>,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            pk: { S: key },
            value: { S: JSON.stringify(value) },
            version: { N: String(version) },
            expiresAt: { N: String(expiresAt) },
          },
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException || (err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }
}
