// The real `kafka-responder serve` process driven by signed Slack requests, as
// the serve e2e tests use it. It runs the installed bin (bin/kafka-responder.js,
// i.e. the bundle the integration run's global setup builds) with what the
// README's local bot needs and nothing more: the signing secret, the bot token,
// KR_APPROVERS, SLACK_API_URL pointing at the test's Slack stub, and the
// sandbox the test uses. A test that needs more adds it through `env`, and says why.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

export const BIN = fileURLToPath(new URL('../../bin/kafka-responder.js', import.meta.url));

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

/** What a user's shell has (PATH, HOME, Java…), without this test run's own settings. */
const MACHINE = /^(PATH|HOME|USER|SHELL|TMPDIR|TEMP|TMP|LANG|LC_[A-Z]+|TZ|JAVA_HOME)$/;
/** The sandbox the test run uses (test/global-setup.ts), so that serve's default cluster is it. */
const SANDBOX = /^(KR_SANDBOX_[A-Z_]+|KR_KAFKA_CACHE)$/;

/**
 * The environment of a user who followed the README: their machine's, the sandbox, and
 * the local bot's required settings. `adds` are a test's deviations, each for a reason it states.
 */
export function readmeServeEnv(slackApiUrl: string, adds: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && (MACHINE.test(k) || SANDBOX.test(k))) env[k] = v;
  return {
    ...env,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: slackApiUrl,
    KR_APPROVERS: `${ALICE},${BOB}`,
    ...adds,
  };
}

/** The line `serve` prints once it listens: what it serves and whether operations are on. */
export const STARTUP_LINE = /^kafka-responder listening on (http:\/\/\S+) \(.*$/m;

/** The Approve button's value on a plan message: the request id (nothing else travels in buttons). */
export function requestIdOf(plan: StubMessage): string {
  const approve = (plan.blocks as { elements?: { action_id: string; value: string }[] }[]).flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'ops:approve');
  if (!approve) throw new Error(`no Approve button on: ${plan.text}`);
  return approve.value;
}

export interface ThreadOutcome {
  status: string;
  /** The summary message's first section: title, status, duration and the run's own summary. */
  summary: string;
  /** The whole summary message (what ran, audit trail), as posted. */
  blocks: string;
}

/** Waits for the run's summary in the plan's thread (posted once the run is recorded as finished). */
export async function threadOutcome(stub: SlackStub, planTs: string, timeoutMs: number, everyMs = 1_000): Promise<ThreadOutcome> {
  const summary = await waitFor('the run summary in the plan thread', () => stub.thread(planTs).find((m) => /: (SUCCEEDED|FAILED|CANCELLED|STALE|EXPIRED)$/.test(m.text)), timeoutMs, everyMs);
  const first = (summary.blocks[0] as { text?: { text?: string } } | undefined)?.text?.text ?? '';
  return { status: summary.text.split(': ').at(-1)!, summary: first, blocks: JSON.stringify(summary.blocks) };
}

export class ServeHarness {
  /** The running serve process (tests may kill it). */
  serve: ChildProcess | undefined;
  readonly logs: string[] = [];
  /** The start-up line of the last start. */
  startupLine = '';
  /** A fixed port for serve (a test's own range); a free one by default. */
  port: number | undefined;
  private url = '';
  private seq = 0;

  /**
   * `env`: what the test adds to the README's environment (readmeServeEnv), each entry
   * with its reason at the call site; `args`: extra `serve` flags, likewise; `installed`:
   * another installed copy's bin (a packed tarball's) and the directory to start it in.
   */
  constructor(
    private readonly stub: SlackStub,
    private readonly env: Record<string, string> = {},
    private readonly args: string[] = [],
    private readonly installed: { bin: string; cwd?: string } = { bin: BIN },
  ) {}

  async start(): Promise<void> {
    const port = this.port ?? (await closedPort());
    this.logs.length = 0;
    const child = spawn(process.execPath, [this.installed.bin, 'serve', '--port', String(port), ...this.args], {
      env: readmeServeEnv(this.stub.apiUrl, this.env),
      ...(this.installed.cwd ? { cwd: this.installed.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => this.logs.push(d.toString()));
    child.stderr!.on('data', (d: Buffer) => this.logs.push(d.toString()));
    this.serve = child;
    let exitCode: number | null | undefined;
    child.once('exit', (code) => (exitCode = code));
    const line = await waitFor(
      'serve to listen',
      () => {
        if (exitCode !== undefined) throw new Error(`serve exited (${exitCode}) before listening:\n${this.logs.join('')}`);
        return STARTUP_LINE.exec(this.logs.join(''))?.[0];
      },
      60_000,
      100,
    );
    this.startupLine = line;
    this.url = STARTUP_LINE.exec(line)![1]!;
    // Approvers are configured: a serve that says operations are off is not the README's bot.
    expect(line, this.logs.join('')).toMatch(/; operations on \(/);
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

  /** Clicks a button on `message` as `user` and returns what the bot answered the clicker (ephemeral), if anything. */
  async clickAnswer(actionId: string, value: string, user: string, message: StubMessage): Promise<string | undefined> {
    const id = `c${++this.seq}`;
    const payload = blockActionsPayload({ actionId, value, user, message, responseUrl: this.stub.responseUrl(id), actionTs: `${Math.floor(Date.now() / 1000)}.${String(this.seq).padStart(6, '0')}` });
    await this.post('/slack/interactivity', new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    const answer = this.stub.responses.find((r) => r.path === `/response/${id}`);
    return answer ? String(answer.body.text) : undefined;
  }

  /** Clicks a button on `message` as `user`; the click must be accepted (no ephemeral refusal). */
  async click(actionId: string, value: string, user: string, message: StubMessage): Promise<void> {
    expect(await this.clickAnswer(actionId, value, user, message), `click ${actionId} by ${user}`).toBeUndefined();
  }

  stop(): void {
    this.serve?.kill('SIGTERM');
  }
}
