// One failure model for every operation step, planner and compensation.
// A failure is a coded Notice (what happened, as data; renderers own the
// prose) with a class, and the class alone decides what the runner does:
//   transient    retry with backoff on later ticks (20 in a row: fatal);
//   needs-human  pause: the thread says why, with Resume and Cancel;
//   fatal        stop: the kind's compensation runs, the summary says what was left.
// Steps throw OperationError; anything else thrown is classified by classify().

import { KafkaAdminError } from '../kafka/errors.ts';
import { ScriptParameterError } from '../hosts/script-errors.ts';
import { ResponderError, foreignTransient, type FailureClass } from '../runtime/errors.ts';

export type { FailureClass } from '../runtime/errors.ts';

/** A coded fact for people: a warning, a refusal, a step's failure. Fields are the facts; no prose. */
export interface Notice {
  code: string;
  [field: string]: unknown;
}

/** An operation's failure: its class is chosen where it is thrown. */
export class OperationError extends ResponderError {
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

/** The notice of an error of ours that is not an OperationError: what it was, for the thread and the audit. */
function noticeCode(err: ResponderError): string {
  // Kafka refused the call for a reason another attempt will not change (authorization, policy, config).
  if (err instanceof KafkaAdminError && err.failure === 'fatal') return 'kafka-refused';
  // A value the host script's own rules refuse: the same value is refused every time.
  if (err instanceof ScriptParameterError) return 'host-script-refused';
  return err.failure === 'transient' ? 'unreachable' : 'unexpected-error';
}

/**
 * The class of anything a step or the runner threw: an error of ours says its
 * own (lib/runtime/errors.ts); anything else is trouble reaching something (the
 * cluster, a table, a host) until proven otherwise: transient, bounded by the
 * runner's consecutive-error limit, after which it is fatal. Its notice says
 * whether the library's error said so itself (unreachable) or not (unexpected-error).
 */
export function classify(err: unknown): { failure: FailureClass; notice: Notice; message: string } {
  if (err instanceof OperationError) return { failure: err.failure, notice: err.notice, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ResponderError) return { failure: err.failure, notice: { code: noticeCode(err), message }, message };
  return { failure: 'transient', notice: { code: foreignTransient(err) ? 'unreachable' : 'unexpected-error', message }, message };
}
