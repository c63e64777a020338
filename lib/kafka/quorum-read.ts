// Reads the KRaft controller quorum (DescribeQuorum, API 55) through the
// brokers, over the snapshot's connections: a KRaft broker forwards it to the
// active controller, the quorum leader. With no leader a broker holds the request
// for its forwarding timeout (60 s on 3.9 and 4.4) and then answers
// REQUEST_TIMED_OUT: we wait a short bound instead and ask two brokers at once,
// so a lost quorum costs the diagnosis that bound, never a minute. Each ask has
// a connection of its own: a broker handles one request per connection at a
// time, so a DescribeQuorum held there would stall every later request of the
// snapshot on that connection (measured on 4.4: DescribeTopicPartitions and
// DescribeCluster waited out their timeouts behind it), closed without waiting
// for the held request. Never throws: the view says what happened
// (lib/kafka/quorum-view.ts). whenQuorumLost lets the snapshot's other reads stop
// waiting once the quorum is known lost.
import { DescribeQuorum, DESCRIBE_QUORUM_API_KEY } from './api/describe-quorum/codec.ts';
import { quorumViewFrom, quorumViewWithout, type QuorumView } from './quorum-view.ts';
import { KafkaErrorCode, kafkaError } from './errors.ts';
import { withTimeout } from './limits.ts';
import { pickVersion, UnsupportedVersionError, type WireBroker } from './wire.ts';
import { errorMessage } from '../runtime/errors.ts';

/** How long a forwarded DescribeQuorum may take before "no active controller answered": a healthy quorum answers in milliseconds. */
export const QUORUM_READ_TIMEOUT_MS = 3000;
/** Brokers asked at once: one broker cut off from the controllers alone does not make the quorum look lost. */
export const QUORUM_BROKERS_ASKED = 2;

export const QUORUM_NOT_SERVED_REASON = 'the brokers do not serve DescribeQuorum (ZooKeeper mode): there is no KRaft quorum to check';

type Outcome =
  | { broker: number; kind: 'answer'; view: QuorumView }
  | { broker: number; kind: 'no-leader' | 'unsupported' | 'error'; outcome: string };

/** Error codes that mean "no active controller to answer": the broker's forwarding timed out, or the controller asked is not (or no longer) the leader. */
const NO_LEADER_CODES: readonly number[] = [KafkaErrorCode.REQUEST_TIMED_OUT, KafkaErrorCode.NOT_LEADER_OR_FOLLOWER];

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'KafkaJSRequestTimeoutError');
}

async function ask(shared: WireBroker, open: OpenConnection, boundMs: number, now: () => number): Promise<Outcome> {
  const broker = shared.nodeId ?? -1;
  // The snapshot's connection already knows the broker's APIs: no new connection to learn it lacks this one.
  if (shared.apiVersions && !shared.apiVersions[DESCRIBE_QUORUM_API_KEY]) {
    return { broker, kind: 'unsupported', outcome: `broker ${shared.address} does not support DescribeQuorum (API key ${DESCRIBE_QUORUM_API_KEY})` };
  }
  const conn = open(shared.host, shared.port, shared.nodeId);
  try {
    const started = now();
    const res = await withTimeout(
      conn.connect().then(() => conn.request(DescribeQuorum, {}, { requestTimeoutMs: boundMs })),
      boundMs,
      `DescribeQuorum through broker ${broker}`,
    );
    const version = pickVersion(DescribeQuorum.versions, conn.apiVersions?.[DESCRIBE_QUORUM_API_KEY]) ?? 0;
    const partition = res.topics[0]?.partitions[0];
    const code = res.errorCode !== 0 ? res.errorCode : (partition?.errorCode ?? 0);
    if (code !== 0) {
      const e = kafkaError(code);
      const message = (res.errorCode !== 0 ? res.errorMessage : partition?.errorMessage) || e.message;
      const outcome = `${e.type} after ${now() - started} ms (${message})`;
      return { broker, kind: NO_LEADER_CODES.includes(code) ? 'no-leader' : 'error', outcome };
    }
    return { broker, kind: 'answer', view: quorumViewFrom(res, version, now(), broker) };
  } catch (err) {
    if (err instanceof UnsupportedVersionError) return { broker, kind: 'unsupported', outcome: err.message };
    if (isTimeout(err)) return { broker, kind: 'no-leader', outcome: `no answer within ${boundMs} ms` };
    return { broker, kind: 'error', outcome: errorMessage(err) };
  } finally {
    // Closed at once, the request still held failed on our side: kafkajs's disconnect would wait for it until the
    // connection's request timeout (10 s), and the snapshot closing its connections with it. Frees the broker's side too.
    void conn.abandon();
  }
}

