// One error base (lib/runtime/errors.ts): every error class of ours says
// transient, needs-human or fatal, and the worker, the operations runner and
// the CLI's exit codes decide from that class, never from a name or a message.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { ResponderError, UsageError, failureOf, foreignTransient } from '../../lib/runtime/errors.ts';
import { ConfigError } from '../../lib/config/schema.ts';
import { PermanentJobError } from '../../lib/worker/worker.ts';
import { processSqsBatch } from '../../lib/worker/sqs-batch.ts';
import { JobTooLargeError, SpilledPayloadMissingError } from '../../lib/queue/oversize.ts';
import { UnknownIncidentError } from '../../lib/timeline/load.ts';
import { ProbeOutputError } from '../../lib/hosts/probe-output.ts';
import { AssembleError } from '../../lib/hosts/probe-records.ts';
import { ScriptParameterError } from '../../lib/hosts/script-errors.ts';
import { TimeoutError } from '../../lib/kafka/limits.ts';
import { UnsupportedVersionError } from '../../lib/kafka/wire.ts';
import { ProtocolError } from '../../lib/kafka/protocol/codec.ts';
import { BootstrapUnreachableError } from '../../lib/kafka/snapshot.ts';
import { KafkaAdminError, wholeCallError } from '../../lib/kafka/errors.ts';
import { OperationError, classify } from '../../lib/operations/failures.ts';
import { OperationsUnavailableError } from '../../lib/operations/backend.ts';
import { SharedDiagnosisTimeout } from '../../lib/diagnose/single-flight.ts';
import { ClusterBusyError } from '../../lib/diagnose/cluster-slots.ts';
import { UnknownTopicError } from '../../lib/diagnose/topic-scope.ts';
import { UsageError as DiagnoseUsageError } from '../../lib/diagnose/cli-support.ts';
import { exitCodeOf } from '../../lib/cli/main.ts';
import type { SqsRecord } from '../../lib/runtime/lambda-types.ts';
import { recordingLog } from '../helpers/recording-log.ts';

const CLASSES = ['transient', 'needs-human', 'fatal'];

/** One instance of every exported error class of ours. */
const ours: ResponderError[] = [
  new UsageError('u'),
  new ConfigError('c'),
  new PermanentJobError('p'),
  new JobTooLargeError('j'),
  new SpilledPayloadMissingError('s'),
  new UnknownIncidentError('i'),
  new ProbeOutputError('empty', 'e'),
  new AssembleError('empty', 'a'),
  new ScriptParameterError('x'),
  new TimeoutError('read', 10),
  new UnsupportedVersionError('Metadata', 'b:9092', 'm'),
  new ProtocolError('truncated'),
  new BootstrapUnreachableError('b'),
  new KafkaAdminError('no broker'),
  new OperationError('needs-human', { code: 'x' }),
  new OperationsUnavailableError('o'),
  new SharedDiagnosisTimeout('t'),
  new ClusterBusyError('prod', 2, 5),
  new UnknownTopicError('t', 'prod'),
];

/** lib/ source files (not tests). */
function sources(dir = 'lib'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

describe('one error base', () => {
  it('every error class in lib/ extends ResponderError (directly or through one of ours) and says its class', () => {
    const declared: string[] = [];
    for (const file of sources()) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/class (\w+) extends (\w+)\b[^{]*\{([\s\S]*?)\n\}/g)) {
        const [, name, base, body] = m as unknown as [string, string, string, string];
        if (!/Error$|^ResponderError$/.test(base)) continue;
        declared.push(name!);
        if (name === 'ResponderError') {
          expect(file).toBe(join('lib', 'runtime', 'errors.ts'));
          continue;
        }
        expect(base, `${file}: ${name} extends ${base}`).not.toBe('Error');
        if (base === 'ResponderError') expect(body, `${file}: ${name} says no class`).toMatch(/\bfailure\b/);
      }
    }
    expect(declared.length).toBeGreaterThanOrEqual(ours.length);
    for (const e of ours) {
      expect(e).toBeInstanceOf(ResponderError);
      expect(CLASSES, e.name).toContain(e.failure);
    }
  });

  it('one UsageError, used by both CLIs', () => {
    expect(DiagnoseUsageError).toBe(UsageError);
    const timelineCli = readFileSync('lib/timeline/cli.ts', 'utf8');
    expect(timelineCli).not.toMatch(/class UsageError/);
    expect(timelineCli).toMatch(/import \{ UsageError \} from '..\/runtime\/errors.ts'/);
  });

  it('ConfigError: needs a person, unless it only wraps a parameter read that got no answer', () => {
    expect(new ConfigError('invalid config').failure).toBe('needs-human');
    expect(new ConfigError('cannot read SSM parameter p: timeout', 'transient').failure).toBe('transient');
  });

  it('KafkaAdminError: fatal when Kafka refused the call with a code a retry will not change, else transient', () => {
    expect(wholeCallError('createTopics', 29).failure).toBe('fatal'); // TOPIC_AUTHORIZATION_FAILED
    expect(wholeCallError('describeGroups', 14).failure).toBe('transient'); // COORDINATOR_LOAD_IN_PROGRESS
    expect(new KafkaAdminError('no broker answered').failure).toBe('transient');
  });
});

