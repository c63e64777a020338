// How answers become results, the same for every API: one result per item
// asked, in the order asked, Kafka's code and name kept; an item the broker
// left out of its answer is UNKNOWN_SERVER_ERROR, never silently dropped.

import { TimeoutError } from '../limits.ts';
import { UnsupportedVersionError } from '../wire.ts';
import { KafkaErrorCode, kafkaError } from '../errors.ts';
import { errorMessage } from '../../runtime/errors.ts';

/** One result per requested item, in request order; `missing` stands in for an item the answer lacks. */
export function resultsInRequestOrder<I, R>(requested: readonly I[], key: (item: I) => string, answered: ReadonlyMap<string, R>, missing: (item: I) => R): R[] {
  return requested.map((item) => answered.get(key(item)) ?? missing(item));
}

/** The error of an item the response has no result for. */
export function missingResult(what: 'partition' | 'resource' | 'group'): { errorCode: number; error: string } {
  return { errorCode: KafkaErrorCode.UNKNOWN_SERVER_ERROR, error: `UNKNOWN_SERVER_ERROR: the response has no result for this ${what}` };
}

/** A request that got no answer, in Kafka's terms (the codes Java clients report for the same). */
export function transportError(err: unknown, where: string): { errorCode: number; error: string } {
  const timedOut = err instanceof TimeoutError || (err instanceof Error && err.name === 'KafkaJSRequestTimeoutError');
  const errorCode = timedOut ? KafkaErrorCode.REQUEST_TIMED_OUT : err instanceof UnsupportedVersionError ? KafkaErrorCode.UNSUPPORTED_VERSION : KafkaErrorCode.NETWORK_EXCEPTION;
  return { errorCode, error: `${kafkaError(errorCode).type}: ${where}: ${errorMessage(err)}` };
}

/**
 * transportError as the transaction APIs have always classified it (a message
 * saying "timed out" is REQUEST_TIMED_OUT): kept apart so their results read
 * exactly as before.
 */
export function lentTransportError(err: unknown, where: string): { errorCode: number; error: string } {
  const errorCode =
    err instanceof UnsupportedVersionError
      ? KafkaErrorCode.UNSUPPORTED_VERSION
      : err instanceof Error && /timed? ?out/i.test(err.message)
        ? KafkaErrorCode.REQUEST_TIMED_OUT
        : KafkaErrorCode.NETWORK_EXCEPTION;
  return { errorCode, error: `${kafkaError(errorCode).type}: ${where}: ${errorMessage(err)}` };
}

/** Partitions first by topic, then by number: the order listings are returned in. */
export const byTopicPartition = (a: { topic: string; partition: number }, b: { topic: string; partition: number }) => a.topic.localeCompare(b.topic) || a.partition - b.partition;
