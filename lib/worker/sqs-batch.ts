// One SQS batch for the worker Lambda, through Powertools' FIFO partial-batch
// processor: a record that fails is reported back as a batch item failure so
// SQS retries it (and finally moves it to the dead-letter queue), and, FIFO
// order, every record after it goes back untouched. A job whose error says
// it is fatal (lib/runtime/errors.ts: malformed, unknown kind, already reported
// to the user) is dropped with a log line instead: retrying it would only
// fail, or post, again. Every other failure is retried.
import { SqsFifoPartialProcessorAsync, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SqsBatchResponse, SqsEvent, SqsRecord } from '../runtime/lambda-types.ts';
import type { Log } from '../runtime/log.ts';
import { errorMessage, failureOf } from '../runtime/errors.ts';

export async function processSqsBatch(event: SqsEvent, run: (job: unknown) => Promise<void>, log: Log): Promise<SqsBatchResponse> {
  const handleRecord = async (record: SqsRecord): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      log.error('dropping job: body is not JSON', { messageId: record.messageId });
      return;
    }
    try {
      await run(body);
    } catch (err) {
      if (failureOf(err) === 'fatal') {
        log.error('dropping job', { messageId: record.messageId, error: errorMessage(err) });
        return;
      }
      log.warn('job will be retried', { messageId: record.messageId, error: errorMessage(err) });
      throw err;
    }
  };
  // A batch that failed as a whole is still answered with its failures, not thrown: the same retry, one log line.
  return processPartialResponse(event, handleRecord, new SqsFifoPartialProcessorAsync(), { throwOnFullBatchFailure: false });
}
