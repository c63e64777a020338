// WireBroker.abandon: a request the broker holds (DescribeQuorum with no quorum
// leader) fails at once and the connection closes, where kafkajs's disconnect
// waits for it until the request timeout. A loopback server that accepts and
// never answers holds kafkajs's ApiVersions handshake the same way.
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireBroker } from '../../lib/kafka/wire.ts';

const sockets: Socket[] = [];
let received = 0;
const silent = createServer((s) => {
  sockets.push(s);
  s.on('data', (d) => (received += d.length));
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe('WireBroker.abandon', () => {
  it('fails the request still in flight and closes the connection without waiting for the broker', async () => {
    // A request timeout far past the test's own: only abandon can end this.
    const wire = new WireBroker('127.0.0.1', port, 1, { ssl: false, clientId: 'test', connectionTimeoutMs: 5_000, requestTimeoutMs: 600_000 });
    const pending = wire.connect().then(
      () => 'answered',
      (err: unknown) => (err as Error).name,
    );
    // The handshake's request is at the broker, unanswered.
    for (let i = 0; i < 500 && received === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(received).toBeGreaterThan(0);
    await wire.abandon();
    expect(await pending).toBe('AbandonedRequestError');
    await new Promise<void>((resolve) => (sockets[0]!.closed ? resolve() : sockets[0]!.once('close', () => resolve())));
  }, 10_000);
});
