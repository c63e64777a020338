// A real DynamoDB-compatible server (dynalite, in memory) on a random loopback
// port: the conditional-write code is tested against it, never against a fake.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';

export interface LocalDynamo {
  client: DynamoDBClient;
  endpoint: string;
  close(): Promise<void>;
}

/** `createTableMs` > 0 keeps a new table CREATING that long, as DynamoDB does for a while. */
export async function startLocalDynamo(opts: { createTableMs?: number } = {}): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: opts.createTableMs ?? 0, deleteTableMs: 0, updateTableMs: 0 });
  // The SDK keeps idle sockets open: a server that closes them after Node's 5 s default races
  // the next request on them (ECONNRESET). Keep idle sockets as long as the client might.
  (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // A lost conditional write is an answer, not a fault: no SDK retries hiding races.
    maxAttempts: 1,
  });
  return {
    client,
    endpoint,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
