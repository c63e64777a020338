// The real `kafka-responder serve` process driven by signed Slack requests, as
// the serve e2e tests use it: start it with test env, post slash commands,
// click buttons, wait for things.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { signSlackRequest } from '../../lib/slack/verify.ts';
import { closedPort } from '../helpers/net.ts';
import { SIGNING_SECRET, blockActionsPayload } from '../slack/helpers/signed.ts';
import type { SlackStub, StubMessage } from '../slack/helpers/slack-stub.ts';

/** Who clicks in the serve e2e tests: a requester who is not an approver, and two approvers. */
export const REQUESTER = 'U0REQ';
export const ALICE = 'U0ALICE';
export const BOB = 'U0BOB';
export const CHANNEL = 'C0OPS';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 1_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

export class ServeHarness {
  /** The running serve process (tests may kill it). */
  serve: ChildProcess | undefined;
  readonly logs: string[] = [];
  private url = '';
  private seq = 0;

  /** `env`: what the test adds to the Slack and approvals settings every serve needs (approvals in DynamoDB at `dynamoEndpoint`). */
  constructor(
    private readonly stub: SlackStub,
    private readonly dynamoEndpoint: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts serve with the deployed worker's time limit (30 s per job). */
  async start(): Promise<void> {
    const port = await closedPort();
    const child = spawn(process.execPath, ['bin/kafka-responder.js', 'serve', '--port', String(port), '--worker-timeout', '30'], {
      env: {
        ...process.env,
        KR_FROM_SOURCE: '1',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_BOT_TOKEN: 'xoxb-test',
        SLACK_API_URL: this.stub.apiUrl,
        ALERTMANAGER_TOKEN: 'alertmanager-token-for-tests',
        KR_INCIDENT_CHANNEL: 'C0INCIDENT',
        KR_SLACK_USERS: `${REQUESTER},${ALICE},${BOB}`,
        KR_APPROVERS: `${ALICE},${BOB}`,
        KR_APPROVALS_DYNAMODB_ENDPOINT: this.dynamoEndpoint,
        KR_SWEEP_SECONDS: '5',
        LOG_LEVEL: 'WARN',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => this.logs.push(d.toString()));
    child.stderr!.on('data', (d: Buffer) => this.logs.push(d.toString()));
    this.serve = child;
    await waitFor('serve to listen', () => this.logs.join('').includes(`listening on http://127.0.0.1:${port}`), 60_000, 200);
    this.url = `http://127.0.0.1:${port}`;
  }

  async post(path: string, body: string): Promise<Record<string, unknown>> {
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body) },
      body,
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }

  /** Clicks a button on `message` as `user`; the click must be accepted (no ephemeral refusal). */
  async click(actionId: string, value: string, user: string, message: StubMessage): Promise<void> {
    const id = `c${++this.seq}`;
    const payload = blockActionsPayload({ actionId, value, user, message, responseUrl: this.stub.responseUrl(id), actionTs: `${Math.floor(Date.now() / 1000)}.${String(this.seq).padStart(6, '0')}` });
    await this.post('/slack/interactivity', new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    const answer = this.stub.responses.find((r) => r.path === `/response/${id}`);
    expect(answer?.body.text, `click ${actionId} by ${user}`).toBeUndefined();
  }

  stop(): void {
    this.serve?.kill('SIGTERM');
  }
}
