// The API table (lib/kafka/api/index.ts): every folder of lib/kafka/api/ is
// one line of it, and an API registered as one folder plus one line is called
// through the router like the others: a toy API, encoded and decoded by our
// codec against a loopback broker that speaks the Kafka framing.
import { readdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KAFKA_APIS, type KafkaApi } from '../../lib/kafka/api/index.ts';
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../lib/kafka/protocol/api.ts';
import { Reader, Writer } from '../../lib/kafka/protocol/codec.ts';
import { Nodes } from '../../lib/kafka/router/nodes.ts';
import { Router } from '../../lib/kafka/router/router.ts';
import type { AdminApi } from '../../lib/kafka/router/spec.ts';
import { describeError, KafkaErrorCode } from '../../lib/kafka/errors.ts';

// ------------------------------------------------ the toy API: what its folder would hold

const TOY_API_KEY = 1000;

interface ToyResult {
  throttleTimeMs: number;
  results: { name: string; errorCode: number }[];
}

/** api/toy/codec.ts: v0 classic, v1 flexible. */
const ToyWire: ApiDefinition<{ names: readonly string[] }, ToyResult> = {
  apiKey: TOY_API_KEY,
  apiName: 'Toy',
  versions: [0, 1],
  firstFlexibleVersion: 1,
  encode(version, args) {
    assertVersion(ToyWire, version);
    const w = writerFor(ToyWire, version);
    w.array(args.names, (w, name) => w.string(name));
    return w.tags().buffer;
  },
  decode(version, body) {
    assertVersion(ToyWire, version);
    const r = readerFor(ToyWire, version, body);
    const throttleTimeMs = r.int32();
    const results = r.structs((r) => ({ name: r.requiredString('Toy name'), errorCode: r.int16() }));
    r.tags();
    return { throttleTimeMs, results };
  },
};

/** api/toy/call.ts: to any broker; each name's error in Kafka's words. */
const Toy: AdminApi<string[], { names: readonly string[] }, ToyResult, { name: string; error: string | null; from: number | null }[]> = {
  name: 'Toy',
  api: ToyWire,
  route: { to: 'any' },
  build: (names) => ({ names }),
  toResults: (res, _names, from) => res.results.map((r) => ({ name: r.name, error: describeError(r.errorCode), from: from.brokerId })),
};

/** The one table line. */
const TABLE = { ...KAFKA_APIS, Toy: { folder: 'toy', wire: ToyWire, call: Toy } } as const satisfies Record<string, KafkaApi>;

// ------------------------------------------------ a loopback broker: ApiVersions and the toy API

const API_VERSIONS_API_KEY = 18;
let server: Server | null = null;
const sockets: Socket[] = [];
const asked: { apiKey: number; version: number }[] = [];

function answer(apiKey: number, version: number, body: Reader): Buffer {
  if (apiKey === API_VERSIONS_API_KEY) {
    const w = new Writer(false).int16(0);
    w.array([[API_VERSIONS_API_KEY, 0, 2], [TOY_API_KEY, 0, 1]] as const, (w, [key, min, max]) => w.int16(key).int16(min).int16(max));
    return (version >= 1 ? w.int32(0) : w).buffer;
  }
  const names = body.array((r) => r.requiredString('name')) ?? [];
  const w = new Writer(version >= 1).int32(0);
  w.array(names, (w, name) => w.string(name).int16(name === 'missing' ? KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION : 0).tags());
  return w.tags().buffer;
}

function serve(socket: Socket): void {
  sockets.push(socket);
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const frame = pending.subarray(4, 4 + pending.readInt32BE(0));
      pending = pending.subarray(4 + frame.length);
      const apiKey = frame.readInt16BE(0);
      const version = frame.readInt16BE(2);
      const flexible = apiKey === TOY_API_KEY && version >= 1;
      asked.push({ apiKey, version });
      const header = new Reader(frame.subarray(8), false);
      header.string(); // client id
      const body = new Reader(header.rest(), flexible);
      if (flexible) body.tags();
      const out = answer(apiKey, version, body);
      const head = Buffer.alloc(flexible ? 9 : 8);
      head.writeInt32BE(head.length - 4 + out.length, 0);
      head.writeInt32BE(frame.readInt32BE(4), 4);
      socket.write(Buffer.concat([head, out]));
    }
  });
  socket.on('error', () => {});
}

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  asked.length = 0;
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = null;
});

describe('the Kafka API table', () => {
  it('lists every folder of lib/kafka/api once, each under its own API name', () => {
    const folders = readdirSync(new URL('../../lib/kafka/api/', import.meta.url), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(Object.values(KAFKA_APIS).map((a) => a.folder).sort()).toEqual(folders);
    for (const [name, api] of Object.entries(KAFKA_APIS)) expect(api.wire.apiName, name).toBe(name);
  });

  it('calls a toy API registered by one folder and one table line through the router', async () => {
    server = createServer(serve);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const wire = { ssl: false, clientId: 'api-table-test', connectionTimeoutMs: 2_000, requestTimeoutMs: 2_000 };
    const nodes = new Nodes([`127.0.0.1:${port}`], wire, 5_000, 4);
    nodes.adopt({ wire, brokers: [{ id: 7, host: '127.0.0.1', port }], controllerId: 7, conns: [] });
    try {
      const results = await new Router(nodes).single(TABLE.Toy.call, ['orders', 'missing']);
      expect(results).toEqual([
        { name: 'orders', error: null, from: 7 },
        { name: 'missing', error: describeError(KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION), from: 7 },
      ]);
      // Negotiated the highest version both sides have: v1, the flexible one.
      expect(asked.filter((a) => a.apiKey === TOY_API_KEY)).toEqual([{ apiKey: TOY_API_KEY, version: 1 }]);
    } finally {
      await nodes.close();
    }
  });
});
