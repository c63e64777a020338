// Routing and retries, following Java's AdminClient:
//   controller → the controller named by Metadata. ZooKeeper clusters need the
//     real controller (others answer NOT_CONTROLLER); KRaft brokers name a
//     random live broker as "controller" and every broker forwards to the
//     active KRaft controller. NOT_CONTROLLER or an unreachable controller →
//     fresh Metadata, one retry.
//   config owners → a broker config resource to that broker: only it accepts
//     it. If it cannot be reached we still ask another broker, and report its
//     answer. Topic resources and the cluster default → any broker.
//   any → Metadata, FindCoordinator. broker → DescribeLogDirs, ListGroups.
//   leaders → ListOffsets. coordinator(s) → group calls (FindCoordinator first).
//   each broker, tolerating failures (eachBroker) → the snapshot's ListGroups
//     pass; bounded fan-out over the live brokers (spread) → its topic configs;
//     batches keyed by the broker Metadata names (toNodes: coordinators from the
//     __consumer_offsets leaders, partition leaders) → its group describes,
//     OffsetFetch, ListOffsets; a first broker, a second only if it failed
//     (firstThenSecond) → its DescribeCluster and DescribeTopicPartitions.
// Every call runs under the admin's timeout (longer for requests the broker
// holds), capped in a snapshot pass by what is left of it (Nodes.bound); a dead
// socket is reconnected once (lib/kafka/wire.ts).

import { withTimeout } from '../limits.ts';
import { errorMessage } from '../../runtime/errors.ts';
import { describeError, KafkaAdminError, KafkaErrorCode, wholeCallError } from '../errors.ts';
import { tpKey, type TopicPartition } from '../partitions.ts';
import { UnsupportedVersionError, type WireBroker } from '../wire.ts';
import type { AdminApi, Answerer, BuildContext, CoordinatorKey, CoordinatorType, FanOutApi, LentRouting } from './spec.ts';
import { assertConfigResources, configOwner } from './config-owners.ts';
import { FindCoordinator } from '../api/find-coordinator/call.ts';
import type { Nodes } from './nodes.ts';
import { resultsInRequestOrder, transportError } from './results.ts';
import { eachBroker, spread, type Settled, type SpreadBatch } from './passes.ts';
import type { ConfigResourceType } from '../admin/types.ts';

const { NONE, UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, COORDINATOR_NOT_AVAILABLE } = KafkaErrorCode;

export class Router {
  constructor(private readonly nodes: Nodes) {}

  private get ctx(): BuildContext {
    return { requestTimeoutMs: this.nodes.wire.requestTimeoutMs };
  }

  /** Under the admin's timeout, or `budgetMs`. */
  call<T>(what: string, fn: () => Promise<T>, budgetMs = this.nodes.timeoutMs): Promise<T> {
    if (this.nodes.closed) return Promise.reject(new KafkaAdminError('the admin client is closed'));
    return withTimeout(fn(), this.nodes.bound(budgetMs), what);
  }

  /** The routing an API that spreads its own items borrows (spec.ts LentRouting). */
  lend(): LentRouting {
    const nodes = this.nodes;
    return {
      // Always fresh, never the leaders given at open: any replica answers DescribeProducers
      // (with its own producer state), so a leader that moved would not be noticed.
      leaders: async (topics) => {
        const md = await nodes.freshMetadata(topics);
        const out = new Map<string, number>();
        for (const t of md.topicMetadata) for (const p of t.partitionMetadata) out.set(tpKey(t.topic, p.partitionId), nodes.brokers.has(p.leader) ? p.leader : -1);
        return out;
      },
      brokerConn: (id) => nodes.brokerConn(id),
      brokerIds: async () => (await nodes.freshMetadata([]), [...nodes.brokers.keys()].sort((a, b) => a - b)),
      anyBroker: async (what, send) => (await nodes.anyBroker(what, (c) => send(c))).result,
      connTo: (host, port, nodeId) => nodes.conn({ host, port }, nodeId),
      concurrency: nodes.concurrency,
    };
  }

  /** `spec` on each of these brokers, a failure its entry (passes.ts). */
  eachBroker<Req, Res, Out>(spec: AdminApi<number, Req, Res, Out>, ids: readonly number[]): Promise<Map<number, Settled<Out>>> {
    return eachBroker(this.nodes, spec, ids);
  }

  /** Items any broker answers for, batched over the live brokers, a failed batch once more elsewhere (passes.ts). */
  spread<Item, Req, Res, Result extends { errorCode: number; error: string | null }>(spec: FanOutApi<Item, Req, Res, Result>, items: readonly Item[], batchSize: number): Promise<SpreadBatch<Item, Result>[]> {
    return spread(this.nodes, spec, items, batchSize);
  }

