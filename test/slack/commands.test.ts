// `/kafka` end to end through the real handler and worker: ack contents, the
// progress message edited as probes answer, findings in its thread, authz.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { ScriptedDiagnoser, buildHarness, finding, report, type Harness } from './helpers/harness.ts';
import { actionEvent, slashEvent } from './helpers/signed.ts';
import { SlackStub } from './helpers/slack-stub.ts';
import { scratchDir } from '../helpers/scratch.ts';
import { recordUndelivered, upsertIncident } from '../../lib/state/activity.ts';

let db: DynaliteHandle;
let stub: SlackStub;
let h: Harness;
let diagnoser: ScriptedDiagnoser;
let seq = 0;

beforeAll(async () => {
  db = await startDynalite();
  stub = await new SlackStub().start();
  const dir = scratchDir('kr-runbooks');
  writeFileSync(join(dir, 'offline-partition.md'), '# Offline partition\n\nA partition has no leader.\n\n## Steps\n\n1. **Find** the replicas.');
  process.env.KR_RUNBOOKS_DIR = dir;
});
afterAll(async () => {
  delete process.env.KR_RUNBOOKS_DIR;
  await stub.stop();
  await db.close();
});
beforeEach(() => {
  stub.reset();
  diagnoser = new ScriptedDiagnoser();
  h = buildHarness({ stub, store: db.store, diagnoser });
});

/** Each request distinct so replay protection never interferes between tests. */
async function slash(text: string, user = 'U0ALICE', channel = 'C0OPS', team?: string) {
  const res = await h.handler(slashEvent({ text, user, channel, responseUrl: stub.responseUrl(`r${++seq}`), ...(team ? { team } : {}) }));
  expect(res.statusCode).toBe(200);
  return JSON.parse(res.body) as { response_type: string; text: string; blocks?: { text?: { text: string } }[] };
}

describe('/kafka audit', () => {
  it('acks at once and enqueues one audit job for the named (or default) cluster; bad input enqueues nothing', async () => {
    const reply = await slash('audit');
    expect(reply.text).toContain('Auditing *sandbox*');
    expect(h.queue.enqueued.map((j) => [j.kind, (j.payload as { cluster: string }).cluster])).toEqual([['audit', 'sandbox']]);
    await h.queue.idle();
    expect(stub.messages.map((m) => [m.channel, m.text])).toEqual([['C0OPS', 'Risk audit: sandbox: No risks found on sandbox']]);
    expect((await slash('audit nosuch')).text).toMatch(/unknown cluster "nosuch"/);
    expect((await slash('audit a b')).text).toMatch(/too many arguments/);
    expect(h.queue.enqueued).toHaveLength(1);
  });
});

