// The set-up of a worker retry test file: the Slack stub, started before the
// file's tests and stopped after them, its record cleared before each test; and
// a fresh state store (dynalite) per test, so that what an earlier test's job
// recorded (a diagnosis shared, a message posted) never answers this one's.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { BASE_CONFIG, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';

/** What buildHarness takes besides the stub and the store. */
export type WorkerHarnessOptions = Omit<Parameters<typeof buildHarness>[0], 'stub' | 'store'>;

export interface WorkerRetryWorld {
  readonly stub: SlackStub;
  /** This test's state store; available inside a test or a hook. */
  readonly db: DynaliteHandle;
  /** A real worker on this test's store and the stub (BASE_CONFIG unless `opts.config`). */
  harness(opts?: WorkerHarnessOptions): Harness;
}

export function useWorkerRetryWorld(): WorkerRetryWorld {
  const stub = new SlackStub();
  let db: DynaliteHandle | null = null;
  beforeAll(async () => {
    await stub.start();
  });
  afterAll(async () => {
    await stub.stop();
  });
  beforeEach(async () => {
    stub.reset();
    db = await startDynalite();
  });
  afterEach(async () => {
    await db?.close();
    db = null;
  });
  const world: WorkerRetryWorld = {
    stub,
    get db() {
      if (!db) throw new Error('dynalite is started before each test: use it inside a test or hook');
      return db;
    },
    harness: (opts = {}) => buildHarness({ config: BASE_CONFIG, ...opts, stub, store: world.db.store }),
  };
  return world;
}
