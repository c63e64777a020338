// Structured JSON logs with the request's correlation id on every line, from
// the Slack ack through the worker to SSM command ids. Production uses the
// Powertools logger; tests use a recording one (test/helpers/recording-log.ts).
import { Logger } from '@aws-lambda-powertools/logger';

export type LogFields = Record<string, unknown>;

export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds these fields to every line (e.g. { correlationId }). */
  with(fields: LogFields): Log;
}

export function powertoolsLog(serviceName: string, base: LogFields = {}): Log {
  const logger = new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO' });
  return wrap(logger, base);
}

function wrap(logger: Logger, base: LogFields): Log {
  return {
    info: (m, f) => logger.info(m, { ...base, ...f }),
    warn: (m, f) => logger.warn(m, { ...base, ...f }),
    error: (m, f) => logger.error(m, { ...base, ...f }),
    with: (fields) => wrap(logger, { ...base, ...fields }),
  };
}
