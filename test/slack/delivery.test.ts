// Slack delivery under load and faults, against the Web API stub: 429 with
// Retry-After honoured, 5xx retried with backoff, posts paced per channel in
// order, and a message that still cannot be delivered is logged and listed by
// `/kafka status` (state on dynalite).
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { statusCommand } from '../../lib/slack/commands.ts';
import { webApiPoster } from '../../lib/slack/web.ts';
import { InProcessJobQueue } from '../../lib/queue/queue.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG } from './helpers/harness.ts';
import { useSlackStubAndDynalite } from './helpers/slack-and-dynalite.ts';

const env = useSlackStubAndDynalite();
const { stub } = env;

describe('Slack delivery', () => {
  it('while Slack answers 429 for a while, every message is delivered afterwards, in order per thread', async () => {
    const log = recordingLog();
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 20, store: env.db.store, log });
    const a = await slack.post({ channel: 'C0INC', text: 'parent A' });
    const b = await slack.post({ channel: 'C0INC', text: 'parent B' });
    stub.rateLimitFromNextCall(1500, 1);
    // Three threads' replies and another channel's posts, all concurrently, into the rate limit.
    await Promise.all([
      ...[a, b].map(async (parent, t) => {
        for (let i = 0; i < 5; i++) await slack.post({ channel: 'C0INC', thread_ts: parent.ts, text: `thread ${t} reply ${i}` });
      }),
      (async () => {
        for (let i = 0; i < 3; i++) await slack.post({ channel: 'C0OPS', text: `ops ${i}` });
      })(),
      slack.update({ channel: 'C0INC', ts: a.ts, text: 'parent A (edited)' }),
    ]);
    expect(stub.calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    // Nothing was tried again before the Retry-After second was over.
    const limited = stub.calls.filter((c) => c.status === 429);
    const firstRetry = stub.calls.find((c) => c.status === 200 && c.at > limited[0]!.at);
    expect(firstRetry!.at - limited[0]!.at).toBeGreaterThanOrEqual(950);
    expect(stub.thread(a.ts).map((m) => m.text)).toEqual([0, 1, 2, 3, 4].map((i) => `thread 0 reply ${i}`));
    expect(stub.thread(b.ts).map((m) => m.text)).toEqual([0, 1, 2, 3, 4].map((i) => `thread 1 reply ${i}`));
    expect(stub.topLevel('C0OPS').map((m) => m.text)).toEqual(['ops 0', 'ops 1', 'ops 2']);
    expect(stub.messages.find((m) => m.ts === a.ts)!.text).toBe('parent A (edited)');
    expect(log.records.filter((r) => r.level === 'error')).toEqual([]);
  });

  it('retries 5xx answers with backoff', async () => {
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 0, backoffMs: 10 });
    stub.serverErrors.set('chat.postMessage', { remaining: 2, status: 503 });
    const posted = await slack.post({ channel: 'C0OPS', text: 'after two 503s' });
    expect(stub.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.status)).toEqual([503, 503, 200]);
    expect(stub.messages.find((m) => m.ts === posted.ts)?.text).toBe('after two 503s');
  });

  it('does not retry what retrying cannot fix (not_in_channel)', async () => {
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 0, backoffMs: 10 });
    stub.failures.set('chat.postMessage', 'not_in_channel');
    await expect(slack.post({ channel: 'C0OPS', text: 'x' })).rejects.toThrow(/not_in_channel/);
    expect(stub.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
  });

  it('a message that still cannot be delivered is logged as an error and shown by /kafka status', async () => {
    const log = recordingLog();
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 0, backoffMs: 5, maxAttempts: 3, store: env.db.store, log });
    stub.serverErrors.set('chat.postMessage', { remaining: 100, status: 500 });
    await expect(slack.post({ channel: 'C0INC', thread_ts: '1700000000.000001', text: 'Diagnosis of sandbox: 2 findings' })).rejects.toThrow(/500/);
    expect(stub.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(3);
    const error = log.records.find((r) => r.level === 'error' && r.message === 'slack message not delivered');
    expect(error?.fields).toMatchObject({ method: 'chat.postMessage', channel: 'C0INC', attempts: 3 });
    const reply = await statusCommand.run(
      { args: [], userId: 'U0ALICE', channelId: 'C0INC', correlationId: 'kr-test' },
      { config: parseConfig(BASE_CONFIG), queue: new InProcessJobQueue(async () => {}), store: env.db.store, log },
    );
    expect(reply.text).toMatch(/1 undelivered messages/);
    expect(JSON.stringify(reply.blocks)).toContain('Diagnosis of sandbox: 2 findings');
    expect(JSON.stringify(reply.blocks)).toContain('<#C0INC>');
  });

  it('paces posts in one channel at the configured interval; other channels do not wait', async () => {
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 400 });
    await Promise.all([
      ...[0, 1, 2, 3].map((i) => slack.post({ channel: 'C0INC', text: `inc ${i}` })),
      ...[0, 1].map((i) => slack.post({ channel: 'C0OPS', text: `ops ${i}` })),
    ]);
    const at = (ch: string) => stub.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === ch).map((c) => c.at);
    const inc = at('C0INC');
    for (let i = 1; i < inc.length; i++) expect(inc[i]! - inc[i - 1]!).toBeGreaterThanOrEqual(390);
    expect(stub.topLevel('C0INC').map((m) => m.text)).toEqual(['inc 0', 'inc 1', 'inc 2', 'inc 3']);
    // The other channel's first post did not queue behind this one's.
    expect(at('C0OPS')[0]! - inc[0]!).toBeLessThan(300);
  });
});
