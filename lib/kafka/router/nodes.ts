// The admin's view of the cluster: connections by address, the brokers and
// controller the last Metadata named, and which brokers failed us lately
// (asked last for questions any broker can answer). A snapshot pass is a Nodes
// too (PassBounds): every call capped by what is left of the pass, and brokers
// the pass found down not asked again in it.

import { mapLimit, withTimeout } from '../limits.ts';
import { errorMessage } from '../../runtime/errors.ts';
import { KafkaAdminError } from '../errors.ts';
import { UnsupportedVersionError, WireBroker, type RawMetadata, type RequestOptions, type WireApi, type WireOptions } from '../wire.ts';
import { Metadata } from '../api/metadata/call.ts';
import { tpKey, type TopicPartition } from '../partitions.ts';

export interface BrokerAddress {
  host: string;
  port: number;
}

export function parseAddress(hostPort: string): BrokerAddress {
  const i = hostPort.lastIndexOf(':');
  return { host: hostPort.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(hostPort.slice(i + 1)) };
}

/** Connections a reader already has open (a snapshot's), with what its Metadata said: an admin over them skips its own handshakes. */
export interface OpenConnections {
  wire: WireOptions;
  brokers: readonly { id: number; host: string; port: number }[];
  controllerId: number;
  conns: Iterable<WireBroker>;
}

/** A bounded pass over the cluster (a snapshot): every timeout is capped by what is left of it. */
export interface PassBounds {
  remaining(): number;
}

export class Nodes {
  private readonly conns = new Map<string, WireBroker>();
  /** Connections of one read's own (a request the broker may hold must not stall the shared one): closed at close. */
  private readonly dedicatedConns: WireBroker[] = [];
  /** Lent by their owner, who closes them: left open at close. */
  private readonly borrowed = new Set<WireBroker>();
  brokers = new Map<number, BrokerAddress>();
  controllerId = -1;
  /** Brokers that failed us lately: asked last for cluster-wide questions. */
  readonly suspects = new Set<number>();
  /** Brokers this pass found down: not asked again in it (a pass only; an admin keeps asking its suspects, last). */
  readonly down = new Set<number>();
  closed = false;

  constructor(
    private readonly bootstrapServers: string[],
    readonly wire: WireOptions,
    readonly timeoutMs: number,
    readonly concurrency: number,
    private readonly knownLeaders: ReadonlyMap<string, number> | null = null,
    readonly pass: PassBounds | null = null,
  ) {}

  /** A call's timeout: its own, or what is left of the pass if less. */
  bound(ms: number): number {
    return this.pass ? Math.min(ms, this.pass.remaining()) : ms;
  }

  /** A broker that failed: asked last from now on, and in a pass no more. */
  markFailed(id: number): void {
    this.suspects.add(id);
    if (this.pass) this.down.add(id);
  }

  /**
   * The leaders the caller gave at open for every one of these partitions, when
   * each is a live broker of the cluster; else null (ask Metadata: it also says
   * why a partition has no leader).
   */
  givenLeaders(partitions: readonly TopicPartition[]): Map<string, number> | null {
    if (!this.knownLeaders) return null;
    const out = new Map<string, number>();
    for (const { topic, partition } of partitions) {
      const key = tpKey(topic, partition);
      const leader = this.knownLeaders.get(key);
      if (leader === undefined || !this.brokers.has(leader)) return null;
      out.set(key, leader);
    }
    return out;
  }

  conn(address: BrokerAddress, nodeId: number | null): WireBroker {
    if (this.closed) throw new KafkaAdminError('the admin client is closed');
    const key = `${address.host}:${address.port}`;
    let c = this.conns.get(key);
    if (!c) {
      c = new WireBroker(address.host, address.port, nodeId, this.wire);
      this.conns.set(key, c);
    }
    return c;
  }

  /** A bootstrap server's connection is kept when Metadata advertises the same address (one handshake less: TLS, SASL, ApiVersions). */
  brokerConn(id: number): WireBroker | null {
    const address = this.brokers.get(id);
    return address ? this.conn(address, id).as(id) : null;
  }

  /** A new connection to that address, not shared with other calls; closed with the others. */
  dedicated(address: BrokerAddress, nodeId: number | null): WireBroker {
    if (this.closed) throw new KafkaAdminError('the admin client is closed');
    const c = new WireBroker(address.host, address.port, nodeId, this.wire);
    this.dedicatedConns.push(c);
    return c;
  }

  /** Known brokers (but those a pass found down), the ones that failed lately last. */
  brokerOrder(): number[] {
    const ids = [...this.brokers.keys()].filter((id) => !this.down.has(id)).sort((a, b) => a - b);
    return [...ids.filter((id) => !this.suspects.has(id)), ...ids.filter((id) => this.suspects.has(id))];
  }

  /** One request of `spec` on this connection, its answer still raw. */
  send<Req, Res>(c: WireBroker, spec: { api: WireApi<Req, Res> }, req: Req, options: RequestOptions = {}): Promise<Res> {
    return c.request(spec.api, req, options);
  }

  private learn(md: RawMetadata): void {
    if (md.brokers.length > 0) this.brokers = new Map(md.brokers.map((b) => [b.nodeId, { host: b.host, port: b.port }]));
    this.controllerId = md.controllerId;
  }

