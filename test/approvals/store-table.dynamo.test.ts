// A table DynamoDB has just created refuses reads and writes until it is ACTIVE:
// ensureTable returns only then, so the first request after it never fails.
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApprovalPolicyConfigSchema, ApprovalService, ApprovalStore, resolvePolicy } from '../../lib/approvals/index.ts';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb.ts';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo({ createTableMs: 400 });
});
afterAll(async () => {
  await dynamo?.close();
});

it('ensureTable waits while the new table is CREATING; the first request right after it is stored', async () => {
  const store = new ApprovalStore(dynamo.client, { tableName: 'creating-table' });
  const started = Date.now();
  await store.ensureTable();
  expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  const { Table } = await dynamo.client.send(new DescribeTableCommand({ TableName: 'creating-table' }));
  expect(Table?.TableStatus).toBe('ACTIVE');
  const policy = resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: ['UALICE', 'UBOB'] }));
  const svc = new ApprovalService({ store, policy });
  const plan = { id: 'p1', kind: 'drain', title: 'drain broker 2', fingerprint: 'a'.repeat(64) };
  const r = await svc.request(plan, 'UALICE');
  expect(r.ok).toBe(true);
  await store.ensureTable(); // idempotent on the ACTIVE table
});
