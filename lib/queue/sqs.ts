// The Lambda entry points' job queue, from the environment (JOB_QUEUE_URL,
// DELAY_QUEUE_URL). Separate from queue.ts so `serve` and the CLI bundle never
// load the SQS client.
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { requireEnv, sqsClient } from '../runtime/aws.ts';
import { SqsJobQueue } from './queue.ts';

export function sqsJobQueue(env: NodeJS.ProcessEnv = process.env): SqsJobQueue {
  const client = sqsClient();
  // DELAY_QUEUE_URL: the standard queue for a long operation's next tick (FIFO queues take no per-message delay).
  return new SqsJobQueue({ sendMessage: (input) => client.send(new SendMessageCommand(input)) }, requireEnv('JOB_QUEUE_URL', env), env.DELAY_QUEUE_URL || undefined);
}
