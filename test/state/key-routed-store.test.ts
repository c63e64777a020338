// serve's bot state beside an in-process dynalite: keys with the given
// prefixes (replay marks, command windows) in one store, everything else and
// every list in the other; and the in-memory store's conditional writes have
// one winner however many callers race.
import { describe, expect, it } from 'vitest';
import { KeyRoutedStateStore } from '../../lib/state/key-routed-store.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';

describe('KeyRoutedStateStore', () => {
  it('writes and reads routed keys in the routed store only, the rest and the lists in the other', async () => {
    const rest = new MemoryStateStore();
    const routed = new MemoryStateStore();
    const store = new KeyRoutedStateStore(rest, routed, ['slack-sig:', 'cmd-budget:']);
    expect(await store.create('slack-sig:v0=abc', { ts: 1 }, 600)).toBe(true);
    expect(await store.create('slack-sig:v0=abc', { ts: 1 }, 600)).toBe(false);
    expect(await store.count('cmd-budget:user:U1:0', 1, 120, 1)).toBe(true);
    expect(await store.count('cmd-budget:user:U1:0', 1, 120, 1)).toBe(false);
    await store.put('activity:j1', { title: 'diagnose' }, 600, 'running:C1');
    expect(await routed.get('slack-sig:v0=abc')).not.toBeNull();
    expect(await rest.get('slack-sig:v0=abc')).toBeNull();
    expect(await rest.get('activity:j1')).not.toBeNull();
    expect((await store.list('running:C1', 10)).map((i) => i.key)).toEqual(['activity:j1']);
    // A counter's room is the routed store's: the other never saw it.
    expect(await rest.count('cmd-budget:user:U1:0', 1, 120, 1)).toBe(true);
    await store.remove('activity:j1');
    expect(await store.get('activity:j1')).toBeNull();
  });
});

describe('MemoryStateStore under racing callers', () => {
  it('create: exactly one of many concurrent callers wins', async () => {
    const store = new MemoryStateStore();
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create('k', { i }, 60)));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('replace: exactly one of many concurrent callers with the same version wins', async () => {
    const store = new MemoryStateStore();
    await store.create('k', 0, 60);
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => store.replace('k', 1, i, 60)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await store.get('k'))?.version).toBe(2);
  });
});
