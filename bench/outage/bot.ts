// The installed `serve` driven as a Slack workspace drives it: a signed slash
// command, the plan message, two signed Approve clicks by two approvers, and
// the run's summary in the plan's thread (its time from the Slack stub's record
// of the chat.postMessage / chat.update that carried it).
import { slashBody } from '../../test/slack/helpers/signed.ts';
import { SlackStub, type StubMessage } from '../../test/slack/helpers/slack-stub.ts';
import { ALICE, BOB, CHANNEL, REQUESTER, ServeHarness, requestIdOf, sleep, waitFor } from '../../test/operations/serve-harness.ts';

const FINAL = /: (SUCCEEDED|FAILED|CANCELLED|STALE|EXPIRED)$/;

export class Bot {
  private constructor(
    readonly stub: SlackStub,
    readonly harness: ServeHarness,
  ) {}

  /** Starts the Slack stub and the installed serve with the README's env (plus `env`). */
  static async start(env: Record<string, string>): Promise<Bot> {
    const stub = await new SlackStub().start();
    const harness = new ServeHarness(stub, env);
    try {
      await harness.start();
    } catch (err) {
      harness.stop();
      await stub.stop();
      throw err;
    }
    return new Bot(stub, harness);
  }

  get startupLine(): string {
    return this.harness.startupLine;
  }

  /**
   * Sends `/kafka <text>` and waits for its plan message (top level, REQUESTED).
   * Over the bot's plan-rate limit it waits the "try again in N s" it was told, as a user would.
   */
  async plan(text: string, timeoutMs = 120_000): Promise<StubMessage> {
    const before = new Set(this.stub.topLevel(CHANNEL).map((m) => m.ts));
    const responsesBefore = this.stub.responses.length;
    for (let attempt = 1; ; attempt++) {
      const ack = await this.harness.post('/slack/events', slashBody({ text, user: REQUESTER, channel: CHANNEL, responseUrl: this.stub.responseUrl(`slash-${Date.now()}`) }));
      const retry = /try again in (\d+) s/.exec(String(ack.text ?? ''));
      if (!retry || attempt >= 5) break;
      await sleep((Number(retry[1]) + 1) * 1_000);
    }
    const isPlan = (m: StubMessage) => !before.has(m.ts) && [...m.history, m.text].some((t) => t.startsWith('REQUESTED: '));
    return waitFor('the plan message', () => this.stub.topLevel(CHANNEL).find(isPlan), timeoutMs, 50).catch((err: Error) => {
      const said = this.stub.responses.slice(responsesBefore).map((r) => String(r.body.text));
      throw new Error(`/kafka ${text}: ${err.message}; the bot answered: ${JSON.stringify(said)}\n${this.harness.logs.join('').slice(-2_000)}`);
    });
  }

  /** The first Approve click (ALICE); returns the request id. */
  async firstApproval(plan: StubMessage): Promise<string> {
    const id = requestIdOf(plan);
    await this.harness.click('ops:approve', id, ALICE, plan);
    return id;
  }

  /** The second Approve click (BOB): returns Date.now() right before its request is sent. */
  async secondApproval(plan: StubMessage, id: string): Promise<number> {
    const t0 = Date.now();
    await this.harness.click('ops:approve', id, BOB, plan);
    return t0;
  }

  /** The run's summary in the plan thread: status, text and when the stub received it. */
  async summary(plan: StubMessage, timeoutMs = 300_000): Promise<{ status: string; at: number; text: string }> {
    const msg = await waitFor('the run summary in the plan thread', () => this.stub.thread(plan.ts).find((m) => FINAL.test(m.text)), timeoutMs, 50);
    const calls = [...this.stub.callsTo('chat.postMessage'), ...this.stub.callsTo('chat.update')];
    const carried = calls.filter((c) => (c.args.thread_ts === plan.ts || c.args.ts === msg.ts) && FINAL.test(String(c.args.text ?? '')));
    const at = carried.length ? Math.min(...carried.map((c) => c.at)) : Date.now();
    return { status: msg.text.split(': ').at(-1)!, at, text: `${msg.text}\n${blocksText(msg.blocks)}` };
  }

  async stop(): Promise<void> {
    const serve = this.harness.serve;
    if (serve && serve.exitCode === null) {
      const exited = new Promise((r) => serve.once('exit', r));
      this.harness.stop();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (serve.exitCode === null) serve.kill('SIGKILL');
    }
    await this.stub.stop();
  }
}

/** Every text field of Block Kit blocks, one per line. */
function blocksText(blocks: unknown[]): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'text' && typeof x === 'string') out.push(x);
        else walk(x);
      }
    }
  };
  walk(blocks);
  return out.join('\n');
}
