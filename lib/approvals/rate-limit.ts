// Sliding-window limits on plan requests, kept in the approvals table so they
// hold across every Lambda instance: pk = RATE#<scope>#<id>, sk = WINDOW, the
// times of the requests still inside the window and a version. A request is
// counted by one conditional write on the version it read; of two writers
// racing for the last slot exactly one wins, the other reads again and
// decides again. Expired windows go with DynamoDB TTL.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { applied } from './conditional.ts';

const WINDOW_SK = 'WINDOW';

export interface RateWindow {
  requests: number;
  windowSeconds: number;
}

export type SlotResult = { ok: true; at: number } | { ok: false; retryAfterSeconds: number };

export class RateLimitStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
    private readonly maxAttempts = 12,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  private async read(key: string): Promise<{ stamps: number[]; version: number } | null> {
    const out = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: `RATE#${key}`, sk: WINDOW_SK }, ConsistentRead: true }));
    if (!out.Item) return null;
    return { stamps: Array.isArray(out.Item.stamps) ? (out.Item.stamps as unknown[]).map(Number) : [], version: Number(out.Item.version) };
  }

  private write(key: string, stamps: number[], version: number, expected: number | null, ttlSeconds: number): Promise<boolean> {
    return applied(
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: `RATE#${key}`, sk: WINDOW_SK, recordType: 'rate-window', stamps, version, ttl: ttlSeconds },
          ...(expected === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': expected } }),
        }),
      ),
    );
  }

  /** Counts one request at `now` (ms) if the window has room; else how long until it has. */
  async take(key: string, limit: RateWindow, now: number): Promise<SlotResult> {
    const windowMs = limit.windowSeconds * 1000;
    const ttl = Math.ceil((now + windowMs) / 1000) + 60;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const current = await this.read(key);
      const live = (current?.stamps ?? []).filter((t) => t > now - windowMs).sort((a, b) => a - b);
      if (live.length >= limit.requests) {
        const freeAt = live[live.length - limit.requests]! + windowMs;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)) };
      }
      const version = (current?.version ?? 0) + 1;
      if (await this.write(key, [...live, now], version, current ? current.version : null, ttl)) return { ok: true, at: now };
    }
    // Everyone else kept winning the slot: that is a flood, and this one waits too.
    return { ok: false, retryAfterSeconds: 1 };
  }

  /** Gives back a slot taken at `at` (the request did not go ahead after all); best effort. */
  async giveBack(key: string, at: number): Promise<void> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const current = await this.read(key);
      if (!current) return;
      const i = current.stamps.indexOf(at);
      if (i < 0) return;
      const stamps = current.stamps.filter((_, j) => j !== i);
      const ttl = Math.ceil(Date.now() / 1000) + 3600;
      if (await this.write(key, stamps, current.version + 1, current.version, ttl)) return;
    }
  }
}
