// serve's requests in flight (lib/local/in-flight.ts): work that can wait is
// held while a request is being answered, let go when the last answer is
// sent (or its connection is gone), and never held past its bound.
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestsInFlight } from '../../lib/local/in-flight.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A server whose answers wait until the test sends them. */
async function heldServer(inFlight: RequestsInFlight): Promise<{ url: string; held: ServerResponse[]; arrived: () => Promise<void> }> {
  const held: ServerResponse[] = [];
  let arrivedOne!: () => void;
  let arrival = new Promise<void>((r) => (arrivedOne = r));
  const server = createServer((req, res) => {
    inFlight.track(req, res);
    held.push(res);
    arrivedOne();
    arrival = new Promise<void>((r) => (arrivedOne = r));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held, arrived: () => arrival };
}

function send(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('RequestsInFlight', () => {
  it('quiet() waits for the answers in flight, and resolves at once when there are none', async () => {
    const inFlight = new RequestsInFlight();
    await inFlight.quiet(60_000);
    const { url, held, arrived } = await heldServer(inFlight);
    const first = arrived();
    const answers = [send(url)];
    await first;
    const second = arrived();
    answers.push(send(url));
    await second;
    let quiet = false;
    const waiting = inFlight.quiet(60_000).then(() => (quiet = true));
    held[0]!.end('ok');
    await answers[0];
    expect(quiet).toBe(false);
    held[1]!.end('ok');
    await Promise.all([...answers, waiting]);
    expect(quiet).toBe(true);
  });

  it('a request whose client went away counts no more', async () => {
    const inFlight = new RequestsInFlight();
    const { url, held, arrived } = await heldServer(inFlight);
    const first = arrived();
    const req = request(url, { agent: false });
    req.on('error', () => undefined);
    req.end();
    await first;
    const waiting = inFlight.quiet(60_000);
    req.destroy();
    await waiting;
    expect(held).toHaveLength(1);
  });

  it('waits only for the requests in flight when asked: one arriving later does not hold the work back', async () => {
    const inFlight = new RequestsInFlight();
    const { url, held, arrived } = await heldServer(inFlight);
    const first = arrived();
    const answers = [send(url)];
    await first;
    let quiet = false;
    const waiting = inFlight.quiet(60_000).then(() => (quiet = true));
    const second = arrived();
    answers.push(send(url));
    await second;
    held[0]!.end('ok');
    await waiting;
    // The later request is still being answered; the work went on without it.
    expect(quiet).toBe(true);
    held[1]!.end('ok');
    await Promise.all(answers);
  });

  it('never holds work past its bound while requests keep coming', async () => {
    const inFlight = new RequestsInFlight();
    const { url, held, arrived } = await heldServer(inFlight);
    const first = arrived();
    const answer = send(url);
    await first;
    await inFlight.quiet(20);
    held[0]!.end('ok');
    await answer;
  });
});
