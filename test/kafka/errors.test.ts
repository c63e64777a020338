// lib/kafka/errors.ts carries kafkajs's messages and retriable flags (so code
// that only compares codes does not bundle kafkajs): they must not drift.
import { describe, expect, it } from 'vitest';
import errorModule from 'kafkajs/src/protocol/error.js';
import { isRetriable, kafkaError } from '../../lib/kafka/errors.ts';

const { errorCodes } = errorModule as { errorCodes: { type: string; code: number; message: string; retriable: boolean }[] };

describe('Kafka error table', () => {
  it("has kafkajs's message and retriable flag for every code kafkajs knows", () => {
    for (const e of errorCodes.filter((x) => x.code !== 0)) {
      expect(kafkaError(e.code).message, String(e.code)).toBe(e.message);
      expect(isRetriable(e.code), String(e.code)).toBe(e.retriable);
    }
  });

  it("names codes as Kafka does, past kafkajs's table too", () => {
    expect(kafkaError(14).type).toBe('COORDINATOR_LOAD_IN_PROGRESS');
    expect(kafkaError(84).type).toBe('ELECTION_NOT_NEEDED');
    expect(kafkaError(89).type).toBe('THROTTLING_QUOTA_EXCEEDED');
    expect(isRetriable(89)).toBe(true);
    expect(isRetriable(85)).toBe(false);
    expect(kafkaError(9999).type).toBe('ERROR_9999');
  });
});
