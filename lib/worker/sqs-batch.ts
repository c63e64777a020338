// One SQS batch for the worker Lambda. A job that can never succeed
// (malformed, unknown kind, already reported to the user) is dropped with a
// log line; any other failure is returned as a batch item failure so SQS
// retries it and finally moves it to the dead-letter queue. FIFO order: once
// a job failed, the rest of the batch goes back untouched.
import type { SqsBatchResponse, SqsEvent } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage } from '../runtime/errors.ts';
import { PermanentJobError } from './worker.ts';

export async function processSqsBatch(event: SqsEvent, run: (job: unknown) => Promise<void>, log: Log): Promise<SqsBatchResponse> {
  const failures: SqsBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    if (failures.length) {
      failures.push({ itemIdentifier: record.messageId });
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      log.error('dropping job: body is not JSON', { messageId: record.messageId });
      continue;
    }
    try {
      await run(body);
    } catch (err) {
      if (err instanceof PermanentJobError) log.error('dropping job', { messageId: record.messageId, error: errorMessage(err) });
      else {
        log.warn('job will be retried', { messageId: record.messageId, error: errorMessage(err) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
  }
  return { batchItemFailures: failures };
}
