// moto's server (pip install 'moto[server]'; .ci/run installs it) as the AWS
// account of a packaged Lambda: SQS, DynamoDB and SSM on 127.0.0.1, with the
// resources serverless.yml would create for the alert intake and the worker.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { STATE_TABLE_KEYS } from '../../lib/state/dynamo-state-store.ts';

export const hasMoto = (): boolean => spawnSync('moto_server', ['--help'], { encoding: 'utf8' }).status === 0;

export interface Moto {
  endpoint: string;
  /** The environment a packaged function gets: moto for every AWS call, no real credentials. */
  awsEnv: Record<string, string>;
  sqs: SQSClient;
  stop(): Promise<void>;
}

export async function startMoto(port: number): Promise<Moto> {
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  child.stdout!.on('data', (d: Buffer) => logs.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => logs.push(d.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited: ${logs.join('').slice(-2000)}`);
    if ((await fetch(`${endpoint}/moto-api/`).catch(() => null))?.ok) break;
    if (Date.now() > until) throw new Error(`moto_server did not start: ${logs.join('').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const awsEnv = {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_CONFIG_FILE: '/nonexistent',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
  };
  const client = { endpoint, region: awsEnv.AWS_REGION, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
  return {
    endpoint,
    awsEnv,
    sqs: new SQSClient(client),
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

/** The job queue (FIFO), the state table and the SSM parameters of a stage, as serverless.yml names them. */
export async function createIntakeResources(moto: Moto, stage: string, parameters: Record<string, { value: string; secure?: boolean }>): Promise<{ env: Record<string, string>; queueUrl: string }> {
  const client = { endpoint: moto.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } };
  const queue = await moto.sqs.send(new CreateQueueCommand({ QueueName: `kafka-responder-${stage}-jobs.fifo`, Attributes: { FifoQueue: 'true' } }));
  const stateTable = `kafka-responder-${stage}-state`;
  const dynamo = new DynamoDBClient(client);
  await dynamo.send(new CreateTableCommand({ TableName: stateTable, BillingMode: 'PAY_PER_REQUEST', ...STATE_TABLE_KEYS, GlobalSecondaryIndexes: STATE_TABLE_KEYS.GlobalSecondaryIndexes!.map((g) => ({ ...g })) }));
  const ssm = new SSMClient(client);
  for (const [name, p] of Object.entries(parameters)) await ssm.send(new PutParameterCommand({ Name: name, Value: p.value, Type: p.secure ? 'SecureString' : 'String', Overwrite: true }));
  return { env: { STATE_TABLE: stateTable, JOB_QUEUE_URL: queue.QueueUrl! }, queueUrl: queue.QueueUrl! };
}

/** Every message on the queue now (received and deleted), as the event source mapping would hand them over. */
export async function drainQueue(moto: Moto, queueUrl: string): Promise<Message[]> {
  const out: Message[] = [];
  for (let empty = 0; empty < 2; ) {
    const r = await moto.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }));
    const got = r.Messages ?? [];
    if (!got.length) {
      empty++;
      continue;
    }
    for (const m of got) {
      out.push(m);
      await moto.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  return out;
}

/** An SQS Lambda event of one message (the worker's batchSize is 1). */
export function sqsEvent(m: Message, queueArn = 'arn:aws:sqs:us-east-1:123456789012:kafka-responder-ci-jobs.fifo') {
  return {
    Records: [
      {
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body!,
        attributes: m.Attributes ?? {},
        messageAttributes: {},
        md5OfBody: m.MD5OfBody!,
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: 'us-east-1',
      },
    ],
  };
}
