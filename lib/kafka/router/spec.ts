// The shape of one admin API (lib/kafka/api/<name>/call.ts): where its requests go (route),
// what a request carries (build), and what its answer means (toResults).
// The router (router.ts) owns the sending, the retries and the timeouts.

import type { WireApi } from '../protocol/kafkajs.ts';
import type { WireBroker } from '../wire.ts';

/** Kafka's CoordinatorType: the coordinator routes (a group's or a transactional id's). */
export const COORDINATOR_TYPE = { group: 0, transaction: 1 } as const;
export type CoordinatorType = keyof typeof COORDINATOR_TYPE;

export interface CoordinatorKey {
  key: string;
  type: CoordinatorType;
}

export interface BuildContext {
  /** The connection's request timeout, for APIs whose request carries a timeout of its own. */
  requestTimeoutMs: number;
}

/** Who answered: the broker id, or null for a bootstrap address. */
export interface Answerer {
  brokerId: number | null;
}

/** Where the one request of a call goes. */
export type Route<In, Res> =
  /** Any broker: the ones that failed lately last, then the bootstrap servers. */
  | { to: 'any' }
  /** The controller Metadata names; once more after fresh Metadata if it answered NOT_CONTROLLER or could not be reached. */
  | { to: 'controller'; notController(res: Res): boolean }
  /** The coordinator of a group or transactional id; once more after a new FindCoordinator if it moved or could not be reached. */
  | { to: 'coordinator'; coordinator(input: In): CoordinatorKey; moved(res: Res): boolean }
  /** That broker, and only that one. */
  | { to: 'broker'; brokerId(input: In): number };

/** An API with one request per call. */
export interface AdminApi<In, Req, Res, Out> {
  name: string;
  api: WireApi<Req, Res>;
  route: Route<In, Res>;
  build(input: In, ctx: BuildContext): Req;
  /** May throw (KafkaAdminError) when Kafka refused the call as a whole. */
  toResults(res: Res, input: In, from: Answerer): Out;
  /** How long the broker may hold the request (a server-side timeout): the call's budget grows to match. */
  serverTimeoutMs?(input: In): number;
  /** The label of the call in errors (default: name). */
  label?(input: In): string;
}

/** Where the items of a fanned-out call go: one request per destination. */
export type FanOutRoute<Result> =
  /** Each partition's leader (from fresh Metadata); once more for the items whose result has one of these codes. */
  | { to: 'leaders'; retryOn: ReadonlySet<number> }
  /** Each key's coordinator (items are group or transactional ids); once more for those whose coordinator moved (or did not answer). */
  | { to: 'coordinators'; keyType: CoordinatorType; moved(result: Result): boolean }
  /** Broker config resources to their own broker, the rest to any broker. */
  | { to: 'config-owners' };

/** An API whose items are spread over brokers. Results are keyed by `key`, returned in request order. */
export interface FanOutApi<Item, Req, Res, Result extends { errorCode: number; error: string | null }> {
  name: string;
  api: WireApi<Req, Res>;
  route: FanOutRoute<Result>;
  key(item: Item): string;
  build(batch: Item[], ctx: BuildContext): Req;
  /** The results of this answer, keyed by `key` (items the answer lacks get `missing`). */
  toResults(res: Res, batch: Item[], from: Answerer): Map<string, Result>;
  /** The result of an item whose request failed or could not be sent. */
  failed(item: Item, errorCode: number, error: string | null, from: Answerer): Result;
  /** The result of an item the answer does not mention. */
  missing(item: Item): Result;
}

/**
 * What the router lends an API that spreads its own items (the transaction
 * APIs: DescribeProducers, ListTransactions, DescribeTransactions,
 * WriteTxnMarkers): the same connections, Metadata and broker order as every
 * other call, under the call's budget (Router.call).
 */
export interface LentRouting {
  /** Each partition's leader from fresh Metadata (-1: none; undefined: not in the metadata). */
  leaders(topics: string[]): Promise<Map<string, number>>;
  brokerConn(id: number): WireBroker | null;
  brokerIds(): Promise<number[]>;
  /** Any broker that answers (for FindCoordinator). */
  anyBroker<T>(what: string, send: (c: WireBroker) => Promise<T>): Promise<T>;
  connTo(host: string, port: number, nodeId: number): WireBroker;
  concurrency: number;
}
