// Fault behaviour of the snapshot that needs no Kafka: a bootstrap server that
// refuses connections, and one that accepts and then never answers.

import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/net.ts';
import { BootstrapUnreachableError, takeSnapshot } from '../../lib/kafka/snapshot.ts';
import { parseConnectionConfig } from '../../lib/kafka/connection.ts';

let silent: Server;
let silentPort = 0;
const sockets: Socket[] = [];

beforeAll(async () => {
  silent = createServer((s) => sockets.push(s)); // accepts, reads, never writes
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent.close(resolve));
});


describe('takeSnapshot faults', () => {
  it('a refused bootstrap server is a clear error, quickly', async () => {
    const port = await closedPort();
    const t0 = Date.now();
    const err = await takeSnapshot(parseConnectionConfig({ bootstrap: [`127.0.0.1:${port}`] }), { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootstrapUnreachableError);
    expect((err as Error).message).toMatch(new RegExp(`could not read cluster metadata from any bootstrap server \\(127\\.0\\.0\\.1:${port}: `));
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a bootstrap server that never answers fails within the configured timeout, naming every server', async () => {
    const port = await closedPort();
    const t0 = Date.now();
    const err = await takeSnapshot(
      parseConnectionConfig({ bootstrap: [`127.0.0.1:${silentPort}`, `127.0.0.1:${port}`], connectionTimeoutMs: 10_000, requestTimeoutMs: 10_000 }),
      { timeoutMs: 1500 },
    ).catch((e: unknown) => e);
    const elapsed = Date.now() - t0;
    expect(err).toBeInstanceOf(BootstrapUnreachableError);
    expect((err as Error).message).toContain(`127.0.0.1:${silentPort}`);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(3000);
  });
});

describe('one snapshot per cluster at a time', () => {
  it('a second snapshot of the same cluster waits for the first instead of opening its own connections', async () => {
    const open = new Set<Socket>();
    const connectedAt: number[] = [];
    const server = createServer((s) => {
      open.add(s);
      connectedAt.push(Date.now());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const config = parseConnectionConfig({ bootstrap: [`127.0.0.1:${(server.address() as { port: number }).port}`], connectionTimeoutMs: 10_000, requestTimeoutMs: 10_000 });
    try {
      const t0 = Date.now();
      const [first, second] = await Promise.allSettled([takeSnapshot(config, { timeoutMs: 800 }), takeSnapshot(config, { timeoutMs: 3000 })]);
      expect(first.status).toBe('rejected');
      expect(second.status).toBe('rejected');
      // The second pass connected only once the first one's 800 ms were over, and ran on what was left of its own 3 s.
      expect(connectedAt).toHaveLength(2);
      expect(connectedAt[1]! - connectedAt[0]!).toBeGreaterThanOrEqual(750);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(2500);
      // A caller whose budget runs out while waiting is told why.
      const running = takeSnapshot(config, { timeoutMs: 1500 }).catch(() => {});
      const late = await takeSnapshot(config, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(String(late)).toMatch(/waiting for the snapshot of this cluster already running/);
      await running;
    } finally {
      for (const s of open) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
