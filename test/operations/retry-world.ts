// The set-up of an ops retry test file: the Slack stub and dynalite (the state
// store) from useSlackStubAndDynalite, and a local DynamoDB for the approvals
// (a fresh table per test); all started before the file's tests and stopped
// after them, the stub's record cleared before each test.
import { afterAll, beforeAll } from 'vitest';
import { ApprovalStore } from '../../lib/approvals/store.ts';
import { startLocalDynamo, type LocalDynamo } from '../approvals/local-dynamodb.ts';
import { useSlackStubAndDynalite, type SlackAndDynalite } from '../slack/helpers/slack-and-dynalite.ts';
import { retryWorld, type RetryWorld } from './retry-harness.ts';

export interface OpsRetryWorld extends SlackAndDynalite {
  /** The approvals' server; available once the file's tests run. */
  readonly dynamo: LocalDynamo;
  /** A new approvals table named `table`, created. */
  approvalStore(table: string): Promise<ApprovalStore>;
  /**
   * A retryWorld (retry-harness.ts) on a new approvals table (`${name}-1`, `${name}-2`, …), the
   * state store and the stub; its cluster has the topic `slow` (two partitions, one replica each)
   * whose copies finish after `pollsToFinish` polls.
   */
  slowTopicWorld(name: string, pollsToFinish: number): Promise<RetryWorld>;
}

export function useOpsRetryWorld(): OpsRetryWorld {
  const servers = useSlackStubAndDynalite();
  let dynamo: LocalDynamo | null = null;
  let tables = 0;
  beforeAll(async () => {
    dynamo = await startLocalDynamo();
  });
  afterAll(async () => {
    await dynamo?.close();
  });
  const world: OpsRetryWorld = {
    get stub() {
      return servers.stub;
    },
    get db() {
      return servers.db;
    },
    get dynamo() {
      if (!dynamo) throw new Error('the local DynamoDB is started in beforeAll: use it inside a test or hook');
      return dynamo;
    },
    async approvalStore(table) {
      const store = new ApprovalStore(world.dynamo.client, { tableName: table });
      await store.ensureTable({ pollMs: 5 });
      return store;
    },
    async slowTopicWorld(name, pollsToFinish) {
      const w = await retryWorld(world.dynamo, world.db.store, world.stub, `${name}-${++tables}`);
      w.ops.cluster.addTopic('slow', [[1], [2]]);
      w.ops.cluster.pollsToFinish = pollsToFinish;
      return w;
    },
  };
  return world;
}
