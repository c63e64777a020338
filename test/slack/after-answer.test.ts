// Work an answer need not wait for: a command refused by its budget gives the
// slots it took back after the answer where the process outlives it (serve's
// BackgroundWork), before it where it does not (a Lambda: no AfterAnswer).
// Either way the slots come back: the budget is what it was.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config/schema.ts';
import { BackgroundWork, type AfterAnswer } from '../../lib/runtime/after-answer.ts';
import { admitCommand } from '../../lib/slack/command-budget.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { recordingLog } from '../helpers/recording-log.ts';

const config = parseConfig(
  {
    clusters: [{ name: 'sandbox', bootstrap: ['127.0.0.1:9092'] }],
    slack: { allowedTeams: ['T0TEST'], allowEveryone: true, incidentChannel: 'C0INC' },
    commandLimits: { perUser: { requests: 5 }, perChannel: { requests: 5 }, perCluster: { requests: 1 } },
  },
  'test',
);
const NOW = 1_700_000_000_000;

/** A user's or channel's free slots (of 5), found by taking them all and giving them back. */
async function slotsFree(store: MemoryStateStore, scope: 'user' | 'channel', id: string): Promise<number> {
  let free = 0;
  const key = `cmd-budget:${scope}:${id}:${Math.floor(NOW / 60_000) * 60_000}`;
  while (await store.count(key, 1, 120, 5)) free++;
  await store.count(key, -free, 120);
  return free;
}

describe('command budget: give-backs of a refusal', () => {
  it('serve: the refusal answers first; the give-backs run once the gate opens, and every slot comes back', async () => {
    const store = new MemoryStateStore();
    const log = recordingLog();
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const background = new BackgroundWork(log, () => gate);
    const deps = { store, config, log, afterAnswer: background.after };
    expect(await admitCommand(deps, { userId: 'U1', channelId: 'C1', cluster: 'sandbox' }, NOW)).toEqual({ ok: true });
    const refused = await admitCommand(deps, { userId: 'U2', channelId: 'C1', cluster: 'sandbox' }, NOW);
    expect(refused).toMatchObject({ ok: false, scope: 'cluster' });
    // Answered, the give-backs not done yet: U2 still holds one of its 5 slots.
    expect(await slotsFree(store, 'user', 'U2')).toBe(4);
    open();
    await background.idle();
    expect(await slotsFree(store, 'user', 'U2')).toBe(5);
    // C1: U1's admitted command holds one; U2's came back.
    expect(await slotsFree(store, 'channel', 'C1')).toBe(4);
  });

  it('a Lambda (no AfterAnswer): the slots are back before the refusal is returned', async () => {
    const store = new MemoryStateStore();
    const deps = { store, config, log: recordingLog() };
    await admitCommand(deps, { userId: 'U1', channelId: 'C1', cluster: 'sandbox' }, NOW);
    expect(await admitCommand(deps, { userId: 'U2', channelId: 'C1', cluster: 'sandbox' }, NOW)).toMatchObject({ ok: false, scope: 'cluster' });
    expect(await slotsFree(store, 'user', 'U2')).toBe(5);
    expect(await slotsFree(store, 'channel', 'C1')).toBe(4);
  });

  it('the give-backs are handed over, not run, before the answer', async () => {
    const handed: string[] = [];
    const after: AfterAnswer = (what) => void handed.push(what);
    const store = new MemoryStateStore();
    const deps = { store, config, log: recordingLog(), afterAnswer: after };
    await admitCommand(deps, { userId: 'U1', channelId: 'C1', cluster: 'sandbox' }, NOW);
    await admitCommand(deps, { userId: 'U2', channelId: 'C1', cluster: 'sandbox' }, NOW);
    expect(handed).toEqual(['giving command slots back']);
    // Not run: U2 still holds its slot (4 of 5 free).
    expect(await slotsFree(store, 'user', 'U2')).toBe(4);
  });
});

describe('BackgroundWork', () => {
  it('a failure is logged, not thrown; a failing gate still lets the work run; idle() waits for all of it', async () => {
    const log = recordingLog();
    const background = new BackgroundWork(log, () => Promise.reject(new Error('gate broke')));
    const done: string[] = [];
    background.after('first', async () => void done.push('first'));
    background.after('second', async () => {
      throw new Error('store down');
    });
    await background.idle();
    expect(done).toEqual(['first']);
    expect(log.records).toEqual([expect.objectContaining({ level: 'warn', message: 'second failed', fields: { error: 'store down' } })]);
  });
});
