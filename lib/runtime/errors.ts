// One error base for the whole bot. An error of ours says, by its class, what
// whoever catches it does next:
//   transient    trying again later may succeed (the network, a timeout, a busy cluster);
//   needs-human  a person must act first (a config to fix, an operation to resume or cancel);
//   fatal        the same input fails every time (a malformed job, a value a script refuses).
// The worker (lib/worker/sqs-batch.ts: fatal is dropped, the rest retried), the
// operations runner (lib/operations/failures.ts classify) and the CLI's exit
// codes (lib/cli/main.ts) read that class, never an error's name or message.
// Errors thrown by libraries (kafkajs, Node, the AWS SDK) are read by the
// properties those libraries document: foreignTransient() below.

export type FailureClass = 'transient' | 'needs-human' | 'fatal';

/** Every error class of ours extends this and says its class (per class, or per instance where it depends). */
export abstract class ResponderError extends Error {
  abstract readonly failure: FailureClass;
}

/** Bad flags or a missing setting on the command line: the CLI prints the message and exits 2. */
export class UsageError extends ResponderError {
  override name = 'UsageError';
  readonly failure = 'fatal';
}

/** The class an error says it has; undefined for an error that is not ours (see foreignTransient). */
export function failureOf(err: unknown): FailureClass | undefined {
  return err instanceof ResponderError ? err.failure : undefined;
}

/** Node's system error codes for trouble reaching something (errno names, documented in node:os constants). */
const TRANSIENT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a library's error says another attempt may succeed, from its documented properties:
 *   - Node: a system error's `code` (ECONNREFUSED, ETIMEDOUT...);
 *   - kafkajs: every KafkaJSError carries `retriable`. A non-retriable one still says
 *     "try again" when it is KafkaJSNumberOfRetriesExceeded (retriable failures that
 *     lasted: it has `retryCount`) or a KafkaJSProtocolError (the broker answered with
 *     Kafka's numeric `code` and its `type`; KafkaAdminError decides on those codes);
 *   - the AWS SDK: `$retryable` on errors the SDK would retry, and `$fault: 'server'`.
 * Our own errors say it by their class (failureOf); this is for the rest.
 */
export function foreignTransient(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; type?: unknown; retriable?: unknown; retryCount?: unknown; $retryable?: unknown; $fault?: unknown };
  if (typeof e.code === 'string' && TRANSIENT_CODES.has(e.code)) return true;
  if (typeof e.retriable === 'boolean') {
    if (e.retriable) return true;
    if (typeof e.retryCount === 'number') return true;
    return typeof e.code === 'number' && typeof e.type === 'string';
  }
  if (e.$retryable !== undefined && e.$retryable !== null) return true;
  return e.$fault === 'server';
}

// The one way an error becomes a line of text (logs, Slack replies, reports).
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
