// The routes of a pass that must finish whatever some brokers do (a snapshot):
// every broker asked on its own, a failure its entry (eachBroker); items
// batched and spread over the live brokers, a failed batch tried once more on
// the next one (spread). Each connect and request has a bound of its own,
// capped by what is left of the pass (Nodes.bound), and named after its broker.

import { chunk, mapLimit, withTimeout } from '../limits.ts';
import type { Nodes } from './nodes.ts';
import type { AdminApi, BuildContext, FanOutApi } from './spec.ts';

/** One broker's answer, or why there is none. */
export type Settled<Out> = { ok: true; out: Out } | { ok: false; error: unknown };

const ctxOf = (nodes: Nodes): BuildContext => ({ requestTimeoutMs: nodes.wire.requestTimeoutMs });

/**
 * `spec` (one request, its input the broker id) on each of these brokers,
 * the router's concurrency at a time. A broker that fails is marked failed
 * (Nodes.markFailed) and gets its error, never a throw.
 */
export async function eachBroker<Req, Res, Out>(nodes: Nodes, spec: AdminApi<number, Req, Res, Out>, ids: readonly number[]): Promise<Map<number, Settled<Out>>> {
  const out = new Map<number, Settled<Out>>();
  await nodes.each(ids, async (id) => {
    try {
      const c = nodes.brokerConn(id);
      if (!c) throw new Error(`broker ${id} is not in the cluster metadata`);
      // Connected first, under a bound of its own: a broker that does not accept is told apart from one that does not answer.
      await withTimeout(c.connect(), nodes.bound(nodes.wire.connectionTimeoutMs * 2), `connect to broker ${id}`);
      const res = await withTimeout(nodes.send(c, spec, spec.build(id, ctxOf(nodes))), nodes.bound(nodes.wire.requestTimeoutMs), `${spec.name} on broker ${id}`);
      out.set(id, { ok: true, out: spec.toResults(res, id, { brokerId: id }) });
      nodes.suspects.delete(id);
    } catch (error) {
      nodes.markFailed(id);
      out.set(id, { ok: false, error });
    }
  });
  return out;
}

/** A batch of a spread call: its results as the answer lists them, or the last error when no broker answered. */
export type SpreadBatch<Item, Result> = { batch: Item[]; results: Map<string, Result>; error?: undefined } | { batch: Item[]; results?: undefined; error: unknown };

/**
 * Items any broker can answer for (topic configs), `batchSize` per request,
 * batch i to the i-th live broker (round robin), then once more to the next
 * one if it failed. Batches in the order they finished.
 */
export async function spread<Item, Req, Res, Result extends { errorCode: number; error: string | null }>(
  nodes: Nodes,
  spec: FanOutApi<Item, Req, Res, Result>,
  items: readonly Item[],
  batchSize: number,
): Promise<SpreadBatch<Item, Result>[]> {
  const brokers = nodes.brokerOrder();
  const done: SpreadBatch<Item, Result>[] = [];
  const batches = chunk(items, batchSize).map((batch, i) => ({ batch, i }));
  await nodes.each(batches, async ({ batch, i }) => {
    let lastError: unknown = new Error('no broker to ask');
    for (let attempt = 0; attempt < Math.min(2, brokers.length); attempt++) {
      const id = brokers[(i + attempt) % brokers.length]!;
      try {
        const res = await withTimeout(nodes.send(nodes.brokerConn(id)!, spec, spec.build(batch, ctxOf(nodes))), nodes.bound(nodes.wire.requestTimeoutMs), `${spec.name} on broker ${id}`);
        return void done.push({ batch, results: spec.toResults(res, batch, { brokerId: id }) });
      } catch (err) {
        lastError = err;
      }
    }
    done.push({ batch, error: lastError });
  });
  return done;
}

/** What the to-nodes route needs of a pass: its connections by broker id, who is down, its bounds. */
export interface NodeTargets<C> {
  conns: ReadonlyMap<number, C>;
  unreachable: ReadonlySet<number>;
  concurrency: number;
  /** A call's timeout: its own, or what is left of the pass if less. */
  budget(perCall: number): number;
  requestTimeoutMs: number;
}

/** One request per batch to the broker it names; what each answer or failure means is the caller's. */
export interface ToNodesCall<B extends { brokerId: number }, C, Out> {
  /** The request as timeouts name it ("OffsetFetch ... on broker 2"). */
  label(batch: B): string;
  ask(conn: C, batch: B): Promise<Out>;
  answered(batch: B, out: Out): void;
  /** Its broker is not in Metadata or down in this pass: nothing sent. */
  unreachable(batch: B): void;
  failed(batch: B, err: unknown): void;
}

/**
 * Batches already keyed by broker id (a group's coordinator from the
 * `__consumer_offsets` leaders, a partition's leader from Metadata: no
 * FindCoordinator per group), the pass's concurrency at a time, each request
 * under one request timeout capped by the pass. Whether the broker is down is
 * checked when its batch is sent: a failure earlier in the same call counts.
 */
export async function toNodes<B extends { brokerId: number }, C, Out>(targets: NodeTargets<C>, batches: readonly B[], call: ToNodesCall<B, C, Out>): Promise<void> {
  await mapLimit(batches, targets.concurrency, async (batch) => {
    const conn = targets.conns.get(batch.brokerId);
    if (!conn || targets.unreachable.has(batch.brokerId)) return call.unreachable(batch);
    let out: Out;
    try {
      out = await withTimeout(call.ask(conn, batch), targets.budget(targets.requestTimeoutMs), call.label(batch));
    } catch (err) {
      return call.failed(batch, err);
    }
    call.answered(batch, out);
  });
}

/**
 * A question any broker answers, asked of these in order (the pass's live
 * brokers): a second only when the first failed, never a third (the `any`
 * route's rule, bounded for a pass). `failure` says why an answer is a
 * failure (null: it is the answer, an unsupported version included).
 */
export async function firstThenSecond<S, R>(sources: readonly S[], ask: (source: S) => Promise<R>, failure: (answer: R) => string | null): Promise<{ answer: R } | { failures: string[] }> {
  const failures: string[] = [];
  for (const source of sources.slice(0, 2)) {
    const answer = await ask(source);
    const why = failure(answer);
    if (why === null) return { answer };
    failures.push(why);
  }
  return { failures };
}
