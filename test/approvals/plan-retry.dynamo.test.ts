// A plan request is one job's writes; SQS retries the job with the same
// request id after any of them fails (a Lambda timeout, throttling). Here
// every write of that path fails once, against dynalite, and the retry must
// finish the request: nothing half-written is ever approvable, nothing
// half-written lives long, and the same id never takes a different plan.
import { randomBytes, randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { DynamoDBClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalPolicyConfigSchema, ApprovalService, ApprovalStore, resolvePolicy, type ApprovablePlan } from '../../lib/approvals/index.ts';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb.ts';

const TABLE = 'approvals-retry';
const DAY_S = 86_400;
const policy = resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: ['UALICE', 'UBOB', 'UCAROL'] }));

let dynamo: LocalDynamo;
/** Fails the `failAt`-th write (1-based) of the next call, once; counts writes. */
const fault = { failAt: 0, writes: 0 };
let faulty: DynamoDBClient;
let clock: number;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  await new ApprovalStore(dynamo.client, { tableName: TABLE }).ensureTable();
  faulty = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  faulty.middlewareStack.add(
    (next, context) => async (args) => {
      if (/^(PutItem|UpdateItem|DeleteItem)Command$/.test(context.commandName ?? '') || /^(Put|Update|Delete)Command$/.test(context.commandName ?? '')) {
        fault.writes++;
        if (fault.writes === fault.failAt) throw Object.assign(new Error('injected: throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectWriteFault' },
  );
});
afterAll(async () => {
  faulty?.destroy();
  await dynamo?.close();
});
beforeEach(() => {
  clock = Date.parse('2026-01-01T00:00:00Z');
  fault.failAt = 0;
  fault.writes = 0;
});

// Pieces of 10 KB instead of 300 KB: the plan below spans four of them, as a
// megabyte drain spans four real ones, at a thirtieth of the bytes to write and check.
const PIECE_BYTES = 10_000;
const service = (client: DynamoDBClient) => new ApprovalService({ store: new ApprovalStore(client, { tableName: TABLE, planPieceBytes: PIECE_BYTES }), policy, now: () => clock });

/** A drain of a busy broker, scaled to the pieces: 32 KB that gzip cannot shrink below four pieces. */
function bigPlan(createdAt = 1): ApprovablePlan & { moves: unknown[]; createdAt: number } {
  const moves = Array.from({ length: 2_000 }, (_, i) => ({ topic: `t-${i % 991}`, partition: i, replicas: [1, 2, 3], note: randomBytes(8).toString('hex') }));
  return { id: 'drain-2', kind: 'drain', title: 'drain broker 2', fingerprint: 'b'.repeat(64), moves, createdAt };
}

/**
 * toEqual on a plan of thousands of moves: the same verdict, fast. Plans here are plain JSON
 * data, so equal JSON text means deeply equal; anything else goes to toEqual,
 * which decides (key order aside) and shows the difference.
 */
function expectPlan(actual: unknown, plan: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(plan)) expect(actual).toEqual(plan);
}

/** toContainEqual for such plans, as expectPlan. */
function expectOneOf(plans: unknown[], actual: unknown): void {
  const text = JSON.stringify(actual);
  if (!plans.some((p) => JSON.stringify(p) === text)) expect(plans).toContainEqual(actual);
}

/** Every item of the request's partition, all pages (pieces fill a page quickly). */
async function rawItems(id: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const out = await dynamo.client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: `REQ#${id}` } }, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []).map((i) => unmarshall(i)));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Pieces living longer than a day hold exactly the stored plan; every other piece expires within a day. */
async function expectNoLongLivedOrphans(id: string, plan: unknown): Promise<void> {
  const items = await rawItems(id);
  const head = items.find((i) => i.sk === 'STATE')!;
  const pieces = items.filter((i) => i.recordType === 'plan-chunk');
  const soon = clock / 1000 + DAY_S + 60;
  const kept = pieces.filter((p) => Number(p.ttl) > soon);
  expect(kept.length).toBeGreaterThanOrEqual(2);
  for (const p of kept) expect(Number(p.ttl)).toBeGreaterThanOrEqual(Number(head.ttl));
  for (const p of pieces.filter((q) => !kept.includes(q))) expect(Number(p.ttl)).toBeLessThanOrEqual(soon);
  const gz = Buffer.concat(kept.map((p) => Buffer.from(p.data as Uint8Array)));
  expectPlan(JSON.parse(gunzipSync(gz).toString('utf8')), plan);
}