  /** One call of a one-request API, routed by its route. */
  single<In, Req, Res, Out>(spec: AdminApi<In, Req, Res, Out>, input: In): Promise<Out> {
    const serverTimeoutMs = spec.serverTimeoutMs?.(input);
    // A request the broker may hold for serverTimeoutMs: the client waits that plus one request timeout.
    const requestTimeoutMs = serverTimeoutMs === undefined ? undefined : serverTimeoutMs + this.nodes.wire.requestTimeoutMs;
    const budgetMs = requestTimeoutMs === undefined ? this.nodes.timeoutMs : Math.max(this.nodes.timeoutMs, requestTimeoutMs);
    const label = spec.label?.(input) ?? spec.name;
    return this.call(
      label,
      async () => {
        const req = spec.build(input, this.ctx);
        const send = (c: WireBroker) => this.nodes.send(c, spec, req, requestTimeoutMs ? { requestTimeoutMs } : {});
        const route = spec.route;
        let answered: { res: Res; from: Answerer };
        switch (route.to) {
          case 'any': {
            const { result, brokerId } = await this.nodes.anyBroker(label, send);
            answered = { res: result, from: { brokerId } };
            break;
          }
          case 'controller':
            answered = await this.onController(label, send, route.notController);
            break;
          case 'coordinator':
            answered = await this.onCoordinator(route.coordinator(input), send, route.moved);
            break;
          case 'broker':
            answered = await this.onBroker(route.brokerId(input), send);
            break;
        }
        return spec.toResults(answered.res, input, answered.from);
      },
      budgetMs,
    );
  }

  /** One call of an API whose items go to several brokers; results in request order. */
  fanOut<Item, Req, Res, Result extends { errorCode: number; error: string | null }>(spec: FanOutApi<Item, Req, Res, Result>, items: Item[]): Promise<Result[]> {
    return this.call(spec.name, async () => {
      const results = new Map<string, Result>();
      const route = spec.route;
      if (route.to === 'leaders') await this.toLeaders(spec as unknown as FanOutApi<TopicPartition, Req, Res, Result>, items as unknown as TopicPartition[], route.retryOn, results);
      else if (route.to === 'coordinators') await this.toCoordinators(spec as unknown as FanOutApi<string, Req, Res, Result>, items as unknown as string[], route.keyType, route.moved, results);
      else await this.toConfigOwners(spec as unknown as FanOutApi<{ type: ConfigResourceType; name: string }, Req, Res, Result>, items as unknown as { type: ConfigResourceType; name: string }[], results);
      return resultsInRequestOrder(items, spec.key, results, spec.missing);
    });
  }

  /** Sends a batch and records its results (or its failure, for each item). */
  private async batch<Item, Req, Res, Result extends { errorCode: number; error: string | null }>(
    spec: FanOutApi<Item, Req, Res, Result>,
    c: WireBroker,
    batch: Item[],
    from: Answerer,
    results: Map<string, Result>,
  ): Promise<void> {
    const answered = spec.toResults(await this.nodes.send(c, spec, spec.build(batch, this.ctx)), batch, from);
    for (const it of batch) results.set(spec.key(it), answered.get(spec.key(it)) ?? spec.missing(it));
  }

  private async onBroker<Res>(id: number, send: (c: WireBroker) => Promise<Res>): Promise<{ res: Res; from: Answerer }> {
    const c = this.nodes.brokerConn(id);
    if (!c) throw new KafkaAdminError(`broker ${id} is not in the cluster metadata (not registered, or fenced)`);
    try {
      const res = await send(c);
      this.nodes.suspects.delete(id);
      return { res, from: { brokerId: id } };
    } catch (err) {
      this.nodes.suspects.add(id);
      throw err;
    }
  }

  /**
   * To Metadata's controller id, then once more after fresh Metadata if it
   * answered NOT_CONTROLLER (to the controller the new Metadata names) or could
   * not be reached (to another broker if Metadata still names that one: in
   * KRaft any broker forwards).
   */
  private async onController<Res>(what: string, send: (c: WireBroker) => Promise<Res>, notController: (res: Res) => boolean): Promise<{ res: Res; from: Answerer }> {
    const nodes = this.nodes;
    // A pass (a snapshot) routes by the Metadata it just read.
    if (!nodes.pass) await nodes.freshMetadata([]);
    const unreachable = new Set<number>(nodes.down);
    for (let attempt = 0; ; attempt++) {
      const target =
        nodes.controllerId >= 0 && nodes.brokers.has(nodes.controllerId) && !unreachable.has(nodes.controllerId)
          ? nodes.controllerId
          : nodes.brokerOrder().find((id) => !unreachable.has(id));
      if (target === undefined) throw new KafkaAdminError(`${what}: no broker left to ask for the controller`);
      try {
        const res = await send(nodes.brokerConn(target)!);
        if (attempt === 0 && notController(res)) {
          await nodes.freshMetadata([]);
          continue;
        }
        return { res, from: { brokerId: target } };
      } catch (err) {
        if (attempt > 0 || err instanceof UnsupportedVersionError) throw err;
        unreachable.add(target);
        nodes.suspects.add(target);
        await nodes.freshMetadata([]);
      }
    }
  }

