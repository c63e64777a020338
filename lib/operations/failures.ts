// One failure model for every operation step, planner and compensation.
// A failure is a coded Notice (what happened, as data; renderers own the
// prose) with a class, and the class alone decides what the runner does:
//   transient    retry with backoff on later ticks (20 in a row: fatal);
//   needs-human  pause: the thread says why, with Resume and Cancel;
//   fatal        stop: the kind's compensation runs, the summary says what was left.
// Steps throw OperationError; anything else thrown is classified by classify().

import { KafkaAdminError, isRetriable } from '../kafka/errors.ts';
import { ScriptParameterError } from '../hosts/script-errors.ts';

/** A coded fact for people: a warning, a refusal, a step's failure. Fields are the facts; no prose. */
export interface Notice {
  code: string;
  [field: string]: unknown;
}

export type FailureClass = 'transient' | 'needs-human' | 'fatal';

export class OperationError extends Error {
  override name = 'OperationError';
  constructor(
    readonly failure: FailureClass,
    readonly notice: Notice,
    /** A plain line for logs and for renderers that do not know the code. */
    message?: string,
  ) {
    super(message ?? notice.code);
  }
}

export const transient = (notice: Notice, message?: string) => new OperationError('transient', notice, message);
export const needsHuman = (notice: Notice, message?: string) => new OperationError('needs-human', notice, message);
export const fatal = (notice: Notice, message?: string) => new OperationError('fatal', notice, message);

/** Node and kafkajs errors that say "try again": the network, a timeout, a leader or coordinator moving. */
const TRANSIENT_NAMES = /Timeout|Connection|Network|NotLeader|NotCoordinator|LeaderNotAvailable|RequestTimedOut|Retriable|Throttl|KafkaJSNumberOfRetriesExceeded|KafkaJSProtocolError/i;
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * The class of anything a step or the runner threw. An OperationError carries
 * its own; Kafka refusing a call with a non-retriable code, and a host script
 * refusing a parameter, are fatal; everything else is trouble reaching
 * something (the cluster, a table, a host) until proven otherwise: transient,
 * bounded by the runner's consecutive-error limit, after which it is fatal.
 */
export function classify(err: unknown): { failure: FailureClass; notice: Notice; message: string } {
  if (err instanceof OperationError) return { failure: err.failure, notice: err.notice, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  // Kafka refused the call for a reason another attempt will not change (authorization, policy, config).
  if (err instanceof KafkaAdminError && err.code !== null && !isRetriable(err.code)) return { failure: 'fatal', notice: { code: 'kafka-refused', message }, message };
  // A value the host script's own rules refuse: the same value is refused every time.
  if (err instanceof ScriptParameterError) return { failure: 'fatal', notice: { code: 'host-script-refused', message }, message };
  const code = (err as { code?: unknown } | null)?.code;
  const name = err instanceof Error ? err.name : '';
  const known = (typeof code === 'string' && TRANSIENT_CODES.has(code)) || TRANSIENT_NAMES.test(name) || (err as { retriable?: unknown })?.retriable === true;
  return { failure: 'transient', notice: { code: known ? 'unreachable' : 'unexpected-error', message }, message };
}
