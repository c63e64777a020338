// A real DynamoDB API (dynalite) on 127.0.0.1 with one state table, so code
// doing conditional writes is tested against conditional writes.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { DynamoStateStore, STATE_TABLE_KEYS } from '../../../lib/state/dynamo-state-store.ts';

export interface DynaliteHandle {
  client: DynamoDBClient;
  store: DynamoStateStore;
  tableName: string;
  close(): Promise<void>;
}

let counter = 0;

/** dynalite in this process, or (`separateProcess`) in a child one, as a real DynamoDB is: not on our event loop. */
async function listen(separateProcess: boolean): Promise<{ port: number; stop: () => Promise<void> }> {
  if (separateProcess) {
    const script = `const s = require(${JSON.stringify(createRequire(import.meta.url).resolve('dynalite'))})({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
s.keepAliveTimeout = 600000; s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once('exit', (code) => reject(new Error(`dynalite process exited (${code})`)));
    });
    return { port, stop: async () => void child.kill() };
  }
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }) as Server;
  // The SDK keeps idle sockets open: a server that closes them after Node's 5 s default races
  // the next request on them (ECONNRESET). Keep idle sockets as long as the client might.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function startDynalite(opts: { separateProcess?: boolean } = {}): Promise<DynaliteHandle> {
  const { port, stop } = await listen(opts.separateProcess ?? false);
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const tableName = `kr-state-${++counter}`;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      ...STATE_TABLE_KEYS,
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return {
    client,
    store: new DynamoStateStore(client, tableName),
    tableName,
    close: async () => {
      client.destroy();
      await stop();
    },
  };
}
