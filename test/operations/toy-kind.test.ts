// Adding an operation kind touches one new folder (toy-kind/) and one line of
// OPERATION_KINDS: registered here at run time, the toy is planned through
// the table (kindOf) and run by the runner with the fake cluster the runner
// tests use; its own step action and the capability it asks for come from its
// folder; the runner, steps.ts and the renderers know nothing of it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalService } from '../../lib/approvals/service.ts';
import { assertCapabilities } from '../../lib/operations/capabilities.ts';
import type { OperationIo } from '../../lib/operations/kind.ts';
import { ALL_KINDS, OPERATION_KINDS, kindOf, stepTable } from '../../lib/operations/registry.ts';
import { runTick } from '../../lib/operations/runner.ts';
import type { Plan } from '../../lib/operations/types.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { approvalsOn, approvedByTwo } from '../approvals/two-approvers.ts';
import { FakeCluster } from './fake-cluster.ts';
import { TOY_KIND, toyKind } from './toy-kind/index.ts';

const table = OPERATION_KINDS as unknown as Record<string, unknown>;
let dynamo: LocalDynamo;
let approvals: ApprovalService<Plan>;
let tables = 0;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});
beforeEach(async () => {
  table[TOY_KIND] = toyKind; // the one table line
  ({ approvals } = await approvalsOn(dynamo.client, `toy-kind-${++tables}`));
});
afterEach(() => {
  delete table[TOY_KIND];
});

describe('a toy operation kind, registered with one table line', () => {
  it('is planned through the table and run by the runner: its own step, a shared step, the capability it asked for', async () => {
    const cluster = new FakeCluster().addTopic('orders', [[1, 2], [2, 3], [3, 1]]);
    const io = { snapshot: (t: string[] | null) => cluster.snapshot(t), openAdmin: () => cluster.openAdmin(), toyBell: async () => 'rung' } as unknown as OperationIo;
    const planned = await kindOf(TOY_KIND).plan(io, { topic: 'orders' });
    if (!planned.ok) throw new Error(`refused: ${planned.refusal.code}`);
    expect(planned.plan.steps.map((s) => s.action)).toEqual(['toy-count', 'verify-leaders']);

    const id = await approvedByTwo(approvals, planned.plan, 'fake');
    const steps: string[] = [];
    const result = await runTick({
      approvals,
      io,
      requestId: id,
      workerId: 'w-toy',
      deadline: Date.now() + 60_000,
      pollMs: 1,
      scheduleNext: async () => undefined,
      lock: null,
      report: {
        step: async (r) => void steps.push(`${r.name} ${r.status}: ${r.detail ?? ''}`),
        progress: async () => undefined,
        finished: async () => undefined,
      },
    });
    expect(result).toMatchObject({ kind: 'finished', status: 'SUCCEEDED', summary: 'counted orders' });
    expect(steps).toEqual([
      expect.stringMatching(/^check preconditions ok: fingerprint \w+ unchanged$/),
      'toy-count ok: orders has 3 partitions; bell rung',
      'verify-leaders ok: 3 partitions have the expected leader',
    ]);
  });

  it('its step action is in the step table only while it is registered', () => {
    expect(stepTable()['toy-count' as never]).toBeDefined();
    delete table[TOY_KIND];
    expect(stepTable()['toy-count' as never]).toBeUndefined();
  });

  it('an action registered twice is an error naming the second kind', () => {
    table['toy-twice'] = { ...toyKind, kind: 'toy-twice' };
    try {
      expect(() => stepTable()).toThrow('step action toy-count is registered twice (again by toy-twice)');
    } finally {
      delete table['toy-twice'];
    }
  });

  it('the composition edge refuses an io that lacks a capability a kind asks for, saying which', () => {
    expect(() => assertCapabilities({}, [...ALL_KINDS, toyKind])).toThrow(/restart-brokers needs restart; .*toy-count needs toyBell/);
    expect(() => assertCapabilities({ restart: async () => null, replicaHosts: async () => null, toyBell: async () => 1 } as never, [...ALL_KINDS, toyKind])).not.toThrow();
  });
});