  /** The brokers and connections another reader has open, as if bootstrapped through them. */
  adopt(open: OpenConnections): void {
    this.brokers = new Map(open.brokers.map((b) => [b.id, { host: b.host, port: b.port }]));
    this.controllerId = open.controllerId;
    for (const c of open.conns) {
      this.conns.set(c.address, c);
      this.borrowed.add(c);
    }
  }

  /**
   * Metadata (`topics`: [] none, null every topic) from the bootstrap servers,
   * learnt. Connects to every one at once (a dead first entry must not eat the
   * budget), then asks the first that connected, and the others in turn only if
   * it fails: a fleet's Metadata (200,000 partitions, 9 MB) is decoded once, not
   * once per bootstrap server. Each connect and each ask is bounded by
   * `perAttemptMs`. Stays on raw connections: there is no Metadata to route by yet.
   */
  async bootstrap(topics: string[] | null = [], perAttemptMs = this.timeoutMs): Promise<RawMetadata> {
    const failures: string[] = [];
    const conns = this.bootstrapServers.map((addr) => {
      const conn = this.conn(parseAddress(addr), null);
      return withTimeout(conn.connect(), this.bound(perAttemptMs), `connect to ${addr}`).then(
        () => ({ addr, conn }),
        (err: unknown) => {
          failures.push(`${addr}: ${errorMessage(err)}`);
          throw err;
        },
      );
    });
    const asked = new Set<string>();
    const req = Metadata.build(topics, { requestTimeoutMs: this.wire.requestTimeoutMs });
    for (let i = 0; i < conns.length; i++) {
      let next: { addr: string; conn: WireBroker };
      try {
        // The first connected server not asked yet.
        next = await Promise.any(conns.map((c) => c.then((x) => (asked.has(x.addr) ? Promise.reject(new Error('asked')) : x))));
      } catch {
        break;
      }
      asked.add(next.addr);
      try {
        const md = await withTimeout(this.send(next.conn, Metadata, req), this.bound(perAttemptMs), `Metadata from ${next.addr}`);
        this.learn(md);
        return md;
      } catch (err) {
        failures.push(`${next.addr}: ${errorMessage(err)}`);
      }
    }
    throw new KafkaAdminError(`could not read cluster metadata from any bootstrap server (${failures.join('; ')})`);
  }

  /** The connections open to the brokers, and what Metadata said, for a reader alongside (adopt). */
  openConnections(): OpenConnections {
    const brokers = [...this.brokers].map(([id, a]) => ({ id, host: a.host, port: a.port })).sort((a, b) => a.id - b.id);
    return { wire: this.wire, brokers, controllerId: this.controllerId, conns: brokers.map((b) => this.brokerConn(b.id)!) };
  }

  /**
   * Sends to one broker after another until one answers; for questions any
   * broker can answer. After every known broker, the bootstrap servers: when the
   * brokers we last heard of are all down (the others were down when we asked),
   * they are the way back in. Throws the failures if nobody answered.
   */
  async anyBroker<T>(what: string, send: (c: WireBroker, id: number | null) => Promise<T>, order = this.brokerOrder()): Promise<{ result: T; brokerId: number | null }> {
    const failures: string[] = [];
    const tried = new Set<WireBroker>();
    const targets: { id: number | null; conn: () => WireBroker | null; label: string }[] = [
      ...order.map((id) => ({ id, conn: () => this.brokerConn(id), label: `broker ${id}` })),
      ...this.bootstrapServers.map((addr) => ({ id: null, conn: () => this.conn(parseAddress(addr), null), label: addr })),
    ];
    for (const t of targets) {
      const c = t.conn();
      if (!c || tried.has(c)) continue;
      tried.add(c);
      try {
        const result = await send(c, t.id);
        if (t.id !== null) this.suspects.delete(t.id);
        return { result, brokerId: t.id };
      } catch (err) {
        if (err instanceof UnsupportedVersionError) throw err;
        if (t.id !== null) this.suspects.add(t.id);
        failures.push(`${t.label}: ${errorMessage(err)}`);
      }
    }
    throw new KafkaAdminError(`${what}: no broker answered (${failures.join('; ') || 'no broker known'})`);
  }

  /** Metadata from any broker, learnt (brokers, controller). */
  async freshMetadata(topics: string[] | null): Promise<RawMetadata> {
    const req = Metadata.build(topics, { requestTimeoutMs: this.wire.requestTimeoutMs });
    const { result, brokerId } = await this.anyBroker('Metadata', (c) => this.send(c, Metadata, req));
    this.learn(result);
    return Metadata.toResults(result, topics, { brokerId });
  }

  /** A broker id we have not heard of may have joined since: ask Metadata again before calling it absent. */
  async knowBrokers(ids: readonly number[]): Promise<void> {
    if (ids.some((id) => !this.brokers.has(id))) await this.freshMetadata([]).catch(() => undefined);
  }

  /** Runs `fn` for each item, `concurrency` at a time. */
  each<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
    return mapLimit(items, this.concurrency, fn).then(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const conns = [...this.conns.values(), ...this.dedicatedConns].filter((c) => !this.borrowed.has(c));
    this.conns.clear();
    this.dedicatedConns.length = 0;
    await Promise.all(conns.map((c) => c.disconnect()));
  }
}
