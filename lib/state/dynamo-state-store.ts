// DynamoDB implementation of StateStore. Table: partition key `pk` (S), TTL
// attribute `expiresAt` (N, epoch seconds), and the sparse global secondary
// index `list-index` (hash `list` S, range `listedAt` N): only items written by
// put() carry `list`, so the index holds exactly the listed entries. Values are
// stored as JSON text so any shape round-trips without marshalling surprises;
// the rest goes through the Document client (plain values, as in the approvals store).
import { ConditionalCheckFailedException, DynamoDBClient, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CountBatches } from './count-batches.ts';
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

/** One item as stored: the JSON text of the value, its version and its expiry (epoch seconds). */
interface StateItem {
  pk: string;
  value: string;
  version: number;
  expiresAt: number;
  list?: string;
  listedAt?: number;
}

export class DynamoStateStore implements StateStore {
  private readonly throttleAttempts: number;
  private readonly maxBackoffMs: number;
  private readonly client: DynamoDBDocumentClient;
  /** Concurrent counts of one counter share a write (count-batches.ts). */
  private readonly counts = new CountBatches({ add: (...a) => this.addToCounter(...a), read: (key) => this.readCounter(key) });

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoStateStoreOptions = {},
  ) {
    this.client = DynamoDBDocumentClient.from(client);
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
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk: key }, ConsistentRead: true })),
    );
    const item = out.Item as Partial<StateItem> | undefined;
    if (typeof item?.value !== 'string' || typeof item.version !== 'number' || typeof item.expiresAt !== 'number') return null;
    // TTL deletion runs days late: an expired item is gone as far as we care.
    if (item.expiresAt <= nowSeconds()) return null;
    return { value: JSON.parse(item.value) as T, version: item.version, expiresAt: item.expiresAt };
  }

  async create<T>(key: string, value: T, ttlSeconds: number): Promise<boolean> {
    const now = nowSeconds();
    return this.conditionalPut(
      key,
      value,
      1,
      now + ttlSeconds,
      'attribute_not_exists(pk) OR expiresAt <= :now',
      { ':now': now },
    );
  }

  async replace<T>(key: string, expectedVersion: number, value: T, ttlSeconds: number): Promise<boolean> {
    const now = nowSeconds();
    return this.conditionalPut(key, value, expectedVersion + 1, now + ttlSeconds, 'version = :expected AND expiresAt > :now', {
      ':expected': expectedVersion,
      ':now': now,
    });
  }

  async put<T>(key: string, value: T, ttlSeconds: number, list: string): Promise<void> {
    await this.send(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...this.item(key, value, 1, nowSeconds() + ttlSeconds), list, listedAt: Date.now() },
        }),
      ),
    );
  }

  async remove(key: string): Promise<void> {
    // Without `list` the item leaves the index; already expired, get() ignores it and TTL deletes it.
    await this.send(() => this.client.send(new PutCommand({ TableName: this.tableName, Item: this.item(key, null, 1, nowSeconds()) })));
  }

  count(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean> {
    return this.counts.count(key, by, ttlSeconds, limit);
  }

  private async addToCounter(key: string, by: number, ttlSeconds: number, limit?: number): Promise<boolean> {
    // An absent counter passes the condition whatever it adds: more than the limit never fits.
    if (limit !== undefined && by > limit) return false;
    // DynamoDB's own atomic ADD: no read, no version to race on. A counter
    // carries its window in its key, so its first expiry is kept.
    try {
      await this.send(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk: key },
            UpdateExpression: 'ADD #n :by SET expiresAt = if_not_exists(expiresAt, :expires)',
            ...(limit !== undefined ? { ConditionExpression: 'attribute_not_exists(#n) OR #n <= :room' } : {}),
            ExpressionAttributeNames: { '#n': 'counted' },
            ExpressionAttributeValues: { ':by': by, ':expires': nowSeconds() + ttlSeconds, ...(limit !== undefined ? { ':room': limit - by } : {}) },
          }),
        ),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException || (err as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }

  private async readCounter(key: string): Promise<number> {
    const out = await this.send(() => this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk: key }, ConsistentRead: true, ProjectionExpression: 'counted' })));
    const counted = (out.Item as { counted?: unknown } | undefined)?.counted;
    return typeof counted === 'number' ? counted : 0;
  }

  async list<T>(list: string, limit: number): Promise<ListedItem<T>[]> {
    const found: ListedItem<T>[] = [];
    let start: Record<string, unknown> | undefined;
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
            ExpressionAttributeValues: { ':list': list, ':now': nowSeconds() },
            ScanIndexForward: false,
            Limit: Math.max(limit, 25),
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        ),
      );
      for (const item of (out.Items ?? []) as Partial<StateItem>[]) {
        if (typeof item.pk !== 'string' || typeof item.value !== 'string') continue;
        found.push({ key: item.pk, value: JSON.parse(item.value) as T, listedAt: item.listedAt ?? 0 });
      }
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return found.slice(0, limit);
  }

  private item(key: string, value: unknown, version: number, expiresAt: number): StateItem {
    return { pk: key, value: JSON.stringify(value), version, expiresAt };
  }

  private async conditionalPut(
    key: string,
    value: unknown,
    version: number,
    expiresAt: number,
    condition: string,
    values: Record<string, number>,
  ): Promise<boolean> {
    try {
      await this.send(() =>
        this.client.send(
          new PutCommand({
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
