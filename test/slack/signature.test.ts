// Signed requests into the real Slack handler: the good one is answered,
// forged, stale, future-dated and replayed ones get 401 and enqueue nothing.
import { beforeEach, describe, expect, it } from 'vitest';
import { buildHarness, type Harness } from './helpers/harness.ts';
import { slashBody, slashEvent, signedEvent } from './helpers/signed.ts';
import { useSlackStubAndDynalite } from './helpers/slack-and-dynalite.ts';

const env = useSlackStubAndDynalite();
const { stub } = env;
let h: Harness;

beforeEach(() => {
  h = buildHarness({ stub, store: env.db.store });
});

const now = () => Math.floor(Date.now() / 1000);

describe('Slack request signatures', () => {
  it('answers a correctly signed slash command', async () => {
    const res = await h.handler(slashEvent({ text: 'help' }));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).text).toContain('/kafka diagnose [cluster] [topic]');
  });

  it('accepts Content-Type with a charset parameter and base64 bodies (HTTP API)', async () => {
    const res = await h.handler(slashEvent({ text: 'help', user: 'U0BOB' }, { contentType: 'application/x-www-form-urlencoded; charset=utf-8', base64: true }));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).response_type).toBe('ephemeral');
  });

  it('rejects a request signed with another secret', async () => {
    const res = await h.handler(slashEvent({ text: 'diagnose' }, { secret: 'not-the-secret' }));
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('signature mismatch');
    expect(h.queue.enqueued).toHaveLength(0);
  });

  it('rejects a body changed after signing', async () => {
    const ev = slashEvent({ text: 'help' });
    ev.body = slashBody({ text: 'diagnose sandbox' });
    expect((await h.handler(ev)).statusCode).toBe(401);
  });

  it('rejects a stale timestamp (older than 5 minutes)', async () => {
    const res = await h.handler(slashEvent({ text: 'diagnose' }, { timestamp: now() - 301 }));
    expect(res.statusCode).toBe(401);
    expect(res.body).toMatch(/older than 5 minutes/);
    expect(h.queue.enqueued).toHaveLength(0);
  });

  it('rejects a future timestamp (more than 5 minutes ahead), which Bolt alone would accept', async () => {
    const res = await h.handler(slashEvent({ text: 'diagnose' }, { timestamp: now() + 301 }));
    expect(res.statusCode).toBe(401);
    expect(res.body).toMatch(/future/);
  });

  it('rejects missing and malformed signature headers', async () => {
    const ev = slashEvent({ text: 'help' });
    delete ev.headers['x-slack-signature'];
    expect((await h.handler(ev)).statusCode).toBe(401);
    const ev2 = slashEvent({ text: 'help' });
    ev2.headers['x-slack-signature'] = 'v1=abc';
    expect((await h.handler(ev2)).statusCode).toBe(401);
    const ev3 = slashEvent({ text: 'help' });
    ev3.headers['x-slack-request-timestamp'] = '12abc';
    expect((await h.handler(ev3)).statusCode).toBe(401);
  });

  it('rejects a replay of a valid request within the window, and enqueues once', async () => {
    const ev = slashEvent({ text: 'diagnose sandbox' });
    const first = await h.handler(ev);
    expect(first.statusCode).toBe(200);
    const replay = await h.handler(structuredClone(ev));
    expect(replay.statusCode).toBe(401);
    expect(replay.body).toBe('replayed request');
    expect(h.queue.enqueued).toHaveLength(1);
    await h.queue.idle();
    expect(h.log.records.some((r) => r.message === 'rejected replayed slack request')).toBe(true);
  });

  it('answers Slack url_verification only when signed', async () => {
    const body = JSON.stringify({ type: 'url_verification', challenge: 'xyz', token: 't' });
    const ok = await h.handler(signedEvent(body, { contentType: 'application/json' }));
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(ok.body).challenge).toBe('xyz');
    expect((await h.handler(signedEvent(body, { contentType: 'application/json', secret: 'x' }))).statusCode).toBe(401);
  });

  it('rejects a malformed signed body with 400, not a crash', async () => {
    const res = await h.handler(signedEvent('{not json', { contentType: 'application/json' }));
    expect(res.statusCode).toBe(400);
  });
});
