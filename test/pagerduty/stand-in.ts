// A local HTTP server standing in for PagerDuty's Events API and REST API:
// records every request, answers what the test says (202 by default).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  at: number;
}

export class PagerDutyStandIn {
  readonly received: Received[] = [];
  /** The next answers, in order; then `status` for the rest. */
  answers: { status: number; body?: unknown }[] = [];
  status = 202;
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : null, at: Date.now() });
        const answer = this.answers.shift() ?? { status: this.status };
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body ?? { status: 'success', message: 'Change event processed' }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  changeEvents(): { routing_key: string; payload: { summary: string; timestamp: string; source: string; custom_details: Record<string, unknown> }; links: { href: string; text: string }[] }[] {
    return this.received.filter((r) => r.path === '/v2/change/enqueue').map((r) => r.body as never);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

type ChangeEvent = ReturnType<PagerDutyStandIn['changeEvents']>[number];

/** The Events API v2 change event's shape, as PagerDuty documents it: these keys and no others. */
export function expectChangeEventShape(e: ChangeEvent, routingKey: string, source: string): void {
  expect(Object.keys(e).sort()).toEqual(['links', 'payload', 'routing_key']);
  expect(e.routing_key).toBe(routingKey);
  expect(Object.keys(e.payload).sort()).toEqual(['custom_details', 'source', 'summary', 'timestamp']);
  expect(e.payload.summary.length).toBeLessThanOrEqual(1024);
  expect(e.payload.source).toBe(source);
  expect(Number.isFinite(Date.parse(e.payload.timestamp))).toBe(true);
}