describe('/kafka help and bad input', () => {
  it('lists every command', async () => {
    const reply = await slash('help');
    expect(reply.response_type).toBe('ephemeral');
    for (const c of ['help', 'diagnose [cluster] [topic]', 'audit [cluster]', 'can-restart <broker-id> [cluster]', 'runbook <kind>', 'status']) expect(reply.text).toContain(c);
  });

  it('answers an empty command and an unknown one with usage', async () => {
    expect((await slash('')).text).toContain('*Usage:*');
    const unknown = await slash('reboot-everything now');
    expect(unknown.response_type).toBe('ephemeral');
    expect(unknown.text).toContain('Unknown command "reboot-everything"');
    expect(unknown.text).toContain('/kafka diagnose');
    expect(h.queue.enqueued).toHaveLength(0);
  });

  it('rejects invalid arguments with the command usage and enqueues nothing', async () => {
    expect((await slash('diagnose nosuch-cluster orders')).text).toMatch(/unknown cluster "nosuch-cluster".*`sandbox`/s);
    expect((await slash('diagnose sandbox bad/topic')).text).toMatch(/not a valid topic name/);
    expect((await slash('diagnose a b c')).text).toMatch(/too many arguments/);
    expect((await slash('can-restart')).text).toMatch(/Usage: `\/kafka can-restart/);
    expect((await slash('can-restart two')).text).toMatch(/not a broker id/);
    expect((await slash('can-restart 1; rm -rf /')).text).toMatch(/not a broker id|exactly one broker/);
    expect((await slash('runbook ../../etc/passwd')).text).toMatch(/no runbook called/);
    expect(h.queue.enqueued).toHaveLength(0);
  });
});

describe('/kafka diagnose', () => {
  it('acks at once, then edits a progress message and posts findings in its thread', async () => {
    const ack = await slash('diagnose sandbox orders');
    expect(ack.response_type).toBe('ephemeral');
    expect(ack.text).toMatch(/Diagnosing \*sandbox \/ orders\*.*correlation id `kr-[0-9a-f]{16}`/s);
    // The ack came back before the worker did anything visible.
    expect(stub.callsTo('chat.postMessage')).toHaveLength(0);
    await h.queue.idle();

    const [parent] = stub.topLevel('C0OPS');
    expect(parent).toBeDefined();
    // Progress edits went through chat.update and ended at 6/6, then the summary.
    expect(parent!.history.some((t) => /\d\/6 brokers probed/.test(t))).toBe(true);
    expect(parent!.history).toContain('Diagnosing sandbox / orders: 6/6 brokers probed');
    expect(parent!.text).toBe('1 finding on sandbox: 1 critical');
    const replies = stub.thread(parent!.ts);
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(replies[0]!.blocks)).toContain('Partition orders-0 has no leader');
    expect(diagnoser.requests[0]).toMatchObject({ topic: 'orders', cluster: { name: 'sandbox' } });

    // The correlation id travels from the ack to the worker's log lines and the diagnosis request.
    const correlationId = /`(kr-[0-9a-f]{16})`/.exec(ack.text)![1];
    expect(diagnoser.requests[0]!.correlationId).toBe(correlationId);
    expect(h.log.records.filter((r) => r.fields.correlationId === correlationId).map((r) => r.message)).toEqual(
      expect.arrayContaining(['diagnosis enqueued', 'job started', 'host probe answered', 'diagnosis done', 'job finished']),
    );
    const probeLog = h.log.records.find((r) => r.message === 'host probe answered');
    expect(probeLog?.fields).toMatchObject({ correlationId, commandId: 'cmd-1' });
  });

  it('a single word that is not a cluster is a topic on the default cluster', async () => {
    await slash('diagnose orders');
    await h.queue.idle();
    expect(diagnoser.requests[0]).toMatchObject({ topic: 'orders', cluster: { name: 'sandbox' } });
  });

  it('summarises large results within Slack limits and uploads the full list as a file', async () => {
    diagnoser.result = report(
      Array.from({ length: 120 }, (_, i) =>
        finding(i, {
          summary: 'x'.repeat(2900),
          evidence: Array.from({ length: 8 }, (_, j) => ({ label: 'server.log', value: `line ${j} `.repeat(100), source: 'broker 1' })),
        }),
      ),
    );
    await slash('diagnose sandbox');
    await h.queue.idle();
    const [parent] = stub.topLevel('C0OPS');
    const [findingsMsg] = stub.thread(parent!.ts);
    expect(findingsMsg!.blocks.length).toBeLessThanOrEqual(50);
    for (const b of findingsMsg!.blocks as { type: string; text?: { text: string } }[]) {
      if (b.type === 'section') expect(b.text!.text.length).toBeLessThanOrEqual(3000);
    }
    expect(JSON.stringify(findingsMsg!.blocks)).toContain('and 105 more findings');
    expect(stub.callsTo('files.getUploadURLExternal')).toHaveLength(1);
    expect(stub.callsTo('files.completeUploadExternal')).toHaveLength(1);
    const upload = stub.uploads[0]!;
    expect(upload.thread_ts).toBe(parent!.ts);
    expect(upload.channel).toBe('C0OPS');
    expect(upload.content).toContain('Partition orders-119 has no leader');
    expect(upload.content.split('evidence server.log').length - 1).toBe(120 * 8);
  });

  it('reports a failed diagnosis in the progress message', async () => {
    diagnoser.result = new Error('bootstrap servers unreachable: 127.0.0.1:19091');
    await slash('diagnose');
    await h.queue.idle();
    const [parent] = stub.topLevel('C0OPS');
    expect(parent!.text).toMatch(/Diagnosis of sandbox failed: bootstrap servers unreachable/);
  });

  it('explains through response_url when the bot cannot post in the channel', async () => {
    stub.failures.set('chat.postMessage', 'not_in_channel');
    await slash('diagnose');
    await h.queue.idle();
    expect(stub.responses).toHaveLength(1);
    expect(String(stub.responses[0]!.body.text)).toMatch(/not_in_channel.*\/invite/s);
  });
});

/** A diagnoser whose diagnoses wait until released: a job that is still running. */
function heldDiagnoser(): { release: () => void; diagnoser: ScriptedDiagnoser } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const diagnoser = new ScriptedDiagnoser();
  const original = diagnoser.diagnose.bind(diagnoser);
  diagnoser.diagnose = async (req) => {
    await gate;
    return original(req);
  };
  return { release, diagnoser };
}

describe('/kafka can-restart, runbook, status', () => {
  it('can-restart posts the assessment', async () => {
    const ack = await slash('can-restart 2');
    expect(ack.text).toMatch(/broker 2 of \*sandbox\*/);
    await h.queue.idle();
    const [msg] = stub.topLevel('C0OPS');
    expect(msg!.text).toBe('Broker 2: No: 1 partition would go offline: broker 2 is their only live in-sync replica (orders-3).');
    expect(JSON.stringify(msg!.blocks)).toContain('orders-3 (offline)');
  });

  it('runbook shows the runbook and lists known ones for an unknown name', async () => {
    const reply = await slash('runbook offline-partition');
    expect(JSON.stringify(reply.blocks)).toContain('*Offline partition*');
    expect((await slash('runbook nope')).text).toContain('`offline-partition`');
  });

  it('status lists running jobs while they run and not after', async () => {
    const { release, diagnoser } = heldDiagnoser();
    h = buildHarness({ stub, store: db.store, diagnoser });
    await slash('diagnose sandbox payments');
    const during = await slash('status');
    expect(JSON.stringify(during.blocks)).toContain('diagnose sandbox / payments');
    release();
    await h.queue.idle();
    const after = await slash('status');
    expect(JSON.stringify(after.blocks)).not.toContain('diagnose sandbox / payments');
  });

  it("status shows only the asking channel's jobs, incidents and undelivered messages", async () => {
    const { release, diagnoser } = heldDiagnoser();
    h = buildHarness({ stub, store: db.store, diagnoser });
    await slash('diagnose sandbox payments', 'U0ALICE', 'C0INCIDENT');
    await upsertIncident(db.store, { groupKey: 'am:private', title: 'PrivateIncident', openedAt: new Date().toISOString(), channelId: 'C0INCIDENT', threadTs: '1.1', flapping: false });
    await recordUndelivered(db.store, { method: 'chat.postMessage', channel: 'C0INCIDENT', excerpt: 'secret excerpt', error: 'channel_not_found', at: new Date().toISOString() });
    const elsewhere = JSON.stringify((await slash('status', 'U0ALICE', 'C0OPS')).blocks);
    for (const hidden of ['payments', 'PrivateIncident', 'secret excerpt']) expect(elsewhere).not.toContain(hidden);
    const there = JSON.stringify((await slash('status', 'U0ALICE', 'C0INCIDENT')).blocks);
    for (const shown of ['diagnose sandbox / payments', 'PrivateIncident', 'secret excerpt']) expect(there).toContain(shown);
    release();
    await h.queue.idle();
  });
});

describe('who may use it', () => {
  it('refuses a user outside the allow-list politely, logs it, and enqueues nothing', async () => {
    const reply = await slash('diagnose', 'U0MALLORY');
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text).toMatch(/^Sorry, I can't help you here/);
    expect(h.queue.enqueued).toHaveLength(0);
    const refusal = h.log.records.find((r) => r.message === 'refused slack command');
    expect(refusal).toMatchObject({ level: 'warn', fields: { userId: 'U0MALLORY', reason: 'user not allowed' } });
  });

  it('refuses an allowed user in a channel outside the allow-list', async () => {
    const reply = await slash('diagnose', 'U0ALICE', 'C0RANDOM');
    expect(reply.text).toMatch(/^Sorry/);
    expect(h.log.records.find((r) => r.message === 'refused slack command')?.fields.reason).toBe('channel not allowed');
  });

  it('refuses an allowed user and channel from another workspace, with a polite word and nothing enqueued', async () => {
    const reply = await slash('diagnose', 'U0ALICE', 'C0OPS', 'T0OTHER');
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text).toMatch(/^Sorry, I only answer people of the workspace I was set up for/);
    expect(h.queue.enqueued).toHaveLength(0);
    expect(h.log.records.find((r) => r.message === 'refused slack command')?.fields).toMatchObject({ reason: 'workspace T0OTHER not allowed', teamId: 'T0OTHER' });
  });

  it('checks the workspace of every click too: another team, or a Slack Connect guest whose home team differs, is refused', async () => {
    const seen: string[] = [];
    h.registry.registerAction({ actionIdPrefix: 'probe:', run: async (inv) => void seen.push(inv.userId) });
    const click = (n: number, team: { id: string }, user: Record<string, string>) => ({
      type: 'block_actions', user, channel: { id: 'C0OPS' }, team, api_app_id: 'A0TEST', token: 't',
      container: { type: 'message', message_ts: `1700000000.00000${n}` }, message: { ts: `1700000000.00000${n}`, text: 'x' },
      response_url: stub.responseUrl(`ws${n}`), trigger_id: '1.2.3',
      actions: [{ type: 'button', action_id: 'probe:x', block_id: 'b', value: 'v', action_ts: `1700000001.00000${n}`, text: { type: 'plain_text', text: 'x' } }],
    });
    await h.handler(actionEvent(click(1, { id: 'T0OTHER' }, { id: 'U0BOB' })));
    await h.handler(actionEvent(click(2, { id: 'T0TEST' }, { id: 'U0BOB', team_id: 'T0GUEST' })));
    await h.handler(actionEvent(click(3, { id: 'T0TEST' }, { id: 'U0BOB', team_id: 'T0TEST' })));
    await h.queue.idle();
    expect(seen).toEqual(['U0BOB']);
    const refusals = stub.responses.filter((r) => r.path.includes('/ws'));
    expect(refusals.map((r) => r.path.split('/').pop()).sort()).toEqual(['ws1', 'ws2']);
    for (const r of refusals) expect(r.body.text).toMatch(/only answer people of the workspace/);
  });

  it('lets members of the allowed user group in (usergroups.users.list)', async () => {
    stub.userGroups.set('S0ONCALL', ['U0CAROL']);
    const reply = await slash('status', 'U0CAROL');
    expect(reply.text).toMatch(/open incidents/);
    expect(stub.callsTo('usergroups.users.list')).toHaveLength(1);
  });

  it('fails closed when the user group cannot be read', async () => {
    stub.failures.set('usergroups.users.list', 'missing_scope');
    const reply = await slash('status', 'U0DAVE');
    expect(reply.text).toMatch(/^Sorry/);
  });
});

describe('extension points for issue 5', () => {
  it('a registered subcommand and button handler run without touching the core', async () => {
    const seen: string[] = [];
    h.registry.registerCommand({
      // (elect-leader itself is now a real subcommand: lib/operations/slack.ts)
      name: 'demo-op',
      usage: 'demo-op <topic> <partition> <broker>',
      summary: 'test',
      run: async (inv) => {
        seen.push(`cmd:${inv.args.join(',')}`);
        return { response_type: 'ephemeral', text: 'planned' };
      },
    });
    h.registry.registerAction({ actionIdPrefix: 'approval:', run: async (inv) => void seen.push(`click:${inv.actionId}:${inv.value}:${inv.userId}`) });
    expect((await slash('demo-op orders 3 2')).text).toBe('planned');
    expect((await slash('help')).text).toContain('demo-op <topic> <partition> <broker>');

    const click = {
      type: 'block_actions',
      user: { id: 'U0BOB' },
      channel: { id: 'C0OPS' },
      team: { id: 'T0TEST' },
      api_app_id: 'A0TEST',
      token: 't',
      container: { type: 'message', message_ts: '1700000000.000001' },
      message: { ts: '1700000000.000001', text: 'plan' },
      response_url: stub.responseUrl('click'),
      trigger_id: '1.2.3',
      actions: [{ type: 'button', action_id: 'approval:approve', block_id: 'b', value: 'plan-42', action_ts: '1700000001.000001', text: { type: 'plain_text', text: 'Approve' } }],
    };
    // Both deliveries' timestamps fixed first: "now - 1" taken after a slow first delivery could be
    // the first one's own second (the same signature then, refused as a replay).
    const sentAt = Math.floor(Date.now() / 1000);
    expect((await h.handler(actionEvent(click, { timestamp: sentAt }))).statusCode).toBe(200);
    // The same click delivered again (a new signature, same action_ts) is deduplicated.
    expect((await h.handler(actionEvent(click, { timestamp: sentAt - 1 }))).statusCode).toBe(200);
    expect(seen).toEqual(['cmd:orders,3,2', 'click:approval:approve:plan-42:U0BOB']);
  });
});

describe('progress edits', () => {
  it('a probe answering after the diagnosis failed does not overwrite the failure', async () => {
    const late: ScriptedDiagnoser = new ScriptedDiagnoser();
    let answerLate: (() => void) | undefined;
    late.diagnose = async (req) => {
      req.onProgress?.({ stage: 'brokers probed', done: 0, total: 3 });
      // The snapshot fails while probes are still out; they answer afterwards (as Promise.all leaves them).
      answerLate = () => req.onProgress?.({ stage: 'brokers probed', done: 3, total: 3, brokerId: 3, commandId: 'c3' });
      throw new Error('could not read cluster metadata from any bootstrap server');
    };
    h = buildHarness({ stub, store: db.store, diagnoser: late });
    await slash('diagnose');
    await h.queue.idle();
    // Only once the failure is posted, however slow the machine: the late answer must not overwrite it.
    expect(answerLate).toBeDefined();
    answerLate!();
    await h.queue.idle();
    await new Promise((r) => setTimeout(r, 100));
    const [parent] = stub.topLevel('C0OPS');
    expect(parent!.text).toMatch(/Diagnosis of sandbox failed: could not read cluster metadata/);
    expect(parent!.history.filter((t) => t.includes('3/3'))).toEqual([]);
  });
});