describe('the worker, the runner and the CLI decide from the class', () => {
  const rec = (id: string): SqsRecord => ({
    messageId: id,
    receiptHandle: `rh-${id}`,
    body: JSON.stringify({ n: id }),
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1700000000000', SenderId: 'AIDA', ApproximateFirstReceiveTimestamp: '1700000000000', MessageGroupId: `g-${id}`, MessageDeduplicationId: id, SequenceNumber: id },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:kafka-responder-jobs.fifo',
    awsRegion: 'eu-west-1',
  });

  it('worker: a fatal error is dropped, transient and needs-human are retried; a name alone decides nothing', async () => {
    const named = Object.assign(new Error('looks permanent'), { name: 'PermanentJobError' });
    const thrown: Record<string, unknown> = { fatal: wholeCallError('alterConfigs', 29), transient: new TimeoutError('read', 5), human: new ConfigError('fix me'), named };
    for (const [id, err] of Object.entries(thrown)) {
      const out = await processSqsBatch({ Records: [rec(id)] }, async () => Promise.reject(err), recordingLog());
      expect(out.batchItemFailures.length, id).toBe(id === 'fatal' ? 0 : 1);
    }
  });

  it('runner: classify returns the class of ours, and foreign errors by their documented properties', () => {
    for (const e of ours) expect(classify(e).failure, e.name).toBe(e.failure);
    expect(classify(new ScriptParameterError('bad')).notice.code).toBe('host-script-refused');
    expect(classify(wholeCallError('alterConfigs', 29)).notice.code).toBe('kafka-refused');
    // A foreign error named like one of ours is not one of ours.
    expect(classify(Object.assign(new Error('x'), { name: 'ScriptParameterError' })).failure).toBe('transient');
    // kafkajs: `retriable`, retries exhausted, a protocol error; Node's `code`; the AWS SDK's `$retryable` / `$fault`.
    expect(classify(new kafkajs.KafkaJSConnectionError('refused')).notice.code).toBe('unreachable');
    expect(classify(new kafkajs.KafkaJSNumberOfRetriesExceeded(new Error('x'), { retryCount: 5, retryTime: 100 })).notice.code).toBe('unreachable');
    expect(classify(new kafkajs.KafkaJSProtocolError({ message: 'm', type: 'NOT_CONTROLLER', code: 41, retriable: false } as never)).notice.code).toBe('unreachable');
    expect(classify(new kafkajs.KafkaJSNonRetriableError('sasl')).notice.code).toBe('unexpected-error');
    expect(classify(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })).notice.code).toBe('unreachable');
    expect(foreignTransient({ name: 'ThrottlingException', $retryable: { throttling: true } })).toBe(true);
    expect(foreignTransient({ name: 'InternalServerError', $fault: 'server' })).toBe(true);
    expect(foreignTransient({ name: 'TimeoutNetworkConnectionRetriable' })).toBe(false);
    expect(classify(new Error('boom'))).toMatchObject({ failure: 'transient', notice: { code: 'unexpected-error' } });
  });

  it('CLI: a UsageError exits 2, any other failure 1; an error merely named UsageError is not one', () => {
    expect(exitCodeOf(new UsageError('--config and --bootstrap'))).toBe(2);
    expect(exitCodeOf(new ConfigError('invalid config'))).toBe(1);
    expect(exitCodeOf(Object.assign(new Error('x'), { name: 'UsageError' }))).toBe(1);
    expect(failureOf(new Error('x'))).toBeUndefined();
  });
});
