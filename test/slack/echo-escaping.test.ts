// What a user types is echoed escaped by every command: Slack sends a typed
// @channel or link as `<!channel>` / `<https://…|…>`, and an echo that kept
// them would mention everyone or show a disguised link. Every registered
// `/kafka` subcommand (and an unknown one) is sent those words through the
// real signed handler; no reply may carry a control sequence.
import { beforeEach, describe, expect, it } from 'vitest';
import { buildHarness, type Harness } from './helpers/harness.ts';
import { slashEvent } from './helpers/signed.ts';
import { useSlackStubAndDynalite } from './helpers/slack-and-dynalite.ts';

const env = useSlackStubAndDynalite();
let h: Harness;
let seq = 0;
beforeEach(() => {
  h = buildHarness({ stub: env.stub, store: env.db.store });
});

/** One word (no spaces, as the commands split them) holding every control sequence. */
const HOSTILE = '<!channel>a&b<@U0OTHER><https://evil.example|click>';

async function reply(text: string): Promise<string> {
  const res = await h.handler(slashEvent({ text, responseUrl: env.stub.responseUrl(`e${++seq}`) }));
  expect(res.statusCode).toBe(200);
  return res.body;
}

function expectEscaped(body: string, context: string): void {
  const json = JSON.parse(body) as unknown;
  const all = JSON.stringify(json);
  expect(all, context).not.toMatch(/<!channel>|<https:\/\/evil|<@U0OTHER>/);
  expect(all, context).not.toMatch(/a&b/);
}

describe('user text echoed in replies', () => {
  it('an unknown subcommand is named back escaped', async () => {
    expectEscaped(await reply(HOSTILE), HOSTILE);
  });

  it('every registered subcommand, given hostile words in each position, answers without a control sequence', async () => {
    const names = h.registry.listCommands().map((c) => c.name);
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      for (const args of [[HOSTILE], ['sandbox', HOSTILE], [HOSTILE, '1', '2'], ['orders', '0', HOSTILE]]) {
        const text = `${name} ${args.join(' ')}`;
        expectEscaped(await reply(text), text);
      }
    }
    await h.queue.idle();
  });
});