  /** The coordinator, from FindCoordinator on any broker (conn null when it has none). */
  private async findCoordinator(key: CoordinatorKey): Promise<{ errorCode: number; error: string | null; nodeId: number; conn: WireBroker | null }> {
    const req = FindCoordinator.build(key, this.ctx);
    const { result, brokerId } = await this.nodes.anyBroker(FindCoordinator.label!(key), (c) => this.nodes.send(c, FindCoordinator, req));
    const coord = FindCoordinator.toResults(result, key, { brokerId });
    return { ...coord, conn: coord.address ? this.nodes.conn(coord.address, coord.nodeId) : null };
  }

  /** Once more after a new FindCoordinator when the answer says it moved or it could not be reached. */
  private async onCoordinator<Res>(key: CoordinatorKey, send: (c: WireBroker) => Promise<Res>, moved: (res: Res) => boolean): Promise<{ res: Res; from: Answerer }> {
    for (let attempt = 0; ; attempt++) {
      const coord = await this.findCoordinator(key);
      if (!coord.conn) throw wholeCallError(`FindCoordinator for ${key.type === 'group' ? 'group' : 'transactional id'} ${key.key}`, coord.errorCode, coord.error?.replace(/^[A-Z_]+: /, ''));
      try {
        const res = await send(coord.conn);
        if (attempt === 0 && moved(res)) continue;
        return { res, from: { brokerId: coord.nodeId } };
      } catch (err) {
        if (attempt > 0 || err instanceof UnsupportedVersionError) throw err;
      }
    }
  }

  /** Each partition to its leader; a second round, with fresh Metadata, for results in `retryOn`. */
  private async toLeaders<Req, Res, Result extends { errorCode: number; error: string | null }>(
    spec: FanOutApi<TopicPartition, Req, Res, Result>,
    items: TopicPartition[],
    retryOn: ReadonlySet<number>,
    results: Map<string, Result>,
  ): Promise<void> {
    const nodes = this.nodes;
    const none = { brokerId: null };
    let pending = items;
    for (let round = 0; round < 2 && pending.length > 0; round++) {
      // The first round may route by the leaders given at open; a retry always asks Metadata.
      let leaders = round === 0 ? nodes.givenLeaders(pending) : null;
      let topicErrors = new Map<string, number>();
      if (!leaders) {
        const md = await nodes.freshMetadata([...new Set(pending.map((p) => p.topic))]);
        leaders = new Map<string, number>();
        for (const t of md.topicMetadata) for (const p of t.partitionMetadata) leaders.set(tpKey(t.topic, p.partitionId), p.leader);
        topicErrors = new Map(md.topicMetadata.map((t) => [t.topic, t.topicErrorCode]));
      }
      const byLeader = new Map<number, TopicPartition[]>();
      for (const tp of pending) {
        const leader = leaders.get(tpKey(tp.topic, tp.partition));
        const code = leader === undefined ? topicErrors.get(tp.topic) || UNKNOWN_TOPIC_OR_PARTITION : leader < 0 || !nodes.brokers.has(leader) ? LEADER_NOT_AVAILABLE : NONE;
        if (code !== NONE) results.set(spec.key(tp), spec.failed(tp, code, describeError(code), none));
        else {
          // Pushed, not spread: a fleet's 200,000 partitions over 50 leaders.
          const list = byLeader.get(leader!);
          if (list) list.push(tp);
          else byLeader.set(leader!, [tp]);
        }
      }
      await nodes.each([...byLeader], async ([leader, batch]) => {
        try {
          await this.batch(spec, nodes.brokerConn(leader)!, batch, { brokerId: leader }, results);
        } catch (err) {
          const t = transportError(err, `leader ${leader}`);
          for (const tp of batch) results.set(spec.key(tp), spec.failed(tp, t.errorCode, t.error, { brokerId: leader }));
        }
      });
      if (round === 0) pending = pending.filter((tp) => retryOn.has(results.get(spec.key(tp))?.errorCode ?? NONE));
    }
  }

