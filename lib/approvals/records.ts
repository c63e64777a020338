// The item layout the approval records share (store.ts, audit-log.ts): one
// partition per request, REQ#<id>, with sort keys by record kind.

import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

/** Storage-only attributes, not part of the records callers get. */
export const KEY_ATTRS = new Set(['pk', 'sk', 'ttl', 'approverIds', 'recordType', 'sweep', 'sweepSince']);

export function pkOf(id: string): string {
  return `REQ#${id}`;
}

/** Every record of the request whose sort key starts with `prefix`, in order, storage attributes removed. */
export async function queryPrefix(doc: DynamoDBDocumentClient, table: string, id: string, prefix: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pkOf(id), ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) {
      const clean: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(item)) if (!KEY_ATTRS.has(k)) clean[k] = v;
      items.push(clean);
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}