/** The first answer, or every outcome when none answers. */
async function firstAnswer(asks: Promise<Outcome>[]): Promise<Outcome[]> {
  const answered = asks.map((p) => p.then((o) => (o.kind === 'answer' ? o : Promise.reject(new Error('no answer')))));
  try {
    return [await Promise.any(answered)];
  } catch {
    return Promise.all(asks);
  }
}

/** Opens a connection of the read's own to a broker (the snapshot's `open`: it closes them all at its end too). */
export type OpenConnection = (host: string, port: number, nodeId: number | null) => WireBroker;

export interface ReadQuorumOptions {
  open: OpenConnection;
  /** The budget left; the read waits at most min(this, QUORUM_READ_TIMEOUT_MS). */
  timeoutMs: number;
  now?: () => number;
}

/** The quorum as the brokers' active controller describes it, asked through the brokers of `conns` (those that answered, best first), each on a new connection. */
export async function readQuorum(conns: readonly WireBroker[], options: ReadQuorumOptions): Promise<QuorumView> {
  const now = options.now ?? Date.now;
  const at = now();
  const asked = conns.slice(0, QUORUM_BROKERS_ASKED);
  const askedIds = asked.map((c) => c.nodeId ?? -1);
  if (asked.length === 0) return quorumViewWithout('failed', 'no broker answered, so none could be asked', at);
  const boundMs = Math.max(1, Math.min(QUORUM_READ_TIMEOUT_MS, options.timeoutMs));
  const outcomes = await firstAnswer(asked.map((c) => ask(c, options.open, boundMs, now)));
  const tookMs = now() - at;
  const answer = outcomes.find((o): o is Extract<Outcome, { kind: 'answer' }> => o.kind === 'answer');
  if (answer) {
    return { ...answer.view, tookMs, askedBrokers: [answer.broker, ...askedIds.filter((id) => id !== answer.broker)] };
  }
  const failures = outcomes as Extract<Outcome, { outcome: string }>[];
  const extra = { tookMs, askedBrokers: askedIds };
  const explain = (list: typeof failures) => list.map((o) => `broker ${o.broker}: ${o.outcome}`).join('; ');
  if (failures.every((o) => o.kind === 'unsupported')) return quorumViewWithout('unavailable', QUORUM_NOT_SERVED_REASON, at, extra);
  const noLeader = failures.filter((o) => o.kind === 'no-leader');
  // A broker that failed otherwise (its connection dropped) does not outweigh one that waited for a controller in vain.
  if (noLeader.length > 0) {
    return quorumViewWithout('no-leader', `no active controller answered through the brokers (${explain(failures)})`, at, {
      ...extra,
      noLeaderEvidence: noLeader.map((o) => ({ broker: o.broker, outcome: o.outcome })),
    });
  }
  return quorumViewWithout('failed', `DescribeQuorum could not be read (${explain(failures)})`, at, extra);
}

/**
 * Sends a request only the active controller answers (KRaft brokers forward it)
 * once the quorum read is in, and not at all when it found no leader: a broker
 * would hold it until its timeout, and with it every later request on that
 * connection (a broker serves one request per connection at a time).
 */
export async function afterQuorum<T>(quorum: Promise<QuorumView>, send: () => Promise<T>): Promise<T> {
  const q = await quorum;
  if (q.status === 'no-leader') throw new Error('no active controller (the KRaft quorum has no leader): not asked');
  return send();
}

/** What the snapshot says of a read it stopped waiting for once the quorum was known lost. */
export const NO_QUORUM_LEADER = 'not known: no quorum leader';

/**
 * Settles once the read found no quorum leader, with its view; never when a
 * leader answered or the read failed otherwise. A race partner for reads the
 * absent controller could hold (they stop waiting, and say why).
 */
export function whenQuorumLost(quorum: Promise<QuorumView>): Promise<QuorumView> {
  return quorum.then((q) => (q.status === 'no-leader' ? q : new Promise<never>(() => {})));
}