  /** Each key to its coordinator (one FindCoordinator per key); coordinators that moved or did not answer: found again, once. */
  private async toCoordinators<Req, Res, Result extends { errorCode: number; error: string | null }>(
    spec: FanOutApi<string, Req, Res, Result>,
    items: string[],
    keyType: CoordinatorType,
    moved: (result: Result) => boolean,
    results: Map<string, Result>,
  ): Promise<void> {
    const nodes = this.nodes;
    const none = { brokerId: null };
    const round = async (pending: string[], final: boolean) => {
      const byCoordinator = new Map<number, { conn: WireBroker; ids: string[] }>();
      await nodes.each(pending, async (groupId) => {
        try {
          const coord = await this.findCoordinator({ key: groupId, type: keyType });
          if (!coord.conn) {
            // No coordinator yet (its offsets partition has no leader, or is being loaded elsewhere): ask once more.
            if (!final && coord.errorCode === COORDINATOR_NOT_AVAILABLE) return;
            return void results.set(spec.key(groupId), spec.failed(groupId, coord.errorCode, coord.error, none));
          }
          const entry = byCoordinator.get(coord.nodeId) ?? { conn: coord.conn, ids: [] };
          entry.ids.push(groupId);
          byCoordinator.set(coord.nodeId, entry);
        } catch (err) {
          if (!final) return;
          const t = transportError(err, 'FindCoordinator');
          results.set(spec.key(groupId), spec.failed(groupId, t.errorCode, t.error, none));
        }
      });
      await nodes.each([...byCoordinator], async ([nodeId, { conn, ids }]) => {
        try {
          const answered = spec.toResults(await nodes.send(conn, spec, spec.build(ids, this.ctx)), ids, { brokerId: nodeId });
          for (const [k, r] of answered) if (final || !moved(r)) results.set(k, r);
        } catch (err) {
          if (!final) return;
          const t = transportError(err, `coordinator ${nodeId}`);
          for (const id of ids) results.set(spec.key(id), spec.failed(id, t.errorCode, t.error, { brokerId: nodeId }));
        }
      });
    };
    const ids = [...new Set(items)];
    await round(ids, false);
    const again = ids.filter((id) => !results.has(spec.key(id)));
    if (again.length > 0) await round(again, true);
  }

  /** Per-owner batches (config-owners.ts); an owner that cannot be reached: another broker, whose answer says why. */
  private async toConfigOwners<R extends { type: ConfigResourceType; name: string }, Req, Res, Result extends { errorCode: number; error: string | null }>(
    spec: FanOutApi<R, Req, Res, Result>,
    resources: R[],
    results: Map<string, Result>,
  ): Promise<void> {
    const nodes = this.nodes;
    assertConfigResources(spec.name, resources);
    await nodes.knowBrokers(resources.map(configOwner).filter((o): o is number => o !== 'any'));
    const batches = new Map<number | 'any', R[]>();
    for (const r of resources) {
      const dest = configOwner(r);
      const list = batches.get(dest);
      if (list) list.push(r);
      else batches.set(dest, [r]);
    }
    await nodes.each([...batches], async ([dest, batch]) => {
      let firstFailure: string | null = null;
      if (dest !== 'any') {
        const c = nodes.brokerConn(dest);
        if (!c) firstFailure = `broker ${dest} is not in the cluster metadata`;
        else {
          try {
            await this.batch(spec, c, batch, { brokerId: dest }, results);
            nodes.suspects.delete(dest);
            return;
          } catch (err) {
            if (err instanceof UnsupportedVersionError) throw err;
            nodes.suspects.add(dest);
            firstFailure = `broker ${dest}: ${errorMessage(err)}`;
          }
        }
      }
      try {
        const order = nodes.brokerOrder().filter((id) => id !== dest);
        const { result, brokerId } = await nodes.anyBroker(spec.name, (c) => nodes.send(c, spec, spec.build(batch, this.ctx)), order);
        const answered = spec.toResults(result, batch, { brokerId });
        for (const r of batch) {
          const a = answered.get(spec.key(r));
          // Say why another broker answered for this one.
          results.set(spec.key(r), !a ? spec.missing(r) : firstFailure && a.errorCode && a.error ? { ...a, error: `${a.error} (asked another broker: ${firstFailure})` } : a);
        }
      } catch (err) {
        const t = transportError(err, firstFailure ?? spec.name);
        for (const r of batch) results.set(spec.key(r), spec.failed(r, t.errorCode, t.error, { brokerId: null }));
      }
    });
  }
}
