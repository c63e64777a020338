// DynamoDB implementation of StateStore. Table: partition key `pk` (S), TTL
// attribute `expiresAt` (N, epoch seconds), and the sparse global secondary
// index `list-index` (hash `list` S, range `listedAt` N): only items written by
// put() carry `list`, so the index holds exactly the listed entries. Values are
// stored as JSON text so any shape round-trips without marshalling surprises.
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type AttributeValue,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { jitteredBackoffMs, nowSeconds, type ListedItem, type StateStore, type StoredItem } from './state-store.ts';

export const LIST_INDEX = 'list-index';

/** The state table's keys and index, as serverless.yml declares them (test/deploy checks they agree). */
export const STATE_TABLE_KEYS: Pick<CreateTableCommandInput, 'AttributeDefinitions' | 'KeySchema' | 'GlobalSecondaryIndexes'> = {
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' },
    { AttributeName: 'list', AttributeType: 'S' },
    { AttributeName: 'listedAt', AttributeType: 'N' },
  ],
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
  GlobalSecondaryIndexes: [
    {
      IndexName: LIST_INDEX,
      KeySchema: [
        { AttributeName: 'list', KeyType: 'HASH' },
        { AttributeName: 'listedAt', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
};

/** DynamoDB's "slow down" answers: retried here with backoff, never taken as a verdict. */
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'LimitExceededException']);

export function isThrottling(err: unknown): boolean {
  return THROTTLING.has((err as { name?: string }).name ?? '');
}

export interface DynamoStateStoreOptions {
  /** Tries per call when DynamoDB throttles (on top of the SDK's own). */
  throttleAttempts?: number;
  /** Cap of one backoff wait, milliseconds. */
  maxBackoffMs?: number;
}

export class DynamoStateStore implements StateStore {
  private readonly throttleAttempts: number;
  private readonly maxBackoffMs: number;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoStateStoreOptions = {},
  ) {
    this.throttleAttempts = options.throttleAttempts ?? 5;
    this.maxBackoffMs = options.maxBackoffMs ?? 400;
  }

  /** One DynamoDB call, retried with jittered backoff while the table throttles. */
  private async send<O>(call: () => Promise<O>): Promise<O> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!isThrottling(err) || attempt >= this.throttleAttempts) throw err;
        await new Promise((r) => setTimeout(r, 1 + jitteredBackoffMs(attempt, 25, this.maxBackoffMs)));
      }
    }
  }

  async get<T>(key: string): Promise<StoredItem<T> | null> {
    const out = await this.send(() =>
      this.client.send(new GetItemCommand({ TableName: this.tableName, Key: { pk: { S: key } }, ConsistentRead: true })),
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

  async put<T>(key: string, value: T, ttlSeconds: number, list: string): Promise<void> {
    await this.send(() =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            ...this.item(key, value, 1, nowSeconds() + ttlSeconds),
            list: { S: list },
            listedAt: { N: String(Date.now()) },
          },
        }),
      ),
    );
  }

  async remove(key: string): Promise<void> {
    // Without `list` the item leaves the index; already expired, get() ignores it and TTL deletes it.
    await this.send(() => this.client.send(new PutItemCommand({ TableName: this.tableName, Item: this.item(key, null, 1, nowSeconds()) })));
  }

  async list<T>(list: string, limit: number): Promise<ListedItem<T>[]> {
    const found: ListedItem<T>[] = [];
    let start: Record<string, AttributeValue> | undefined;
    // Expired entries are filtered after the page is read: a few pages at most, never a scan.
    for (let page = 0; page < 10 && found.length < limit; page++) {
      const out = await this.send(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: LIST_INDEX,
            KeyConditionExpression: '#list = :list',
            FilterExpression: 'expiresAt > :now',
            ExpressionAttributeNames: { '#list': 'list' },
            ExpressionAttributeValues: { ':list': { S: list }, ':now': { N: String(nowSeconds()) } },
            ScanIndexForward: false,
            Limit: Math.max(limit, 25),
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        ),
      );
      for (const item of out.Items ?? []) {
        if (!item.pk?.S || !item.value?.S) continue;
        found.push({ key: item.pk.S, value: JSON.parse(item.value.S) as T, listedAt: Number(item.listedAt?.N ?? 0) });
      }
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return found.slice(0, limit);
  }

  private item(key: string, value: unknown, version: number, expiresAt: number): Record<string, AttributeValue> {
    return {
      pk: { S: key },
      value: { S: JSON.stringify(value) },
      version: { N: String(version) },
      expiresAt: { N: String(expiresAt) },
    };
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
      await this.send(() =>
        this.client.send(
          new PutItemCommand({
            TableName: this.tableName,
            Item: this.item(key, value, version, expiresAt),
            ConditionExpression: condition,
            ExpressionAttributeValues: values,
          }),
        ),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException || (err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }
}