describe('a plan request retried after any of its writes failed', () => {
  it('a large plan whose second piece failed is completed by the retry with the same id, approvable only then', async () => {
    const plan = bigPlan();
    const id = randomUUID();
    fault.failAt = 2; // piece 0 written, piece 1 throttled
    await expect(service(faulty).request(plan, 'UALICE', { id })).rejects.toThrow(/injected/);
    expect(await service(dynamo.client).approve(id, 'UBOB')).toMatchObject({ ok: false, code: 'not-found' });

    const retried = await service(dynamo.client).request(plan, 'UALICE', { id });
    expect(retried.ok, retried.ok ? '' : retried.message).toBe(true);
    const svc = service(dynamo.client);
    expectPlan((await svc.get(id))?.plan, plan);
    expect((await svc.approve(id, 'UBOB')).ok).toBe(true);
    expect((await svc.approve(id, 'UCAROL')).ok && (await svc.get(id))?.status).toBe('APPROVED');
    await expectNoLongLivedOrphans(id, plan);
  });

  it('every write of the path failed once in turn: the retry completes it, what is readable is whole, orphans expire within a day', async () => {
    let writes = 0;
    const first = bigPlan(1);
    {
      // How many writes a clean request makes.
      fault.failAt = 0;
      fault.writes = 0;
      expect((await service(faulty).request(first, 'UALICE', { id: randomUUID() })).ok).toBe(true);
      writes = fault.writes;
    }
    expect(writes).toBeGreaterThanOrEqual(4);
    // The retry re-plans: same cluster state (fingerprint), a later snapshot time (one such plan serves every retry).
    const second = bigPlan(2);
    for (let k = 1; k <= writes; k++) {
      const id = randomUUID();
      fault.writes = 0;
      fault.failAt = k;
      const firstTry = await service(faulty).request(first, 'UALICE', { id }).catch((e: Error) => e);
      // Whatever the first try left: nothing, or a whole request.
      const seen = await service(dynamo.client).get(id);
      if (seen) expectPlan(seen.plan, first);
      if (firstTry instanceof Error) expect(firstTry.message).toMatch(/injected/);
      fault.failAt = 0;
      const retried = await service(faulty).request(second, 'UALICE', { id });
      expect(retried.ok, `failing write ${k}: ${retried.ok ? '' : retried.message}`).toBe(true);
      const stored = (await service(dynamo.client).get(id))!;
      expect(stored.status).toBe('REQUESTED');
      expectOneOf([first, second], stored.plan);
      expect(retried.ok && retried.request.planDigest).toBe(stored.planDigest);
      await expectNoLongLivedOrphans(id, stored.plan);
      const trail = await new ApprovalStore(dynamo.client, { tableName: TABLE }).audit.trail(id);
      expect(trail.map((e) => e.type)).toEqual(['requested']);
    }
  });

  it('the same request again is answered with the existing one; a different plan or requester under its id is refused', async () => {
    const svc = service(dynamo.client);
    const plan: ApprovablePlan = { id: 'p1', kind: 'drain', title: 'drain broker 2', fingerprint: 'a'.repeat(64) };
    const id = randomUUID();
    const created = await svc.request(plan, 'UALICE', { id });
    expect(created.ok).toBe(true);
    clock += 1_000;
    const again = await svc.request({ ...plan }, 'UALICE', { id });
    expect(again.ok && again.request).toEqual(created.ok && created.request);
    expect(await svc.request({ ...plan, fingerprint: 'c'.repeat(64) }, 'UALICE', { id })).toMatchObject({ ok: false, code: 'invalid-input' });
    expect(await svc.request({ ...plan, id: 'p2' }, 'UALICE', { id })).toMatchObject({ ok: false, code: 'invalid-input' });
    expect(await svc.request(plan, 'UBOB', { id })).toMatchObject({ ok: false, code: 'invalid-input' });
    expect((await svc.get(id))?.version).toBe(1);
  });
});

describe('a plan proposed by a run', () => {
  const plan: ApprovablePlan = { id: 'abort-1', kind: 'abort-transaction', title: 'abort the transaction at offset 11 of orders-0', fingerprint: 'd'.repeat(64) };

  it("records the run's requester as excluded: their approval is refused, two others approve it", async () => {
    const svc = service(dynamo.client);
    const parent = await svc.request({ ...plan, id: 'override-1', kind: 'leader-override' }, 'UALICE');
    if (!parent.ok) throw new Error(parent.message);
    const followUp = await svc.request(plan, 'UALICE', { id: randomUUID(), context: { cluster: 'c1', proposedBy: parent.request.id } });
    if (!followUp.ok) throw new Error(followUp.message);
    const id = followUp.request.id;
    expect((await svc.get(id))?.excludedApprovers).toEqual(['UALICE']);
    expect(await svc.approve(id, 'UALICE')).toMatchObject({ ok: false, code: 'self-approval' });
    expect((await svc.approve(id, 'UBOB')).ok).toBe(true);
    const last = await svc.approve(id, 'UCAROL');
    expect(last.ok && last.readyToExecute).toBe(true);
  });

  it('fails closed: a proposing run that cannot be found, or too few approvers left, refuses the request', async () => {
    const svc = service(dynamo.client);
    expect(await svc.request(plan, 'UALICE', { context: { proposedBy: 'no-such-run' } })).toMatchObject({ ok: false, code: 'invalid-input' });
    const two = new ApprovalService({ store: new ApprovalStore(dynamo.client, { tableName: TABLE }), policy: resolvePolicy(ApprovalPolicyConfigSchema.parse({ approverUserIds: ['UALICE', 'UBOB'] })), now: () => clock });
    const parent = await two.request({ ...plan, id: 'override-2' }, 'UALICE');
    if (!parent.ok) throw new Error(parent.message);
    expect(await two.request(plan, 'UALICE', { context: { proposedBy: parent.request.id } })).toMatchObject({ ok: false, code: 'policy-unsatisfiable' });
  });
});
