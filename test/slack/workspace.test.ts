// The workspace check under allowedEnterprises, through real signed requests:
// a Slack Connect guest (home workspace in another organisation, the payload
// naming the allowed enterprise) is refused on every request type with the
// same polite words; a member of the allowed organisation is let in. Which
// organisation a workspace belongs to is Slack's answer (team.info, cached).
import { beforeEach, describe, expect, it } from 'vitest';
import { BASE_CONFIG, buildHarness, type Harness } from './helpers/harness.ts';
import { actionEvent, signedEvent, slashEvent } from './helpers/signed.ts';
import { useSlackStubAndDynalite } from './helpers/slack-and-dynalite.ts';
import { WORKSPACE_REFUSAL_TEXT } from '../../lib/slack/authz.ts';

const env = useSlackStubAndDynalite();
const stub = env.stub;
let h: Harness;
let seq = 0;
const seen: string[] = [];

const GRID = { ...BASE_CONFIG, slack: { ...BASE_CONFIG.slack, allowedTeams: [], allowedEnterprises: ['E0GRID'] } };

beforeEach(() => {
  seen.length = 0;
  stub.teams.clear();
  stub.failures.clear();
  // T0MEMBER and T0HQ are workspaces of the allowed organisation; T0GUEST is a partner's.
  stub.teams.set('T0HQ', 'E0GRID');
  stub.teams.set('T0MEMBER', 'E0GRID');
  stub.teams.set('T0GUEST', 'E0PARTNER');
  stub.teams.set('T0SOLO', null);
  h = buildHarness({ stub, store: env.db.store, config: GRID });
  h.registry.registerAction({ actionIdPrefix: 'probe:', run: async (inv) => void seen.push(inv.userId) });
});

async function slash(team: string, enterprise = 'E0GRID') {
  const res = await h.handler(slashEvent({ text: 'status', user: 'U0ALICE', channel: 'C0OPS', team, enterprise, responseUrl: stub.responseUrl(`s${++seq}`) }));
  expect(res.statusCode).toBe(200);
  return (JSON.parse(res.body) as { text: string }).text;
}

/** A click on one of the bot's messages in a channel of T0HQ (the host), by a user whose own workspace is `userTeam`. */
async function click(userTeam: string) {
  const n = ++seq;
  const res = await h.handler(
    actionEvent({
      type: 'block_actions',
      user: { id: 'U0BOB', team_id: userTeam },
      channel: { id: 'C0OPS' },
      team: { id: 'T0HQ', enterprise_id: 'E0GRID' },
      enterprise: { id: 'E0GRID', name: 'Grid' },
      is_enterprise_install: false,
      api_app_id: 'A0TEST',
      token: 't',
      container: { type: 'message', message_ts: `1700000000.${n}` },
      message: { ts: `1700000000.${n}`, text: 'x' },
      response_url: stub.responseUrl(`c${n}`),
      trigger_id: '1.2.3',
      actions: [{ type: 'button', action_id: 'probe:x', block_id: 'b', value: 'v', action_ts: `1700000001.${n}`, text: { type: 'plain_text', text: 'x' } }],
    }),
  );
  expect(res.statusCode).toBe(200);
  await h.queue.idle();
  return stub.responses.find((r) => r.path.endsWith(`/c${n}`))?.body.text;
}

describe('allowedEnterprises: the user’s own workspace must belong to an allowed organisation', () => {
  it('a slash command: a member of the allowed organisation is let in, a guest whose workspace is elsewhere is refused', async () => {
    expect(await slash('T0MEMBER')).toMatch(/open incidents/);
    expect(await slash('T0GUEST')).toBe(WORKSPACE_REFUSAL_TEXT);
    // An unknown workspace, or one in no organisation, is no member either, whatever enterprise the payload names.
    expect(await slash('T0NOWHERE')).toBe(WORKSPACE_REFUSAL_TEXT);
    expect(await slash('T0SOLO')).toBe(WORKSPACE_REFUSAL_TEXT);
    const refusal = h.log.records.find((r) => r.message === 'refused slack command' && r.fields.teamId === 'T0GUEST');
    expect(refusal?.fields).toMatchObject({ enterpriseId: 'E0GRID', reason: 'workspace T0GUEST not allowed (organisation E0PARTNER)' });
    expect(h.queue.enqueued).toHaveLength(0);
  });

  it('a button: the host’s member clicks through, a Slack Connect guest in the same channel is told politely and nothing runs', async () => {
    expect(await click('T0MEMBER')).toBeUndefined();
    expect(seen).toEqual(['U0BOB']);
    expect(await click('T0GUEST')).toBe(WORKSPACE_REFUSAL_TEXT);
    expect(seen).toEqual(['U0BOB']);
    expect(h.log.records.find((r) => r.message === 'refused slack interaction')?.fields).toMatchObject({ teamId: 'T0HQ', userTeamId: 'T0GUEST' });
  });

  it('any other request type from a guest is refused too (an Events API delivery reaches no listener)', async () => {
    const event = { type: 'event_callback', team_id: 'T0HQ', enterprise_id: 'E0GRID', api_app_id: 'A0TEST', event: { type: 'app_mention', user: 'U0BOB', user_team: 'T0GUEST', channel: 'C0OPS', text: 'hi', ts: '1.2' }, event_id: `Ev${++seq}`, event_time: 1 };
    await h.handler(signedEvent(JSON.stringify(event), { contentType: 'application/json' }));
    expect(h.log.records.find((r) => r.message === 'refused slack event')?.fields).toMatchObject({ userTeamId: 'T0GUEST', reason: expect.stringMatching(/T0GUEST not allowed/) });
  });

  it('asks Slack once per workspace (cached), and fails closed when Slack cannot say', async () => {
    await slash('T0MEMBER');
    await slash('T0MEMBER');
    await click('T0MEMBER');
    expect(stub.callsTo('team.info').map((c) => c.args.team).sort()).toEqual(['T0HQ', 'T0MEMBER']);
    h = buildHarness({ stub, store: env.db.store, config: GRID });
    stub.failures.set('team.info', 'missing_scope');
    expect(await slash('T0MEMBER')).toBe(WORKSPACE_REFUSAL_TEXT);
  });

  it('a workspace listed in allowedTeams needs no lookup', async () => {
    h = buildHarness({ stub, store: env.db.store, config: { ...GRID, slack: { ...GRID.slack, allowedTeams: ['T0SOLO'] } } });
    expect(await slash('T0SOLO', '')).toMatch(/open incidents/);
    expect(stub.callsTo('team.info')).toHaveLength(0);
  });
});
