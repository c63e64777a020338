// One operation lock per cluster, in the approvals table: pk = LOCK#<key>,
// sk = STATE, holding the id of the request that runs there. Taken and handed
// over only by conditional writes, so of two workers racing for a free (or
// stale) lock exactly one wins.
//
// Liveness follows the holder's run, not a clock: the lock is held while its
// request is EXECUTING (a drain may park for hours; a worker that dies leaves
// the run to the sweep, which resumes it, lock and all). Once that request is
// anything else (finished, abandoned by a human, gone) the lock is stale and
// the next contender takes it over; the runner also releases it at each end.
// Released by removing its holder (an UpdateItem): the worker deletes nothing
// from the approvals table.

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { applied } from './conditional.ts';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

const LOCK_SK = 'STATE';
const pkOf = (key: string) => `LOCK#${key}`;

export interface ClusterLockRecord {
  key: string;
  holder: string;
  since: number;
}

export class ClusterLockStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async get(key: string): Promise<ClusterLockRecord | null> {
    const out = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: pkOf(key), sk: LOCK_SK }, ConsistentRead: true }));
    if (typeof out.Item?.holder !== 'string') return null;
    return { key, holder: out.Item.holder, since: Number(out.Item.since) };
  }

  /**
   * Makes `holder` the lock's holder if the lock is free, already theirs, or
   * (when `staleHolder` is given) still held by exactly that stale holder.
   * false when someone else holds it (or took it over first).
   */
  async take(key: string, holder: string, now: number, staleHolder?: string): Promise<boolean> {
    const free = 'attribute_not_exists(#holder) OR #holder = :holder';
    return applied(
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: pkOf(key), sk: LOCK_SK, recordType: 'cluster-lock', key, holder, since: now },
          ConditionExpression: staleHolder ? `${free} OR #holder = :stale` : free,
          ExpressionAttributeNames: { '#holder': 'holder' },
          ExpressionAttributeValues: { ':holder': holder, ...(staleHolder ? { ':stale': staleHolder } : {}) },
        }),
      ),
    );
  }

  /** Releases the lock if `holder` still holds it; a no-op otherwise. */
  async release(key: string, holder: string): Promise<void> {
    await applied(
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pkOf(key), sk: LOCK_SK },
          UpdateExpression: 'REMOVE #holder, #since',
          ConditionExpression: '#holder = :holder',
          ExpressionAttributeNames: { '#holder': 'holder', '#since': 'since' },
          ExpressionAttributeValues: { ':holder': holder },
        }),
      ),
    );
  }
}
