// The DynamoDB state store against dynalite: conditional creation, versioned
// replacement, expiry honoured on read and on create.
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate } from '../../lib/state/state-store.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';

let db: DynaliteHandle;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => db.close());

describe('DynamoStateStore', () => {
  it('create is first-writer-wins, also under concurrency', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => db.store.create('k1', { who: i }, 60)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const item = await db.store.get<{ who: number }>('k1');
    expect(item?.version).toBe(1);
    expect(results[item!.value.who]).toBe(true);
  });

  it('replace succeeds only against the current version', async () => {
    await db.store.create('k2', { n: 1 }, 60);
    expect(await db.store.replace('k2', 1, { n: 2 }, 60)).toBe(true);
    expect(await db.store.replace('k2', 1, { n: 3 }, 60)).toBe(false);
    expect(await db.store.get('k2')).toMatchObject({ value: { n: 2 }, version: 2 });
  });

  it('writes the TTL attribute as epoch seconds', async () => {
    const before = Math.floor(Date.now() / 1000);
    await db.store.create('k3', 'v', 600);
    const item = await db.store.get('k3');
    expect(item!.expiresAt).toBeGreaterThanOrEqual(before + 600);
    expect(item!.expiresAt).toBeLessThan(before + 700);
  });

  it('treats an expired item (not yet deleted by TTL) as absent', async () => {
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: { pk: { S: 'k4' }, value: { S: '"old"' }, version: { N: '7' }, expiresAt: { N: String(Math.floor(Date.now() / 1000) - 5) } },
      }),
    );
    expect(await db.store.get('k4')).toBeNull();
    expect(await db.store.replace('k4', 7, 'x', 60)).toBe(false);
    expect(await db.store.create('k4', 'new', 60)).toBe(true);
    expect(await db.store.get('k4')).toMatchObject({ value: 'new', version: 1 });
  });

  it('mutate applies concurrent read-modify-writes without losing any', async () => {
    await Promise.all(Array.from({ length: 5 }, (_, i) => mutate<number[]>(db.store, 'k5', 60, (cur) => [...(cur ?? []), i], 20)));
    const item = await db.store.get<number[]>('k5');
    expect([...item!.value].sort()).toEqual([0, 1, 2, 3, 4]);
  });
});
