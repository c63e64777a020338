// A Kafka-protocol replay server for the fleet (cluster.ts): 50 listeners on
// loopback, one per broker, answering what the diagnosis asks with responses
// encoded by the project's own codec (lib/kafka/protocol/codec.ts). ApiVersions
// advertises the versions served, as a Kafka 3.x/4.x broker would (Metadata
// v12, ListOffsets v7 and OffsetFetch v8 flexible, many groups per OffsetFetch);
// FLEET_OLD_BROKER=1 advertises what a 2.8 broker shares with kafkajs instead
// (Metadata v6, OffsetFetch v4: one request per group; ListOffsets v3).
//
//   node --import tsx bench/fleet/server.ts      (prints "ready" when listening)
import { createServer, type Socket } from 'node:net';
import { Reader, Writer } from '../../lib/kafka/protocol/codec.ts';
import { buildFleet, type Fleet } from './cluster.ts';

const API = { ListOffsets: 2, Metadata: 3, OffsetFetch: 9, DescribeGroups: 15, ListGroups: 16, ApiVersions: 18, DescribeConfigs: 32, ListPartitionReassignments: 46 } as const;
const OLD = process.env.FLEET_OLD_BROKER === '1';
/** The one version served per API (min = max). */
const VERSION: Record<number, number> = { 2: OLD ? 3 : 7, 3: OLD ? 6 : 12, 9: OLD ? 4 : 8, 15: 2, 16: 2, 18: 2, 32: 2, 46: 0 };
/** First flexible version per API (KIP-482). */
const FIRST_FLEXIBLE: Record<number, number> = { 2: 6, 3: 9, 9: 6, 46: 0 };
const flexibleAt = (apiKey: number, version: number) => FIRST_FLEXIBLE[apiKey] !== undefined && version >= FIRST_FLEXIBLE[apiKey]!;

type Handler = (r: Reader, brokerId: number, version: number) => Buffer;

function apiVersions(): Buffer {
  const w = new Writer(false).int16(0);
  w.array(Object.entries(VERSION), (w, [key, v]) => w.int16(Number(key)).int16(v).int16(v));
  return w.int32(0).buffer;
}

function metadata(fleet: Fleet, topics: string[] | null, version: number): Buffer {
  const v12 = version >= 9;
  const w = new Writer(v12).int32(0);
  w.array(fleet.brokers, (w, b) => w.int32(b.id).string('127.0.0.1').int32(b.port).string(b.rack).tags());
  w.string('fleet-bench-cluster').int32(fleet.controllerId);
  const selected = topics === null ? fleet.topics : topics.map((n) => fleet.byName.get(n) ?? { name: n, internal: false, partitions: null });
  w.array(selected, (w, t) => {
    w.int16(t.partitions ? 0 : 3).string(t.name);
    if (v12) w.uuid(topicId(t.name));
    w.bool(t.internal);
    w.array(t.partitions ?? [], (w, p) => {
      w.int16(p.leader < 0 ? 5 : 0).int32(p.partition).int32(p.leader);
      if (v12) w.int32(7);
      w.int32Array(p.replicas).int32Array(p.isr).int32Array(p.leader < 0 ? p.replicas : []).tags();
    });
    if (v12) w.int32(-2147483648);
    w.tags();
  });
  return w.tags().buffer;
}

function topicId(name: string): Buffer {
  const id = Buffer.alloc(16);
  id.write(name.slice(-16), 'latin1');
  return id;
}

