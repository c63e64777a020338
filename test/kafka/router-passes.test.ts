// The router's routes for a pass that must finish whatever some brokers do
// (lib/kafka/router/passes.ts): each broker on its own (a failure its entry,
// the broker then down for the pass), and batches spread over the live
// brokers with one more try on the next. Fake connections: no Kafka.
import { describe, expect, it } from 'vitest';
import { Nodes } from '../../lib/kafka/router/nodes.ts';
import { Router } from '../../lib/kafka/router/router.ts';
import type { AdminApi, FanOutApi } from '../../lib/kafka/router/spec.ts';
import type { WireBroker, WireApi } from '../../lib/kafka/wire.ts';

const wire = { ssl: false, clientId: 't', connectionTimeoutMs: 100, requestTimeoutMs: 200 };

/** Nodes over brokers 1..n whose requests `answer` decides (by broker id and request). */
function nodesWith(n: number, answer: (id: number, req: unknown) => Promise<unknown>, pass = true) {
  const nodes = new Nodes([], wire, 1000, 4, null, pass ? { remaining: () => 10_000 } : null);
  nodes.brokers = new Map(Array.from({ length: n }, (_, i) => [i + 1, { host: 'b', port: i + 1 }]));
  nodes.brokerConn = (id) => ({ nodeId: id, connect: () => Promise.resolve() }) as unknown as WireBroker;
  nodes.send = ((c: WireBroker, _spec: unknown, req: unknown) => answer(c.nodeId!, req)) as typeof nodes.send;
  return nodes;
}

const Echo: AdminApi<number, number, string, string> = { name: 'Echo', api: {} as WireApi<number, string>, route: { to: 'broker', brokerId: (id) => id }, build: (id) => id, toResults: (res) => res };
type R = { errorCode: number; error: string | null; item: string; by: number | null };
const Spread: FanOutApi<string, string[], string[], R> = {
  name: 'Spread',
  api: {} as WireApi<string[], string[]>,
  route: { to: 'config-owners' },
  key: (s) => s,
  build: (batch) => batch,
  toResults: (res, _batch, from) => new Map(res.map((item) => [item, { errorCode: 0, error: null, item, by: from.brokerId }])),
  failed: (item, errorCode, error) => ({ errorCode, error, item, by: null }),
  missing: (item) => ({ errorCode: -1, error: 'missing', item, by: null }),
};

describe('Router.eachBroker', () => {
  it('gives each broker its answer or its error; a failed broker is down for the rest of the pass', async () => {
    const nodes = nodesWith(3, async (id) => {
      if (id === 2) throw new Error('connection refused');
      return `hello from ${id}`;
    });
    const answers = await new Router(nodes).eachBroker(Echo, [1, 2, 3]);
    expect(answers.get(1)).toEqual({ ok: true, out: 'hello from 1' });
    expect(answers.get(2)).toMatchObject({ ok: false, error: new Error('connection refused') });
    expect(answers.get(3)).toEqual({ ok: true, out: 'hello from 3' });
    expect([...nodes.down]).toEqual([2]);
    expect(nodes.brokerOrder()).toEqual([1, 3]);
  });

  it('a request that hangs fails at its bound, named after its broker; an admin only asks it last', async () => {
    const nodes = nodesWith(2, (id) => (id === 1 ? new Promise(() => {}) : Promise.resolve('ok')), false);
    const answers = await new Router(nodes).eachBroker(Echo, [1, 2]);
    expect(String((answers.get(1) as { error: unknown }).error)).toContain('Echo on broker 1: no answer within 200 ms');
    expect(nodes.down.size).toBe(0);
    expect(nodes.brokerOrder()).toEqual([2, 1]);
  });
});

describe('Router.spread', () => {
  it('spreads batches round robin and retries a failed batch once on the next broker', async () => {
    const asked: string[] = [];
    const nodes = nodesWith(3, async (id, req) => {
      asked.push(`${id}:${(req as string[]).join(',')}`);
      if (id === 2) throw new Error('broker 2 hung up');
      return req;
    });
    const batches = await new Router(nodes).spread(Spread, ['a', 'b', 'c', 'd', 'e'], 2);
    const by = new Map(batches.flatMap((b) => [...(b.results?.values() ?? [])].map((r) => [r.item, r.by])));
    expect(Object.fromEntries(by)).toEqual({ a: 1, b: 1, c: 3, d: 3, e: 3 });
    expect(asked.sort()).toEqual(['1:a,b', '2:c,d', '3:c,d', '3:e']);
  });

  it('a batch no broker answered is returned with the last error', async () => {
    const nodes = nodesWith(2, async (id) => {
      throw new Error(`broker ${id} down`);
    });
    const [batch] = await new Router(nodes).spread(Spread, ['a'], 10);
    expect(batch).toMatchObject({ batch: ['a'], error: new Error('broker 2 down') });
  });
});
