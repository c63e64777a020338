// A retried job looks for what its dead attempt posted (lib/worker/post-once.ts).
// The bot posts in public channels it was never invited to (chat:write.public),
// but Slack shows a channel's history only to members: the lookup joins first,
// so a retry there finds its message instead of posting a second copy.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webApiPoster } from '../../lib/slack/web.ts';
import { purposeMetadata } from '../../lib/worker/post-once.ts';
import { SlackStub } from './helpers/slack-stub.ts';

let stub: SlackStub;
beforeAll(async () => {
  stub = await new SlackStub().start();
});
afterAll(async () => {
  await stub.stop();
});
beforeEach(() => stub.reset());

const since = () => ((Date.now() - 60_000) / 1000).toFixed(6);

describe('finding a post again', () => {
  it('in a public channel the bot posted in without being a member: it joins, then finds it', async () => {
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 0 });
    const oldest = since();
    const metadata = purposeMetadata('ops-plan:r1', 'plan');
    const posted = await slack.post({ channel: 'C0PUBLIC', text: 'REQUESTED: a plan', metadata });
    stub.notMemberOf.add('C0PUBLIC');
    expect(await slack.find!({ channel: 'C0PUBLIC', oldest }, metadata)).toEqual({ channel: 'C0PUBLIC', ts: posted.ts });
    expect(stub.calls.filter((c) => c.method === 'conversations.join')).toHaveLength(1);
  });

  it('a shared file, by the name chosen before its upload, in its thread', async () => {
    const slack = webApiPoster('xoxb-test', stub.apiUrl, { postIntervalMs: 0 });
    const oldest = since();
    const parent = await slack.post({ channel: 'C0INC', text: 'FIRING: an alert' });
    await slack.upload({ channel: 'C0INC', thread_ts: parent.ts, filename: 'timeline-a.md', title: 'Timeline', content: '# t' });
    expect(await slack.find!({ channel: 'C0INC', thread_ts: parent.ts, oldest }, { fileName: 'timeline-a.md' })).not.toBeNull();
    expect(await slack.find!({ channel: 'C0INC', thread_ts: parent.ts, oldest }, { fileName: 'timeline-b.md' })).toBeNull();
  });
});
