// The DynamoDB state store against dynalite: conditional creation, versioned
// replacement, expiry honoured on read and on create, the listed items behind
// /kafka status, and throttling (aws-sdk-client-mock) retried with backoff.
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishActivity, listRunning, startActivity } from '../../lib/state/activity.ts';
import { DynamoStateStore } from '../../lib/state/dynamo-state-store.ts';
import { jitteredBackoffMs, mutate } from '../../lib/state/state-store.ts';
import { recordingLog } from '../helpers/recording-log.ts';
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

describe('listed items (the /kafka status lists)', () => {
  it('lists what was put in one list, newest first, and nothing removed or expired', async () => {
    await db.store.put('l:a', { n: 1 }, 60, 'running');
    await new Promise((r) => setTimeout(r, 5));
    await db.store.put('l:b', { n: 2 }, 60, 'running');
    await db.store.put('l:c', { n: 3 }, 60, 'other');
    await db.store.put('l:gone', { n: 4 }, 60, 'running');
    await db.store.remove('l:gone');
    await db.client.send(
      new PutItemCommand({
        TableName: db.tableName,
        Item: { pk: { S: 'l:old' }, value: { S: '{"n":5}' }, version: { N: '1' }, expiresAt: { N: String(Math.floor(Date.now() / 1000) - 5) }, list: { S: 'running' }, listedAt: { N: String(Date.now()) } },
      }),
    );
    const listed = await db.store.list<{ n: number }>('running', 10);
    expect(listed.map((i) => i.value.n)).toEqual([2, 1]);
    expect(await db.store.get('l:gone')).toBeNull();
    // A removed key can be created again (a tombstone is an expired item).
    expect(await db.store.create('l:gone', 'again', 60)).toBe(true);
  });

  it('200 concurrent activity records all land: no shared item, no contention', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        startActivity(db.store, { id: `job-${i}`, kind: 'diagnose', title: `t${i}`, correlationId: `c${i}`, startedAt: new Date().toISOString(), channelId: 'C0OPS' }),
      ),
    );
    expect(results.every(Boolean)).toBe(true);
    expect(await listRunning(db.store, 'C0OPS')).toHaveLength(100);
    expect(await listRunning(db.store, 'C0OTHER')).toEqual([]);
    await finishActivity(db.store, 'job-199');
    expect((await listRunning(db.store, 'C0OPS')).some((a) => a.id === 'job-199')).toBe(false);
  });
});

describe('DynamoDB throttling', () => {
  const throttled = (name: string) => Object.assign(new Error(`${name}: slow down`), { name, $metadata: {} });

  it('retries throttled calls with backoff and then succeeds', async () => {
    const mock = mockClient(DynamoDBDocumentClient);
    try {
      mock
        .on(PutCommand)
        .rejectsOnce(throttled('ProvisionedThroughputExceededException'))
        .rejectsOnce(throttled('ThrottlingException'))
        .resolves({});
      const store = new DynamoStateStore(new DynamoDBClient({ region: 'us-east-1' }), 't');
      expect(await store.create('k', 'v', 60)).toBe(true);
      expect(mock.commandCalls(PutCommand)).toHaveLength(3);
    } finally {
      mock.restore();
    }
  });

  it('gives up after its attempts with the throttling error; activity bookkeeping swallows it and logs', async () => {
    const mock = mockClient(DynamoDBDocumentClient);
    try {
      mock.on(PutCommand).rejects(throttled('ProvisionedThroughputExceededException'));
      const store = new DynamoStateStore(new DynamoDBClient({ region: 'us-east-1' }), 't', { throttleAttempts: 3, maxBackoffMs: 5 });
      await expect(store.put('k', 'v', 60, 'running')).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
      expect(mock.commandCalls(PutCommand)).toHaveLength(3);
      const log = recordingLog();
      expect(await startActivity(store, { id: 'j', kind: 'diagnose', title: 't', correlationId: 'c', startedAt: new Date().toISOString() }, log)).toBe(false);
      expect(log.records.some((e) => e.level === 'warn' && e.message.includes('could not record the running job'))).toBe(true);
    } finally {
      mock.restore();
    }
  });

  it('a conditional-check failure is an answer, not retried', async () => {
    const mock = mockClient(DynamoDBDocumentClient);
    try {
      mock.on(PutCommand).rejects(Object.assign(new Error('lost'), { name: 'ConditionalCheckFailedException', $metadata: {} }));
      const store = new DynamoStateStore(new DynamoDBClient({ region: 'us-east-1' }), 't');
      expect(await store.create('k', 'v', 60)).toBe(false);
      expect(mock.commandCalls(PutCommand)).toHaveLength(1);
    } finally {
      mock.restore();
    }
  });
});

describe('jittered backoff', () => {
  it('grows with the attempt, stays under the cap, and is spread by the random draw', () => {
    expect(jitteredBackoffMs(3, 10, 500, () => 0.999)).toBe(79);
    expect(jitteredBackoffMs(20, 10, 500, () => 0.999)).toBe(499);
    expect(jitteredBackoffMs(3, 10, 500, () => 0)).toBe(0);
  });
});
