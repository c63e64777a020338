// The router's routes for a pass that must finish whatever some brokers do
// (lib/kafka/router/passes.ts): each broker on its own (a failure its entry,
// the broker then down for the pass), and batches spread over the live
// brokers with one more try on the next, batches to the broker Metadata names
// (toNodes), and a first broker with a second only if it failed
// (firstThenSecond). Fake connections: no Kafka.
import { describe, expect, it } from 'vitest';
import { Nodes } from '../../lib/kafka/router/nodes.ts';
import { Router } from '../../lib/kafka/router/router.ts';
import { firstThenSecond, toNodes } from '../../lib/kafka/router/passes.ts';
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

describe('toNodes', () => {
  it('sends each batch to the broker it names, the concurrency at a time; down or unknown brokers get nothing sent, a failure its entry, a hang its bound', async () => {
    const sent: string[] = [];
    let inFlight = 0;
    let most = 0;
    const conns = new Map([1, 2, 3, 4].map((id) => [id, id]));
    const seen: string[] = [];
    await toNodes({ conns, unreachable: new Set([3]), concurrency: 2, budget: (ms) => Math.min(ms, 50), requestTimeoutMs: 1000 }, [1, 2, 3, 4, 5, 1].map((brokerId, i) => ({ brokerId, i })), {
      label: ({ brokerId, i }) => `Ask ${i} on broker ${brokerId}`,
      ask: async (conn, { i }) => {
        sent.push(`${conn}:${i}`);
        most = Math.max(most, ++inFlight);
        try {
          if (conn === 4) return await new Promise<string>(() => {});
          if (conn === 2) throw new Error('refused');
          return `ok ${i}`;
        } finally {
          inFlight--;
        }
      },
      answered: ({ i }, out) => void seen.push(`answered ${i}: ${out}`),
      unreachable: ({ i }) => void seen.push(`unreachable ${i}`),
      failed: ({ i }, err) => void seen.push(`failed ${i}: ${(err as Error).message}`),
    });
    expect(sent.sort()).toEqual(['1:0', '1:5', '2:1', '4:3']);
    expect(most).toBeLessThanOrEqual(2);
    expect(seen.sort()).toEqual(['answered 0: ok 0', 'answered 5: ok 5', 'failed 1: refused', 'failed 3: Ask 3 on broker 4: no answer within 50 ms', 'unreachable 2', 'unreachable 4']);
  });
});

describe('firstThenSecond', () => {
  it('takes the first answer; asks a second broker only when the first failed, never a third', async () => {
    const asked: number[] = [];
    const ask = (fail: number[]) => async (id: number) => (asked.push(id), fail.includes(id) ? `failed ${id}` : `answer ${id}`);
    const failure = (r: string) => (r.startsWith('failed') ? r : null);
    expect(await firstThenSecond([1, 2, 3], ask([]), failure)).toEqual({ answer: 'answer 1' });
    expect(await firstThenSecond([1, 2, 3], ask([1]), failure)).toEqual({ answer: 'answer 2' });
    expect(await firstThenSecond([1, 2, 3], ask([1, 2]), failure)).toEqual({ failures: ['failed 1', 'failed 2'] });
    expect(asked).toEqual([1, 1, 2, 1, 2]);
    expect(await firstThenSecond([], ask([]), failure)).toEqual({ failures: [] });
  });
});
