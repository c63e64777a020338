// A big alert group from intake to Slack (real handlers, in-process queue,
// dynalite state, the Slack stub): one thread, whose parent and digest reply
// say how many alerts the group held and how many are shown; a payload too
// large for a queue message is stored and read back by the worker.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAlertmanagerHandler } from '../../lib/alerts/intake.ts';
import type { Job } from '../../lib/queue/job.ts';
import { MAX_JOB_BYTES, isSpilled, jobBytes } from '../../lib/queue/oversize.ts';
import { buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { useSlackStubAndDynalite } from '../slack/helpers/slack-and-dynalite.ts';
import { bigNotification, richNotification } from './fixtures/big.ts';

const TOKEN = 'am-token-0123456789abcdef';
const env = useSlackStubAndDynalite();
const { stub } = env;
let h: Harness;
let am: ReturnType<typeof createAlertmanagerHandler>;
const sent: Job[] = [];

beforeEach(() => {
  h = buildHarness({ stub, store: env.db.store });
  const queue = { enqueue: async (job: Job) => (sent.push(job), h.queue.enqueue(job)) };
  am = createAlertmanagerHandler({ queue, store: env.db.store, log: h.log, bearerToken: TOKEN });
  sent.length = 0;
});

async function send(body: unknown): Promise<void> {
  const res = await am({ rawPath: '/alerts/alertmanager', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body), requestContext: { http: { method: 'POST' } } });
  expect(res.statusCode).toBe(202);
  await h.queue.idle();
}

const text = (m: { text: string; blocks: unknown[] }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

describe('a big alert group in Slack', () => {
  it('10,000 alerts: one thread; the parent and the digest reply give the group size and how many are shown', async () => {
    await send(bigNotification(10_000, { group: 'triage-10k', resolved: 4 }));
    const threads = stub.topLevel();
    expect(threads).toHaveLength(1);
    expect(text(threads[0]!)).toContain('10,000 alerts (9,996 firing, 4 resolved), 20 shown in the thread');
    const digest = stub.thread(threads[0]!.ts).find((m) => m.text.startsWith('This group holds'));
    expect(digest?.text).toBe('This group holds 10,000 alerts (9,996 firing, 4 resolved), 20 shown');
    const body = text(digest!);
    expect(body).toContain('20 of 10,000 alerts shown');
    expect(body).toMatch(/\*severity:\* `warning` 9,000 · `critical` 1,000/);
    expect(body).toMatch(/\*topic:\*.*…and 490 more values \(9,800 alerts\)/);
    // Re-sent unchanged (group_interval): no second digest, still one thread.
    await send(bigNotification(10_000, { group: 'triage-10k', resolved: 4 }));
    expect(stub.topLevel()).toHaveLength(1);
    expect(stub.thread(threads[0]!.ts).filter((m) => m.text.startsWith('This group holds'))).toHaveLength(1);
  });

  it('rich annotations: the payload is stored, the job carries its key, the worker reads it back', async () => {
    await send(richNotification(60, 8, 'triage-rich'));
    expect(sent).toHaveLength(1);
    expect(isSpilled(sent[0]!.payload)).toBe(true);
    expect(jobBytes(sent[0]!)).toBeLessThanOrEqual(MAX_JOB_BYTES);
    const threads = stub.topLevel();
    expect(threads).toHaveLength(1);
    const digest = stub.thread(threads[0]!.ts).find((m) => m.text.startsWith('This group holds'));
    expect(digest?.text).toBe('This group holds 60 alerts (60 firing, 0 resolved), 20 shown');
    expect(h.log.records.some((r) => r.message === 'alert payload read back from the state table')).toBe(true);
  });
});
