// One signature verification per Slack request: our receiver checks it once
// and Bolt is handed the parsed event (no second check by a Bolt receiver).
// Counted where any check must go: HMACs keyed with the signing secret, at
// node:crypto itself (CommonJS callers such as Bolt's receivers read the
// module object; ESM named imports are re-synced with syncBuiltinESMExports).
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildHarness, type Harness } from './helpers/harness.ts';
import { SIGNING_SECRET, actionEvent, blockActionsPayload, signedEvent, slashEvent } from './helpers/signed.ts';
import { useSlackStubAndDynalite } from './helpers/slack-and-dynalite.ts';

const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
const original = crypto.createHmac;
let verifications = 0;

beforeAll(() => {
  crypto.createHmac = ((algorithm: string, key: unknown, options?: unknown) => {
    if (key === SIGNING_SECRET || (Buffer.isBuffer(key) && key.toString() === SIGNING_SECRET)) verifications++;
    return original(algorithm, key as string, options as undefined);
  }) as typeof crypto.createHmac;
  syncBuiltinESMExports();
});
afterAll(() => {
  crypto.createHmac = original;
  syncBuiltinESMExports();
});

const env = useSlackStubAndDynalite();
const stub = env.stub;
let h: Harness;
let seq = 0;
beforeEach(() => {
  h = buildHarness({ stub, store: env.db.store });
});

/** The request signed before counting starts: only the handler's own checks count. */
async function count(event: ReturnType<typeof signedEvent>): Promise<{ status: number; verifications: number }> {
  verifications = 0;
  const res = await h.handler(event);
  await h.queue.idle();
  return { status: res.statusCode, verifications };
}

describe('signature verification', () => {
  it('is done exactly once for a slash command, a button click and an Events API request', async () => {
    const command = slashEvent({ text: 'status', responseUrl: stub.responseUrl(`a${++seq}`) });
    expect(await count(command)).toEqual({ status: 200, verifications: 1 });

    h.registry.registerAction({ actionIdPrefix: 'probe:', run: async () => undefined });
    const click = actionEvent(
      blockActionsPayload({ actionId: 'probe:x', value: 'v', user: 'U0BOB', message: { channel: 'C0OPS', ts: '1700000000.000001', text: 'x' }, responseUrl: stub.responseUrl(`a${++seq}`), actionTs: '1700000001.000001' }),
    );
    expect(await count(click)).toEqual({ status: 200, verifications: 1 });

    const challenge = signedEvent(JSON.stringify({ type: 'url_verification', token: 't', challenge: 'c-123' }), { contentType: 'application/json' });
    expect(await count(challenge)).toEqual({ status: 200, verifications: 1 });
  });

  it('is done once for a forged request too, which then goes no further', async () => {
    const forged = slashEvent({ text: 'status' }, { secret: 'not-the-secret-0123456789abcdef00' });
    verifications = 0;
    const res = await h.handler(forged);
    expect(res.statusCode).toBe(401);
    expect(verifications).toBe(1);
    expect(stub.calls).toHaveLength(0);
  });
});
