// A Log that keeps every line, for tests that assert what was logged.
import type { Log, LogFields } from '../../lib/runtime/log.ts';

export interface LogRecord {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields;
}

export function recordingLog(records: LogRecord[] = [], base: LogFields = {}): Log & { records: LogRecord[] } {
  const push = (level: LogRecord['level']) => (message: string, fields?: LogFields) => {
    records.push({ level, message, fields: { ...base, ...fields } });
  };
  return {
    records,
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    with: (fields) => recordingLog(records, { ...base, ...fields }),
  };
}
