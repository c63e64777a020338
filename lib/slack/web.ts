// What the worker says to Slack: post, update, upload a file, answer a
// response_url. One small interface so tests and the local server can point it
// at a stub (SLACK_API_URL) and the worker stays free of WebClient details.
import { WebClient } from '@slack/web-api';
import type { KnownBlock } from '@slack/types';

export interface OutgoingMessage {
  channel: string;
  text: string;
  blocks?: KnownBlock[];
  thread_ts?: string;
}

export interface SlackPoster {
  post(message: OutgoingMessage): Promise<{ channel: string; ts: string }>;
  update(message: OutgoingMessage & { ts: string }): Promise<void>;
  upload(file: { channel: string; thread_ts?: string; filename: string; title: string; content: string }): Promise<void>;
  respond(responseUrl: string, body: { text: string; response_type?: 'ephemeral' | 'in_channel'; blocks?: KnownBlock[]; replace_original?: boolean }): Promise<void>;
}

export function webApiPoster(token: string, slackApiUrl?: string): SlackPoster {
  const client = new WebClient(token, {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    // The worker has minutes, not seconds, but must not sit in 30 minutes of retries.
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2000 },
    timeout: 10_000,
  });
  return {
    async post(m) {
      const out = await client.chat.postMessage({ channel: m.channel, text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}), ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}) });
      if (!out.ts || !out.channel) throw new Error('chat.postMessage returned no ts');
      return { channel: out.channel, ts: out.ts };
    },
    async update(m) {
      await client.chat.update({ channel: m.channel, ts: m.ts, text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}) });
    },
    async upload(f) {
      const common = { channel_id: f.channel, filename: f.filename, title: f.title, content: f.content };
      await client.files.uploadV2(f.thread_ts ? { ...common, thread_ts: f.thread_ts } : common);
    },
    async respond(url, body) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      if (!res.ok) throw new Error(`response_url answered ${res.status}`);
    },
  };
}

/** Members of a Slack user group (usergroups.users.list), for approver groups in the worker. */
export function groupLister(token: string, slackApiUrl?: string): (groupId: string) => Promise<string[]> {
  const client = new WebClient(token, { ...(slackApiUrl ? { slackApiUrl } : {}), retryConfig: { retries: 1 }, timeout: 5_000 });
  return async (usergroup) => (await client.usergroups.users.list({ usergroup })).users ?? [];
}
