// The Slack Web API stub and a dynalite state store for one test file: started
// before its tests, the stub's record cleared before each, both stopped after.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startDynalite, type DynaliteHandle } from '../../alerts/helpers/dynalite.ts';
import { SlackStub } from './slack-stub.ts';

export interface SlackAndDynalite {
  readonly stub: SlackStub;
  /** The state store's server; available once the file's tests run. */
  readonly db: DynaliteHandle;
}

export function useSlackStubAndDynalite(): SlackAndDynalite {
  const stub = new SlackStub();
  let db: DynaliteHandle | null = null;
  beforeAll(async () => {
    db = await startDynalite();
    await stub.start();
  });
  afterAll(async () => {
    await stub.stop();
    await db?.close();
  });
  beforeEach(() => stub.reset());
  return {
    stub,
    get db() {
      if (!db) throw new Error('dynalite is started in beforeAll: use it inside a test or hook');
      return db;
    },
  };
}