export function handlers(fleet: Fleet): Record<number, Handler> {
  let fullMetadata: Buffer | null = null;
  const committed = (g: { lag: number }, logEnd: number) => Math.max(0, logEnd - g.lag);
  return {
    [API.ApiVersions]: () => apiVersions(),
    [API.Metadata]: (r, _b, version) => {
      const topics = r.array((r) => {
        if (version >= 10) r.skip(16, 'topic id');
        const name = r.requiredString('topic');
        r.tags();
        return name;
      });
      if (topics === null) return (fullMetadata ??= metadata(fleet, null, version));
      return metadata(fleet, topics, version);
    },
    [API.ListGroups]: (_r, brokerId) => {
      const w = new Writer(false).int32(0).int16(0);
      w.array(
        fleet.groups.filter((g) => g.coordinator === brokerId),
        (w, g) => w.string(g.groupId).string('consumer'),
      );
      return w.buffer;
    },
    [API.DescribeGroups]: (r) => {
      const ids = r.array((r) => r.requiredString('group')) ?? [];
      const w = new Writer(false).int32(0);
      w.array(ids, (w, id) => {
        const g = fleet.groupsById.get(id);
        if (!g) return void w.int16(69).string(id).string('Dead').string('').string('').array([], () => {});
        w.int16(0).string(id).string('Stable').string('consumer').string('range');
        w.array(Array.from({ length: g.members }, (_, i) => i), (w, i) => {
          w.string(`${id}-member-${i}`).string(`${id}-client`).string('/10.0.0.1').int32(0).int32(0);
        });
      });
      return w.buffer;
    },
    [API.DescribeConfigs]: (r) => {
      const resources = r.array((r) => ({ type: r.int8(), name: r.requiredString('resource'), names: r.array((r) => r.requiredString('config')) })) ?? [];
      const w = new Writer(false).int32(0);
      w.array(resources, (w, res) => {
        const known = res.type === 2 && fleet.byName.has(res.name);
        w.int16(known ? 0 : 3).string(known ? null : 'unknown topic').int8(res.type).string(res.name);
        const values: Record<string, [string, number]> = {
          'min.insync.replicas': ['2', 1],
          'unclean.leader.election.enable': ['false', 5],
          'cleanup.policy': [res.name === '__consumer_offsets' ? 'compact' : 'delete', res.name === '__consumer_offsets' ? 1 : 5],
          'segment.bytes': ['1073741824', 5],
        };
        const names = known ? (res.names ?? Object.keys(values)).filter((n) => n in values) : [];
        w.array(names, (w, n) => {
          const [value, source] = values[n]!;
          w.string(n).string(value).bool(false).int8(source).bool(false).array([], () => {});
        });
      });
      return w.buffer;
    },
    [API.ListPartitionReassignments]: () => new Writer(true).int32(0).int16(0).string(null).array([], () => {}).tags().buffer,
    [API.OffsetFetch]: (r, _b, version) => {
      const partitionsOf = (w: Writer, g: { lag: number; topic: string }) => {
        const t = fleet.byName.get(g.topic)!;
        w.array([t], (w, t) => {
          w.string(t.name);
          w.array(t.partitions, (w, p) => {
            w.int32(p.partition).int64(committed(g, p.logEnd));
            if (version >= 5) w.int32(-1);
            w.string('').int16(0).tags();
          });
          w.tags();
        });
      };
      if (version >= 8) {
        const ids = r.array((r) => {
          const id = r.requiredString('group');
          r.array((r) => r.requiredString('topic'));
          r.tags();
          return id;
        }) ?? [];
        const w = new Writer(true).int32(0);
        w.array(ids, (w, id) => {
          const g = fleet.groupsById.get(id);
          w.string(id);
          if (g) partitionsOf(w, g);
          else w.array([], () => {});
          w.int16(0).tags();
        });
        return w.tags().buffer;
      }
      const g = fleet.groupsById.get(r.requiredString('group'));
      const w = new Writer(version >= 6).int32(0);
      if (g) partitionsOf(w, g);
      else w.array([], () => {});
      return w.int16(0).tags().buffer;
    },
    [API.ListOffsets]: (r, brokerId, version) => {
      r.int32();
      r.int8();
      const topics =
        r.array((r) => {
          const name = r.requiredString('topic');
          const partitions =
            r.array((r) => {
              const partition = r.int32();
              if (version >= 4) r.int32();
              const q = { partition, timestamp: r.int64() };
              r.tags();
              return q;
            }) ?? [];
          r.tags();
          return { name, partitions };
        }) ?? [];
      const w = new Writer(version >= 6).int32(0);
      const answer = (w: Writer, partition: number, errorCode: number, offset: number) => {
        w.int32(partition).int16(errorCode).int64(-1).int64(offset);
        if (version >= 4) w.int32(errorCode ? -1 : 7);
        w.tags();
      };
      w.array(topics, (w, t) => {
        const topic = fleet.byName.get(t.name);
        w.string(t.name);
        w.array(t.partitions, (w, q) => {
          const p = topic?.partitions[q.partition];
          if (!p) return answer(w, q.partition, 3, -1);
          if (p.leader !== brokerId) return answer(w, q.partition, 6, -1);
          answer(w, q.partition, 0, q.timestamp === -2 ? p.logStart : p.logEnd);
        });
        w.tags();
      });
      return w.tags().buffer;
    },
  };
}

/** Serves one broker: length-prefixed frames in, answers out, in order. */
function serve(socket: Socket, brokerId: number, table: Record<number, Handler>, stats: Map<string, number>): void {
  let pending = Buffer.alloc(0);
  socket.setNoDelay(true);
  socket.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const size = pending.readInt32BE(0);
      if (pending.length < 4 + size) break;
      const frame = pending.subarray(4, 4 + size);
      pending = pending.subarray(4 + size);
      const apiKey = frame.readInt16BE(0);
      const version = frame.readInt16BE(2);
      const correlationId = frame.readInt32BE(4);
      const flexible = flexibleAt(apiKey, version);
      const r = new Reader(frame.subarray(8), false);
      r.string(); // client id
      const body = new Reader(r.rest(), flexible);
      if (flexible) body.tags();
      const handler = table[apiKey];
      if (!handler || VERSION[apiKey] !== version) {
        socket.destroy(new Error(`broker ${brokerId}: API ${apiKey} v${version} not served`));
        return;
      }
      stats.set(`${apiKey}`, (stats.get(`${apiKey}`) ?? 0) + 1);
      const answer = handler(body, brokerId, version);
      const header = Buffer.alloc(flexible ? 9 : 8);
      header.writeInt32BE(answer.length + header.length - 4, 0);
      header.writeInt32BE(correlationId, 4);
      socket.write(header);
      socket.write(answer);
    }
  });
  socket.on('error', () => {});
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fleet = buildFleet();
  const table = handlers(fleet);
  const stats = new Map<string, number>();
  // Encode the big answer before the clock starts.
  const v = VERSION[API.Metadata]!;
  table[API.Metadata]!(new Reader(new Writer(v >= 9).array(null, () => {}).bool(false).bool(false).tags().buffer, v >= 9), 1, v);
  await Promise.all(
    fleet.brokers.map(
      (b) =>
        new Promise<void>((resolve, reject) => {
          const server = createServer((s) => serve(s, b.id, table, stats));
          server.once('error', reject);
          server.listen(b.port, '127.0.0.1', () => resolve());
        }),
    ),
  );
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    process.stderr.write(`requests by API key: ${JSON.stringify(Object.fromEntries(stats))}\n`);
    process.exit(0);
  });
}
